"""Finding the 15x15 playing grid in a photo, and rectifying it to a top-down image.

The locator is classical OpenCV, no learning:

Each stage is a module of this package, its numbers in :mod:`.tuning`:

1. :mod:`.squares`: on a copy scaled to 640 px (1024 px if that finds little, then, asked to look
   ``far``, 2048 px in a large photo where the board is small, the photo enlarged to it, or the
   photo itself up to 3072 px), the grid lines are picked out by
   a local threshold, once for boards with dark lines and once for boards with light lines; what
   is left between them are the squares (empty squares, premium squares and tiles alike), found
   as small four-sided contours. Where no grid shows, fainter lines are looked for, then lines
   in the colours' saturation (white lines between tinted squares), then lines on a copy whose
   local contrast is stretched (pale editions under glare), and last, squares much smaller than
   their step, between pale lines the faint threshold thickens (dark tiles on a near-white board),
   and then the same with the lines thickened further, closing the gaps of thin faint lines the
   threshold sees only in dashes.
2. :mod:`.lattice`: a lattice is grown from a well-surrounded square to its neighbours, each step predicted from
   the step walked to get there, so perspective is followed without a global model; a
   homography from lattice to image is then fitted to the square centres and extended a square
   at a time to the squares the walk missed.
3. :mod:`.lattice`: which 15x15 window of the lattice is the playing grid: the one holding the most squares found,
   and, where a hand or tiles hide an edge, the one whose colourful squares best match the premium
   layout (which is the same on every edition, whatever its colours), whose squares' colours
   gather by their kind in that layout, and whose surround is the frame, one colour along each
   side.
4. :mod:`.refine`: the grid lines are then snapped to, on the full-resolution image, piece by piece.
   Where no lattice is found at all (no grid line shows anywhere), :mod:`.outline` looks for the
   board's outline instead: long straight edges (the playing surface against the frame, the
   frame against the table), every quadrilateral two pairs of them make taken as the grid or
   inset from it; of those whose squares' colours gather by the premium layout's kinds, the best
   whose grid lines are then found where it puts them is kept.
5. :mod:`.orientation`: which way up. The premium layout is 8-fold symmetric, so the board's own pattern cannot say.
   The tiles can: a tile's point value is printed small at the bottom right of its letter, so
   every letter with a digit diagonally beside it votes for a turn. With no tiles on the board
   the turn is undecidable; ``orientation_confidence`` is then 0 and the read stage (or a saved
   calibration) decides.

>>> import numpy as np
>>> find_board(np.zeros((480, 640, 3), np.uint8)) is None
True
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import cv2
import numpy as np

from ..frames import as_bgr, grain
from ..geometry import GRID, square_side, squares_outside, warp_grid
from .lattice import find_lattice, grid_window
from .outline import outline_grids
from .orientation import order_clockwise, orientation_from_values, tile_orientation_votes
from .refine import refine_corners, snap_to_lines
from .squares import find_quads
from .tuning import TUNING, FinderTuning

__all__ = ["BoardLocation", "FinderTuning", "TUNING", "find_board", "locate_grid", "tile_orientation_votes", "warp_board"]


@dataclass(frozen=True, eq=False)
class BoardLocation:
    """Where the playing grid is in an image.

    ``corners``: 4x2 float32, the outer corners of the 15x15 grid (the centre lines of the outer
    grid lines) in image pixels, ordered top-left, top-right, bottom-right, bottom-left as the
    board is seen upright, so ``corners[0]`` is the outer corner of square A1.
    ``rotation``: how the board is turned in the image, clockwise degrees (0, 90, 180, 270): at 90
    square A1 appears at the image's top right.
    ``confidence``: 0..1, how sure the grid is where it says (squares found, fit of the lattice).
    ``orientation_confidence``: 0..1, how sure the turn is; 0 when nothing on the board tells
    (an empty board), and the read stage should then try the four turns or keep the last one.
    """

    corners: np.ndarray
    confidence: float
    rotation: int
    orientation_confidence: float = 0.0

    @property
    def square_px(self) -> float:
        """The mean side of a square of the grid, in the image's pixels."""
        return square_side(self.corners)

    def rotated(self, quarter_turns: int) -> "BoardLocation":
        """The same grid with the board turned a further ``quarter_turns`` x 90 degrees clockwise."""
        k = quarter_turns % 4
        return BoardLocation(
            corners=np.roll(self.corners, -k, axis=0).astype(np.float32),
            confidence=self.confidence,
            rotation=(self.rotation + 90 * k) % 360,
            orientation_confidence=self.orientation_confidence,
        )


