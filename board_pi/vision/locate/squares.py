"""Stage 1 of finding the board: the squares between the grid lines.

On a working copy of the frame the grid lines are picked out by a local threshold, once for
boards with dark lines and once for boards with light lines; what is left between them are the
squares (empty squares, premium squares and tiles alike), kept as small convex four-sided
outlines of a square's proportions.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from .tuning import TUNING, FinderTuning


@dataclass(frozen=True, eq=False)
class Quads:
    """Four-sided outlines that may be squares: centres (N,2), corners (N,4,2), sizes (N,) and
    the two side vectors of each (N,2,2)."""

    centres: np.ndarray
    corners: np.ndarray
    sizes: np.ndarray
    axes: np.ndarray


def cell_masks(gray: np.ndarray, contrast: int, tuning: FinderTuning = TUNING, erode: int = 3) -> list[np.ndarray]:
    """Masks of what lies between grid lines, for dark lines and for light lines: a line is
    ``contrast`` grey levels darker (lighter) than its surroundings. The lines are thickened by
    an ``erode``-pixel square: more closes the gaps of a line the threshold sees only in dashes."""
    side = max(gray.shape)
    block = max(11, int(side * tuning.threshold_block_fraction) | 1)
    g = cv2.GaussianBlur(gray, (3, 3), 0)
    kernel = np.ones((erode, erode), np.uint8)
    return [
        # Dark lines: keep what is not clearly darker than its surroundings.
        cv2.erode(cv2.adaptiveThreshold(g, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY, block, contrast), kernel),
        # Light lines: keep what is not clearly lighter than its surroundings.
        cv2.erode(cv2.adaptiveThreshold(g, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY_INV, block, -contrast), kernel),
    ]


def find_quads(gray: np.ndarray, contrast: int | None = None, tuning: FinderTuning = TUNING,
               erode: int = 3) -> Quads:
    """The outlines in a grey working image that may be squares of the grid (``erode``: see
    :func:`cell_masks`)."""
    h, w = gray.shape
    contrast = tuning.line_contrast if contrast is None else contrast
    min_area = tuning.min_square_area_px
    max_area = h * w * tuning.max_square_area_fraction
    corners: list[list[list[int]]] = []
    for mask in cell_masks(gray, contrast, tuning, erode):
        # All outlines: a square's is the outer border of a white blob; the holes' borders
        # (letters on tiles, the grid's outline) are sorted out by shape below.
        contours, _ = cv2.findContours(mask, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
        for c in contours:
            if len(c) < 4:
                continue
            area_c = cv2.contourArea(c)
            if area_c < min_area or area_c > max_area:
                continue
            peri = cv2.arcLength(c, True)
            # A square's perimeter is 4*sqrt(area); letters and clutter are far more ragged.
            if peri > tuning.max_perimeter_ratio * math.sqrt(area_c):
                continue
            pts = None
            for eps in tuning.polygon_tolerances:
                approx = cv2.approxPolyDP(c, eps * peri, True)
                if len(approx) == 4:
                    pts = approx.reshape(4, 2).tolist()
                    break
            if pts is None:
                continue
            # Plain Python from here: four points are too few for numpy to pay off.
            (x0, y0), (x1, y1), (x2, y2), (x3, y3) = pts
            k0 = (x1 - x0) * (y2 - y1) - (y1 - y0) * (x2 - x1)
            k1 = (x2 - x1) * (y3 - y2) - (y2 - y1) * (x3 - x2)
            k2 = (x3 - x2) * (y0 - y3) - (y3 - y2) * (x0 - x3)
            k3 = (x0 - x3) * (y1 - y0) - (y0 - y3) * (x1 - x0)
            if not ((k0 > 0 and k1 > 0 and k2 > 0 and k3 > 0) or (k0 < 0 and k1 < 0 and k2 < 0 and k3 < 0)):
                continue  # not convex
            shoelace = (x0 * y1 - y0 * x1) + (x1 * y2 - y1 * x2) + (x2 * y3 - y2 * x3) + (x3 * y0 - y3 * x0)
            qa = abs(shoelace) / 2
            # The outline must fill its four-cornered reduction (a square, not a ragged blob).
            if qa <= 0 or not 0.8 < area_c / qa < 1.2:
                continue
            sides = (math.hypot(x1 - x0, y1 - y0), math.hypot(x2 - x1, y2 - y1), math.hypot(x3 - x2, y3 - y2), math.hypot(x0 - x3, y0 - y3))
            if max(sides) > tuning.max_side_ratio * min(sides):
                continue
            # Clockwise on screen (y down): positive shoelace area.
            if shoelace < 0:
                pts = pts[::-1]
            corners.append(pts)
    if not corners:
        z = np.zeros((0, 2), np.float32)
        return Quads(z, np.zeros((0, 4, 2), np.float32), np.zeros(0, np.float32), np.zeros((0, 2, 2), np.float32))
    Q = np.array(corners, np.float32)
    C = Q.mean(axis=1)
    a = ((Q[:, 1] - Q[:, 0]) + (Q[:, 2] - Q[:, 3])) / 2
    b = ((Q[:, 3] - Q[:, 0]) + (Q[:, 2] - Q[:, 1])) / 2
    sizes = np.sqrt(np.abs(a[:, 0] * b[:, 1] - a[:, 1] * b[:, 0]))
    return Quads(C, Q, sizes, np.stack([a, b], axis=1))
