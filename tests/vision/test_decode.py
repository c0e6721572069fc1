"""The board read as a whole under the tile set's counts (vision/decode.py), against brute force
on small boards, and on a whole board read from a rendered photo."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from board_pi.rules.tiles import ENGLISH
from board_pi.vision.decode import decode, tile_limits


def _cost(p: np.ndarray, choice: np.ndarray) -> float:
    return float(-np.log(np.maximum(p[np.arange(len(choice)), choice], 1e-6)).sum())


def _brute(p: np.ndarray, classes: tuple[str, ...], limits: dict[str, int]) -> float:
    best = np.inf
    for combo in itertools.product(range(len(classes)), repeat=len(p)):
        counts = np.bincount(combo, minlength=len(classes))
        if all(classes[c] == "." or counts[c] <= limits.get(classes[c], 0) for c in range(len(classes))):
            best = min(best, _cost(p, np.array(combo)))
    return best


@pytest.mark.parametrize("seed", range(40))
def test_decode_is_the_likeliest_reading_within_the_limits(seed: int) -> None:
    rng = np.random.default_rng(seed)
    classes = (".", "A", "B", "?")
    n = int(rng.integers(3, 8))
    # Peaked rows, so that the squares' own choices often break the limits.
    p = rng.dirichlet(np.full(len(classes), 0.3), size=n)
    limits = {"A": int(rng.integers(0, 3)), "B": int(rng.integers(0, 2)), "?": int(rng.integers(0, 3))}
    choice = decode(p, classes, limits)
    counts = np.bincount(choice, minlength=len(classes))
    for c, name in enumerate(classes):
        if name != ".":
            assert counts[c] <= limits[name]
    assert _cost(p, choice) == pytest.approx(_brute(p, classes, limits), abs=1e-9)


def test_within_the_limits_each_square_keeps_its_own_likeliest_class() -> None:
    rng = np.random.default_rng(1)
    p = rng.dirichlet(np.ones(4), size=30)
    assert (decode(p, (".", "A", "B", "?"), {"A": 30, "B": 30, "?": 30}) == p.argmax(1)).all()


def test_a_class_the_tile_set_lacks_is_never_read() -> None:
    p = np.array([[0.05, 0.8, 0.15], [0.2, 0.7, 0.1]])
    assert list(decode(p, (".", "Ä", "A"), {"A": 9})) == [2, 0]


def test_committed_tiles_use_up_the_counts() -> None:
    assert tile_limits(ENGLISH.full_bag(), ["Z", "q", "?", "E"])["Z"] == 0
    assert tile_limits(ENGLISH.full_bag(), ["Z", "q", "?", "E"])["?"] == 0
    assert tile_limits(ENGLISH.full_bag(), ["Z", "q", "?", "E"])["E"] == 11
    # A Z already on the board: a second Z seen is read as its next likeliest class.
    classes = (".", "Z", "?")
    p = np.array([[0.3, 0.6, 0.1]])
    assert decode(p, classes, tile_limits({"Z": 1, "?": 2}, ["Z"]))[0] == 0


def test_a_whole_board_of_blanks_keeps_the_two_likeliest() -> None:
    # 225 squares the model thinks are blank tiles, more or less surely: English has two.
    classes = tuple(".") + ENGLISH.letters + ("?",)
    rng = np.random.default_rng(3)
    p = np.full((225, len(classes)), 0.001)
    p[:, -1] = rng.uniform(0.5, 0.9, 225)
    p[:, 0] = 1 - p[:, -1] - 0.001 * (len(classes) - 2)
    choice = decode(p, classes, tile_limits(ENGLISH.full_bag()))
    blanks = np.flatnonzero(choice == len(classes) - 1)
    assert sorted(blanks) == sorted(np.argsort(-p[:, -1])[:2])
    assert (choice[np.setdiff1d(np.arange(225), blanks)] == 0).all()


def test_bad_shapes_are_refused() -> None:
    with pytest.raises(ValueError, match="2 class probabilities per square but 3 classes"):
        decode(np.ones((4, 2)) / 2, (".", "A", "?"), {"A": 1})


# ---------------------------------------------------------------- the reader, on rendered photos

ROWS = ["." * 15] * 6 + ["...ZAPs.cat.b..", "....E..........", "....S.........."] + ["." * 15] * 6


@pytest.fixture(scope="module")
def photo():
    from board_pi.vision.read import Reader
    from board_pi.vision.render import render_board

    return Reader(), render_board(ROWS, seed=20_100_007, hand=False)


def test_a_photo_is_read_with_no_more_blanks_than_the_set_holds(photo) -> None:
    from board_pi.rules.tiles import TileSet
    from board_pi.vision.read import Reader

    reader, r = photo
    # Five blank tiles on the board: a set with room for them reads them all...
    roomy = TileSet("roomy", {k: (225, 1) for k in "ABCDEFGHIJKLMNOPQRSTUVWXYZ"}, blanks=225)
    free = Reader(tiles=roomy).read(r.image, r.corners)
    assert "".join(free.grid).count("?") == 5
    # ...English has two: two stay blanks, the others take their next likeliest reading, with the
    # lower belief that has.
    bound = reader.read(r.image, r.corners)
    assert "".join(bound.grid).count("?") == 2
    changed = [(i, j) for i in range(15) for j in range(15) if bound.grid[i][j] != free.grid[i][j]]
    assert len(changed) == 3
    assert all(free.grid[i][j] == "?" and bound.confidence[i, j] < free.confidence[i, j] for i, j in changed)


def test_tiles_already_committed_count_against_the_set(photo) -> None:
    reader, r = photo
    assert reader.read(r.image, r.corners, squares=[(6, 3)]).grid[6][3] == "Z"
    # A Z already committed elsewhere on the board: English has one, so this square is not a Z.
    committed = ["Z" + "." * 14] + ["." * 15] * 14
    again = reader.read(r.image, r.corners, squares=[(6, 3)], committed=committed)
    assert again.grid[6][3] != "Z"
    # The committed rows of the squares being read do not count: they are what is read anew.
    committed = ["." * 15] * 6 + ["...Z..........."] + ["." * 15] * 8
    assert reader.read(r.image, r.corners, squares=[(6, 3)], committed=committed).grid[6][3] == "Z"