def nearest_turn(corners: np.ndarray, previous: np.ndarray) -> int:
    """How many quarter turns (``np.roll(corners, -k, axis=0)``, as :meth:`BoardLocation.rotated`)
    keep square A1 nearest where ``previous`` had it: an empty board's pattern is the same all four
    ways, so a board found again, only nudged, keeps the turn it had.

    >>> square = np.array([[0, 0], [10, 0], [10, 10], [0, 10]], np.float32)
    >>> nearest_turn(np.roll(square, 1, axis=0), square)
    1
    """
    def apart(k: int) -> float:
        return float(np.linalg.norm(np.roll(corners, -k, axis=0) - previous, axis=1).sum())

    return min(range(4), key=apart)


def warp_board(image: np.ndarray, corners: np.ndarray, square_px: int = 64, margin: float = 0.0) -> np.ndarray:
    """Rectify the grid to a top-down image, row 1 at the top, column A at the left.

    ``corners`` as in :class:`BoardLocation`. ``margin`` is a fraction of one square added on
    every side (0.5 adds half a square), so tiles that overhang the outer squares are not cut;
    the result is ``15 * square_px + 2 * round(margin * square_px)`` pixels square, and square
    (row, col) starts at ``(m + row * square_px, m + col * square_px)`` with ``m`` that margin.
    """
    if margin < 0:
        raise ValueError("margin must not be negative")
    return warp_grid(image, corners, square_px, int(round(margin * square_px)))


# --------------------------------------------------------------------------- the locator


def _downscale(image: np.ndarray, side: int) -> np.ndarray:
    """The image with its longest side at most ``side``: halvings first (fast and clean), then a resize."""
    while max(image.shape[:2]) >= 2 * side:
        image = cv2.pyrDown(image)
    h, w = image.shape[:2]
    if max(h, w) > side:
        s = side / max(h, w)
        image = cv2.resize(image, (max(1, round(w * s)), max(1, round(h * s))), interpolation=cv2.INTER_AREA)
    return image


def _lattice_in(channel: np.ndarray, tuning: FinderTuning) -> tuple[dict[int, tuple[int, int]], np.ndarray] | None:
    """The lattice of squares between the lines of one channel of the working copy, looked for
    at the usual line contrast and then at the faint one."""
    found = find_lattice(find_quads(channel, tuning=tuning), tuning=tuning)
    if found is None:
        # Faint lines (white lines between near-white squares): look for fainter lines. Where
        # they cannot be seen at all, the premium squares still can: they lie on the lattice
        # too, a diagonal step or two apart, so a shorter walk among them may seed the fit
        # (which must still end with ``min_squares`` on the lattice).
        found = find_lattice(find_quads(channel, tuning.faint_line_contrast, tuning), tuning.faint_min_walk, tuning)
    return found


