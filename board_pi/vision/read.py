"""Reading the squares: each of the 225 squares is empty, a letter A-Z, or a blank tile (``?``).

The board is warped top-down from its four grid corners, each square is cut out with a little of
its surroundings (tiles sit off-centre and stand proud of the board, so their tops drift), and a
small CNN (``model/tiles.onnx``, run with OpenCV's dnn module, no training framework) classifies
the whole tile, letter and point value together: the value tells E from F, M from W.

Reading is honest: no word list is ever consulted, so a phony reads as the phony it is.

>>> reader = Reader()                                                    # doctest: +SKIP
>>> reading = reader.read(cv2.imread("board.jpg"), corners)              # doctest: +SKIP
>>> reading.grid[7], reading.confidence[7, 7]                            # doctest: +SKIP
('.......CAT.....', 0.998)
"""

from __future__ import annotations

import json
import zipfile
import zlib
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, ClassVar, Iterable, Sequence

import cv2
import numpy as np

from board_pi.files import replacing
from board_pi.rules.board import Square, split_row
from board_pi.rules.tiles import ENGLISH, TileSet
from board_pi.vision.accents import families, share_out
from board_pi.vision.cover import hidden_in_reading
from board_pi.vision.decode import SURE_EMPTY, decode, hand_patches, islands, lone_tiles, tile_limits
from board_pi.vision.empty import (MAX_LOG_ODDS, MAX_LOG_ODDS_SEEN, SURE_LETTER, EmptyLook, colour_log_odds,
                                   middle_lab, ring_lab, square_colours, tile_colour, tile_faces,
                                   weigh_blank_against_empty)
from board_pi.vision.frames import FrameSourceError, as_bgr, grain, load_photo, washed_out
from board_pi.vision.geometry import (PREMIUM_MASK, corners_moved, other_way_round, square_side, squares_outside,
                                      warp_grid)
from board_pi.vision.locate import tile_orientation_votes
from board_pi.vision.locate.refine import snap_hand_corners, snap_to_lines
from board_pi.vision.values import VALUE_CLASSES, value_patches, weigh_values
from board_pi.vision.values import cut as value_cut

N = 15
EMPTY_CLASS = "."
BLANK_CLASS = "?"
MODEL_PATH = Path(__file__).with_name("model") / "tiles.onnx"
FIRST_CLASSES = ("." ,) + tuple("ABCDEFGHIJKLMNOPQRSTUVWXYZ") + ("?",)
"""The classes of a model that names none beside it (the first models: empty, A-Z, blank)."""


