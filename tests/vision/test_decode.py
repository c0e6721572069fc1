"""The board read as a whole under the tile set's counts (vision/decode.py), against brute force
on small boards, and on a whole board read from a rendered photo."""

from __future__ import annotations

import doctest
import itertools
from pathlib import Path

import numpy as np
import pytest

from board_pi.rules.tiles import ENGLISH
from board_pi.vision import decode as decode_module
from board_pi.vision.decode import decode, islands, lone_tiles, tile_limits
from tests.vision.lights import shadow


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


def test_the_modules_examples_hold() -> None:
    result = doctest.testmod(decode_module)
    assert result.attempted > 0 and result.failed == 0


def _board(*squares: tuple[int, int]) -> np.ndarray:
    t = np.zeros((15, 15), bool)
    for q in squares:
        t[q] = True
    return t


def test_a_tile_alone_is_lone_wherever_it_lies_even_on_the_centre_star() -> None:
    for q in [(7, 7), (0, 0), (14, 14), (0, 7), (3, 11)]:
        t = _board(q)
        assert lone_tiles(t, ~t)[q]


def test_tiles_of_a_game_are_never_lone() -> None:
    # Words crossing and touching, to every edge of the board.
    t = _board(*[(7, c) for c in range(3, 12)], *[(r, 6) for r in range(0, 8)], *[(r, 11) for r in range(7, 15)],
               (14, 12), (14, 13), (14, 14))
    assert not lone_tiles(t, ~t).any()


def test_a_tile_beside_a_doubtful_square_is_kept() -> None:
    # Its neighbour may be a tile the model missed (a blank on a square of its colour).
    t = _board((4, 4))
    sure_empty = ~t
    sure_empty[4, 5] = False
    assert not lone_tiles(t, sure_empty).any()
    sure_empty[4, 5] = True
    assert lone_tiles(t, sure_empty)[4, 4]


def test_groups_cut_off_from_the_largest_are_islands() -> None:
    word = [(7, c) for c in range(3, 10)]
    assert islands(_board(*word)) == []
    assert islands(np.zeros((15, 15), bool)) == []
    # Two groups beyond gaps, one touching the word only at a corner (diagonals do not join).
    t = _board(*word, (2, 5), (3, 5), (6, 10), (5, 10))
    assert islands(t) == [[(2, 5), (3, 5)], [(5, 10), (6, 10)]]


def _probs(reader, cells: dict[tuple[int, int], dict[str, float]]) -> tuple[list[list[str]], np.ndarray, list, np.ndarray]:
    """A whole board's grid, confidences, squares and probabilities, every square surely empty
    but ``cells`` (square: {class: probability}, the rest of 1 on empty)."""
    classes = reader.classes
    squares = [(r, c) for r in range(15) for c in range(15)]
    probs = np.full((225, len(classes)), 1e-6, np.float32)
    probs[:, classes.index(".")] = 1.0
    for (r, c), p in cells.items():
        probs[r * 15 + c] = 1e-6
        for k, v in p.items():
            probs[r * 15 + c, classes.index(k)] = v
        probs[r * 15 + c, classes.index(".")] = max(1e-6, 1 - sum(p.values()))
    probs /= probs.sum(axis=1, keepdims=True)
    grid = [[classes[int(probs[r * 15 + c].argmax())] for c in range(15)] for r in range(15)]
    conf = np.array([[probs[r * 15 + c].max() for c in range(15)] for r in range(15)], np.float32)
    return grid, conf, squares, probs


def test_an_island_of_sure_letters_is_joined_by_the_tile_between_read_as_empty() -> None:
    """ZERO down column O, cut off from the rest by its last square, read as empty (a blank in
    shadow): the blank between is likelier than four sure letters not being there."""
    from board_pi.vision.read import Reader

    reader = Reader()
    cells = {(9, c): {"A": 0.98} for c in range(10, 14)}  # the rest of the game, along row 10
    cells |= {(r, 14): {ch: 0.98} for r, ch in zip(range(5, 9), "ZERO")}
    cells[(9, 14)] = {"?": 0.2, "I": 0.02}  # empty at 0.78
    grid, conf, squares, probs = _probs(reader, cells)
    assert grid[9][14] == "."
    reader._join_islands(grid, conf, squares, probs)
    assert grid[9][14] == "?" and abs(conf[9, 14] - probs[9 * 15 + 14, reader.classes.index("?")]) < 1e-6
    assert [grid[r][14] for r in range(5, 9)] == list("ZERO")