def _locate_at(bgr: np.ndarray, side: int, tuning: FinderTuning,
               stretch: bool = True, thick: bool = True, soften: float = 0.0,
               enlarge: bool = False, sharpen: tuple[float, float] | None = None) -> tuple[np.ndarray, float] | None:
    """The grid found in the working copy of ``side`` pixels (an image smaller than that is
    looked at as it is, or with ``enlarge`` enlarged to it); ``soften``: a grainy frame's copy
    blurred by that many pixels first, and looked at in grey only (see ``tuning.grainy_blurs``);
    ``sharpen``: a soft photo's copy sharpened by an unsharp mask of that sigma (in the image's
    pixels) and amount, and looked at in grey only (see ``tuning.soft_sharpen``)."""
    h, w = bgr.shape[:2]
    small = _downscale(bgr, side)
    if enlarge and max(h, w) < side:
        f = side / max(h, w)
        small = cv2.resize(bgr, (round(w * f), round(h * f)), interpolation=cv2.INTER_CUBIC)
    sx, sy = small.shape[1] / w, small.shape[0] / h
    if soften:
        small = cv2.GaussianBlur(small, (0, 0), soften)
    gray = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
    if sharpen is not None:
        sigma, amount = sharpen
        blurred = cv2.GaussianBlur(gray, (0, 0), sigma * max(small.shape[:2]) / max(h, w))
        gray = cv2.addWeighted(gray, 1 + amount, blurred, -amount, 0)
    found = _lattice_in(gray, tuning)
    if soften or sharpen is not None:
        # A grainy or soft frame's second look: in grey only, so that a frame with no board is
        # given up on quickly.
        return None if found is None else _grid_of(found, small, sx, sy, w, h, tuning)
    sat = None  # made only where grey shows no grid
    if found is None:
        # White lines between cream or pale squares, blurred: in grey they all but vanish, but
        # the squares are tinted and the lines are not, so the lines show in the saturation.
        sat = cv2.cvtColor(small, cv2.COLOR_BGR2HSV)[..., 1]
        found = _lattice_in(sat, tuning)
    if found is None and stretch:
        # Pale editions (white lines on lavender or cream squares) under glare: the lines show
        # once the local contrast is stretched (at the last size tried only: it is slow).
        clahe = cv2.createCLAHE(tuning.clahe_clip, (tuning.clahe_tiles, tuning.clahe_tiles))
        found = find_lattice(find_quads(clahe.apply(gray), tuning=tuning), tuning=tuning)
    if found is None and thick and sat is not None:
        # Pale lines that pass the faint threshold only thickened, so the squares between them
        # come out small: between dark tiles lettered light, few empty squares show otherwise.
        # Last, since smaller outlines admit more that are not squares; at the first size tried
        # only, where the lines are thickest (at both, a frame with no board took half as long
        # again to give up).
        # Then, with the lines thickened further: thin faint lines, blurred, that the threshold
        # sees only in dashes, the squares running into each other through the gaps.
        small_squares = replace(tuning, side_in_step=(tuning.thick_line_side, tuning.side_in_step[1]))
        looks = [(erode, channel) for erode in (3, tuning.broken_line_erode_px) for channel in (gray, sat)]
        for erode, channel in looks:
            found = find_lattice(find_quads(channel, tuning.faint_line_contrast, small_squares, erode),
                                 tuning.faint_min_walk, small_squares)
            if found is not None:
                break
    if found is None:
        return None
    return _grid_of(found, small, sx, sy, w, h, tuning)


def _grid_of(found: tuple[dict[int, tuple[int, int]], np.ndarray], small: np.ndarray, sx: float, sy: float,
             w: int, h: int, tuning: FinderTuning) -> tuple[np.ndarray, float] | None:
    """The 15x15 grid's corners in the image (``w`` x ``h``) from a lattice found in its working
    copy ``small`` (scaled by ``sx``, ``sy``), and how much of the grid was seen as squares."""
    labels, H = found
    i0, j0, share = grid_window(labels, H, cv2.blur(small, (5, 5)), tuning)
    outer = np.array([[i0, j0], [i0 + GRID, j0], [i0 + GRID, j0 + GRID], [i0, j0 + GRID]], np.float32)
    pts = cv2.perspectiveTransform(outer.reshape(-1, 1, 2), H).reshape(-1, 2)
    pts = (pts / np.array([sx, sy], np.float32)).astype(np.float32)
    if not cv2.isContourConvex(pts.reshape(-1, 1, 2)):
        return None
    # A grid reaching well out of the frame is a lattice fitted askew (or a board the camera
    # cannot see whole): either way its squares cannot all be read.
    square = max(float(np.linalg.norm(pts[i] - pts[(i + 1) % 4])) for i in range(4)) / GRID
    out = tuning.max_outside * square
    if (pts < -out).any() or (pts[:, 0] > w + out).any() or (pts[:, 1] > h + out).any():
        return None
    # Confidence: how much of the grid was seen as squares (a crowded board hides many).
    return order_clockwise(pts), float(min(1.0, share / tuning.confident_share))


def _outline_at(bgr: np.ndarray, gray: np.ndarray, tuning: FinderTuning) -> tuple[np.ndarray, float] | None:
    """The grid from the board's outline (:mod:`.outline`) on the first working copy, snapped to
    its lines in the image's pixels: the best candidate whose lines are found where it puts them."""
    h, w = bgr.shape[:2]
    small = _downscale(bgr, tuning.work_sides[0])
    scale = np.array([small.shape[1] / w, small.shape[0] / h], np.float32)
    for _, corners in outline_grids(small, tuning):
        snapped = snap_to_lines(gray, order_clockwise((corners / scale).astype(np.float32)), tuning)
        if snapped is not None:
            return order_clockwise(snapped.astype(np.float32)), tuning.outline_confidence
    return None


