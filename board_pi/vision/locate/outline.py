"""The last resort of finding the board: its outline, where no grid line shows.

Some boards show no grid lines a camera can see: pale lines on pale squares, blurred, under
glare. Their edges still show: the playing surface against the board's frame, and the frame
against the table. Long straight edges are looked for (a Hough transform on the edges of each
colour channel), and every quadrilateral that two edges of one direction and two near a right
angle to it make is a candidate for the grid's outline, as it stands or inset by up to
:attr:`~.tuning.FinderTuning.outline_insets` squares (a margin between the frame and the grid).
The candidates are screened by how well their squares' colours gather by the premium layout's
kinds, the best few weighed in full (:func:`premium_match`), and the locator takes the best of
those whose grid lines are then found along their length where it puts them
(:func:`~.refine.snap_to_lines`).
"""

from __future__ import annotations

import itertools
import math

import cv2
import numpy as np

from ..geometry import GRID, grid_to_image
from .lattice import _kinds_alike, kinds_alike_many
from .tuning import TUNING, FinderTuning

_CENTRES = np.stack(np.meshgrid(np.arange(GRID) + 0.5, np.arange(GRID) + 0.5, indexing="xy"), -1).reshape(-1, 2)
"""The middle of every square, row by row, in grid units."""
_NINE = np.array([(dx, dy) for dy in (-0.25, 0, 0.25) for dx in (-0.25, 0, 0.25)])
_SAMPLES = (_CENTRES[:, None] + _NINE).reshape(-1, 1, 2).astype(np.float32)
"""Nine points of the middle of every square, row by row, in grid units."""


def _edge_lines(small: np.ndarray, tuning: FinderTuning) -> list[tuple[float, float, float]]:
    """Long straight edges as (angle of the normal in [0, pi), offset, length), merged where
    several segments lie on one line."""
    h, w = small.shape[:2]
    side = min(h, w)
    lab = cv2.cvtColor(cv2.GaussianBlur(small, (5, 5), 0), cv2.COLOR_BGR2LAB)
    edges = np.zeros((h, w), np.uint8)
    for ch in cv2.split(lab):
        edges |= cv2.Canny(ch, tuning.outline_canny[0], tuning.outline_canny[1])
    segs = cv2.HoughLinesP(edges, 1, np.pi / 360, int(tuning.outline_min_length * side * 0.5),
                           minLineLength=tuning.outline_min_length * side, maxLineGap=0.02 * side)
    if segs is None:
        return []
    lines: list[list[float]] = []  # angle, offset, length
    for x0, y0, x1, y1 in segs.reshape(-1, 4).astype(np.float64):
        length = math.hypot(x1 - x0, y1 - y0)
        theta = (math.atan2(y1 - y0, x1 - x0) + math.pi / 2) % math.pi
        rho = x0 * math.cos(theta) + y0 * math.sin(theta)
        for line in lines:  # the same line seen in pieces, or twice (an edge has two sides)
            d = abs(theta - line[0])
            if min(d, math.pi - d) < math.radians(2):
                r = rho if d < math.pi / 2 else -rho
                if abs(r - line[1]) < tuning.outline_merge * side:
                    if length > line[2]:
                        line[0], line[1] = theta, rho
                    line[2] += length
                    break
        else:
            lines.append([theta, rho, length])
    return [(a, b, c) for a, b, c in lines]


def _meet(a: tuple[float, float, float], b: tuple[float, float, float]) -> np.ndarray | None:
    m = np.array([[math.cos(a[0]), math.sin(a[0])], [math.cos(b[0]), math.sin(b[0])]])
    if abs(np.linalg.det(m)) < 1e-6:
        return None
    return np.linalg.solve(m, np.array([a[1], b[1]]))


def premium_match(lab: np.ndarray, corners: np.ndarray) -> float:
    """How much better the squares of the grid with ``corners`` (in order round it, from any
    corner) gather by their kind in the premium layout than they would a square off: each
    square's colour (the median of nine points of its middle, so a letter's ink does not count)
    by :func:`~.lattice._kinds_alike`, less the best of the layout moved a square each way. A
    quadrilateral that is not the grid matches a shifted layout about as well as the layout;
    the layout is the same all eight ways, so the order of the corners does not matter."""
    h, w = lab.shape[:2]
    pts = cv2.perspectiveTransform(_SAMPLES, grid_to_image(corners)).reshape(-1, 2)
    if (pts < 0).any() or (pts[:, 0] >= w).any() or (pts[:, 1] >= h).any():
        return -1.0
    c = np.median(lab[pts[:, 1].astype(int), pts[:, 0].astype(int)].reshape(GRID, GRID, -1, 3), axis=2)
    shifted = max(_kinds_alike(np.roll(c, k, axis=ax)) for k in (-1, 1) for ax in (0, 1))
    return _kinds_alike(c) - shifted


