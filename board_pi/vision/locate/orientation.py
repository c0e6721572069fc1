"""Stage 5 of finding the board: which way up it is.

The premium layout is 8-fold symmetric, so the board's own pattern cannot say. The tiles can: a
tile's point value is printed small at the bottom right of its letter, so every letter with a
digit diagonally beside it votes for a turn. With no tiles on the board the turn is undecidable
and the confidence is 0 (the reader then tries the four turns, or a calibration keeps its own).
"""

from __future__ import annotations

import cv2
import numpy as np

from ..geometry import GRID, warp_grid
from .tuning import TUNING, FinderTuning


def order_clockwise(pts: np.ndarray) -> np.ndarray:
    """Clockwise on screen, starting from the corner nearest the image's top-left direction."""
    c = pts.mean(axis=0)
    ang = np.arctan2(pts[:, 1] - c[1], pts[:, 0] - c[0])
    pts = pts[np.argsort(ang)]  # increasing angle is clockwise with y down
    # The top-left corner is the one at -135 degrees from the centre.
    diff = np.abs(((np.arctan2(pts[:, 1] - c[1], pts[:, 0] - c[0]) + 3 * np.pi / 4) + np.pi) % (2 * np.pi) - np.pi)
    start = int(np.argmin(diff))
    return np.roll(pts, -start, axis=0)


def tile_orientation_votes(top: np.ndarray, tiles: np.ndarray | None = None) -> np.ndarray:
    """Votes of the tiles on a rectified board for the four turns (0, 90, 180, 270 clockwise).

    ``top`` is a grey rectified grid (15 squares a side, no margin). A tile's point value is
    printed small beside the bottom right of its letter; in a board turned 90 degrees clockwise
    it shows at the letter's bottom left, and so on. Every letter-sized mark with a digit-sized
    mark diagonally beside it votes for the turn that puts the digit at the bottom right.
    Working from the marks rather than the square keeps this right when tiles sit off-centre or
    lean over in a tilted view. ``tiles`` (15 x 15, True where a tile stands), when given: only
    letters standing in those squares vote, not the print of the board's own squares (an old
    board's DOUBLE LETTER SCORE is letters and digits too, and is upright one way only).
    """
    n = top.shape[0] / GRID
    g = top.astype(np.float32)
    k = int(n * 0.75) | 1
    bg = cv2.blur(g, (k, k))
    ink = ((g < bg - 35) & (g < 0.7 * bg)).astype(np.uint8)
    count, _, stats, cents = cv2.connectedComponentsWithStats(ink, connectivity=8)
    big = np.maximum(stats[:, cv2.CC_STAT_WIDTH], stats[:, cv2.CC_STAT_HEIGHT]).astype(np.float32)
    area = stats[:, cv2.CC_STAT_AREA].astype(np.float32)
    w = np.arange(count) >= 1  # label 0 is the background
    letters = np.flatnonzero(w & (big >= 0.3 * n) & (big <= 0.85 * n) & (area >= 0.02 * n * n))
    if tiles is not None:
        at = np.clip((cents[letters] / n).astype(int), 0, GRID - 1)
        letters = letters[np.asarray(tiles, bool)[at[:, 1], at[:, 0]]]
    digits = np.flatnonzero(w & (big >= 0.1 * n) & (big < 0.3 * n) & (area >= 0.004 * n * n))
    votes = np.zeros(4, np.float32)
    if len(letters) == 0 or len(digits) == 0:
        return votes
    d = cents[digits][None, :, :] - cents[letters][:, None, :]  # (letters, digits, 2)
    dist = np.hypot(d[..., 0], d[..., 1])
    ok = (dist > 0.22 * n) & (dist < 0.6 * n) & (np.abs(d[..., 0]) > 0.1 * n) & (np.abs(d[..., 1]) > 0.08 * n)
    has = ok.any(axis=1)
    # Each letter's nearest digit diagonally beside it.
    k = np.argmin(np.where(ok, dist, np.inf), axis=1)[has]
    dx, dy = d[has, k, 0], d[has, k, 1]
    # Digit at the bottom right: upright; bottom left: turned 90; top left: 180; top right: 270.
    turn = np.where(dx > 0, np.where(dy > 0, 0, 3), np.where(dy > 0, 1, 2))
    votes += np.bincount(turn, minlength=4).astype(np.float32)
    return votes


def orientation_from_values(gray: np.ndarray, canonical: np.ndarray, tuning: FinderTuning = TUNING) -> tuple[int, float]:
    """The turn (0, 90, 180, 270) the tiles' point values vote for, and how sure (0..1)."""
    top = warp_grid(gray, canonical, tuning.orientation_square_px)
    votes = tile_orientation_votes(top)
    total = float(votes.sum())
    if total < tuning.orientation_min_votes:
        return 0, 0.0
    k = int(np.argmax(votes))
    second = float(np.sort(votes)[-2])
    conf = (float(votes[k]) - second) / total
    # A couple of votes is weak evidence whatever their agreement.
    conf *= min(1.0, total / tuning.orientation_full_votes)
    return 90 * k, float(conf)