def _same_grid(a: np.ndarray, b: np.ndarray, within: float = 0.5) -> bool:
    """Whether two grids' corners (either order round) lie within ``within`` of a square."""
    square = float(np.linalg.norm(a[1] - a[0])) / GRID
    return min(float(np.abs(np.roll(a, -k, axis=0) - b).max()) for k in range(4)) < within * square


def locate_grid(image: np.ndarray, refine: bool = True, gray: np.ndarray | None = None,
                tuning: FinderTuning = TUNING, far: bool = False) -> tuple[np.ndarray, float] | None:
    """The grid's four corners clockwise from the image's top-left direction, and a confidence.

    This is :func:`find_board` without deciding which way up the board is. It works at 640 px
    (fast, enough when the board fills much of the frame) and tries 1024 px when that fails or
    sees less of the grid than ``tuning.larger_retry_share``; with ``far``, then 2048 px too
    (``tuning.far_side``, on images of at least ``tuning.far_from_px``, else the image enlarged
    to ``tuning.far_small_side``: a board small in a photo), and where that copy is well under
    2048 px or the image well over it, the image enlarged to 2048 px or itself up to
    ``tuning.far_large_side``. A grid found at a larger size elsewhere, and holding more
    squares, is kept. Where none is found, a grainy frame is looked at again softened and, with
    ``far``, a soft one sharpened (``tuning.soft_sharpen``); last, the board's outline.

    A grid running off the picture's edge gives way to another board lying wholly in it, where
    there is one: a neighbouring table's board at the edge of a club camera's frame, or of a
    photo of the room, may show more squares to the finder than the table's own.
    """
    bgr = as_bgr(image)
    if min(bgr.shape[:2]) < tuning.least_side:
        return None
    got = _locate_grid(bgr, refine, gray, tuning, far)
    h, w = bgr.shape[:2]
    if got is None or not squares_outside(got[0], (w, h)):
        return got
    # Looked at again with that board covered (its frame too: a square beyond the grid all
    # round) by the picture's own middle colour, so it is neither a lattice nor an outline.
    c = got[0].astype(np.float64)
    cover = c.mean(axis=0) + (c - c.mean(axis=0)) * (GRID + 2) / GRID
    hidden = bgr.copy()
    cv2.fillConvexPoly(hidden, np.round(cover).astype(np.int32),
                       tuple(float(v) for v in np.median(bgr.reshape(-1, 3), axis=0)))
    other = _locate_grid(hidden, refine, None, tuning, far)
    if other is not None and not squares_outside(other[0], (w, h)):
        return other
    return got


