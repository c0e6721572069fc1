"""Calibration: where the board is, saved once, checked on every frame, found again when it moves.

A fixed installation (camera on an arm over the table) sees the board in the same place frame
after frame, so the locator need not run on each one. A :class:`Calibration` keeps the grid's
corners and orientation, the camera's frozen settings and, optionally, where ArUco markers stuck
at the board's corners sit in the board's own plane. It is saved as JSON in ``calibration/``.

On each frame :func:`check` asks, cheaply, whether the grid is still where the calibration says:
the grid lines must lie on the predicted lines, and the premium squares' colours on the premium
layout (which catches a board that slid by exactly a whole square). When it fails,
:class:`Tracker` finds the board again: from the markers when there are any (they also carry
the orientation, so a board on a turntable keeps its row 1), else with
:func:`~board_pi.vision.locate.find_board`, keeping row 1 where it was when the tiles cannot say.

Markers: OpenCV's ``DICT_4X4_50``, ids 0-3, stuck anywhere near the corners outside the grid
(:func:`marker_image` draws one to print). Two markers seen place the grid, four place it
best; one alone still tells which way up the board is, while the locator finds the grid.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from board_pi.files import write_json
from board_pi.vision.frames import as_bgr
from board_pi.vision.geometry import GRID, PREMIUM_MASK, grid_to_image, handed_as, mirrored, warp_grid
from board_pi.vision.empty import EmptyLook
from board_pi.vision.lens import MAX_BEND, Lens
from board_pi.vision.locate import BoardLocation, find_board, nearest_turn
from board_pi.vision.locate.refine import line_pieces, snap_hand_corners
from board_pi.vision.locate.tuning import TUNING
from board_pi.vision.read import empty_look

FORMAT_VERSION = 1
MARKER_DICTIONARY = "DICT_4X4_50"
MARKER_IDS = (0, 1, 2, 3)
DEFAULT_DIR = Path("calibration")
MAX_FILE_BYTES = 256 * 1024  # a calibration is about 1 KB


class CalibrationError(ValueError):
    """A calibration file that cannot be read or makes no sense: the message says which and why."""


# --------------------------------------------------------------------------- the profile


@dataclass(frozen=True, eq=False)
class Calibration:
    """A saved view of the board.

    ``corners``: 4x2 outer grid corners, upright order (as :class:`BoardLocation`), in pixels of a
    ``frame_size`` (width, height) frame. ``markers``: marker id -> its four corners in grid
    units (0..15 across the grid; markers lie outside it), or empty. ``camera``: the settings the
    frames were taken with (the source, and for picamera2 the frozen exposure and colour gains).
    ``reference``: the check's scores on the calibration frame, which later frames are held to.
    ``empty``: every square's appearance on the calibration frame of the empty board, under the
    table's light (the reader weighs blank tiles against empty squares by it), or None.
    ``bend``: the camera lens's bend (:class:`~board_pi.vision.lens.Lens`), 0 for none.
    """

    corners: np.ndarray
    rotation: int
    frame_size: tuple[int, int]
    markers: dict[int, np.ndarray] = field(default_factory=dict)
    camera: dict[str, Any] = field(default_factory=dict)
    reference: dict[str, float] = field(default_factory=dict)
    created: str = ""
    empty: EmptyLook | None = None
    bend: float = 0.0

    @property
    def lens(self) -> Lens:
        """The camera's lens (:mod:`~board_pi.vision.lens`): frames are straightened by it before
        they are checked or read, and ``corners`` are in the straightened frame's pixels."""
        return Lens(self.bend, self.frame_size)

    @property
    def location(self) -> BoardLocation:
        return BoardLocation(self.corners.astype(np.float32), 1.0, self.rotation, 1.0)

    def to_json(self) -> dict[str, Any]:
        return {
            "version": FORMAT_VERSION,
            "created": self.created,
            "frame_size": list(self.frame_size),
            "corners": np.round(self.corners.astype(float), 2).tolist(),
            "rotation": self.rotation,
            "markers": {
                "dictionary": MARKER_DICTIONARY,
                "grid_corners": {str(k): np.round(v.astype(float), 4).tolist() for k, v in sorted(self.markers.items())},
            }
            if self.markers
            else None,
            "camera": self.camera,
            "reference": self.reference,
            "empty": None if self.empty is None else self.empty.to_json(),
            "lens": {"bend": round(float(self.bend), 4)} if self.bend else None,
        }

    @classmethod
    def from_json(cls, data: Any, where: str = "calibration") -> "Calibration":
        def bad(msg: str) -> CalibrationError:
            return CalibrationError(f"{where}: {msg}")

        def number(v: Any) -> bool:  # a JSON number (true and false are not)
            return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)

        def pairs(v: Any, what: str) -> np.ndarray:
            if not (isinstance(v, list) and len(v) == 4 and all(isinstance(p, list) and len(p) == 2
                                                                and all(number(x) and abs(x) < 1e7 for x in p) for p in v)):
                raise bad(f"{what} must be four [x, y] pairs of numbers")
            return np.array(v, dtype=np.float32)

        if not isinstance(data, dict):
            raise bad("not a JSON object")
        if data.get("version") != FORMAT_VERSION:
            shown = repr(data.get("version"))
            raise bad(f"format version {shown if len(shown) < 24 else shown[:20] + '...'}, expected {FORMAT_VERSION}")
        for key in ("corners", "frame_size"):
            if key not in data:
                raise bad(f"missing or malformed corners, frame_size or rotation (no {key})")
        corners = pairs(data["corners"], "corners")
        size = data["frame_size"]
        if not (isinstance(size, list) and len(size) == 2 and all(isinstance(v, int) and not isinstance(v, bool)
                                                                  and 0 < v <= 100_000 for v in size)):
            raise bad("frame_size must be [width, height], whole numbers of pixels")
        frame_size = (int(size[0]), int(size[1]))
        rotation = data.get("rotation", 0)
        if rotation not in (0, 90, 180, 270) or isinstance(rotation, bool):
            raise bad("rotation must be 0, 90, 180 or 270")
        rotation = int(rotation)
        if not cv2.isContourConvex(corners.reshape(-1, 1, 2)):
            raise bad("the four corners do not make a convex quadrilateral")
        markers: dict[int, np.ndarray] = {}
        m = data.get("markers")
        if m:
            if not isinstance(m, dict) or m.get("dictionary") != MARKER_DICTIONARY:
                raise bad(f"markers must be {MARKER_DICTIONARY}")
            grid = m.get("grid_corners")
            if not isinstance(grid, dict) or not all(isinstance(k, str) and k.isdigit() and len(k) < 4 for k in grid):
                raise bad("malformed markers (grid_corners must map marker ids to corners)")
            for k, v in grid.items():
                try:
                    markers[int(k)] = pairs(v, f"marker {k}")
                except CalibrationError as e:
                    raise bad(f"malformed markers ({str(e).split(': ', 1)[-1]}: marker {k} needs four corners)") from None
        camera = data.get("camera") or {}
        reference = data.get("reference") or {}
        if not isinstance(camera, dict) or not isinstance(reference, dict):
            raise bad("camera and reference must be objects")
        if not all(number(v) for v in reference.values()):
            raise bad("reference must hold numbers")
        for k, v in camera.items():  # given back to the camera as controls: numbers, or a list of them
            if not (isinstance(v, (str, bool)) or number(v) or (isinstance(v, list) and len(v) <= 4 and all(map(number, v)))):
                raise bad(f"camera setting {str(k)[:40]!r} must be a number, a list of numbers or text")
        empty = None
        if data.get("empty") is not None:
            try:
                empty = EmptyLook.from_json(data["empty"])
            except ValueError as e:
                raise bad(str(e)) from None
        bend = 0.0
        lens = data.get("lens")
        if lens is not None:
            if not (isinstance(lens, dict) and number(lens.get("bend")) and abs(lens["bend"]) <= MAX_BEND):
                raise bad(f"lens must be {{\"bend\": a number from -{MAX_BEND} to {MAX_BEND}}}")
            bend = float(lens["bend"])
        return cls(corners, rotation, frame_size, markers, camera,
                   {str(k): float(v) for k, v in reference.items()}, str(data.get("created", ""))[:64], empty, bend)


