"""Accuracy figures for the square reader, on held-out synthetic boards and on real photos.

Used by the training script (figures recorded in the recipe) and by ``benchmarks/bench_read.py``.
A blank played as a letter is written in lower case in the truth; the reader says ``?`` for it
(a blank carries no letter), which counts as right.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np

from board_pi.rules.tiles import ENGLISH, TileSet
from board_pi.rules.board import split_row
from board_pi.vision.read import N, Reader
from board_pi.vision.render import render_board

SPLIT_PATH = Path(__file__).resolve().parents[2] / "tests" / "data" / "real_split.json"
"""Which real photos may inform decisions and which are held out (written by the team, read here)."""
PARTS = ("tuning", "held_out", "robustness")


@dataclass(frozen=True)
class RealSet:
    """One set of real photos (a folder under ``../shared/data``) and which of them is which part:
    ``tuning`` may inform decisions, ``held_out`` is only ever measured, ``robustness`` only
    checks that nothing breaks."""

    name: str
    folder: str
    tuning: tuple[str, ...]
    held_out: tuple[str, ...]
    robustness: tuple[str, ...]

    def part(self, photo: str) -> str | None:
        """``tuning``, ``held_out``, ``robustness``, or None for a photo the split does not name."""
        for part in PARTS:
            if photo in getattr(self, part):
                return part
        return None


def real_split(path: Path = SPLIT_PATH) -> dict[str, RealSet]:
    """The real sets of ``tests/data/real_split.json`` by name. A photo is in at most one part.

    >>> real_split()["declanfinerty"].part("eval_board.jpeg")
    'held_out'
    >>> real_split()["jheidel-2015"].part("IMG_20151016_170317.jpg")
    'held_out'
    """
    data = json.loads(Path(path).read_text())
    out = {}
    for name, d in data["sets"].items():
        s = RealSet(name, d["folder"], *(tuple(d.get(part, ())) for part in PARTS))
        seen: set[str] = set()
        for part in PARTS:
            both = seen & set(getattr(s, part))
            if both:
                raise ValueError(f"{path}: {sorted(both)} in more than one part of {name}")
            seen |= set(getattr(s, part))
        out[name] = s
    return out


@dataclass
class Tally:
    """Counts of squares read right and wrong."""

    squares: int = 0
    squares_right: int = 0
    tiles: int = 0
    tiles_right: int = 0
    empties: int = 0
    empties_as_tiles: int = 0
    blanks: int = 0
    blanks_missed: int = 0
    """Blank tiles read as anything but a blank (most often as empty)."""
    phantom_blanks: int = 0
    """Empty squares read as a blank tile."""
    errors: list[str] = field(default_factory=list)

    def add(self, truth: Sequence[str], grid: Sequence[str], skip: np.ndarray | None = None, tag: str = "") -> None:
        truth_cells, grid_cells = [split_row(r) for r in truth], [split_row(r) for r in grid]
        for r in range(N):
            for c in range(N):
                if skip is not None and skip[r, c]:
                    continue
                want = truth_cells[r][c]
                want = "?" if want.islower() else want  # the camera sees a blank tile, not its letter
                got = grid_cells[r][c]
                self.squares += 1
                self.squares_right += want == got
                if want == "?":
                    self.blanks += 1
                    self.blanks_missed += got != "?"
                if want == ".":
                    self.empties += 1
                    self.empties_as_tiles += got != "."
                    self.phantom_blanks += got == "?"
                else:
                    self.tiles += 1
                    self.tiles_right += want == got
                if want != got and len(self.errors) < 40:
                    self.errors.append(f"{tag}{'ABCDEFGHIJKLMNO'[c]}{r + 1}: {want}->{got}")

    def figures(self) -> dict:
        return {
            "squares": self.squares,
            "square_accuracy": round(self.squares_right / max(self.squares, 1), 5),
            "tiles": self.tiles,
            "letter_accuracy": round(self.tiles_right / max(self.tiles, 1), 5),
            "empties": self.empties,
            "empty_read_as_tile": self.empties_as_tiles,
            "blanks": self.blanks,
            "blanks_missed": self.blanks_missed,
            "phantom_blanks": self.phantom_blanks,
            "errors": self.errors[:12],
        }


def game_like_rows(rng: np.random.Generator, tiles: TileSet = ENGLISH) -> list[str]:
    """A held-out board state: 20-45% of squares covered (at most the whole bag), as in the middle
    and end of a game, its tiles drawn from ``tiles``'s bag, so a reader bound by the set's counts
    is judged on boards a game can make (a blank as a random letter in lower case)."""
    bag = [t for t, n in sorted(tiles.full_bag().items()) for _ in range(n)]
    k = min(len(bag), round(float(rng.uniform(0.2, 0.45)) * N * N))
    drawn = [bag[i] for i in rng.choice(len(bag), size=k, replace=False)]
    cells = ["."] * (N * N)
    for sq, t in zip(rng.choice(N * N, size=k, replace=False), drawn):
        cells[sq] = str(rng.choice(list(tiles.letters))).lower() if t == "?" else t
    return ["".join(f"[{c}]" if len(c) > 1 else c for c in cells[r * N:(r + 1) * N]) for r in range(N)]


LATIN = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ")


def own_faces(tiles: TileSet) -> tuple[str, ...]:
    """The faces of ``tiles`` beyond plain A-Z: its accented letters and multi-letter tiles.

    >>> from board_pi.rules.tiles import TILE_SETS
    >>> own_faces(TILE_SETS["german"]), own_faces(TILE_SETS["spanish"]), own_faces(ENGLISH)
    (('Ä', 'Ö', 'Ü'), ('CH', 'LL', 'Ñ', 'RR'), ())
    """
    return tuple(f for f in tiles.letters if f not in LATIN)


def with_every_face(rng: np.random.Generator, tiles: TileSet, faces: Sequence[str]) -> list[str]:
    """A board as :func:`game_like_rows` draws it, with each of ``faces`` on it: a tile of
    another letter is swapped for each face the draw left out. A set holds one or two of such
    tiles (one Ä, one Ź), so on boards drawn from the bag they are too few to be counted; the
    board stays one a game can make (a tile taken off never breaks the set's counts, and a face
    put on is not on the board yet)."""
    cells = [c for row in game_like_rows(rng, tiles) for c in split_row(row)]
    others = [k for k, c in enumerate(cells) if c != "." and c not in faces and not c.islower()]
    for face in faces:
        if face not in cells and others:
            cells[others.pop(int(rng.integers(len(others))))] = face
    return ["".join(f"[{c}]" if len(c) > 1 else c for c in cells[r * N:(r + 1) * N]) for r in range(N)]


def face_recall(reader: Reader, seeds: Iterable[int], tiles: TileSet, faces: Sequence[str] | None = None,
                size: tuple[int, int] = (1280, 960)) -> dict:
    """How often each of ``faces`` (by default the set's :func:`own_faces`) is read right on
    rendered boards that hold each of them (:func:`with_every_face`), read as :func:`evaluate_synthetic`
    reads; the squares under a hand skipped. ``faces``: face -> [right, seen];
    ``misread``: "Ä->A" -> how often."""
    faces = tuple(own_faces(tiles) if faces is None else faces)
    counts = {f: [0, 0] for f in faces}
    misread: dict[str, int] = {}
    for seed in seeds:
        rows = with_every_face(np.random.default_rng(seed), tiles, faces)
        r = render_board(rows, seed=seed, size=size, tiles=tiles)
        grid = [c for row in reader.read(r.image, r.corners).grid for c in split_row(row)]
        for k, want in enumerate(c for row in rows for c in split_row(row)):
            if want in counts and not r.occluded.ravel()[k]:
                counts[want][1] += 1
                counts[want][0] += grid[k] == want
                if grid[k] != want:
                    misread[f"{want}->{grid[k]}"] = misread.get(f"{want}->{grid[k]}", 0) + 1
    return {"faces": counts, "misread": dict(sorted(misread.items(), key=lambda kv: -kv[1]))}


def evaluate_synthetic(reader: Reader, seeds: Iterable[int], size: tuple[int, int] = (1280, 960),
                       tiles: TileSet = ENGLISH) -> dict:
    """Figures on rendered boards of ``tiles`` read through their true corners; squares under a
    hand skipped. ``fonts`` in the figures: the catalogue fonts the boards were lettered in."""
    t = Tally()
    fonts: set[str] = set()
    for seed in seeds:
        rows = game_like_rows(np.random.default_rng(seed), tiles)
        r = render_board(rows, seed=seed, size=size, tiles=None if tiles is ENGLISH else tiles)
        fonts.update(r.fonts)
        t.add(rows, reader.read(r.image, r.corners).grid, r.occluded, tag=f"#{seed} ")
    return {**t.figures(), "fonts": sorted(fonts)}


def real_boards(folder: Path) -> list[tuple[str, Path, list[str], np.ndarray]]:
    """(name, image, truth rows, corners) for each labelled photo in ``folder``."""
    out = []
    for img in sorted(folder.glob("*.jpeg")):
        name = img.stem
        truth = (folder / f"{name}.txt").read_text().split()
        corners = np.float32(json.loads((folder / f"{name}.corners.json").read_text())["corners"])
        out.append((name, img, truth, corners))
    return out


def evaluate_real(reader: Reader, folder: Path) -> dict:
    """Per-photo figures, and the tuning photos (``training_photos``) together: the photos the
    split (:func:`real_split`, set ``declanfinerty``) lets inform decisions; the held-out one
    (``eval_board``) is reported on its own only. Read through their corners as given by hand
    (:meth:`Reader.read`, ``by_hand``), as ``board-pi read --corners`` reads them."""
    import cv2

    split = real_split()["declanfinerty"]
    result: dict = {}
    train = Tally()
    for name, img, truth, corners in real_boards(folder):
        t = Tally()
        grid = reader.read(cv2.imread(str(img)), corners, played=True, by_hand=True).grid
        t.add(truth, grid, tag=f"{name} ")
        if split.part(img.name) == "tuning":
            train.add(truth, grid, tag=f"{name} ")
        result[name] = t.figures()
    result["training_photos"] = train.figures()
    return result


def hand_labelled(labels: Path, corners_file: Path, photos: Path) -> list[tuple[str, Path, list[str], np.ndarray]]:
    """(name, image, truth rows, corners) for the photos in folder ``photos`` labelled by hand:
    ``labels`` and ``corners_file`` are JSON with a ``photos`` object (rows, and corners, by
    photo name), as ``tests/data/jheidel_labels.json`` and ``jheidel_corners.json``."""
    rows = json.loads(labels.read_text())["photos"]
    corners = json.loads(corners_file.read_text())["photos"]
    return [(name, photos / name, truth, np.float32(corners[name]["corners"]))
            for name, truth in rows.items() if (photos / name).is_file()]


def evaluate_photos(reader: Reader, photos: list[tuple[str, Path, list[str], np.ndarray]]) -> dict:
    """Figures over labelled photos together, read through their corners as given by hand
    (:meth:`Reader.read`, ``by_hand``), as ``board-pi read --corners`` reads them."""
    import cv2

    t = Tally()
    for name, img, truth, corners in photos:
        t.add(truth, reader.read(cv2.imread(str(img)), corners, played=True, by_hand=True).grid, tag=f"{name} ")
    return t.figures()


def evaluate_enrolled(reader: Reader, photos: list[tuple[str, Path, list[str], np.ndarray]]) -> dict:
    """Enrolment checked on labelled photos of one board and tile set: each photo in turn is the
    enrolment photo (its squares known, as the printed layout's are), and the next one is read
    with the profile it gives. A photo of the empty board teaches no tiles and enrols nothing
    (its next photo is not read). Figures over all the photos read."""
    import cv2

    from board_pi.vision.enrol import enrol

    t = Tally()
    for k, (_, img, truth, corners) in enumerate(photos):
        if all(ch == "." for row in truth for ch in row):
            continue
        profile = enrol(cv2.imread(str(img)), corners, reader, layout=truth)
        name, other, other_truth, other_corners = photos[(k + 1) % len(photos)]
        t.add(other_truth, Reader(reader.model_path, profile=profile).read(cv2.imread(str(other)), other_corners).grid,
              tag=f"{name} ")
    return t.figures()


def turned_out(truth: Sequence[str], grid: Sequence[str]) -> bool:
    """Whether ``grid`` reads the board of ``truth`` a quarter or half turn out: most of the
    truth's tiles are not read as they are, and the squares read as tiles fit the truth's as
    well turned some way as they do as they are. Counting the tiles, not the squares: a sparse
    board read a turn wrong still has most squares (the empty ones) right.

    >>> truth = ["." * 15] * 7 + ["...BENDS" + "." * 7] + ["." * 15] * 7
    >>> turned_out(truth, truth)
    False
    >>> turned_out(truth, ["." * 15] * 7 + ["." * 7 + "SONZO..."] + ["." * 15] * 7)  # read upside down
    True
    >>> turned_out(truth, ["".join(r) for r in np.rot90([list(r) for r in truth])])
    True
    >>> turned_out(truth, ["." * 15] * 7 + ["...BEMOS" + "." * 7] + ["." * 15] * 7)  # misread, upright
    False
    """
    want = np.array([split_row(r) for r in truth])
    got = np.array([split_row(r) for r in grid])
    tiles = want != "."
    if 2 * int((got[tiles] == want[tiles]).sum()) >= int(tiles.sum()):
        return False
    placed = [int((np.rot90(got, k)[tiles] != ".").sum()) for k in range(4)]
    return max(placed[1:]) >= placed[0]


def evaluate_found(reader: Reader, photos: list[tuple[str, Path | np.ndarray, list[str], np.ndarray | None]],
                   played: bool = True, mirror: bool = False) -> dict:
    """Figures with the board found automatically (:func:`~board_pi.vision.locate.find_board`,
    looking ``far`` as for a photo) and read whichever way up it lies
    (:meth:`Reader.read_upright`), as ``board-pi read`` does without ``--corners``. A board not
    found counts as 225 squares wrong; ``found`` and ``turned_wrong`` (found, but read a quarter
    or half turn out: :func:`turned_out`) say which.
    ``played``: the photos are of games (rendered boards of strewn tiles are not). ``mirror``:
    each photo is read as its mirror image (a camera set to flip its picture), and ``mirrored``
    counts the readings that say so (:attr:`~board_pi.vision.read.Turn.mirrored`)."""
    from board_pi.vision.frames import load_image
    from board_pi.vision.locate import find_board

    t = Tally()
    found = turned_wrong = mirrored = 0
    for name, img, truth, _ in photos:
        image = img if isinstance(img, np.ndarray) else load_image(img)
        if mirror:
            image = np.ascontiguousarray(image[:, ::-1])
        loc = find_board(image, far=True)
        if loc is None:  # every square wrong, and none of them read as anything
            cells = [c for row in truth for c in split_row(row)]
            t.squares += len(cells)
            t.empties += sum(c == "." for c in cells)
            t.tiles += sum(c != "." for c in cells)
            t.errors.append(f"{name}: no board found")
            continue
        found += 1
        reading = reader.read_upright(image, loc.corners, played=played)
        t.add(truth, reading.grid, tag=f"{name} ")
        turned_wrong += turned_out(truth, reading.grid)
        mirrored += bool(reading.turn is not None and reading.turn.mirrored)
    return {**t.figures(), "photos": len(photos), "found": found, "turned_wrong": turned_wrong, "mirrored": mirrored}



def evaluate_covered(reader: Reader, photos: list[tuple[str, Path | np.ndarray, list[str], np.ndarray]],
                     seed: int, played: bool = True) -> dict:
    """How well a reading of the whole board names the squares something lies over
    (:attr:`~board_pi.vision.read.Reading.covered`): each photo (name, image or its path, truth,
    corners) read as it is, and with each of :data:`~board_pi.vision.render.COVERS` laid over
    it in turn (:func:`~board_pi.vision.render.lay_over`, drawn from ``seed``), through its
    corners. Figures: photos read as they are with squares named (``clear_named``) and how many
    squares; under the covers, the squares covered nine tenths or more (``under``) and how many
    of them were named (``named_under``, per kind in ``by_kind``), and the squares named that
    no cover touches nor lies beside (``named_away``)."""
    import cv2

    from board_pi.vision.render import COVERS, lay_over

    rng = np.random.default_rng(seed)
    out: dict = {"photos": len(photos), "clear_named": 0, "clear_squares": 0, "under": 0, "named_under": 0,
                 "named_away": 0, "by_kind": {k: [0, 0] for k in COVERS}}
    for _, img, _, corners in photos:
        image = cv2.imread(str(img)) if not isinstance(img, np.ndarray) else img
        clear = reader.read(image, corners, played=played, by_hand=played).covered
        out["clear_named"] += bool(clear)
        out["clear_squares"] += len(clear)
        for kind in COVERS:
            laid, share = lay_over(rng, image, corners, kind)
            named = np.zeros((N, N), bool)
            for r, c in reader.read(laid, corners, played=played, by_hand=played).covered:
                named[r, c] = True
            touched = np.pad(share > 0, 1)
            beside = np.zeros((N, N), bool)
            for dy in range(3):
                for dx in range(3):
                    beside |= touched[dy:dy + N, dx:dx + N]
            under = share >= 0.9
            out["under"] += int(under.sum())
            out["named_under"] += int((named & under).sum())
            out["named_away"] += int((named & ~beside).sum())
            out["by_kind"][kind][0] += int((named & under).sum())
            out["by_kind"][kind][1] += int(under.sum())
    return out
