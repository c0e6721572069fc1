"""The grid's geometry in a picture: the one perspective warp every vision stage uses.

The playing grid is 15 squares a side. Its four outer corners in an image, in upright order
(top-left, top-right, bottom-right, bottom-left as the board is seen upright, so the first is
the outer corner of square A1), fix a homography between *grid units* (0..15 across and down,
square (row, col) spanning ``[col, col + 1] x [row, row + 1]``) and image pixels. Everything that
looks at the grid top-down (the locator's refinement and orientation, the calibration check, the
square reader) warps through :func:`warp_grid`.

>>> import numpy as np
>>> corners = np.float32([[10, 10], [160, 10], [160, 160], [10, 160]])
>>> warp_grid(np.zeros((200, 200), np.uint8), corners, square_px=4, margin_px=2).shape
(64, 64)
"""

from __future__ import annotations

import cv2
import numpy as np

from board_pi.rules.board import STANDARD, Premium, Square

GRID = 15
"""Squares along each side of the playing grid."""

PREMIUM_KINDS = np.array(
    [[list(Premium).index(STANDARD.premium(Square(r, c))) for c in range(GRID)] for r in range(GRID)],
    dtype=np.int8,
)
"""The premium layout as a 15x15 map of each square's kind (an index into ``tuple(Premium)``:
plain, then each premium in turn): squares of one kind are printed alike on every edition,
whatever its colours."""

PREMIUM_MASK = (PREMIUM_KINDS != list(Premium).index(Premium.NONE)).astype(np.float32)
"""The premium layout as a 15x15 mask (1 on premium squares): the same on every edition, and the
same under every quarter turn and under transposition, so it places a grid but cannot turn it."""


def _corners(corners: np.ndarray) -> np.ndarray:
    return np.asarray(corners, np.float32).reshape(4, 2)


def square_side(corners: np.ndarray) -> float:
    """The mean side, in the image's pixels, of a square of the grid whose ``corners`` are given.

    >>> square_side(np.float32([[0, 0], [150, 0], [150, 300], [0, 300]]))
    15.0
    """
    c = _corners(corners)
    return float(np.mean([np.linalg.norm(c[i] - c[(i + 1) % 4]) for i in range(4)])) / GRID


def corners_moved(after: np.ndarray, before: np.ndarray) -> float:
    """How far the farthest of the grid's four corners moved from ``before`` to ``after``, in
    squares of ``before``.

    >>> before = np.float32([[0, 0], [150, 0], [150, 150], [0, 150]])
    >>> corners_moved(before + np.float32([[5, 0], [0, 0], [0, 0], [0, 0]]), before)
    0.5
    """
    return float(np.linalg.norm(_corners(after) - _corners(before), axis=1).max()) / square_side(before)


SEEN_MIDDLE = 0.5
"""The share of a square's side, about its centre, that must lie within the picture for the
square to count as seen (:func:`squares_outside`): where a tile's letter is. The real tuning
boards (declanfinerty 001-003) cut off by the picture's left or top edge at every depth from a
tenth of a square to three quarters: of tiles cut up to a quarter of a square deep, 68 of 68 read
right; a quarter to three tenths, 18 of 19; three to four tenths, 28 of 34; past a half, 14 of 93."""


def mirrored(corners: np.ndarray) -> bool:
    """Whether ``corners`` run the other way round the picture than upright corners do: A1, O1,
    O15, A15 as the picture shows them, counter-clockwise (y down), as a picture that is a mirror
    image of the board has them (:meth:`~board_pi.vision.read.Reader.read_upright`). Warped
    through them, the board comes out the right way round.

    >>> square = np.float32([[0, 0], [10, 0], [10, 10], [0, 10]])
    >>> mirrored(square), mirrored(square[[1, 0, 3, 2]])
    (False, True)
    """
    c = _corners(corners).astype(np.float64)
    x, y = c[:, 0], c[:, 1]
    return float(np.dot(x, np.roll(y, -1)) - np.dot(np.roll(x, -1), y)) < 0


def other_way_round(corners: np.ndarray) -> np.ndarray:
    """The same grid's corners taken the other way round the picture, the second first: through
    them a board is read as its mirror image (:func:`mirrored` flips).

    >>> other_way_round(np.float32([[0, 0], [10, 0], [10, 10], [0, 10]])).tolist()
    [[10.0, 0.0], [0.0, 0.0], [0.0, 10.0], [10.0, 10.0]]
    """
    return _corners(corners)[[1, 0, 3, 2]]