def save(cal: Calibration, path: str | Path) -> Path:
    """Write the profile as JSON (atomically: a crash never leaves half a file)."""
    return write_json(path, cal.to_json())


def load(path: str | Path) -> Calibration:
    """Read a profile; :class:`CalibrationError` with the reason when it cannot be used."""
    p = Path(path)
    if not p.exists():
        raise CalibrationError(f"no calibration file {p}")
    if not p.is_file():  # a folder, or a device such as /dev/zero that would be read for ever
        raise CalibrationError(f"cannot read {p}: not a file")
    try:
        with open(p, "rb") as f:
            raw = f.read(MAX_FILE_BYTES + 1)
        if len(raw) > MAX_FILE_BYTES:
            raise CalibrationError(f"{p} is larger than any calibration ({MAX_FILE_BYTES // 1024} KB): not one")
        text = raw.decode("utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise CalibrationError(f"cannot read {p}: {e}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise CalibrationError(f"{p} is not valid JSON ({e.msg}, line {e.lineno})") from None
    except (RecursionError, ValueError) as e:  # nested too deeply; a number of thousands of digits
        raise CalibrationError(f"{p} is not a calibration ({type(e).__name__}: {str(e)[:80]})") from None
    return Calibration.from_json(data, str(p))


# --------------------------------------------------------------------------- markers


def _dictionary() -> Any:
    return cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, MARKER_DICTIONARY))