def _locate_grid(bgr: np.ndarray, refine: bool, gray: np.ndarray | None, tuning: FinderTuning,
                 far: bool) -> tuple[np.ndarray, float] | None:
    """:func:`locate_grid`'s search, of one grid."""
    got = None
    size = max(bgr.shape[:2])
    # The working copies up to the first that sees the image whole (larger ones would be the same).
    work = next((tuning.work_sides[:n + 1] for n, side in enumerate(tuning.work_sides)
                 if size <= side * tuning.larger_try_above), tuning.work_sides)
    # A photo smaller than far_from_px: the far copy is the photo enlarged (its squares' lines
    # two pixels wide, not one, and the squares larger than the smallest the finder takes).
    enlarge = size < tuning.far_from_px
    far_side = tuning.far_small_side if enlarge else tuning.far_side
    # (side, enlarged): the far copies, in turn. A far copy well under far_side (a photo of 1280
    # pixels, looked at as it is) is followed by the photo enlarged to far_side: a board a fifth
    # of the frame's height leaves squares of 10 or 11 pixels there, too small to come out
    # between lines the threshold thickens; enlarged, they do. One well over it (a photo of 2560
    # pixels, brought down) is followed by the photo itself, up to far_large_side.
    far_copies = [(far_side, enlarge)]
    if min(far_side, size) * tuning.larger_try_above < tuning.far_side:
        far_copies.append((tuning.far_side, True))
    elif size > tuning.far_side * tuning.larger_try_above:
        far_copies.append((min(size, tuning.far_large_side), False))
    looks = [(side, False) for side in work] + (far_copies if far else [])
    far_look = replace(tuning, threshold_block_fraction=tuning.far_threshold_block_fraction)
    for n, (side, bigger) in enumerate(looks):
        last = n == len(looks) - 1
        # The far copy looks as the first does (the lines thickened: a board filling the frame
        # there, small in the photo here), with the local threshold's neighbourhood of the
        # squares' size there, and as the last of work_sides does, which still stretches the
        # contrast when a far copy follows it. The larger copy after it looks in grey and
        # saturation only: the slower looks found little more there, and a photo with no
        # board would take twice as long to give up on.
        far_copy = n >= len(work)
        again = n > len(work)
        look = far_look if far_copy else tuning
        stretch = n >= len(work) - 1 and not again
        here = _locate_at(bgr, side, look, stretch=stretch, thick=(n == 0 or far_copy) and not again, enlarge=bigger)
        # A grid seen only in part at the small size may be a lattice fitted askew: the larger
        # copy, where more squares show, is asked too. Where the two agree the small one stays
        # (it was right, and its lines are snapped to as well); where not, the one holding more
        # squares is kept.
        if here is not None and (got is None or (here[1] > got[1] and not _same_grid(here[0], got[0]))):
            got = here
        seen = 0.0 if got is None else got[1] * tuning.confident_share  # share of the grid's squares found
        if seen >= tuning.larger_retry_share or last:
            break
    side = tuning.work_sides[-1]
    grainy = got is None and grain(_downscale(bgr, side)) > tuning.grainy_noise
    if grainy:
        # A dim room's camera turns its gain up, and its noise breaks the lines into dashes and
        # the squares into specks: a grainy frame is looked at again softened.
        # A board small in a photo is looked at in the far copy too, where its squares are larger.
        tries = [(side, blur, tuning, False) for blur in tuning.grainy_blurs]
        tries += [(far_side, blur, far_look, enlarge) for blur in tuning.grainy_far_blurs if far]
        for copy_side, blur, look, bigger in tries:
            got = _locate_at(bgr, copy_side, look, soften=blur, enlarge=bigger)
            if got is not None:
                break
    elif got is None and far:
        # A soft photo (out of focus, shaken) of a board small in it: its lines, a pixel or two
        # wide, are blurred into the squares beside them, too faint for the threshold; sharpened,
        # they show again. In the last far copy, where the squares are largest (a grainy frame's
        # noise would be sharpened too).
        last_side, bigger = far_copies[-1]
        got = _locate_at(bgr, last_side, far_look, enlarge=bigger, sharpen=tuning.soft_sharpen)
    if got is None:
        # No grid line shows where the squares could be told: the board's outline may (the
        # playing surface against its frame), its grid lines then found along their whole length.
        gray = cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY) if gray is None else gray
        return _outline_at(bgr, gray, tuning)
    pts, confidence = got
    if refine:
        pts = refine_corners(cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY) if gray is None else gray, pts, tuning)
    return pts.astype(np.float32), confidence


def find_board(image: np.ndarray, tuning: FinderTuning = TUNING, far: bool = False) -> BoardLocation | None:
    """Find the 15x15 playing grid in a BGR (or grey) image; None when there is no board to see.

    The corners come ordered as the board is seen upright (see :class:`BoardLocation`); the turn
    is read from the tiles' point values, and is 0 with ``orientation_confidence`` 0 on a board
    with no tiles. ``far``: the board may stand small in a large photo (a photo read once, as
    ``board-pi read``, ``enrol`` and ``label`` read them; not a table's frames, followed one
    after another): it is looked for in a larger working copy too (``tuning.far_side``), and a
    photo with no board takes longer to give up on.
    """
    bgr = as_bgr(image)
    gray = cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY)
    got = locate_grid(bgr, gray=gray, tuning=tuning, far=far)
    if got is None:
        return None
    canonical, confidence = got
    rotation, oconf = orientation_from_values(gray, canonical, tuning)
    k = rotation // 90
    return BoardLocation(
        corners=np.roll(canonical, -k, axis=0).astype(np.float32),
        confidence=confidence,
        rotation=rotation,
        orientation_confidence=oconf,
    )
