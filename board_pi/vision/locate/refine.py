"""Stage 4 of finding the board: the grid snapped to its lines at full resolution.

Each of the 16 + 16 grid lines is looked for in a rectified view near where the lattice put it,
piece by piece (a board is seldom flat and a lens bends lines); a homography fitted to the pieces
found moves the corners, unless it would move one so far that it found something else.
"""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np

from ..geometry import GRID, square_side, top_down_homography, warp_grid
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
    ideal_pts, seen_pts = line_pieces(gray, corners, tuning)
    if len(ideal_pts) < tuning.refine_min_points:
        return None
    # Each piece measures one coordinate (across its line); the other is taken as it stands,
    # which is right to well within the search window.
    Hc, inl = cv2.findHomography(ideal_pts, seen_pts, cv2.RANSAC, square_px * tuning.refine_inlier)
    if Hc is None or int(inl.sum()) < tuning.refine_min_inliers:
        return None
    out = _moved_by(corners, Hc, square_px)
    # A refinement that moves a corner by more than a third of a square found something else.
    sq = float(np.linalg.norm(corners[1] - corners[0])) / GRID
    if float(np.linalg.norm(out - corners, axis=1).max()) > tuning.refine_max_move * sq:
        return None
    return out.astype(np.float32)


def snap_hand_corners(gray: np.ndarray, corners: np.ndarray, tuning: FinderTuning = TUNING) -> np.ndarray | None:
    """Corners a person gave (``board-pi calibrate --corners``, ``read --corners``,
    ``enrol --corners``) snapped to the grid's lines, or None where too few of the lines are found
    near them, or they do not agree on one grid.

    :func:`snap_to_lines` refines a grid already found, off by a small part of a square; a
    hand's click is off by more, and turns and slants the grid. A piece of line tells only
    where its line lies across it, so here each line is fitted through its pieces and the grid
    fitted to the lines' crossings, which places it along the lines as well. Each round looks
    for the lines where the last one put them, and less far either side of them
    (``tuning.hand_rounds``, ``tuning.hand_search``).
    """
    start = np.asarray(corners, np.float32).reshape(4, 2)
    side = square_side(start)
    now, moved, agree = start, float("inf"), 0.0
    for n in range(tuning.hand_rounds):
        # Looked for further either side than a found grid's lines at first (a hand is further
        # off), then nearer where the last round put them.
        wide = replace(tuning, refine_search=tuning.hand_search[min(n, len(tuning.hand_search) - 1)])
        # The lines' polarity (dark grooves or light ones) is judged here by the grid the lines
        # make, not by where the hand put them: both are tried, and the one whose crossings
        # agree the more on one grid kept.
        fits = [_crossings(*_pieces(gray, now, wide, dark, wide_lines=True), wide) for dark in (True, False)]
        fit = max((f for f in fits if f is not None), key=lambda f: f[1], default=None)
        if fit is None:
            return None
        Hc, agree = fit
        out = _moved_by(now, Hc, tuning.refine_square_px).astype(np.float32)
        moved = float(np.linalg.norm(out - now, axis=1).max())
        now = out
        if moved < tuning.hand_settled * side:
            break
    # Still moving, or many crossings off the grid fitted: the pieces were pulled more than one
    # way (faint lines, with a premium square's edges beside them, or tiles over many of them).
    if moved >= tuning.hand_settled * side or agree < tuning.hand_agree:
        return None
    # Further than a hand is off: the lines found are some other lines (the board's edge, a rack).
    if float(np.linalg.norm(now - start, axis=1).max()) > tuning.hand_max_move * side:
        return None
    return now


def _moved_by(corners: np.ndarray, Hc: np.ndarray, square_px: int) -> np.ndarray:
    """The grid's ``corners`` moved by ``Hc``, a homography within the rectified view of
    ``square_px`` a square and a square's margin (as :func:`_pieces` looks in), back in the image's pixels."""
    m = square_px
    g = float(GRID * square_px)
    dst = np.array([[m, m], [m + g, m], [m + g, m + g], [m, m + g]], np.float32)
    in_top = cv2.perspectiveTransform(dst.reshape(-1, 1, 2), Hc).reshape(-1, 2)
    H = top_down_homography(corners, square_px, m)
    return cv2.perspectiveTransform(in_top.reshape(-1, 1, 2), np.linalg.inv(H)).reshape(-1, 2)