def mirror_image(image: np.ndarray, corners: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``image`` as a camera that flips its picture takes it, and the grid's ``corners`` as a
    finder finds them there: going round the picture as a picture's do, from its top left, where
    the mirror image shows O1 (read through them, the board comes out mirrored).

    >>> image, corners = mirror_image(np.zeros((20, 30), np.uint8), np.float32([[2, 1], [12, 1], [12, 11], [2, 11]]))
    >>> corners.tolist(), mirrored(corners)
    ([[17.0, 1.0], [27.0, 1.0], [27.0, 11.0], [17.0, 11.0]], False)
    """
    c = _corners(corners).copy()
    c[:, 0] = image.shape[1] - 1 - c[:, 0]
    return np.ascontiguousarray(image[:, ::-1]), other_way_round(c)


def handed_as(corners: np.ndarray, like: np.ndarray) -> np.ndarray:
    """``corners`` taken the same way round as ``like`` (:func:`mirrored`): a board found again
    in a mirror image's frames keeps being read the right way round. The turn is left as it
    comes (``locate.nearest_turn`` settles it).

    >>> square = np.float32([[0, 0], [10, 0], [10, 10], [0, 10]])
    >>> handed_as(square, square[[1, 0, 3, 2]]).tolist()
    [[10.0, 0.0], [0.0, 0.0], [0.0, 10.0], [10.0, 10.0]]
    """
    c = _corners(corners)
    return other_way_round(c) if mirrored(c) != mirrored(like) else c


def squares_outside(corners: np.ndarray, size: tuple[int, int]) -> list[tuple[int, int]]:
    """The squares (row, column) whose middle (:data:`SEEN_MIDDLE` of the square about its
    centre) does not lie wholly within a picture of ``size`` (width, height): the board runs off
    the picture's edge there (a camera too near, a photo cropped), and what they hold cannot be
    seen. A square only its outer edge of which is cut off still counts as seen.

    >>> corners = np.float32([[-20, 0], [130, 0], [130, 150], [-20, 150]])  # 10 px a square
    >>> out = squares_outside(corners, (200, 200))
    >>> len(out), out[:3]
    (30, [(0, 0), (0, 1), (1, 0)])
    """
    lo, hi = (1 - SEEN_MIDDLE) / 2, (1 + SEEN_MIDDLE) / 2
    r, c = np.mgrid[0:GRID, 0:GRID]
    box = np.stack([np.stack([c + dx, r + dy], -1) for dx in (lo, hi) for dy in (lo, hi)], 2)  # (15, 15, 4, 2)
    pts = cv2.perspectiveTransform(box.reshape(-1, 1, 2).astype(np.float32), grid_to_image(corners)).reshape(GRID, GRID, 4, 2)
    w, h = size
    inside = ((pts[..., 0] >= 0) & (pts[..., 0] <= w - 1) & (pts[..., 1] >= 0) & (pts[..., 1] <= h - 1)).all(axis=2)
    return [(int(i), int(j)) for i, j in zip(*np.nonzero(~inside))]


def squares_named(squares: list[tuple[int, int]], most: int = 8) -> str:
    """Squares (row, column) by name, for a message: all of them up to ``most``, else the first few.

    >>> squares_named([(9, 0), (10, 0)])
    'A10, A11'
    >>> squares_named([(r, 0) for r in range(15)])
    'A1, A2, A3, A4, A5, A6 and 9 more'
    """
    names = [Square(r, c).name for r, c in squares]
    return ", ".join(names) if len(names) <= most else ", ".join(names[:most - 2]) + f" and {len(names) - most + 2} more"


def squares_not_shown(squares: list[tuple[int, int]], picture: str) -> str:
    """What to say of squares :func:`squares_outside` found, ``picture`` being what was looked at.

    >>> squares_not_shown([(0, 14)], "photo")
    'the photo does not show 1 square (O1)'
    """
    return f"the {picture} does not show {len(squares)} square{'s' if len(squares) != 1 else ''} ({squares_named(squares)})"


def grid_to_image(corners: np.ndarray) -> np.ndarray:
    """The homography from grid units (0..15, upright) to image pixels."""
    g = np.float32([[0, 0], [GRID, 0], [GRID, GRID], [0, GRID]])
    return cv2.getPerspectiveTransform(g, _corners(corners))


def top_down_homography(corners: np.ndarray, square_px: float, margin_px: float = 0) -> np.ndarray:
    """The homography from image pixels to the top-down view :func:`warp_grid` makes."""
    m, g = float(margin_px), float(GRID * square_px)
    dst = np.float32([[m, m], [m + g, m], [m + g, m + g], [m, m + g]])
    return cv2.getPerspectiveTransform(_corners(corners), dst)


def warp_grid(image: np.ndarray, corners: np.ndarray, square_px: int, margin_px: int = 0,
              interpolation: int = cv2.INTER_LINEAR) -> np.ndarray:
    """The grid rectified top-down, row 1 at the top, column A at the left.

    The result is ``15 * square_px + 2 * margin_px`` pixels square; square (row, col) starts at
    ``(margin_px + row * square_px, margin_px + col * square_px)``. What lies beyond the image's
    edge repeats its border pixels (a tile at the frame's edge is smeared, not blacked out).
    """
    if square_px < 1:
        raise ValueError("square_px must be at least 1")
    if margin_px < 0:
        raise ValueError("the margin must not be negative")
    side = GRID * square_px + 2 * margin_px
    H = top_down_homography(corners, square_px, margin_px)
    return cv2.warpPerspective(image, H, (side, side), flags=interpolation, borderMode=cv2.BORDER_REPLICATE)