def marker_image(marker_id: int, side_px: int = 400) -> np.ndarray:
    """A marker to print (with its white quiet border), grey uint8."""
    if marker_id not in MARKER_IDS:
        raise ValueError(f"board-pi uses markers {MARKER_IDS}")
    inner = cv2.aruco.generateImageMarker(_dictionary(), marker_id, side_px * 6 // 8)
    pad = (side_px - inner.shape[0]) // 2
    return cv2.copyMakeBorder(inner, pad, side_px - inner.shape[0] - pad, pad, side_px - inner.shape[0] - pad, cv2.BORDER_CONSTANT, value=255)


def detect_markers(image: np.ndarray) -> dict[int, np.ndarray]:
    """Board-pi's markers in an image: id -> 4x2 corners (pixels), for ids 0-3 only."""
    gray = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    detector = cv2.aruco.ArucoDetector(_dictionary(), cv2.aruco.DetectorParameters())
    corners, ids, _ = detector.detectMarkers(gray)
    out: dict[int, np.ndarray] = {}
    if ids is None:
        return out
    for c, i in zip(corners, ids.ravel().tolist()):
        if i in MARKER_IDS and i not in out:
            out[i] = np.asarray(c, np.float32).reshape(4, 2)
    return out


def corners_from_markers(markers_seen: dict[int, np.ndarray], markers_grid: dict[int, np.ndarray]) -> np.ndarray | None:
    """The grid's corners from the markers seen, given where they sit in grid units; None if none match."""
    common = sorted(set(markers_seen) & set(markers_grid))
    if not common:
        return None
    src = np.concatenate([markers_grid[i] for i in common]).astype(np.float32)
    dst = np.concatenate([markers_seen[i] for i in common]).astype(np.float32)
    H, _ = cv2.findHomography(src, dst, 0)
    if H is None:
        return None
    g = np.array([[0, 0], [GRID, 0], [GRID, GRID], [0, GRID]], np.float32).reshape(-1, 1, 2)
    out = cv2.perspectiveTransform(g, H).reshape(4, 2)
    return out.astype(np.float32) if cv2.isContourConvex(out.reshape(-1, 1, 2)) else None


# --------------------------------------------------------------------------- the check


@dataclass(frozen=True)
class GridFit:
    """How well a frame agrees with a grid position.

    ``lines``: of the pieces of grid line that show clearly, the share lying where predicted
    (0..1); ``pieces``: the share of pieces that show at all (a hand or an arm hides some);
    ``premium``: correlation of the squares' colourfulness with the premium layout (-1..1).
    Squares known to hold tiles, and the line pieces beside them, are left out of all three:
    a tile hides the lines around it and the colour of its square.
    """

    lines: float
    pieces: float
    premium: float


#: Fewer line pieces than this clear of known tiles (of 480), and the tiles are not left out:
#: too few would be left to judge by.
MIN_FREE_PIECES = 48


def grid_fit(image: np.ndarray, corners: np.ndarray, square_px: int = 12,
             covered: np.ndarray | None = None) -> GridFit:
    """Measure :class:`GridFit` on a small rectified view (about a millisecond).

    ``covered``: a 15x15 boolean array of the squares known to hold tiles (the committed board),
    left out of the measure. Each line is taken a square's length at a time, so that pieces clear
    of tiles remain on a full board.
    """
    m = square_px
    side = GRID * square_px + 2 * m
    top = warp_grid(as_bgr(image), corners, square_px, m, cv2.INTER_AREA)
    grey = cv2.cvtColor(top, cv2.COLOR_BGR2GRAY).astype(np.float32)
    bg = cv2.blur(grey, (square_px // 2 | 1, square_px // 2 | 1))
    free = _free_pieces(covered)
    if int(free.sum()) < MIN_FREE_PIECES:
        free, covered = np.ones_like(free), None
    half = square_px // 2
    x0 = m + np.arange(GRID + 1) * square_px  # the predicted lines
    near = np.arange(-1, 2)
    best: tuple[int, int] | None = None
    for R in (np.maximum(bg - grey, 0), np.maximum(grey - bg, 0)):
        # Both directions at once: (2 axes, 15 pieces, side) sums of the response along each
        # piece; [0, p, i] is vertical line i beside row p, [1, p, i] horizontal line i over column p.
        bands = np.stack([R[m:m + GRID * square_px].reshape(GRID, square_px, side).sum(axis=1),
                          R.T[m:m + GRID * square_px].reshape(GRID, square_px, side).sum(axis=1)])
        on = bands[:, :, x0[:, None] + near].max(axis=3)
        left = bands[:, :, np.clip(x0 - half, 0, side - 1)[:, None] + near].max(axis=3)
        right = bands[:, :, np.clip(x0 + half, 0, side - 2)[:, None] + near].max(axis=3)
        floor = np.median(bands[:, :, m:m + GRID * square_px], axis=2)[:, :, None]
        # A piece "shows" when something line-like stands out at the line or beside it; it is
        # "aligned" when the line is where predicted rather than half a square off.
        shows = (np.maximum(on, np.maximum(left, right)) > 1.5 * floor + 1e-6) & free
        aligned = shows & (on > 1.2 * np.maximum(left, right))
        clear, hits = int(shows.sum()), int(aligned.sum())
        # The grid's lines are whichever of dark or bright lines up in more pieces. (Not the
        # better share: tiles brighter than a wooden board leave a few bright edges that line up
        # almost perfectly, and the share of lines seen would then fall by half.)
        if best is None or hits > best[1]:
            best = (clear, hits)
    assert best is not None
    clear, aligned_n = best
    # Premium squares: colourful against the plain squares' colour, on the premium layout.
    lab = cv2.cvtColor(top, cv2.COLOR_BGR2LAB).astype(np.float32)
    c = square_px // 2
    centres = lab[m + c:m + GRID * square_px:square_px, m + c:m + GRID * square_px:square_px][:GRID, :GRID]
    keep = np.ones((GRID, GRID), bool) if covered is None else ~np.asarray(covered, bool)
    flat = centres[keep]
    ref = np.median(flat, axis=0)
    feat = np.linalg.norm(flat - ref, axis=1) + np.hypot(flat[:, 1] - 128, flat[:, 2] - 128)
    pm = PREMIUM_MASK[keep] - PREMIUM_MASK[keep].mean()
    fc = feat - feat.mean()
    den = float(np.linalg.norm(fc) * np.linalg.norm(pm))
    premium = float((fc * pm).sum()) / den if den > 1e-6 else 0.0
    return GridFit(lines=aligned_n / clear if clear else 0.0, pieces=clear / int(free.sum()), premium=premium)


def _free_pieces(covered: np.ndarray | None) -> np.ndarray:
    """(2, 15, 16) booleans: the line pieces with no known tile on either side."""
    if covered is None:
        return np.ones((2, GRID, GRID + 1), bool)
    cov = np.zeros((GRID + 2, GRID + 2), bool)
    cov[1:-1, 1:-1] = np.asarray(covered, bool).reshape(GRID, GRID)
    vertical = cov[1:-1, :-1] | cov[1:-1, 1:]  # [row, line]: the squares left and right of it
    horizontal = (cov[:-1, 1:-1] | cov[1:, 1:-1]).T  # [column, line]: above and below it
    return ~np.stack([vertical, horizontal])


@dataclass(frozen=True)
class Check:
    """The verdict on one frame: ``ok`` (the grid is where it was), or why not."""

    ok: bool
    fit: GridFit
    reason: str = ""


def check(image: np.ndarray, cal: Calibration, covered: np.ndarray | None = None) -> Check:
    """Is the board still where ``cal`` says? Cheap enough for every frame.

    A frame that hides too much of the grid (an arm across the board) is not "moved": the check
    says so in ``reason`` with ``ok`` False, and a tracker should then keep its calibration and
    wait for a clear frame rather than search. ``covered``: the squares known to hold tiles,
    left out (see :func:`grid_fit`).
    """
    h, w = image.shape[:2]
    if (w, h) != tuple(cal.frame_size):
        return Check(False, GridFit(0, 0, 0), f"frame is {w}x{h}, calibrated for {cal.frame_size[0]}x{cal.frame_size[1]}")
    fit = grid_fit(image, cal.corners, covered=covered)
    # Too little of the grid shows to say anything: an arm or a body across the board.
    if fit.pieces < max(0.25, 0.5 * cal.reference.get("pieces", 0.5)):
        return Check(False, fit, "hidden")
    # Held to the calibration frame's own score: thick grid lines still half-match a board
    # shifted by a third of a square, so an absolute bar alone lets that through.
    if fit.lines < max(0.6, cal.reference.get("lines", 0.7) - 0.12) \
            and not _lines_best_here(image, cal.corners, fit.lines, covered):
        return Check(False, fit, "moved")
    ref_premium = cal.reference.get("premium", 0.3)
    # Squares shifted by whole squares still line up; the premium pattern does not. (On a board
    # whose premium squares hardly stand out, or that tiles cover, this cannot be asked.)
    if ref_premium >= 0.2 and fit.premium < 0.5 * ref_premium:
        return Check(False, fit, "moved")
    return Check(True, fit)


#: Where the lines fit less well than in the calibration frame, the grid is also tried this far
#: off (in squares: each way along both axes, and turned both ways by as much at its corners);
#: it is where it was if the lines fit better there than at every one of those by ``PEAK_MARGIN``.
PEAK_SHIFT = 0.25
PEAK_MARGIN = 0.15


def _lines_best_here(image: np.ndarray, corners: np.ndarray, lines: float, covered: np.ndarray | None) -> bool:
    """Do the grid's lines still fit clearly best where the grid was? Then a lower fit than the
    calibration frame's is the light, or tiles' shadows, changing what the check sees (a lamp
    moved, the sun come out), not the board moving. A board pushed by an eighth of a square or
    more fits nearly as well (within the margin), or better, a quarter of a square further on,
    and one turned by a degree and a half, turned further: neither is held where it was. Six
    more fits (8 ms on this machine's frames), on such frames only.
    """
    if lines < 0.6:
        return False
    to_image = grid_to_image(corners)
    grid = np.float32([[0, 0], [GRID, 0], [GRID, GRID], [0, GRID]])
    centre = GRID / 2
    turn = math.atan(PEAK_SHIFT / centre)  # the turn that takes the corners that far
    c, s = math.cos(turn), math.sin(turn)
    tried = [grid + np.float32(step) for step in ((PEAK_SHIFT, 0), (-PEAK_SHIFT, 0), (0, PEAK_SHIFT), (0, -PEAK_SHIFT))]
    tried += [(grid - centre) @ np.float32([[c, sign * s], [-sign * s, c]]) + centre for sign in (1, -1)]
    for g in tried:
        off = cv2.perspectiveTransform(g.astype(np.float32).reshape(-1, 1, 2), to_image).reshape(4, 2)
        if grid_fit(image, off, covered=covered).lines > lines - PEAK_MARGIN:
            return False
    return True


# --------------------------------------------------------------------------- making and keeping one


def calibrate(
    image: np.ndarray,
    corners: np.ndarray | None = None,
    rotation: int | None = None,
    use_markers: bool = True,
    camera: dict[str, Any] | None = None,
    far: bool = False,
    lens: bool = False,
    by_hand: bool = False,
) -> Calibration:
    """Make a calibration from one frame: the grid found (or ``corners`` given, upright order;
    ``far``: looked for as in a photo, where the board may stand small, see
    :func:`~board_pi.vision.locate.find_board`). With ``lens``, the bend of the camera's lens is
    measured first (:func:`measure_bend`) and the frame straightened by it: the corners given
    are in the frame's own pixels, those kept in the straightened frame's.

    ``by_hand``: the ``corners`` were given by a person, and are snapped to the grid's lines
    where the lines agree on a place near them
    (:func:`~board_pi.vision.locate.refine.snap_hand_corners`); every frame at the table is read
    through them, so a click a third of a square off would misread the game's squares.

    Markers seen in the frame are recorded in grid units, so later frames can place the grid
    from them alone, and every square's appearance (the frame should show the empty board:
    a square with something on it is told by its colour and left out). Raises
    :class:`CalibrationError` when no board is found.
    """
    bend = 0.0
    if lens:
        bend = measure_bend(image, corners)
        straight = Lens(bend, (image.shape[1], image.shape[0]))
        image = straight.straighten(image)
        if corners is not None:
            corners = straight.straight(np.asarray(corners, np.float32).reshape(4, 2))
    if corners is None:
        loc = find_board(image, far=far)
        if loc is None:
            raise CalibrationError("no board found in the calibration frame; give its corners instead")
        corners = loc.corners
        rot = loc.rotation if rotation is None else rotation
        if rotation is not None and rotation != loc.rotation:
            corners = loc.rotated((rotation - loc.rotation) // 90).corners
    else:
        corners = np.asarray(corners, np.float32).reshape(4, 2)
        if not cv2.isContourConvex(corners.reshape(-1, 1, 2)):
            raise CalibrationError("the four corners given do not make a convex quadrilateral")
        if by_hand:
            snapped = snap_hand_corners(cv2.cvtColor(as_bgr(image), cv2.COLOR_BGR2GRAY), corners)
            corners = corners if snapped is None else snapped
        rot = 0 if rotation is None else rotation
    markers: dict[int, np.ndarray] = {}
    if use_markers:
        Hinv = np.linalg.inv(grid_to_image(corners))
        for i, c in detect_markers(image).items():
            markers[i] = cv2.perspectiveTransform(c.reshape(-1, 1, 2), Hinv).reshape(4, 2).astype(np.float32)
    fit = grid_fit(image, corners)
    h, w = image.shape[:2]
    return Calibration(
        corners=np.asarray(corners, np.float32),
        rotation=int(rot),
        frame_size=(w, h),
        markers=markers,
        camera=dict(camera or {}),
        reference=_reference(fit),
        created=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        empty=empty_look(image, corners),
        bend=bend,
    )


#: The bends a lens is measured among: from -LENS_MOST to LENS_MOST, LENS_STEP apart. A bend is
#: kept where the grid's lines lie nearer where predicted by LENS_GAIN of a square, on average,
#: than with none; bends within LENS_TIE of the best fit as well.
LENS_MOST = 0.3
LENS_STEP = 0.025
LENS_GAIN = 0.01
LENS_TIE = 0.002
#: The side of the working copy a bend is measured on (the bend does not depend on the size).
LENS_WORK_SIDE = 960


def measure_bend(image: np.ndarray, corners: np.ndarray | None = None) -> float:
    """The bend of the camera's lens (:class:`~board_pi.vision.lens.Lens`), measured on a frame
    of the empty board, or 0 where the board's lines are straight enough already.

    Each bend tried straightens the frame, the board is found in it (or, where it is not,
    ``corners`` given are carried over), and the pieces of its 16 + 16 lines are looked for
    about where one homography puts them (:func:`~board_pi.vision.locate.refine.line_pieces`):
    how far off they lie, on average, a piece not found counting as far as was looked. Through
    the right bend every line lies where predicted; through a wrong one the lines at the board's
    edges bow off. Of several bends that fit equally, the middle one. About two seconds here.
    """
    bgr = as_bgr(image)
    h, w = bgr.shape[:2]
    f = min(1.0, LENS_WORK_SIDE / max(w, h))
    small = cv2.resize(bgr, (round(w * f), round(h * f)), interpolation=cv2.INTER_AREA) if f < 1 else bgr
    size = (small.shape[1], small.shape[0])
    given = None if corners is None else np.asarray(corners, np.float32).reshape(4, 2) * np.float32(
        [size[0] / w, size[1] / h])
    bends = np.round(np.arange(-LENS_MOST, LENS_MOST + LENS_STEP / 2, LENS_STEP), 4)
    every = 2 * (GRID + 1) * TUNING.refine_pieces
    scores = []
    for bend in bends:
        lens = Lens(float(bend), size)
        seen = lens.straighten(small)
        loc = find_board(seen)
        grid = loc.corners if loc is not None else (None if given is None else lens.straight(given))
        if grid is None:
            scores.append(TUNING.refine_search)
            continue
        ideal, found = line_pieces(cv2.cvtColor(seen, cv2.COLOR_BGR2GRAY), grid)
        off = np.abs(found - ideal).sum(axis=1) / TUNING.refine_square_px  # in squares, across each line
        scores.append((float(off.sum()) + TUNING.refine_search * (every - len(off))) / every)
    score = np.array(scores)
    best = int(score.argmin())
    none = int(np.flatnonzero(bends == 0)[0])
    if score[none] - score[best] < LENS_GAIN:
        return 0.0
    # The run of bends fitting as well as the best, about it: its middle.
    lo = hi = best
    while lo > 0 and score[lo - 1] <= score[best] + LENS_TIE:
        lo -= 1
    while hi < len(bends) - 1 and score[hi + 1] <= score[best] + LENS_TIE:
        hi += 1
    return float(round((bends[lo] + bends[hi]) / 2, 4))


def _reference(fit: GridFit) -> dict[str, float]:
    return {"lines": round(fit.lines, 4), "pieces": round(fit.pieces, 4), "premium": round(fit.premium, 4)}


def held_to(cal: Calibration, image: np.ndarray, covered: np.ndarray | None = None) -> Calibration:
    """``cal`` with later frames held to this frame's check scores rather than its own frame's.

    For a false alarm: the check said "moved", yet the board was found where it was. Tiles put
    down since the calibration frame (their edges beside the lines, premium squares covered)
    lower what the check sees; held to the empty board's scores, every later frame would raise
    the same alarm and the board be looked for again at each. The share of the grid seen is not
    lowered (a hand in this frame must not make a hidden board pass for a clear one later).
    ``covered``: the squares known to hold tiles, as the later checks will be given them.
    """
    now = _reference(grid_fit(image, cal.corners, covered=covered))
    now["pieces"] = max(now["pieces"], cal.reference.get("pieces", 0.0))
    return replace(cal, reference=now)


def _closest_turn(new: BoardLocation, old_corners: np.ndarray) -> BoardLocation:
    """The turn of ``new`` that keeps square A1 nearest where it was (for boards only nudged),
    taken the same way round the picture as ``old_corners`` (a camera whose picture is a mirror
    image: :func:`~board_pi.vision.geometry.handed_as`)."""
    new = replace(new, corners=handed_as(new.corners, old_corners))
    return new.rotated(nearest_turn(new.corners, old_corners))


class Tracker:
    """Keeps a calibration true to the frames: checks each frame, finds the board again when moved.

    ``update(frame)`` returns the board's location for that frame, or None when the board cannot
    be seen (hidden, or gone). ``moves`` counts how often it was found again; ``path``, if given,
    is where the calibration is saved again after each move. ``covered`` (15x15 booleans, or
    None) is what the tracker is told of the squares holding tiles: the check leaves them out.
    ``far``: the board is looked for again as in a photo (it may stand small in the frame);
    for photos one per press, not a live camera's frames. Frames are given as the calibration
    sees them: straightened by its lens where it has one (``VisionReader.straightened``).
    """

    #: After this many frames in a row with the grid hidden, look for the board elsewhere: it
    #: may have been carried off and put down again, leaving its old place empty. (A camera
    #: watching the table waits out an arm over the board; photos, one per press, cannot wait.)
    SEARCH_AFTER_HIDDEN = 10

    def __init__(self, cal: Calibration, path: str | Path | None = None, min_orientation_confidence: float = 0.3,
                 search_after_hidden: int = SEARCH_AFTER_HIDDEN, far: bool = False) -> None:
        self.calibration = cal
        self.far = far  # photos, one per press: a board moved is looked for as in a photo
        self.search_after_hidden = search_after_hidden
        self.path = Path(path) if path else None
        self.min_orientation_confidence = min_orientation_confidence
        self.moves = 0
        self.hidden_frames = 0
        self.last_check: Check | None = None
        self.covered: np.ndarray | None = None

    def update(self, frame: np.ndarray) -> BoardLocation | None:
        cal = self.calibration
        result = check(frame, cal, self.covered)
        self.last_check = result
        if result.ok:
            self.hidden_frames = 0
            return cal.location
        if result.reason == "hidden":
            self.hidden_frames += 1
            if self.hidden_frames < self.search_after_hidden:
                return None
            self.hidden_frames = 0
        loc = self._find_again(frame)
        if loc is None:
            return None
        new = calibrate(frame, loc.corners, loc.rotation, use_markers=False, camera=cal.camera)
        # The empty board's appearance stays the one seen before the tiles went down, while the
        # board stands where it stood: moved further, the lamp's reflections and the shadows lie
        # on other squares, and the look would read a washed-out empty square as a blank (a
        # phone's photo at each press, a board pushed across the table). No look is then kept:
        # each frame's empty colours are estimated from the frame, as a single photo's are.
        # (The frame was straightened by the lens already: the bend stays the one measured.)
        empty = cal.empty if moved_by(cal.corners, new.corners) <= LOOK_HOLDS else None
        self.keep(replace(new, markers=cal.markers or new.markers, empty=empty, bend=cal.bend))
        self.moves += 1
        return self.calibration.location

    def keep(self, cal: Calibration) -> None:
        """Make ``cal`` the calibration (saved where the tracker saves), e.g. the one from before
        a false alarm."""
        self.calibration = cal
        if self.path is not None:
            save(cal, self.path)

    def _find_again(self, frame: np.ndarray) -> BoardLocation | None:
        cal = self.calibration
        seen = detect_markers(frame) if cal.markers else {}
        known = set(seen) & set(cal.markers)
        from_markers = corners_from_markers(seen, cal.markers) if known else None
        if from_markers is not None and len(known) >= 2 and check(frame, replace(cal, corners=from_markers), self.covered).ok:
            # The markers are fixed to the board, so they carry its orientation too.
            return BoardLocation(from_markers, 1.0, _turn_of(from_markers), 1.0)
        loc = find_board(frame, far=self.far)
        if loc is None:
            return None
        if from_markers is not None:
            # One marker places the grid only roughly, but well enough to say where A1 went.
            return _closest_turn(loc, from_markers)
        if mirrored(cal.corners) or loc.orientation_confidence < self.min_orientation_confidence:
            # (Under a camera whose picture is a mirror image, the finder's own turn, from the
            # values' places beside the letters, which a mirror moves, is no guide.)
            loc = _closest_turn(loc, cal.corners)
        return loc


LOOK_HOLDS = 0.5
"""How far (squares, the farthest corner) the board may have moved in the frame since its empty
look was seen (:attr:`Calibration.empty`) for the look to be kept: a board nudged keeps its
squares under the same light; moved further, or turned, the light on each square is another."""


def moved_by(before: np.ndarray, after: np.ndarray) -> float:
    """How far the grid's corners ``after`` lie from ``before`` (both upright order), in squares
    of the board as ``before`` shows it: the farthest corner's move.

    >>> c = np.float32([[100, 100], [400, 100], [400, 400], [100, 400]])   # squares of 20 pixels
    >>> moved_by(c, c + [5, 0]), moved_by(c, np.roll(c, -1, axis=0))      # nudged; turned a quarter
    (0.25, 15.0)
    """
    b = np.asarray(before, np.float64).reshape(4, 2)
    a = np.asarray(after, np.float64).reshape(4, 2)
    square = float(np.mean([np.linalg.norm(b[i] - b[(i + 1) % 4]) for i in range(4)])) / GRID
    return float(np.linalg.norm(a - b, axis=1).max()) / max(square, 1e-6)


def _turn_of(corners: np.ndarray) -> int:
    """Clockwise turn of a board whose upright corners are given, judged from the top edge's direction."""
    dx, dy = (corners[1] - corners[0]).tolist()
    ang = math.degrees(math.atan2(dy, dx)) % 360
    return int(round(ang / 90.0)) % 4 * 90