def _quads(lines: list[tuple[float, float, float]], w: int, h: int, tuning: FinderTuning) -> np.ndarray:
    """Every convex quadrilateral of about a square's proportions, inside the frame, that two
    edges of each of two directions near a right angle make: (n, 4, 2). The board's directions
    are taken from the longest edges in turn (an arm or the table's grain may be longer)."""
    side = min(h, w)
    lines = sorted(lines, key=lambda line: -line[2])
    tol = math.radians(tuning.outline_angle_tolerance)

    def apart(a: float, b: float) -> float:
        d = abs(a - b) % math.pi
        return min(d, math.pi - d)

    firsts: list[float] = []
    for line in lines:
        if len(firsts) == tuning.outline_directions:
            break
        if all(min(apart(line[0], f), abs(apart(line[0], f) - math.pi / 2)) >= tol for f in firsts):
            firsts.append(line[0])
    out = []
    m = 0.1 * side
    for first in firsts:
        one = [line for line in lines if apart(line[0], first) < tol][:tuning.outline_lines]
        other = [line for line in lines if abs(apart(line[0], first) - math.pi / 2) < tol][:tuning.outline_lines]
        for (a1, a2), (b1, b2) in itertools.product(itertools.combinations(one, 2), itertools.combinations(other, 2)):
            q = [_meet(a1, b1), _meet(b1, a2), _meet(a2, b2), _meet(b2, a1)]
            if any(p is None for p in q):
                continue
            quad = np.array(q, np.float32)
            if not cv2.isContourConvex(quad.reshape(-1, 1, 2)):
                continue
            sides = np.linalg.norm(quad - np.roll(quad, -1, axis=0), axis=1)
            if sides.min() < tuning.outline_min_length * side or sides.max() > 1.6 * sides.min():
                continue
            if (quad < -m).any() or (quad[:, 0] > w + m).any() or (quad[:, 1] > h + m).any():
                continue
            out.append(quad)
    return np.array(out, np.float32).reshape(-1, 4, 2)


def outline_grids(small: np.ndarray, tuning: FinderTuning = TUNING) -> list[tuple[float, np.ndarray]]:
    """Candidate grids in the working copy ``small`` (BGR) from the board's outline, best first:
    (:func:`premium_match`, corners in order round the grid), those matching at least
    :attr:`~.tuning.FinderTuning.outline_min_match`. Each outline is tried as it stands and
    inset by each of :attr:`~.tuning.FinderTuning.outline_insets` squares; all are screened by
    how their squares' middles gather by kind, and the best few weighed in full."""
    h, w = small.shape[:2]
    lines = _edge_lines(small, tuning)
    if len(lines) < 4:
        return []
    quads = _quads(lines, w, h, tuning)
    if not len(quads):
        return []
    unit = np.float32([[0, 0], [1, 0], [1, 1], [0, 1]])
    grids = []
    for quad in quads:
        U = cv2.getPerspectiveTransform(unit, quad)
        for s in tuning.outline_insets:  # the grid inset by s squares from the outline on every side
            t = s / (GRID + 2 * s)
            inner = np.float32([[t, t], [1 - t, t], [1 - t, 1 - t], [t, 1 - t]])
            grids.append(cv2.perspectiveTransform(inner.reshape(-1, 1, 2), U).reshape(4, 2))
    G = np.array(grids, np.float32)
    # Screening: each square's centre alone, every candidate at once.
    lab = cv2.cvtColor(cv2.blur(small, (5, 5)), cv2.COLOR_BGR2LAB)
    Hs = np.array([grid_to_image(g) for g in G])
    centres = np.concatenate([_CENTRES, np.ones((len(_CENTRES), 1))], axis=1)
    P = np.einsum("kij,nj->kni", Hs, centres)
    xy = P[..., :2] / P[..., 2:]
    inside = ((xy >= 0).all(axis=2) & (xy[..., 0] < w) & (xy[..., 1] < h)).all(axis=1)
    xs = np.clip(xy[..., 0], 0, w - 1).astype(int)
    ys = np.clip(xy[..., 1], 0, h - 1).astype(int)
    screen = np.where(inside, kinds_alike_many(lab[ys, xs].astype(np.float32)), -1.0)
    best = np.argsort(-screen, kind="stable")[:tuning.outline_weighed]  # ties kept in order on every CPU
    weighed = [(premium_match(lab, G[k]), G[k]) for k in best if screen[k] > -1]
    return sorted([(m, g) for m, g in weighed if m >= tuning.outline_min_match], key=lambda x: -x[0])