def test_an_island_held_less_surely_than_a_tile_between_is_left_as_it_is() -> None:
    # Two tiles in doubt beyond a square read as empty in doubt, every letter there faint: a tile
    # between is less likely than that the two are not there. Nor are they taken away (what cuts
    # them off may be a hand over a tile).
    from board_pi.vision.read import Reader

    reader = Reader()
    cells = {(7, c): {"A": 0.98} for c in range(4, 9)}
    cells |= {(7, 10): {"?": 0.6}, (7, 11): {"?": 0.6}, (7, 9): {ch: 0.004 for ch in "ABCDEFGHIJKLMNOPQRSTUVWXYZ?"}}
    grid, conf, squares, probs = _probs(reader, cells)
    assert grid[7][9] == "." and conf[7, 9] < Reader.SURE
    before = [row[:] for row in grid]
    reader._join_islands(grid, conf, squares, probs)
    assert grid == before


def test_an_island_is_not_joined_through_a_square_read_clearly_as_empty() -> None:
    # Seven sure letters cut off by one square read clearly as empty: a hand over the board
    # hides what joins them, or nothing does; no tile is put there (on rendered games with a
    # hand, such joins doubled the squares read wrong).
    from board_pi.vision.read import Reader

    reader = Reader()
    cells = {(7, c): {"A": 0.98} for c in range(4, 9)} | {(r, 9): {"T": 0.98} for r in range(0, 7)}
    cells[(7, 9)] = {"E": 0.06}
    grid, conf, squares, probs = _probs(reader, cells)
    before = [row[:] for row in grid]
    reader._join_islands(grid, conf, squares, probs)
    assert grid == before
    probs[7 * 15 + 9, reader.classes.index("E")] = 0.12  # in doubt now: the letter joins them
    probs[7 * 15 + 9, reader.classes.index(".")] = 0.88
    reader._join_islands(grid, conf, squares, probs)
    assert grid[7][9] == "E"


def test_an_island_is_joined_only_by_a_tile_the_set_has_left() -> None:
    # Both blanks are on the board: the square between takes its likeliest letter instead.
    from board_pi.vision.read import Reader

    reader = Reader()
    cells = {(7, c): {"A": 0.98} for c in range(4, 9)}
    cells |= {(2, 2): {"?": 0.98}, (2, 3): {"?": 0.98}, (3, 2): {"B": 0.98}}
    cells |= {(5, 8): {"T": 0.98}, (4, 8): {"T": 0.98}, (6, 8): {"?": 0.3, "E": 0.1}}
    grid, conf, squares, probs = _probs(reader, cells)
    reader._join_islands(grid, conf, squares, probs)
    assert grid[6][8] == "E"


def test_a_blank_in_shadow_joining_a_word_to_the_game_is_read(shared_data) -> None:
    """A tuning photo of the 2015 game half in a body's shadow (70% of the light left;
    ``bench_conditions``' shadow-70),
    read through its labelled corners: ZERO stands down column O (O6 to O9) on the vintage set's
    plain wooden blank (O10), the one square joining it to the rest. The blank reads as empty
    (its colour and its square's are a few levels apart in that shadow), which would leave four
    sure letters cut off from the game; read as the photo of a game, the blank is there."""
    from board_pi.rules.board import split_row
    from board_pi.vision.evaluate import hand_labelled
    from board_pi.vision.frames import load_image
    from board_pi.vision.read import Reader

    data = Path(__file__).resolve().parents[1] / "data"
    photos = {name: (path, corners) for name, path, _, corners in
              hand_labelled(data / "jheidel_labels.json", data / "jheidel_corners.json",
                            shared_data / "real-photos" / "jheidel-game")}
    path, corners = photos["IMG_20151016_170003.jpg"]
    image = shadow(0.7)(load_image(path))
    reader = Reader()
    as_any = reader.read(image, corners)
    assert [split_row(as_any.grid[r])[14] for r in range(4, 11)] == list(".ZERO..")
    assert islands(np.array([[ch != "." for ch in split_row(row)] for row in as_any.grid]))
    as_played = reader.read(image, corners, played=True)
    assert [split_row(as_played.grid[r])[14] for r in range(4, 11)] == list(".ZERO?.")
    assert not islands(np.array([[ch != "." for ch in split_row(row)] for row in as_played.grid]))