def _crossings(good: np.ndarray, seen_x: np.ndarray, along: np.ndarray, x0: np.ndarray,
               tuning: FinderTuning) -> tuple[np.ndarray, float] | None:
    """The homography from where the grid's inner lines should cross in the rectified view to
    where the lines fitted through their pieces (:func:`_pieces`) cross, and the share of the
    crossings that agree with it; None where too few lines are fitted each way, or too few
    crossings agree."""
    tol = tuning.refine_inlier * tuning.refine_square_px
    # fits[0][k]: line k down the board, x = a + b * y; fits[1][k]: across it, y = a + b * x.
    # The grid's two outer lines are left out: a board's frame or edge beside them is often the
    # stronger line (rendered boards: found up to a fifth of a square outside).
    fits = [[_line_through(along[a, :, k][good[a, :, k]], seen_x[a, :, k][good[a, :, k]], tol)
             if 0 < k < GRID else None for k in range(GRID + 1)] for a in (0, 1)]
    down = [(k, f) for k, f in enumerate(fits[0]) if f is not None]
    across = [(k, f) for k, f in enumerate(fits[1]) if f is not None]
    if min(len(down), len(across)) < tuning.hand_min_lines:
        return None
    ideal, seen = [], []
    for i, (a, b) in down:
        for j, (c, d) in across:
            x = (a + b * c) / (1.0 - b * d)
            ideal.append((x0[i], x0[j]))
            seen.append((x, c + d * x))
    Hc, inl = cv2.findHomography(np.float32(ideal), np.float32(seen), cv2.RANSAC, tol)
    if Hc is None or int(inl.sum()) < tuning.hand_min_lines ** 2:
        return None
    return Hc, int(inl.sum()) / len(ideal)


def _line_through(along: np.ndarray, across: np.ndarray, tol: float) -> tuple[float, float] | None:
    """The straight line ``across = a + b * along`` through a line's pieces, as ``(a, b)``; the
    piece furthest off left out once where it lies more than ``tol`` off (a tile's edge, say).
    None with fewer than three pieces to fit, or pieces that still do not lie on one line."""
    for _ in range(2):
        if len(along) < 3:
            return None
        b, a = np.polyfit(along, across, 1)
        off = np.abs(across - (a + b * along))
        if off.max() <= tol:
            return float(a), float(b)
        keep = np.arange(len(along)) != int(off.argmax())
        along, across = along[keep], across[keep]
    return None


def line_pieces(gray: np.ndarray, corners: np.ndarray, tuning: FinderTuning = TUNING) -> tuple[np.ndarray, np.ndarray]:
    """The pieces of the 16+16 grid lines found near where ``corners`` put them, in a rectified
    view of ``tuning.refine_square_px`` a square with a square's margin: where each piece should
    lie and where it was found, two (n, 2) arrays. Each line is cut into ``tuning.refine_pieces``
    pieces, each looked for within ``tuning.refine_search`` of a square either side; a piece not
    standing out from its surroundings is left out."""
    good, seen_x, along, x0 = _pieces(gray, corners, tuning)
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


def _pieces(gray: np.ndarray, corners: np.ndarray, tuning: FinderTuning, dark: bool | None = None,
            wide_lines: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Each piece of each line looked for (:func:`line_pieces`), in the rectified view: whether it
    was found, where across its line, and where along it, three (2 axes, pieces, 16 lines) arrays
    (axis 0 the lines down the board, whose x is measured); and where the 16 lines should lie.
    ``dark``: the lines are darker than the squares (True) or lighter (False); None, whichever
    peaks on the lines where ``corners`` put them. ``wide_lines``: the lines may be grooves a good
    part of a square wide, each placed at its middle."""
    square_px = tuning.refine_square_px
    m = square_px
    side = GRID * square_px + 2 * m
    g = float(GRID * square_px)
    top = warp_grid(gray, corners, square_px, m).astype(np.float32)
    bg = cv2.blur(top, (square_px // 2 | 1, square_px // 2 | 1))
    on_idx = np.array([m + k * square_px for k in range(GRID + 1)])
    off_idx = on_idx[:-1] + square_px // 2
    best = None
    looks = {True: np.maximum(bg - top, 0), False: np.maximum(top - bg, 0)}  # dark lines, light lines
    for R in (looks.values() if dark is None else (looks[dark],)):
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
    if wide_lines:
        # A groove wider than a line shows as its two edges, and the higher one changes from
        # piece to piece. The profile's centre of symmetry is the groove's middle (a thin line's
        # own peak): the peak of the profile, its floor taken off, convolved with itself.
        lifted = np.maximum(prof - np.median(prof, axis=3, keepdims=True), 0).reshape(-1, len(offs))
        n = 2 * len(offs) - 1
        auto = np.fft.irfft(np.fft.rfft(lifted, n=2 * len(offs), axis=1) ** 2, n=2 * len(offs), axis=1)[:, :n]
        auto = auto.reshape(prof.shape[:3] + (n,))
        u = np.clip(auto.argmax(axis=3), 1, auto.shape[3] - 2)
        crest = np.take_along_axis(auto, u[..., None], axis=3)[..., 0]
        lo = np.take_along_axis(auto, (u - 1)[..., None], axis=3)[..., 0]
        hi = np.take_along_axis(auto, (u + 1)[..., None], axis=3)[..., 0]
        den = lo - 2 * crest + hi
        sub = np.where(np.abs(den) > 1e-9, 0.5 * (lo - hi) / np.where(np.abs(den) > 1e-9, den, 1.0), 0.0)
        seen_x = x0[None, None, :] + offs[0] + (u + sub) / 2
    along = (m + (np.arange(pieces) + 0.5) * piece)[None, :, None] * np.ones_like(seen_x)
    return good, seen_x, along, x0
