"""Stage 4 of finding the board: the grid snapped to its lines at full resolution.

Each of the 16 + 16 grid lines is looked for in a rectified view near where the lattice put it,
piece by piece (a board is seldom flat and a lens bends lines); a homography fitted to the pieces
found moves the corners, unless it would move one so far that it found something else.
"""

from __future__ import annotations

import cv2
import numpy as np

from ..geometry import GRID, top_down_homography, warp_grid
from .tuning import TUNING, FinderTuning


def refine_corners(gray: np.ndarray, corners: np.ndarray, tuning: FinderTuning = TUNING) -> np.ndarray:
    """Snap the grid to its lines: each of the 16+16 lines is found in a rectified view, piece by
    piece; the corners as they were where too few of the lines are found (:func:`snap_to_lines`)."""
    snapped = snap_to_lines(gray, corners, tuning)
    return corners if snapped is None else snapped


def snap_to_lines(gray: np.ndarray, corners: np.ndarray, tuning: FinderTuning = TUNING) -> np.ndarray | None:
    """The grid's corners snapped to its lines, or None where too few pieces of the 16+16 lines
    are found near where ``corners`` put them, or they do not agree on one grid."""
    square_px = tuning.refine_square_px
    m = square_px
    g = float(GRID * square_px)
    H = top_down_homography(corners, square_px, m)
    dst = np.array([[m, m], [m + g, m], [m + g, m + g], [m, m + g]], np.float32)
    ideal_pts, seen_pts = line_pieces(gray, corners, tuning)
    if len(ideal_pts) < tuning.refine_min_points:
        return None
    # Each piece measures one coordinate (across its line); the other is taken as it stands,
    # which is right to well within the search window.
    Hc, inl = cv2.findHomography(ideal_pts, seen_pts, cv2.RANSAC, square_px * tuning.refine_inlier)
    if Hc is None or int(inl.sum()) < tuning.refine_min_inliers:
        return None
    in_top = cv2.perspectiveTransform(dst.reshape(-1, 1, 2), Hc).reshape(-1, 2)
    out = cv2.perspectiveTransform(in_top.reshape(-1, 1, 2), np.linalg.inv(H)).reshape(-1, 2)
    # A refinement that moves a corner by more than a third of a square found something else.
    sq = float(np.linalg.norm(corners[1] - corners[0])) / GRID
    if float(np.linalg.norm(out - corners, axis=1).max()) > tuning.refine_max_move * sq:
        return None
    return out.astype(np.float32)


def line_pieces(gray: np.ndarray, corners: np.ndarray, tuning: FinderTuning = TUNING) -> tuple[np.ndarray, np.ndarray]:
    """The pieces of the 16+16 grid lines found near where ``corners`` put them, in a rectified
    view of ``tuning.refine_square_px`` a square with a square's margin: where each piece should
    lie and where it was found, two (n, 2) arrays. Each line is cut into ``tuning.refine_pieces``
    pieces, each looked for within ``tuning.refine_search`` of a square either side; a piece not
    standing out from its surroundings is left out."""
    square_px = tuning.refine_square_px
    m = square_px
    side = GRID * square_px + 2 * m
    g = float(GRID * square_px)
    top = warp_grid(gray, corners, square_px, m).astype(np.float32)
    bg = cv2.blur(top, (square_px // 2 | 1, square_px // 2 | 1))
    on_idx = np.array([m + k * square_px for k in range(GRID + 1)])
    off_idx = on_idx[:-1] + square_px // 2
    best = None
    for R in (np.maximum(bg - top, 0), np.maximum(top - bg, 0)):
        # The grid's polarity is the one whose response peaks on the predicted lines.
        col = R[m:m + int(g)].mean(axis=0)
        score = float(col[on_idx].mean() - col[off_idx].mean())
        if best is None or score > best[0]:
            best = (score, R)
    assert best is not None
    R = best[1]
    search = int(square_px * tuning.refine_search)
    pieces = tuning.refine_pieces
    piece = GRID * square_px // pieces
    # Both directions at once: (2 axes, pieces, side) sums of the response along each piece,
    # then each line's profile across it: (2, pieces, 16 lines, window).
    bands = np.stack([R[m:m + pieces * piece].reshape(pieces, piece, side).sum(axis=1),
                      R.T[m:m + pieces * piece].reshape(pieces, piece, side).sum(axis=1)])
    x0 = m + np.arange(GRID + 1) * square_px
    offs = np.arange(-search, search + 1)
    prof = bands[:, :, x0[:, None] + offs]
    t = prof.argmax(axis=3)
    peak = np.take_along_axis(prof, t[..., None], axis=3)[..., 0]
    inside = (t > 0) & (t < len(offs) - 1)
    # A peak must stand out from the profile's own floor to count.
    good = inside & (peak >= tuning.refine_peak * np.median(prof, axis=3) + 1e-6)
    tc = np.clip(t, 1, len(offs) - 2)
    a_ = np.take_along_axis(prof, (tc - 1)[..., None], axis=3)[..., 0]
    c_ = np.take_along_axis(prof, (tc + 1)[..., None], axis=3)[..., 0]
    den = a_ - 2 * peak + c_
    sub = np.where(np.abs(den) > 1e-9, 0.5 * (a_ - c_) / np.where(np.abs(den) > 1e-9, den, 1.0), 0.0)
    seen_x = x0[None, None, :] + offs[0] + t + sub  # across the line
    along = (m + (np.arange(pieces) + 0.5) * piece)[None, :, None] * np.ones_like(seen_x)
    ideal_x = np.broadcast_to(x0[None, None, :], seen_x.shape).astype(np.float64)
    ideal_pts, seen_pts = [], []
    for axis in (0, 1):
        g_ = good[axis]
        if axis == 0:  # vertical lines: x measured, y along
            ideal_pts.append(np.stack([ideal_x[axis][g_], along[axis][g_]], 1))
            seen_pts.append(np.stack([seen_x[axis][g_], along[axis][g_]], 1))
        else:
            ideal_pts.append(np.stack([along[axis][g_], ideal_x[axis][g_]], 1))
            seen_pts.append(np.stack([along[axis][g_], seen_x[axis][g_]], 1))
    return np.concatenate(ideal_pts).astype(np.float32), np.concatenate(seen_pts).astype(np.float32)