def _recipe(model_path: str | Path) -> dict[str, Any]:
    """The ``recipe.json`` beside a model (how it was made, its classes and patch size); {} if none."""
    try:
        recipe = json.loads(Path(model_path).with_name("recipe.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return recipe if isinstance(recipe, dict) else {}


def model_classes(model_path: str | Path = MODEL_PATH) -> tuple[str, ...]:
    """Class index -> what the square holds, for the model at ``model_path``: ``.`` empty, a
    tile's face (``A``, ``Ä``, ``CH``), ``?`` a blank tile. Kept beside the model, in the
    ``classes`` of its ``recipe.json`` (a list, or a string of one-character classes)."""
    return _classes_in(_recipe(model_path))


def named_classes(model_path: str | Path) -> tuple[str, ...]:
    """The classes the ``recipe.json`` beside a network names, as it names them: a specialist
    network's own too (the accents network's faces, with no empty square or blank, which
    :func:`model_classes` would not take); () where it names no list of them."""
    return _named_classes(_recipe(model_path))


def _named_classes(recipe: dict[str, Any]) -> tuple[str, ...]:
    classes = recipe.get("classes")
    return tuple(classes) if isinstance(classes, list) and all(isinstance(c, str) for c in classes) else ()


def _classes_in(recipe: dict[str, Any]) -> tuple[str, ...]:
    """The classes a recipe names (see :func:`model_classes`); the first models' when it names none."""
    classes = recipe.get("classes")
    if classes is None:
        return FIRST_CLASSES
    out = tuple(classes) if isinstance(classes, (str, list)) else ()
    if len(out) < 3 or EMPTY_CLASS not in out or BLANK_CLASS not in out or not all(isinstance(c, str) and c for c in out):
        return FIRST_CLASSES
    return out


CLASSES = model_classes()
"""The committed model's classes: 0 empty, then every face of every tile set, last a blank tile."""
SQUARE_PX = 36
"""Pixels per square in the rectified board the squares are cut from."""
PATCH = 52
"""Side of a square's patch: the square and 8 pixels (about a fifth of a square) around it."""
PAD = (PATCH - SQUARE_PX) // 2
EMBEDDING_FEATURES = 96
"""Features per tile in the committed model's ``embedding`` output, so in an enrolled profile."""


class ReadError(ValueError):
    """The image, the corners or the tile profile cannot be used (message for the user)."""


class ProfileError(ReadError):
    """An enrolled tile profile (``tiles.npz``) that cannot be used: the message says which
    file and why. Raised by :func:`load_profile`."""


def label_of(ch: str, classes: Sequence[str] = CLASSES) -> int:
    """Class index of a square as a board writes it: ``.`` empty, a tile's face in upper case,
    lower case or ``?`` a blank. ValueError for a face the model has no class for.

    >>> label_of("."), CLASSES[label_of("q")], CLASSES[label_of("Q")]
    (0, '?', 'Q')
    """
    if ch == EMPTY_CLASS:
        return classes.index(EMPTY_CLASS)
    if ch == BLANK_CLASS or ch.islower():
        return classes.index(BLANK_CLASS)
    try:
        return classes.index(ch)
    except ValueError:
        raise ValueError(f"the tile model has no class for {ch!r}") from None


def row_text(cells: Sequence[str]) -> str:
    """A row of squares as text: a multi-letter tile in brackets, ``[CH]``, as boards write them."""
    return "".join(f"[{c}]" if len(c) > 1 else c for c in cells)


def rectified(image: np.ndarray, corners: np.ndarray) -> np.ndarray:
    """The board in ``image`` whose grid has ``corners``, seen from straight above as the tile
    model reads it: :data:`SQUARE_PX` a square, with a margin of :data:`PAD` round the grid."""
    return _warp(as_bgr(image), np.asarray(corners, np.float32).reshape(4, 2))


def _warp(image: np.ndarray, corners: np.ndarray, square_px: int = SQUARE_PX, pad: int = PAD) -> np.ndarray:
    """The board rectified top-down: 15 squares of ``square_px`` plus ``pad`` pixels all round.

    Large photos are first shrunk (area averaging) so the warp does not alias the letters.
    """
    c = np.asarray(corners, np.float32).reshape(4, 2)
    side = max(np.linalg.norm(c[i] - c[(i + 1) % 4]) for i in range(4))
    target = N * square_px
    if side > 2.5 * target:
        f = 2.0 * target / side
        image = cv2.resize(image, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
        c = c * f
    return smoothed(warp_grid(image, c, square_px, pad))


GRAIN_FROM = 2.0
"""The sensor noise (:func:`grain`, grey levels in the rectified board) from which the board is
smoothed before it is read: a dim room's camera turns its gain up, and the tile model, trained
on frames with less noise, reads strong noise on an empty square as a blank tile's texture.
Chosen on the tuning photos darkened and made noisy (``bench_conditions`` ``noisy-*``: 1.5 to
8.4 here). The tuning photos as they are measure 0.2 to 2.7: the three above it, large photos of
a grainy board, are smoothed a little and read as before."""
GRAIN_BLUR = 0.25
"""The smoothing's sigma (pixels of the rectified board) per grey level of noise: no more than
the lens blur the model was trained with (:data:`GRAIN_BLUR_MAX`)."""
GRAIN_BLUR_MAX = 1.2
"""The most the board is smoothed (sigma, pixels of the rectified board), whatever its noise."""


def smoothed(board: np.ndarray) -> np.ndarray:
    """The rectified ``board`` smoothed as far as its noise asks (:data:`GRAIN_FROM`), else as it is."""
    noise = grain(board)
    if noise < GRAIN_FROM:
        return board
    return cv2.GaussianBlur(board, (0, 0), min(GRAIN_BLUR_MAX, GRAIN_BLUR * noise))


WASHED_OUT_BOARD = 0.25
"""The share of the board burnt out white (:func:`board_washed_out`) from which a reading or a
camera check says so: there a blank tile and an empty square look alike. Chosen on the tuning
photos brightened (``bench_conditions``-style, x1.3 to x1.6): as they are, none has 0.5% of its
board burnt out; the first empty square read as a blank came at 37%, and most of those read
every square right up to 50%."""


def board_washed_out(image: np.ndarray, corners: np.ndarray) -> float:
    """The share of the board within ``corners`` burnt out white (:func:`~.frames.washed_out`).

    >>> frame = np.full((300, 300, 3), 90, np.uint8)
    >>> frame[50:250, 50:150] = 255   # the left half of the board, burnt out
    >>> corners = np.float32([[50, 50], [250, 50], [250, 250], [50, 250]])
    >>> round(board_washed_out(frame, corners), 1)
    0.5
    """
    return washed_out(warp_grid(as_bgr(image), corners, 16))


def washed_out_note(share: float | None) -> str | None:
    """What a reader is told of a board with ``share`` of it burnt out white
    (:func:`board_washed_out`): None below :data:`WASHED_OUT_BOARD`, or with no share (no board).

    >>> washed_out_note(0.1) is None, washed_out_note(0.4)[:37]
    (True, '40% of the board is burnt out white (')
    """
    if share is None or share < WASHED_OUT_BOARD:
        return None
    return (f"{share:.0%} of the board is burnt out white (too much light on it, or too long an exposure): "
            "there a blank tile and an empty square look alike")


def patches(warped: np.ndarray, squares: Iterable[tuple[int, int]], square_px: int = SQUARE_PX,
            patch: int = PATCH) -> np.ndarray:
    """Cut each (row, col) square's patch out of a rectified board: an (n, patch, patch, 3) array."""
    out = [warped[r * square_px:r * square_px + patch, c * square_px:c * square_px + patch] for r, c in squares]
    return np.stack(out) if out else np.zeros((0, patch, patch, 3), np.uint8)


def parse_corners(text: str) -> np.ndarray:
    """``X1,Y1,...,X4,Y4`` -> 4x2 float32, checked to be a sensible quadrilateral."""
    try:
        vals = [float(v) for v in text.replace(";", ",").split(",") if v.strip()]
    except ValueError:
        raise ReadError(f"--corners {text!r}: expected 8 numbers X1,Y1,X2,Y2,X3,Y3,X4,Y4") from None
    if len(vals) != 8 or not all(np.isfinite(vals)):
        raise ReadError(f"--corners {text!r}: expected 8 numbers X1,Y1,X2,Y2,X3,Y3,X4,Y4")
    c = np.float32(vals).reshape(4, 2)
    check_corners(c)
    return c


def check_corners(c: np.ndarray) -> None:
    """Raise :class:`ReadError` unless the corners make a convex quadrilateral of some size."""
    c = np.asarray(c, np.float64).reshape(4, 2)
    def turn(a: np.ndarray, b: np.ndarray) -> float:  # z of the cross product of two edges
        return float(a[0] * b[1] - a[1] * b[0])

    cross = [turn(c[(i + 1) % 4] - c[i], c[(i + 2) % 4] - c[(i + 1) % 4]) for i in range(4)]
    if not (all(x > 0 for x in cross) or all(x < 0 for x in cross)):
        raise ReadError("the corners do not make a convex quadrilateral (give TL, TR, BR, BL)")
    if abs(cv2.contourArea(c.astype(np.float32))) < (N * 4) ** 2:
        raise ReadError("the corners enclose too small an area to read 225 squares")


@dataclass(frozen=True)
class Reading:
    """What the reader saw: the grid (``.``, ``A``-``Z``, ``?``) and a confidence per square."""

    grid: tuple[str, ...]
    confidence: np.ndarray
    """15x15 float32, the probability the reader gives its answer (0 for squares not read)."""
    corners: np.ndarray
    turn: "Turn | None" = None
    """Which way up the reader took the board to be, when it was asked to judge (:meth:`Reader.read_upright`)."""
    outside: tuple[tuple[int, int], ...] = ()
    """Squares (row, column) the picture does not show: the board runs off its edge there
    (:func:`~board_pi.vision.geometry.squares_outside`). Not read: ``.`` with confidence 0."""
    covered: tuple[tuple[int, int], ...] = ()
    """Squares (row, column) that do not show the board: something lies over them (a sheet of
    paper, a phone, a hand) or a reflection washes them out (:func:`~board_pi.vision.cover.hidden_squares`;
    a board read whole only). Read as the model reads them (as empty, mostly): a tile under them
    is not seen."""

    def to_json(self) -> dict:
        out = {"grid": list(self.grid),
               "confidence": [[round(float(v), 4) for v in row] for row in self.confidence],
               "corners": [[round(float(x), 2), round(float(y), 2)] for x, y in self.corners]}
        if self.turn is not None:
            out["turn"] = self.turn.to_json()
        if self.outside:
            out["outside"] = [Square(r, c).name for r, c in self.outside]
        if self.covered:
            out["covered"] = [Square(r, c).name for r, c in self.covered]
        return out


@dataclass(frozen=True)
class Turn:
    """Which way up a board was read: ``degrees`` clockwise the corners given were turned by
    (0, 90, 180, 270) to put square A1 first; ``tiles`` the tiles that voted;
    ``confidence`` 0..1 (the likeliest turn's share of the belief over the four); ``decided``
    False when too few tiles showed to tell, and the corners were kept as given; ``mirrored``
    when the picture was a mirror image of the board, read as the board is (``degrees`` are then
    the turn of the mirror image, its corners taken A1, O1, O15, A15)."""

    degrees: int
    tiles: int
    confidence: float
    decided: bool
    mirrored: bool = False
    mirror_known: bool = True
    """Whether the tiles told the picture from its mirror image clearly (:attr:`Reader.MIRROR_ODDS`
    either way); not so, and :attr:`mirrored` is False by default: a mirror is the rarer."""

    IN_DOUBT: ClassVar[float] = 0.6
    """A turn decided with less confidence than this is said to be in doubt (:attr:`in_doubt`).
    On 192 rendered boards of the first plays of real games, given at random turns, the 4 read a
    turn wrong (each 180 degrees: a few letters that look alike upside down) had 0.44-0.53; of
    the 182 read the right way up, 30 had less than 0.6 (their median was 0.88)."""

    @property
    def in_doubt(self) -> bool:
        """Decided, but with so little to tell the turns apart that the player should check."""
        return self.decided and self.confidence < self.IN_DOUBT

    @property
    def sure(self) -> bool:
        """Decided, not in doubt, and clear whether the picture is a mirror image: a turn a table
        may keep for the rest of its games (``VisionReader``'s first tiles)."""
        return self.decided and not self.in_doubt and self.mirror_known

    @property
    def worth_telling(self) -> bool:
        """Undecided, turned or in doubt: what a command tells the player (:attr:`message`)."""
        return not self.decided or self.degrees != 0 or self.in_doubt or self.mirrored

    def to_json(self) -> dict:
        return {"degrees": self.degrees, "tiles": self.tiles, "confidence": round(self.confidence, 4),
                "decided": self.decided, "mirrored": self.mirrored}

    @property
    def message(self) -> str:
        if not self.decided:
            return (f"only {self.tiles} tile{'s' if self.tiles != 1 else ''} on the board: too few to tell "
                    "which way up it is; read with the corners as they were")
        # A camera set to flip its picture is worth fixing: said first.
        read = ("the picture is a mirror image of the board (a camera set to flip its picture, a front camera, "
                "a mirror): read the right way round, " if self.mirrored else "read ")
        if self.in_doubt:
            return (f"{read}turned {self.degrees} degrees, but which way up is in doubt ({self.tiles} tiles, "
                    f"confidence {self.confidence:.2f}): check the board, or give its corners from A1")
        return f"{read}turned {self.degrees} degrees ({self.tiles} tiles agree, confidence {self.confidence:.2f})"


MAX_PROFILE_BYTES = 64 << 20
"""The most a tile profile's arrays may take unpacked: an enrolment gives about 200 KB."""


@dataclass(frozen=True)
class Profile:
    """An enrolled tile set: the network's embeddings of the user's own tiles and their classes.

    Checked when made (:class:`ProfileError`): one finite embedding per example, one class in
    0..27 per example, at least one example.
    """

    embeddings: np.ndarray  # (n, d) float32, L2-normalised
    labels: np.ndarray  # (n,) int class indices

    def __post_init__(self) -> None:
        e, lab = np.asarray(self.embeddings), np.asarray(self.labels)
        if e.ndim != 2 or e.shape[1] == 0 or not np.issubdtype(e.dtype, np.number):
            raise ProfileError(f"embeddings must be an (examples x features) array of numbers, not {e.dtype} {e.shape}")
        if lab.ndim != 1 or not np.issubdtype(lab.dtype, np.integer):
            raise ProfileError(f"labels must be a list of class numbers, not {lab.dtype} {lab.shape}")
        if len(e) != len(lab):
            raise ProfileError(f"{len(e)} embeddings but {len(lab)} labels")
        if len(lab) == 0:
            raise ProfileError("it holds no enrolled tiles")
        if not np.isfinite(e).all():
            raise ProfileError("its embeddings hold numbers that are not finite")
        if lab.min() < 0 or lab.max() >= len(CLASSES):
            raise ProfileError(f"its labels must be classes 0..{len(CLASSES) - 1}")

    def save(self, path: str | Path) -> None:
        """Write the profile; atomically, so a crash never leaves half a tiles.npz behind."""
        with replacing(path, binary=True) as f:
            np.savez_compressed(f, embeddings=self.embeddings, labels=self.labels)

    @classmethod
    def load(cls, path: str | Path) -> "Profile":
        """Same as :func:`load_profile`."""
        return load_profile(path)


def load_profile(path: str | Path) -> Profile:
    """Read and check an enrolled tile profile (``board-pi enrol``'s ``tiles.npz``).

    The one loader for every command and the table: a missing, empty, truncated or damaged
    file, or one holding the wrong arrays, raises :class:`ProfileError` (a ValueError) whose
    message names the file and says why; nothing else escapes.
    """
    p = Path(path)
    if not p.is_file():
        raise ProfileError(f"{p}: no such tile profile" + (" (it is a folder)" if p.is_dir() else ""))
    if p.stat().st_size == 0:
        raise ProfileError(f"{p}: the tile profile is empty: enrol again (board-pi enrol)")
    try:
        with zipfile.ZipFile(p) as z:
            names = {i.filename: i.file_size for i in z.infolist()}
            missing = {"embeddings.npy", "labels.npy"} - set(names)
            if missing:
                raise ProfileError(f"{p}: not a tile profile (no {', '.join(sorted(m[:-4] for m in missing))} in it)")
            if sum(names.values()) > MAX_PROFILE_BYTES:
                raise ProfileError(f"{p}: not a tile profile (its arrays would take {sum(names.values()) >> 20} MB)")
        with np.load(p, allow_pickle=False) as z:
            embeddings, labels = z["embeddings"], z["labels"]
    except ProfileError:
        raise
    except (OSError, EOFError, ValueError, KeyError, zipfile.BadZipFile, zlib.error, NotImplementedError,
            RuntimeError) as e:
        raise ProfileError(f"{p}: not a tile profile (damaged or not made by board-pi enrol: {e})") from None
    try:
        if not np.issubdtype(labels.dtype, np.integer):
            raise ProfileError(f"labels must be class numbers, not {labels.dtype}")
        profile = Profile(np.asarray(embeddings, np.float32), labels.astype(np.int64))
        if profile.embeddings.shape[1] != EMBEDDING_FEATURES:
            raise ProfileError(f"it has {profile.embeddings.shape[1]} features per tile, the tile model "
                               f"{EMBEDDING_FEATURES}: enrol again (board-pi enrol)")
        return profile
    except ProfileError as e:
        raise ProfileError(f"{p}: not a usable tile profile: {e}") from None
    except (TypeError, ValueError) as e:
        raise ProfileError(f"{p}: not a usable tile profile ({e})") from None


def _beside(r: int, c: int) -> list[tuple[int, int]]:
    """The squares above, below, left and right of square (r, c) that are on the board.

    >>> _beside(0, 3)
    [(1, 3), (0, 2), (0, 4)]
    """
    return [(rr, cc) for rr, cc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)) if 0 <= rr < N and 0 <= cc < N]


def _odds(pr: np.ndarray, k: int, than: int) -> float:
    """The log of how much likelier probabilities ``pr`` make class ``k`` than class ``than``
    (each at least 1e-9, so a class read as impossible still has a finite say).

    >>> round(_odds(np.array([0.1, 0.9]), 1, 0), 3)
    2.197
    """
    return float(np.log(max(pr[k], 1e-9)) - np.log(max(pr[than], 1e-9)))


def _standing(committed: Sequence[str] | None, read: set[tuple[int, int]]) -> list[str]:
    """The tiles (and empty squares) ``committed`` shows on the squares not ``read``, as the
    camera writes them: what counts against the set beside the squares being read."""
    return [] if committed is None else [
        t for r, row in enumerate(committed) for c, t in enumerate(split_row(row)) if (r, c) not in read]


class Reader:
    """Classifies squares with the ONNX tile model; optionally adapted to an enrolled tile set."""

    KNN_WEIGHT = 0.5  # how far an enrolled profile's nearest neighbours override the network
    KNN_TEMPERATURE = 0.05

    def __init__(self, model_path: str | Path = MODEL_PATH, profile: Profile | None = None,
                 tiles: TileSet = ENGLISH) -> None:
        self.tiles = tiles
        """The tile set on the board: its counts bound the reading, and only its tiles are read."""
        if not Path(model_path).is_file():
            raise ReadError(f"tile model {model_path} is missing: run `make model` to build it")
        self.model_path = Path(model_path)
        recipe = _recipe(model_path)
        self.classes = _classes_in(recipe)
        """The model's classes (:func:`model_classes`); a read gives only the set's own."""
        patch = recipe.get("patch", PATCH)
        if patch != PATCH:  # cut at another size, every square would be misread
            raise ReadError(f"tile model {model_path} reads {patch}-pixel patches and this board-pi cuts "
                            f"{PATCH}: use the model that came with it, or rebuild one (`make model`)")
        self.net = cv2.dnn.readNetFromONNX(str(model_path))
        self.outputs = ["logits", "embedding"]
        self.second_net = self._second_opinion()
        """A second network, trained apart, that doubtful squares are also read by (or None)."""
        self.accents_net, self.accent_classes = self._specialist(self.ACCENTS)
        """The network that tells apart the faces of a family, A Ą Ä (:mod:`.accents`), or None;
        and its classes."""
        self.accents_second = self._accents_second_opinion()
        """A second accents network, trained apart, whose answer is averaged with the first's (or None)."""
        self.values_net = self._values_network()
        """The network that reads the value printed on a tile (:mod:`.values`), or None."""
        self.profile = None
        self.memory: Profile | None = None
        """What the table has learnt of its own tiles while playing (:mod:`~board_pi.vision.learn`)."""
        if profile is not None:
            # A profile from another model has embeddings of another size: say so now, not at a read.
            _, emb = self.run(np.zeros((1, PATCH, PATCH, 3), np.uint8))
            if profile.embeddings.shape[1] != emb.shape[1]:
                raise ProfileError(f"the tile profile has {profile.embeddings.shape[1]} features per tile, the tile "
                                   f"model {emb.shape[1]}: enrol again with this model (board-pi enrol)")
        self.profile = profile

    def _of_the_set(self) -> np.ndarray:
        """1 for the classes the tile set can show (empty, its faces, a blank), 0 for the rest:
        a German board is never read as holding a Ł."""
        key = (self.tiles.name, self.classes)
        if getattr(self, "_mask_key", None) != key:
            faces = set(self.tiles.letters) | {EMPTY_CLASS, BLANK_CLASS}
            mask = np.array([c in faces for c in self.classes], np.float32)
            self._mask, self._mask_key = (mask if mask.sum() > 2 else np.ones(len(self.classes), np.float32)), key
        return self._mask

    SECOND_OPINION = "second"
    """The folder beside a model that holds its second opinion: another network of the same
    classes (``tiles.onnx`` and its ``recipe.json``; the committed one, the model trained further
    on other boards).
    Where the model still doubts a square (below :attr:`SURE`) after looking again from shifted
    cuts, the two are averaged: two networks trained apart err on different squares, and only
    the doubtful few pay for the second read.
    A model with no such folder reads alone."""

    SECOND_OPINION_MOST = 32
    """The most squares of one read the second opinion is asked about. More in doubt than this
    (about a seventh of the board) is a hand or an arm over the board, which a second network
    cannot see through either, and the read would take half as long again for nothing (a blurred
    board's 25-30 doubtful squares are still asked about)."""

    def _second_opinion(self) -> Any:
        path = self.model_path.parent / self.SECOND_OPINION / "tiles.onnx"
        if not path.is_file():
            return None
        recipe = _recipe(path)
        if _classes_in(recipe) != self.classes or recipe.get("patch", PATCH) != PATCH:
            raise ReadError(f"the second opinion {path} reads other classes or patches than {self.model_path}: "
                            "replace both together, or remove the folder")
        return cv2.dnn.readNetFromONNX(str(path))

    ACCENTS = "accents"
    """The folder beside a model that holds its accents network (:mod:`~board_pi.vision.accents`):
    ``tiles.onnx`` and its ``recipe.json``, classes :data:`~board_pi.vision.accents.ACCENT_CLASSES`
    or some of them, the model's patch size. Where the model reads a square as a face of a family
    its tile set holds more than one of (A Ą, Z Ź Ż), the accents network says which of them.
    A model with no such folder reads the marks itself."""

    def _specialist(self, folder: str) -> tuple[Any, tuple[str, ...]]:
        """The network in ``folder`` beside the model, and its classes; (None, ()) with none there."""
        path = self.model_path.parent / folder / "tiles.onnx"
        if not path.is_file():
            return None, ()
        recipe = _recipe(path)
        classes = _named_classes(recipe)
        if not classes or not set(classes) <= set(self.classes) or recipe.get("patch", PATCH) != PATCH:
            raise ReadError(f"the {folder} network {path} reads other faces or patches than {self.model_path}: "
                            "replace both together, or remove the folder")
        return cv2.dnn.readNetFromONNX(str(path)), classes

    ACCENTS_SECOND = "second"
    """The folder inside :attr:`ACCENTS` that holds the accents network's second opinion: another
    network of the same classes (``tiles.onnx`` and its ``recipe.json``; the committed one was
    trained from the tile model's second opinion with another seed). Wherever the accents network
    is asked, the two networks' probabilities of the family's faces are averaged: on the tuning
    boards that reads 4 fewer of 200 Polish boards' squares wrong (58 -> 54), German and Spanish
    unchanged. An accents network with no such folder answers alone."""

    def _accents_second_opinion(self) -> Any:
        if self.accents_net is None:
            return None
        folder = f"{self.ACCENTS}/{self.ACCENTS_SECOND}"
        net, classes = self._specialist(folder)
        if net is not None and classes != self.accent_classes:
            raise ReadError(f"the accents network's second opinion {self.model_path.parent / folder} reads other "
                            "faces than the accents network: replace both together, or remove the folder")
        return net

    VALUES = "values"
    """The folder beside a model that holds its value network (:mod:`~board_pi.vision.values`):
    ``tiles.onnx`` and its ``recipe.json``, classes :data:`~board_pi.vision.values.VALUE_CLASSES`,
    trained on patches cut as :func:`~board_pi.vision.values.value_patches` cuts them (the
    recipe's ``cut``). A model with no such folder reads without looking at the values."""

    VALUE_SURE = 0.99
    """A square read as a tile with less belief than this has its value read too, and its tile
    classes weighed by it (:func:`~board_pi.vision.values.weigh_values`). Trained with label
    smoothing, the model gives hardly any tile more, so nearly every tile is asked: on the 200
    tuning boards a set of Italian, both Dutch sets and Polish that read 123 squares wrong
    against 127 asking only below 0.9 (130 without the value network)."""

    def _values_network(self) -> Any:
        path = self.model_path.parent / self.VALUES / "tiles.onnx"
        if not path.is_file():
            return None
        recipe = _recipe(path)
        if tuple(recipe.get("classes") or ()) != VALUE_CLASSES or recipe.get("cut") != value_cut():
            raise ReadError(f"the value network {path} reads other values or cuts than this board-pi: "
                            "rebuild it (`make model`), or remove the folder")
        return cv2.dnn.readNetFromONNX(str(path))

    def value_probs(self, blob: np.ndarray) -> np.ndarray:
        """The value network's probabilities (patches, :data:`~.values.VALUE_CLASSES`) of the
        patches in ``blob`` (as :meth:`_blob` makes it)."""
        if not len(blob):
            return np.zeros((0, len(VALUE_CLASSES)), np.float32)
        # (it has the tile model's two outputs, and OpenCV gives all of a net's outputs or one by name)
        lo = self._forward(self.values_net, blob, self.outputs)[0]
        e = np.exp(lo - lo.max(1, keepdims=True))
        return e / e.sum(1, keepdims=True)

    def _value_look(self, image: np.ndarray, corners: np.ndarray, squares: Sequence[tuple[int, int]],
                    p: np.ndarray, looked_at: np.ndarray) -> np.ndarray:
        """``p`` (of ``squares`` of the board whose grid has ``corners`` in ``image``) with the
        tile classes of each doubtful tile (read as a tile, below :attr:`VALUE_SURE`) weighed by
        the value printed on it (:mod:`~board_pi.vision.values`), cut from the image at twice the
        tile model's resolution. Only the squares ``looked_at`` (a mask) are asked."""
        if self.values_net is None:
            return p
        empty = self.classes.index(EMPTY_CLASS)
        ask = np.flatnonzero((p.argmax(1) != empty) & (p.max(1) < self.VALUE_SURE) & looked_at)
        if not len(ask):
            return p
        cuts = value_patches(image, corners, [squares[i] for i in ask])
        p = p.copy()
        p[ask] = weigh_values(p[ask], self.value_probs(self._blob(cuts)), self.classes, self.tiles)
        return p

    def _families(self) -> dict[int, tuple[list[int], list[int]]]:
        """Class index of each face of a family of the set (that the accents network knows) ->
        the family's class indices in the model and in the accents network."""
        key = (self.tiles.name, self.classes)
        if getattr(self, "_families_key", None) != key:
            out: dict[int, tuple[list[int], list[int]]] = {}
            for face, fam in families(self.tiles).items():
                known = [f for f in fam if f in self.accent_classes and f in self.classes]
                if len(known) > 1 and face in known:
                    out[self.classes.index(face)] = ([self.classes.index(f) for f in known],
                                                     [self.accent_classes.index(f) for f in known])
            self._family_map, self._families_key = out, key
        return self._family_map

    def _closer_look(self, blob: np.ndarray, p: np.ndarray, looked_at: np.ndarray) -> np.ndarray:
        """``p`` with the belief in each square's family shared out by the accents network, for
        the squares ``looked_at`` (a mask) read as a face of a family (:mod:`~board_pi.vision.accents`);
        ``blob`` holds the squares' centred cuts. The centred cut only: reading the doubtful ones
        again from shifted cuts too, as the tile model does, read 2 more squares of the tuning
        boards wrong."""
        fams = self._families() if self.accents_net is not None else {}
        top = p.argmax(1)
        ask = np.flatnonzero(np.isin(top, list(fams)) & looked_at)
        if not len(ask):
            return p
        q = self._accent_probs(blob[ask], top[ask], fams)
        p = p.copy()
        p[ask] = share_out(p[ask], top[ask], [fams[int(k)][0] for k in top[ask]], q)
        return p

    def _accent_probs(self, blob: np.ndarray, top: np.ndarray, fams: dict[int, tuple[list[int], list[int]]]) -> list[np.ndarray]:
        """The accents network's probabilities of each patch's family members (its read class
        ``top``), averaged with its second opinion's where there is one."""
        nets = [n for n in (self.accents_net, self.accents_second) if n is not None]
        out = [np.zeros(len(fams[int(k)][1])) for k in top]
        for net in nets:
            net.setInput(blob)
            logits = net.forward("logits").reshape(len(blob), -1)
            for i, (row, k) in enumerate(zip(logits, top)):
                z = row[fams[int(k)][1]]
                e = np.exp(z - z.max())
                out[i] += e / e.sum() / len(nets)
        return out

    def _shifted_cuts(self, warped: np.ndarray, squares: Sequence[tuple[int, int]]) -> np.ndarray:
        """Each square's patch cut :attr:`NUDGE_PX` right, left, down and up: (4 * n, PATCH, PATCH, 3),
        all squares' first move first."""
        d = self.NUDGE_PX
        w = np.pad(warped, ((d, d), (d, d), (0, 0)), mode="edge")
        moves = ((d, 0), (-d, 0), (0, d), (0, -d))
        return np.stack([w[d + r * SQUARE_PX + dy:d + r * SQUARE_PX + dy + PATCH,
                           d + c * SQUARE_PX + dx:d + c * SQUARE_PX + dx + PATCH]
                         for dx, dy in moves for r, c in squares])

    FORWARD_BATCH = 32
    """The most patches a network is given at once. Its working memory grows with the batch, the
    time per patch hardly at all: reading whole boards 32 patches at a time peaks 55 MB lower
    than all 225 at once (161 MB against 216 here), in the same 84 ms a board."""

    def _forward(self, net: Any, blob: np.ndarray, outputs: list[str]) -> list[np.ndarray]:
        """``net``'s ``outputs`` for the patches of ``blob``, :attr:`FORWARD_BATCH` at a time,
        each (patches, -1)."""
        parts = []
        for i in range(0, max(len(blob), 1), self.FORWARD_BATCH):
            part = blob[i:i + self.FORWARD_BATCH]
            net.setInput(part)
            parts.append([out.reshape(len(part), -1) for out in net.forward(outputs)])
        return [np.concatenate(out) for out in zip(*parts)]

    def _probs(self, net: Any, blob: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """One network's class probabilities over the set's own classes, and its L2-normalised
        embeddings."""
        lo, em = self._forward(net, blob, self.outputs)
        p = np.exp(lo - lo.max(1, keepdims=True)) * self._of_the_set()
        return p / p.sum(1, keepdims=True), em / (np.linalg.norm(em, axis=1, keepdims=True) + 1e-6)

    @staticmethod
    def _blob(batch: np.ndarray) -> np.ndarray:
        return cv2.dnn.blobFromImages(list(batch), 1 / 127.5, (PATCH, PATCH), (127.5, 127.5, 127.5), swapRB=False)

    def _adapted(self, p: np.ndarray, emb: np.ndarray) -> np.ndarray:
        """The network's probabilities moved toward an enrolled profile's and the table's learnt tiles."""
        if self.profile is not None:
            p = (1 - self.KNN_WEIGHT) * p + self.KNN_WEIGHT * self._knn(emb)
        if self.memory is not None:
            q, like = self._vote(emb, self.memory)
            lo, hi = self.MEMORY_LIKE
            w = self.MEMORY_WEIGHT * np.clip((like - lo) / (hi - lo), 0.0, 1.0)[:, None]
            p = (1 - w) * p + w * q
        return p.astype(np.float32)

    def run(self, batch: np.ndarray, second_opinion: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """Class probabilities (n, classes) and L2-normalised embeddings (n, d) for patches
        (n, PATCH, PATCH, 3). With ``second_opinion``, the probabilities are the mean of the
        model's and its second opinion's (:attr:`SECOND_OPINION`), where there is one."""
        if len(batch) == 0:
            return np.zeros((0, len(self.classes)), np.float32), np.zeros((0, 1), np.float32)
        blob = self._blob(batch)
        p, emb = self._probs(self.net, blob)
        if second_opinion and self.second_net is not None:
            p = (p + self._probs(self.second_net, blob)[0]) / 2
        return self._adapted(p, emb), emb.astype(np.float32)

    def _knn(self, emb: np.ndarray, profile: Profile | None = None) -> np.ndarray:
        """Class probabilities from the most similar enrolled tile of each class."""
        profile = profile if profile is not None else self.profile
        assert profile is not None
        return self._vote(emb, profile)[0]

    def _vote(self, emb: np.ndarray, profile: Profile) -> tuple[np.ndarray, np.ndarray]:
        """Class probabilities from ``profile``'s most similar example of each class, and each
        patch's similarity to the most similar example of all."""
        sims = emb @ profile.embeddings.T  # (n, m) cosine similarities
        best = np.full((len(emb), len(self.classes)), -1.0, np.float32)
        for k in np.unique(profile.labels):
            best[:, k] = sims[:, profile.labels == k].max(1)
        # classes the profile has not seen fall back to the network alone: give them no vote
        seen = np.isin(np.arange(len(self.classes)), profile.labels)
        z = np.where(seen, best / self.KNN_TEMPERATURE, -np.inf)
        z -= z.max(1, keepdims=True)
        q = np.exp(z)
        q /= q.sum(1, keepdims=True)
        return q, best.max(1)

    MEMORY_WEIGHT = 0.7
    """How far the table's own learnt tiles override the network, for a patch that looks just
    like one of them (:mod:`~board_pi.vision.learn`): they are this set, under this light."""
    MEMORY_LIKE = (0.8, 0.95)
    """Similarity (cosine of the embeddings) from which a learnt example starts to count, and at
    which it counts fully. The same tile in another frame of a fixed camera is about 0.97; another
    letter 0.2-0.5: a patch unlike anything learnt is left to the network alone."""

    SURE = 0.9
    """A square read with less belief than this is looked at again from slightly shifted cuts.
    (Trained with label smoothing, the model gives a clear square about 0.95, not 1.)"""
    NUDGE_PX = 2
    """How far (pixels of the rectified board, about a fourteenth of a square) each shifted cut moves."""

    def read(self, image: np.ndarray, corners: np.ndarray,
             squares: Sequence[tuple[int, int]] | None = None, look_again: bool = True,
             committed: Sequence[str] | None = None, empty: EmptyLook | None = None,
             played: bool = False, warped: np.ndarray | None = None, by_hand: bool = False) -> Reading:
        """Read the board in ``image`` whose grid has ``corners``; only ``squares`` if given.

        The squares read are decoded together (:func:`~board_pi.vision.decode.decode`): the
        likeliest reading in which no tile appears more often than :attr:`tiles` holds, less the
        tiles of ``committed`` (15 board rows, as the camera writes them) standing on the squares
        not read. A square moved off its own likeliest class shows the lower belief it now has.

        Before that, each square's colour is weighed against what its square looks like empty
        (:mod:`~board_pi.vision.empty`): ``empty`` when known (a table's calibration frame of the
        empty board), else estimated from this photo by the layout's kinds of square.

        Squares not read are ``.`` with confidence 0. With ``look_again``, a square read with
        less belief than :attr:`SURE`, or read as a blank (:meth:`_doubtful`), and not as
        ``committed`` has it (:meth:`_reads_as_committed`), is read again from
        its patch cut a little left, right, up and down, and the five readings are averaged (with
        those of the model's second opinion, :attr:`SECOND_OPINION`, where the model still doubts
        it): a square at the edge of what the model tells apart (an empty square beside a tile's
        side and shadow, a blank tile on a square of its colour) reads differently from a
        slightly different cut and to another network, while a clear tile reads the same to all
        of them. Nothing but the picture is
        consulted. A square read as a tile is then weighed by the value printed on it, where the
        model is not quite sure of it (:attr:`VALUES`, :attr:`VALUE_SURE`), and a face of a family
        by its mark (:attr:`ACCENTS`); neither, again, where it reads as ``committed`` has it.

        ``played``: the board is one a game has made (a photo of a game, a table's board), so a
        tile read with no tile beside it and only surely empty squares around is no tile
        (:func:`~board_pi.vision.decode.lone_tiles`: the print of a premium square, a
        reflection); it is read as empty, with the low belief the model gave empty. Unless a
        square beside it, read as empty in doubt, would as a tile join it to the tiles beyond,
        and the reading makes that the likelier mend: a blank read as empty by a hair, beside a
        letter read surely. And read whole (no ``committed``), a group of tiles cut off from the
        largest is joined to it by a tile on a square between, read as empty in doubt, where the
        reading makes that likelier than that the group is not there (:meth:`_join_islands`).
        Not for rendered boards of tiles strewn at random.

        ``warped``: the board as :func:`rectified` makes it from this image and these corners,
        where the caller has it already (a table compares its frames by it), so it is not made
        again.

        ``by_hand``: the corners were given by a person (``board-pi read --corners``), not found
        on the grid's lines. Where the grid's lines near them agree on one grid at least
        :attr:`HAND_OUTRIGHT` of a square away, every square is read through the lines instead
        (and the reading's corners are theirs); else the squares the model doubts are looked at
        through the lines as well (:meth:`_through_snapped`).
        """
        try:
            image = as_bgr(image)
        except FrameSourceError as e:
            raise ReadError(str(e)) from None
        corners = np.asarray(corners, np.float32).reshape(4, 2)
        check_corners(corners)
        sq = [(r, c) for r in range(N) for c in range(N)] if squares is None else list(squares)
        for r, c in sq:
            if not (0 <= r < N and 0 <= c < N):
                raise ReadError(f"square ({r}, {c}) is off the board")
        snapped = None
        if by_hand and len(sq):
            snapped = snap_hand_corners(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), corners)
            if snapped is not None and corners_moved(snapped, corners) >= self.HAND_OUTRIGHT:
                # The hand was far off where the lines agree on one grid: read through them.
                corners, snapped, by_hand, warped = snapped.astype(np.float32), None, False, None
        # Squares off the picture's edge are not read: the warp smears the edge's pixels over
        # them, where a tile cut deep reads as empty (or as another letter), and nothing says so.
        cut = set(squares_outside(corners, (image.shape[1], image.shape[0])))
        outside = tuple(x for x in sq if x in cut)
        if outside:
            sq = [x for x in sq if x not in cut]
        if warped is None:
            warped = _warp(image, corners)
        p, blob, agrees = self._look(warped, sq, look_again, committed)
        if by_hand and len(sq):
            p = self._through_snapped(image, corners, sq, p, look_again, ~agrees, snapped)
        if len(sq):
            p = self._value_look(image, corners, sq, p, ~agrees)
            p = self._closer_look(blob, p, ~agrees)
            p = self.weigh_colour(p, sq, warped, committed, empty)
        grid = [["."] * N for _ in range(N)]
        conf = np.zeros((N, N), np.float32)
        for (r, c), pr, k in zip(sq, p, self.decode(p, sq, committed)):
            grid[r][c] = self.classes[k]
            conf[r, c] = pr[k]
        if played and len(sq):
            # Groups joined first: a tile the join puts down may be the neighbour a lone tile lacked.
            if committed is None:
                self._join_islands(grid, conf, sq, p)
            self._drop_lone_tiles(grid, conf, sq, p, committed)
        # Read whole: the squares the board does not show (something lies over them, a
        # reflection washes them out) are named, so that what is under them is not lost unsaid.
        covered = (hidden_in_reading(warped, grid, conf, outside, SQUARE_PX, PAD) if squares is None and len(sq)
                   else ())
        return Reading(tuple(row_text(row) for row in grid), conf, corners, outside=outside, covered=covered)

    def _drop_lone_tiles(self, grid: list[list[str]], conf: np.ndarray, squares: Sequence[tuple[int, int]],
                         probs: np.ndarray, committed: Sequence[str] | None) -> None:
        """Squares read as lone tiles (see :meth:`read`, ``played``) become empty, doubtful; or,
        where a square beside one was read as empty in doubt and a tile there would join it to the
        tiles beyond, that square becomes a tile, whichever the reading makes likelier
        (:meth:`_tile_beside`)."""
        read = set(squares)
        tiles = np.zeros((N, N), bool)
        sure_empty = np.zeros((N, N), bool)
        for r, row in enumerate(committed or [EMPTY_CLASS * N] * N):
            for c, t in enumerate(split_row(row)):
                if (r, c) not in read:
                    tiles[r, c] = t != EMPTY_CLASS
                    sure_empty[r, c] = t == EMPTY_CLASS
        for r, c in squares:
            tiles[r, c] = grid[r][c] != EMPTY_CLASS
            sure_empty[r, c] = grid[r][c] == EMPTY_CLASS and conf[r, c] >= SURE_EMPTY
        lone = lone_tiles(tiles, sure_empty)
        empty = self.classes.index(EMPTY_CLASS)
        at = {sq: i for i, sq in enumerate(squares)}
        for r, c in zip(*np.nonzero(lone)):
            if (r, c) not in at or any(tiles[q] for q in _beside(int(r), int(c))):
                continue  # not read, or joined by a tile put beside another lone one just now
            pr = probs[at[r, c]]
            beside = self._tile_beside([(int(r), int(c))], tiles, grid, probs, at, committed)
            # How much likelier the reading makes each mend: the lone tile gone, or one beside it.
            gone = _odds(pr, empty, self.classes.index(grid[r][c]))
            if beside is not None and beside[2] > gone:
                (nr, nc), k, _ = beside
                grid[nr][nc] = self.classes[k]
                conf[nr, nc] = probs[at[nr, nc], k]
                tiles[nr, nc] = True
            else:
                grid[r][c] = EMPTY_CLASS
                conf[r, c] = pr[empty]
                tiles[r, c] = False

    def _join_islands(self, grid: list[list[str]], conf: np.ndarray, squares: Sequence[tuple[int, int]],
                      probs: np.ndarray) -> None:
        """On a board read whole, each group of tiles cut off from the rest
        (:func:`~board_pi.vision.decode.islands`) is joined to it by a tile on a square between,
        read as empty in doubt (with less belief than :attr:`SURE`), where the reading makes that
        tile likelier than that the island's tiles are not there (:meth:`_tile_beside`): a blank
        read as empty in shadow, in a word of sure letters. Otherwise the island is left as it
        is: what cuts tiles off may be a hand over the board, and a square read clearly as empty
        beside it is no tile (on rendered games with a hand, joins through such squares doubled
        the squares read wrong)."""
        at = {sq: i for i, sq in enumerate(squares)}
        empty = self.classes.index(EMPTY_CLASS)
        for _ in range(N * N):  # each join leaves one group fewer
            tiles = np.array([[t != EMPTY_CLASS for t in row] for row in grid])
            best = None
            for island in islands(tiles):
                if any(q not in at for q in island):
                    continue
                # How much likelier the reading makes the island's tiles than empty squares.
                held = sum(_odds(probs[at[q]], self.classes.index(grid[q[0]][q[1]]), empty) for q in island)
                beside = self._tile_beside(island, tiles, grid, probs, at, None, doubt=self.SURE)
                if beside is not None and beside[2] > -held and (best is None or beside[2] > best[2]):
                    best = beside
            if best is None:
                return
            (r, c), k, _ = best
            grid[r][c] = self.classes[k]
            conf[r, c] = probs[at[r, c], k]

    def _tile_beside(self, island: Sequence[tuple[int, int]], tiles: np.ndarray, grid: list[list[str]],
                     probs: np.ndarray, at: dict[tuple[int, int], int], committed: Sequence[str] | None,
                     doubt: float = float("inf")) -> tuple[tuple[int, int], int, float] | None:
        """The square beside a tile of ``island`` (a lone tile, or a group cut off), read as
        empty with less belief than ``doubt``, on which a tile would join it to a tile beyond (a
        lone tile beside a blank read as empty in doubt is a play, not a stray mark): (square, its
        likeliest class of tile the set has left, the log of how much likelier its reading makes
        that tile than empty), the likeliest of them; None without one."""
        left = tile_limits(self.tiles.full_bag(), _standing(committed, set(at)) + [grid[r][c] for r, c in at])
        allowed = np.array([left.get(ch, 0) > 0 and ch != EMPTY_CLASS for ch in self.classes])
        if not allowed.any():
            return None
        empty = self.classes.index(EMPTY_CLASS)
        own = set(island)
        best = None
        for r, c in dict.fromkeys(q for sq in island for q in _beside(*sq)):
            if (r, c) not in at or grid[r][c] != EMPTY_CLASS or probs[at[r, c], empty] >= doubt:
                continue
            if not any(tiles[q] and q not in own for q in _beside(r, c)):
                continue  # a tile here would join the island to nothing
            q = probs[at[r, c]]
            k = int(np.flatnonzero(allowed)[q[allowed].argmax()])
            say = _odds(q, k, empty)
            if best is None or say > best[2]:
                best = ((r, c), k, say)
        return best

    def weigh_colour(self, probs: np.ndarray, squares: Sequence[tuple[int, int]], warped: np.ndarray,
                     committed: Sequence[str] | None = None, empty: EmptyLook | None = None) -> np.ndarray:
        """``probs`` with blank against empty weighed anew by each square's colour against its
        empty colour and the colour of the tiles' faces (their letters' ink left out); the tiles
        are the squares read surely as letters and the committed lettered tiles. An empty colour
        seen (``empty``, a table's calibration) may say more than one estimated from the photo."""
        lab = middle_lab(warped, SQUARE_PX, PAD)  # the colours and the tiles' faces, from one conversion
        ring = ring_lab(warped, SQUARE_PX, PAD)  # which side of a tile's face its ink lies
        colours = square_colours(lab)
        letters = np.array([c not in (EMPTY_CLASS, BLANK_CLASS) for c in self.classes])
        tiles = np.zeros((N, N), bool)
        # Squares not read as letters, even in doubt: only they say how the light falls (a tile
        # the model doubts can look like its square in shadow; glare makes a square look like a
        # blank, not a letter).
        unlettered = np.zeros((N, N), bool)
        for (r, c), pr in zip(squares, probs):
            tiles[r, c] = pr[letters].max() >= SURE_LETTER
            unlettered[r, c] = pr[letters].sum() < 0.5
        read = set(squares)
        for r, row in enumerate(committed or ()):
            for c, t in enumerate(split_row(row)):
                if (r, c) not in read:
                    tiles[r, c] |= t.isupper()
                    unlettered[r, c] = t == EMPTY_CLASS
        faces = tile_faces(lab, tiles, ring)
        look = (EmptyLook.from_photo(colours, tiles, unlettered=unlettered, faces=faces) if empty is None
                else empty.seen_in(colours, tiles, unlettered))
        # A colour seen on the empty board has the table's glare in it already: no more is allowed.
        odds = colour_log_odds(colours, look, tile_colour(faces, tiles),
                               MAX_LOG_ODDS if empty is None else MAX_LOG_ODDS_SEEN, None if empty is None else 0.0,
                               letters=tiles if empty is None else None)
        rows, cols = np.array(squares).T
        return weigh_blank_against_empty(probs, odds[rows, cols], self.classes.index(EMPTY_CLASS), self.classes.index(BLANK_CLASS))

    def decode(self, probs: np.ndarray, squares: Sequence[tuple[int, int]],
               committed: Sequence[str] | None = None) -> np.ndarray:
        """The class of each of ``squares`` read together under the tile set's counts. When more
        blanks are seen than the set has left, a blank in a hand's patch
        (:func:`~board_pi.vision.decode.hand_patches`) gives way before one standing clear of it."""
        limits = tile_limits(self.tiles.full_bag(), _standing(committed, set(squares)))
        blank = self.classes.index(BLANK_CLASS)
        if int((probs.argmax(1) == blank).sum()) > limits.get(BLANK_CLASS, 0) and len(squares):
            # More blanks seen than the set has left: a hand over the board is read as a patch of
            # letterless tiles, and would take the count from the blanks standing clear of it.
            grid = np.zeros((N, N, 2), bool)
            rows, cols = np.array(squares).T
            grid[rows, cols, 0] = probs[:, blank] >= self.BLANK_LIKE
            grid[rows, cols, 1] = probs.max(1) < self.SURE
            probs = probs.copy()
            probs[hand_patches(grid[..., 0], grid[..., 1])[rows, cols], blank] *= self.HAND_BLANK
        return decode(probs, self.classes, limits)

    BLANK_LIKE = 0.2
    """The belief in a blank from which a square counts as blank-like for :func:`~board_pi.vision.decode.hand_patches`."""
    HAND_BLANK = 0.05
    """How much likelier a blank in a hand's patch must look than a blank clear of it to keep a
    blank the set has no more of (the factor its belief in a blank is weighed by there)."""

    TURN_TILES = 3
    """Tiles needed before the reader judges which way up a board is."""
    TURN_FLOOR = 0.2
    """The least belief a tile's best letter counts with when the turns are weighed: a letter
    seen sideways still reads as some letter at about 0.5, so the floor bounds a blank's or a
    smudged tile's say without silencing the sideways ones."""
    VOTE_WEIGHT = 5.0
    """What the tiles' point values can add to a turn's log-likelihood, when all of them vote for it."""
    VOTE_FULL = 8
    """Votes needed before the point values weigh in full (fewer weigh less)."""
    TURN_VOTERS = 24
    """The most tiles read at each of the four turns: enough to decide, and a bound on the time."""
    MIRROR_ODDS = 2.0
    """How much more clearly (log odds) the tiles must read in the picture's mirror image than in
    the picture as it is before it is taken for a mirror image (:meth:`read_upright`): a camera
    set to flip its picture, a phone's front camera, a board seen in a mirror. Chosen on the
    tuning boards (the early boards of real games at seeds 39,500,000 and 39,700,000 on, game-like
    boards at 39,600,000 on, the real tuning photos; each as it is and mirrored): as they are,
    the mirror was at most 0.2 clearer (early boards of 3-8 tiles); mirrored, it was at least 5.3
    clearer on full boards and 2.9 on the real photos (3 tiles). Read so: as they are, none was
    taken for a mirror image; mirrored, 60 of 60 game-like boards, 26 of 26 tuning photos with
    tiles and 54 of 73 early boards were (the others' tiles too few, or too alike mirrored)."""

    def read_upright(self, image: np.ndarray, corners: np.ndarray, played: bool = False) -> Reading:
        """Read the board whichever way up it lies in the photo: the tiles are read at all four
        turns and the likeliest kept (the premium layout is the same all four ways; a tile's
        letter is not). :attr:`Reading.turn` says which, and whether there were enough tiles to
        tell (:attr:`TURN_TILES`); too few, and the corners are kept as given. The tiles' point
        values vote as well, where they can be seen. ``played`` as for :meth:`read`.

        A picture that is a mirror image of the board (a camera set to flip its picture, a
        phone's front camera, a board seen in a mirror) is read as the board is, where its
        tiles read clearly enough so (:attr:`MIRROR_ODDS`), and :attr:`Turn.mirrored` says so:
        the reading's corners then run the other way round the board (A1, O1, O15, A15 as the
        picture shows them), which :func:`rectified` and :meth:`read` take as they are."""
        reading = self.read(image, corners, played=played)
        # Tiles, not only letters: a letter seen sideways may read as a blank tile.
        turn = self.which_way_up(image, corners, [[ch != EMPTY_CLASS for ch in split_row(row)] for row in reading.grid])
        if not turn.decided or (turn.degrees == 0 and not turn.mirrored):
            return replace(reading, turn=turn)
        # A mirror image's corners are the board's taken the other way round: A1, then O1.
        corners = np.asarray(corners, np.float32).reshape(4, 2)
        seen_as = other_way_round(corners) if turn.mirrored else corners
        return replace(self.read(image, np.roll(seen_as, -(turn.degrees // 90), axis=0), played=played), turn=turn)

    def which_way_up(self, image: np.ndarray, corners: np.ndarray,
                     tiles: np.ndarray | Sequence[Sequence[bool]]) -> Turn:
        """Which way up the board whose grid has ``corners`` lies, and whether the picture is a
        mirror image of it (:meth:`read_upright`, whose turn this is), judged by its ``tiles``
        (15 x 15, True where a tile stands, as read through ``corners``)."""
        try:
            image = as_bgr(image)
        except FrameSourceError as e:
            raise ReadError(str(e)) from None
        corners = np.asarray(corners, np.float32).reshape(4, 2)
        lettered = np.asarray(tiles, bool).reshape(N, N)
        n = int(lettered.sum())
        if n < self.TURN_TILES:
            return Turn(0, n, 0.0, False)
        warped = _warp(image, corners)
        # Tiles spread over the board vote (not the surest as read: those are the letters that
        # look alike either way up, O, S, Z, N): their belief in their best letter at each turn.
        # Tiles on plain squares, where there are enough: the print of a premium square seen
        # sideways (DOUBLE WORD SCORE) may read as a letter, and so as a tile that reads as a
        # letter at the wrong turns and empty at the right one. The layout is the same all four
        # ways, so this favours no turn.
        placed = list(zip(*np.nonzero(lettered)))
        plain = [sq for sq in placed if not PREMIUM_MASK[sq]]
        few = len(plain) < self.TURN_TILES
        if not few:
            placed, n = plain, len(plain)
        voters = [placed[i] for i in np.linspace(0, n - 1, min(n, self.TURN_VOTERS)).round().astype(int)]
        letters = np.array([ch not in (EMPTY_CLASS, BLANK_CLASS) for ch in self.classes])
        cuts = []  # each voter's patch in each view: the four turns, then the four of the mirror
        for view in (warped, np.fliplr(warped)):
            at = voters if view is warped else [(r, N - 1 - c) for r, c in voters]
            for k in range(4):
                # Corners rolled by k (A1 at what was the k-th corner) are this view of the board.
                cuts.append(patches(np.ascontiguousarray(np.rot90(view, k)), at))
                at = [(N - 1 - c, r) for r, c in at]  # where each stands once turned a quarter more
        seen = np.split(self.run(np.concatenate(cuts))[0], 8)  # one run: the network's batches are fuller
        keep = np.ones(len(voters), bool)
        if few:
            # Too few on plain squares: those on premium squares vote too, but only the ones that
            # read as tiles at every turn. On an early board given turned, the print of some
            # twenty premium squares read as letters, so as tiles, that read as empty at the
            # right turn, and outvoted the few real tiles. (Dropping such voters on plain squares
            # too turned a club edition wrong: sideways, its I and T read as empty.)
            empty = self.classes.index(EMPTY_CLASS)
            keep = ~np.array([bool(PREMIUM_MASK[sq]) for sq in voters])
            keep |= np.all([q[:, empty] < 0.5 for q in seen], axis=0)
            if keep.sum() < self.TURN_TILES:
                keep[:] = True  # too few left to judge by: all of them, as they stand
        # How well the tiles read in each view: the turns within the picture as it is and within
        # its mirror image are told apart by each tile's best letter, as they always were; the
        # two pictures by how clearly the tiles read (less the spread of their beliefs), for a
        # mirrored letter still reads as some letter, often surely enough (a mirrored R as R, E
        # as B), but with its belief spread over others. Each tile's say is bounded either way:
        # a blank (no letter either way up) or a smudged tile must not outweigh the others
        # reading clearly at one turn only.
        floor = np.log(self.TURN_FLOOR)
        score = np.array([np.log(np.maximum(q[keep][:, letters].max(axis=1), self.TURN_FLOOR)).sum() for q in seen])
        clarity = np.array([np.maximum((q[keep] * np.log(q[keep] + 1e-9)).sum(axis=1), floor).sum() for q in seen])
        # The tiles' point values, printed at the bottom right of their letters, vote too: each
        # letter with its value diagonally beside it (locate.tile_orientation_votes). The votes
        # are not independent (one typeface, one light: a mark the finder misplaces on one tile
        # it misplaces on all), so they count by their share, bounded: they decide where the
        # letters look alike either way up (O, S, Z, N), and cannot outvote letters that read
        # clearly one way only (counted one by one they turned 5 of 40 rendered boards wrong).
        # Only marks on squares read as tiles vote: an old board's print has letters and
        # digits too, upright one way only (on the real tuning photos, a third of the votes).
        # In a mirror the value stands left of its letter, where a turned board's would, so
        # the marks alone cannot tell a mirror from a turn: with the letters, they can.
        top = cv2.cvtColor(warp_grid(image, corners, 32), cv2.COLOR_BGR2GRAY)
        votes = np.concatenate([tile_orientation_votes(top, lettered),
                                tile_orientation_votes(np.ascontiguousarray(np.fliplr(top)), np.fliplr(lettered))])
        votes = self.VOTE_WEIGHT * votes / max(float(votes.sum()) / 2, self.VOTE_FULL)
        score, clarity = score + votes, clarity + votes
        odds = float(clarity[4:].max() - clarity[:4].max())
        mirrored = odds > self.MIRROR_ODDS
        score = score[4:] if mirrored else score[:4]
        post = np.exp(score - score.max())
        post /= post.sum()
        k = int(post.argmax())
        return Turn(90 * k, int(keep.sum()), float(post[k]), True, mirrored, abs(odds) > self.MIRROR_ODDS)

    def _look(self, warped: np.ndarray, squares: Sequence[tuple[int, int]], look_again: bool,
              committed: Sequence[str] | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The model's probabilities of ``squares`` of the rectified board ``warped``, their
        patches' blob, and which of them read as ``committed`` has them (:meth:`_reads_as_committed`).
        With ``look_again``, the doubtful squares that do not are read again from shifted cuts
        (:meth:`_shifted`)."""
        if not len(squares):
            return np.zeros((0, len(self.classes)), np.float32), np.zeros((0, 3, PATCH, PATCH), np.float32), np.zeros(0, bool)
        blob = self._blob(patches(warped, squares))
        raw, emb = self._probs(self.net, blob)
        p = self._adapted(raw, emb)
        # A square that reads as committed is taken as unchanged, however it was read: no closer
        # look at it can do better than agree (see _reads_as_committed).
        agrees = self._reads_as_committed(p, squares, committed)
        if look_again:
            unsure = np.flatnonzero(self._doubtful(p) & ~agrees)
            if len(unsure):
                p[unsure] = self._shifted(warped, [squares[i] for i in unsure], p[unsure],
                                          (blob[unsure], raw[unsure], emb[unsure]))
        return p, blob, agrees

    HAND_ASK_BLANK = 0.3
    """Belief in a blank from which a square is looked at again through the corners snapped to
    the grid's lines, when the corners were given by hand (:meth:`_through_snapped`), however
    sure the model is of it otherwise: at 0.3 the colour and the set's counts can still tip a
    square to a blank. Not tuned; the squares in doubt (:attr:`SURE`) are asked as well."""
    HAND_MOVE = 0.1
    """How far (squares) the snap must move a hand's corner before the squares are looked at again
    through it. Closer, the two cut the same squares to within two of the shifted cuts' nudges
    (:attr:`NUDGE_PX`), and the snap may be the one that is off: on rendered boards, whose corners
    are exact, the finder's snap moves them 0.09 of a square on average (the hand's snap, used
    first since 2026-12-03, 0.03 on rendered empty boards). Chosen on the real tuning photos and 120
    rendered tuning boards (seeds 25,000,000 on), their corners moved at random: with no least
    move, the photos read one phantom blank fewer at a fifth of a square, but the boards read
    through their exact corners missed one blank more (4 of 164)."""

    HAND_OUTRIGHT = 0.15
    """How far (squares) the hand's snap (:func:`~board_pi.vision.locate.refine.snap_hand_corners`)
    must move a hand's corner for every square to be read through the snapped corners instead
    (:meth:`read`, ``by_hand``). The snap refuses where the lines do not agree on one grid, and on
    rendered boards it moves exact corners 0.03-0.05 of a square, so a hand that close keeps its
    corners and only the doubtful squares are looked at through the snap as well
    (:meth:`_through_snapped`). Since the snap looks nearer in each round (2026-12-03), reading
    outright through it where it moved a corner this far: on the real tuning photos (2015 game
    and declanfinerty) with their corners each moved 0.3 and 0.35 of a square in a random
    direction, squares read wrong 1, 3 -> 0, 0; on 120 rendered tuning boards (seeds 25,000,000
    on) moved 0.2 and 0.3, 7, 20 -> 4, 17, blanks missed 5, 6 -> 3, 4, no phantom blank either
    way; through exact corners, and the photos moved 0.1 or 0.15, the same. 0.1 and 0.2 gave
    the same figures as 0.15."""

    def _through_snapped(self, image: np.ndarray, corners: np.ndarray, squares: Sequence[tuple[int, int]],
                         p: np.ndarray, look_again: bool, open_: np.ndarray,
                         snapped: np.ndarray | None = None) -> np.ndarray:
        """Probabilities ``p`` of ``squares`` with those of ``open_`` (not read as committed)
        that the model doubts, or gives a blank :attr:`HAND_ASK_BLANK` or more, averaged with
        their reading through ``corners`` snapped to the grid's lines (``snapped``: the hand's
        snap, :func:`~board_pi.vision.locate.refine.snap_hand_corners`, as :meth:`read` made it;
        None where its lines disagree, and then
        :func:`~board_pi.vision.locate.refine.snap_to_lines`), where the snap moves them by
        :attr:`HAND_MOVE` or more.

        Corners given by hand are a person's clicks, and may be a fifth of a square off; a
        square cut that far off shows a strip of the next square and its line, and an empty
        square beside a tile may then read as a blank. The lines show where the squares are; the
        hand's corners still count, since a snap can be drawn to the wrong line. (Snapping the
        corners outright was not kept: on rendered boards it moved exact corners 0.09 of a
        square.) Chosen on the real tuning photos with their corners moved at random by up to a
        fifth, a quarter and three tenths of a square: phantom blanks 2, 4, 4 -> 1, 1, 3; blanks
        missed 0, 1, 3 as before; squares read wrong 2, 7, 31 -> 1, 3, 29. On 120 rendered tuning
        boards moved by a fifth and a quarter: squares read wrong 21, 27 -> 17, 21, phantom blanks
        2, 2 -> 1, 1, blanks missed 6, 9 -> 4, 7; through their exact corners, 12 as before.
        On 200 games' boards with no hand over them (``played``), moved by a fifth: 5 read
        otherwise: two letters on empty squares read empty and a blank found; two empty squares
        read as letters either way, each as another now; and one empty square more read as a
        blank (the model, through the snapped corners, 0.75 sure of a blank on an empty square
        of nearly a tile's colour).

        The hand's snap (fitting the lines, then the grid to their crossings) in place of the
        found grid's (2026-12-03), on the real tuning photos (2015 game and declanfinerty) moved
        at random by up to 0.25, 0.3 and 0.35 of a square: squares read wrong 2, 18, 36 -> 1, 4,
        27, phantom blanks 1, 2, 5 -> 1, 2, 2, blanks missed 0, 0, 2 as before (up to 0.2 none
        wrong either way). On the 120 rendered tuning boards, exact and moved by up to 0.2 and 0.3:
        squares read wrong 13, 18, 48 -> 11, 16, 31, phantom blanks 0, 0, 1 -> 0, 0, 0, blanks
        missed 4, 7, 8 -> 4, 7, 9. Reading outright through the hand's snap, where it snaps, read
        the photos better still (1 square wrong at 0.3) but missed three blanks more on the
        rendered boards through their exact corners (4 -> 7), so the hand's corners still count.
        Since the snap looks nearer in each round, every square is read through it where it
        moves the hand's corners :attr:`HAND_OUTRIGHT` or more (:meth:`read`), and only then;
        this second look is for hands nearer than that, or where the snap refuses."""
        blank = self.classes.index(BLANK_CLASS)
        ask = np.flatnonzero(open_ & ((p[:, blank] > self.HAND_ASK_BLANK) | (p.max(1) < self.SURE)))
        if not len(ask):
            return p
        if snapped is None:
            snapped = snap_to_lines(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), corners)
        if snapped is None or corners_moved(snapped, corners) < self.HAND_MOVE:
            return p
        theirs = self._look(_warp(image, snapped), [squares[i] for i in ask], look_again, None)[0]
        p = p.copy()
        p[ask] = (p[ask] + theirs) / 2
        return p

    def _doubtful(self, p: np.ndarray) -> np.ndarray:
        """Which squares of probabilities ``p`` are looked at again (:meth:`read`, ``look_again``):
        those read with less belief than :attr:`SURE`, and every square read as a blank. A set
        has two blanks, so few squares are, but an empty square can look like one however sure the
        model is (beside a tile's side and shadow, a pale square among tiles of its colour), and
        from a cut a little to one side, or to the second opinion, it often does not; a blank
        tile reads as one from every cut. Only :attr:`SURE` decides without
        :attr:`LOOK_AGAIN_AT_BLANKS`."""
        doubtful = p.max(1) < self.SURE
        if self.LOOK_AGAIN_AT_BLANKS:
            doubtful |= p.argmax(1) == self.classes.index(BLANK_CLASS)
        return doubtful

    def _reads_as_committed(self, p: np.ndarray, squares: Sequence[tuple[int, int]],
                            committed: Sequence[str] | None) -> np.ndarray:
        """Which of ``squares`` (probabilities ``p``) read as what ``committed`` has there (a
        lettered tile as its letter, a blank as a blank, an empty square as empty).

        Such a square is not looked at again, nor its value or its mark (:attr:`VALUES`,
        :attr:`ACCENTS`): a table takes a square that reads as it was committed as unchanged
        however unsure the reading, so another look could only turn an agreeing reading into a
        change that is not there; and it costs most where the camera sees many squares change
        at once (the light, a nudged board, tiles jostled by a play), when a press must still be
        scored quickly."""
        if committed is None:
            return np.zeros(len(squares), bool)
        cells = [split_row(row) for row in committed]
        index = {c: k for k, c in enumerate(self.classes)}
        blank = index[BLANK_CLASS]
        want = np.array([blank if cells[r][c].islower() else index.get(cells[r][c], -1) for r, c in squares])
        return p.argmax(1) == want

    LOOK_AGAIN_AT_BLANKS = True
    """Whether every square read as a blank is looked at again (:meth:`_doubtful`). Chosen on
    200 tuning boards a set (2026-11-29): squares read wrong over the eight sets 191 -> 182,
    empty squares read as blanks 25 -> 21, blanks missed 46 -> 40."""

    def _shifted(self, warped: np.ndarray, squares: list[tuple[int, int]], p0: np.ndarray,
                 centre: tuple[np.ndarray, np.ndarray, np.ndarray]) -> np.ndarray:
        """Class probabilities averaged over the centred cut (read already: ``p0``, from the
        network's ``centre`` blob, probabilities and embeddings) and four shifted ones; where the
        model still doubts a square, its five readings are each averaged with its second
        opinion's first (:attr:`SECOND_OPINION`)."""
        blob = self._blob(self._shifted_cuts(warped, squares))
        n = len(squares)
        raw, emb = self._probs(self.net, blob)
        p = (p0 + self._adapted(raw, emb).reshape(4, n, -1).sum(0)) / 5
        still = np.flatnonzero(self._doubtful(p)) if self.second_net is not None else []
        if 0 < len(still) <= self.SECOND_OPINION_MOST:
            cut = (np.arange(4)[:, None] * n + still[None, :]).ravel()  # the shifted cuts of each
            c_blob, c_raw, c_emb = centre
            theirs = self._probs(self.second_net, np.concatenate([c_blob[still], blob[cut]]))[0]
            both = (np.concatenate([c_raw[still], raw[cut]]) + theirs) / 2
            p[still] = self._adapted(both, np.concatenate([c_emb[still], emb[cut]])).reshape(5, len(still), -1).mean(0)
        return p


def empty_look(image: np.ndarray, corners: np.ndarray) -> EmptyLook:
    """Every square's empty appearance, from a frame of the empty board (a table's calibration
    frame) whose grid has ``corners``: what :meth:`Reader.read` takes as ``empty``."""
    return EmptyLook.from_frame(square_colours(middle_lab(_warp(as_bgr(image), corners), SQUARE_PX, PAD)))


class NoBoard(ReadError):
    """No board could be found in the image (exit 1: an answer, not a usage error)."""


def grid_corners(image: np.ndarray, corners_text: str | None, name: str, scale: float = 1.0) -> np.ndarray:
    """The grid's corners in ``image``: as given (``X1,Y1,...``, in the photo's own pixels, which
    are ``scale`` of the image's: :func:`~board_pi.vision.frames.load_photo`), or found in it
    (looking ``far``: a photo may show the board small)."""
    if corners_text:
        return parse_corners(corners_text) / np.float32(scale)
    from .locate import find_board

    loc = find_board(image, far=True)
    if loc is None:
        raise NoBoard(f"{name}: no board found (pass --corners to give it)")
    return np.asarray(loc.corners, np.float32)


def photo_board(path: str | Path, corners_text: str | None) -> tuple[np.ndarray, np.ndarray, float]:
    """A photo to be read (:func:`~board_pi.vision.frames.load_photo`), its grid's corners in it
    (as given, or found: :func:`grid_corners`) and its scale (the photo's pixels per pixel of the
    image). A photo is decoded reduced; where its grid's squares come out smaller there, on
    average, than the reader's (:data:`SQUARE_PX`), it is decoded again with the pixels they
    need, or at full size: a board standing small in a large photo is read from every pixel the
    photo has of it. Raises :class:`NoBoard`, :class:`ReadError` and :class:`~.frames.FrameSourceError`."""
    image, scale = load_photo(path)
    corners = grid_corners(image, corners_text, str(path), scale)
    square = square_side(corners)
    if scale > 1 and square < SQUARE_PX:
        longest = int(np.ceil(max(image.shape[:2]) * SQUARE_PX / square))
        closer, closer_scale = load_photo(path, longest)
        if closer_scale < scale:
            return closer, (corners * np.float32(scale / closer_scale)).astype(np.float32), closer_scale
    return image, corners, scale