def test_a_tile_put_down_to_join_a_group_is_the_neighbour_a_lone_tile_lacked(shared_data) -> None:
    """A tuning photo of the 2015 game, the camera shaken by 9 pixels (a third of a square): the D
    of BENDS (G8) reads as empty by a hair, which leaves the S beside it (H8) alone. Putting a
    tile down between gives the S its neighbour, and the reading makes that likelier than that the
    S is not there: both are read. (Until the tile model of 2026-12-05 this was 165608, where the
    missing D also cut WI off from the rest; that model reads its D, and the shaken I above it
    as an E.)"""
    import cv2

    from board_pi.rules.board import split_row
    from board_pi.vision.evaluate import hand_labelled
    from board_pi.vision.frames import load_image
    from board_pi.vision.read import Reader

    data = Path(__file__).resolve().parents[1] / "data"
    photos = {name: (path, truth, corners) for name, path, truth, corners in
              hand_labelled(data / "jheidel_labels.json", data / "jheidel_corners.json",
                            shared_data / "real-photos" / "jheidel-game")}
    path, truth, corners = photos["IMG_20151016_165959.jpg"]
    assert split_row(truth[7])[3:8] == list("BENDS")
    image = cv2.filter2D(load_image(path), -1, np.ones((1, 9), np.float32) / 9)
    reader = Reader()
    as_any = reader.read(image, corners)
    assert split_row(as_any.grid[7])[3:8] == list("BEN.S")
    as_played = reader.read(image, corners, played=True)
    assert split_row(as_played.grid[7])[3:8] == list("BENDS")


def test_the_print_of_premium_squares_on_an_empty_real_board_is_no_tile(shared_data) -> None:
    """The 2015 game's empty vintage board (a tuning photo): the model read the print of eleven
    DOUBLE WORD SCORE and DOUBLE LETTER SCORE squares as letters, each alone, until it was trained
    on the tuning photos (the 2026-11-28 pass); a game's board cannot hold a lone tile, so read as
    the photo of a game it is empty either way. The rule itself: lone_tiles, above."""
    from board_pi.vision.frames import load_image
    from board_pi.vision.locate import find_board
    from board_pi.vision.read import Reader

    image = load_image(shared_data / "real-photos" / "jheidel-game" / "IMG_20151016_165320.jpg")
    found = find_board(image)
    assert found is not None
    reader = Reader()
    as_any = reader.read(image, found.corners)
    assert sum(ch != "." for row in as_any.grid for ch in row) <= 11
    as_played = reader.read(image, found.corners, played=True)
    assert all(row == "." * 15 for row in as_played.grid)
    was_tile = [(r, c) for r in range(15) for c in range(15) if as_any.grid[r][c] != "."]
    assert all(as_played.confidence[q] < 0.5 for q in was_tile)  # said to be doubtful, not sure


def test_a_tile_beside_a_blank_read_empty_in_doubt_keeps_it_and_the_blank(shared_data, monkeypatch) -> None:
    """declanfinerty's board_001 (a tuning photo) compressed at JPEG quality 30, read through its
    labelled corners: the wooden blank A10 reads as empty, not surely, and the R below it (A11),
    read surely, then has no tile beside it. Taking the R away costs the reading far more than a
    tile on the blank's square, which joins the R to the tiles beyond: both are read right (the
    R was read as empty too, before the lone-tile rule weighed the two)."""
    import cv2

    from board_pi.rules.board import split_row
    from board_pi.vision.evaluate import real_boards
    from board_pi.vision.frames import load_image
    from board_pi.vision.read import Reader

    boards = {name: (path, corners) for name, path, _, corners in real_boards(shared_data / "real-boards" / "declanfinerty")}
    path, corners = boards["board_001"]
    image = cv2.imdecode(cv2.imencode(".jpg", load_image(path), [cv2.IMWRITE_JPEG_QUALITY, 30])[1], cv2.IMREAD_COLOR)
    # Read unsmoothed: the compressed photo's grain (read.GRAIN_FROM) would have the board smoothed,
    # and smoothed, the blank reads as a blank outright.
    monkeypatch.setattr("board_pi.vision.read.GRAIN_FROM", float("inf"))
    reader = Reader()
    as_any = reader.read(image, corners)
    assert [split_row(as_any.grid[r])[0] for r in (8, 9, 10, 11)] == ["D", ".", "R", "."]
    assert split_row(as_any.grid[9])[1] == "V"
    assert as_any.confidence[9, 0] < Reader.SURE  # in doubt
    as_played = reader.read(image, corners, played=True)
    assert [split_row(as_played.grid[r])[0] for r in (8, 9, 10, 11)] == ["D", "?", "R", "."]
