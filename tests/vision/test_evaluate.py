"""The real-set split and the evaluation's counting."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from board_pi.vision.evaluate import SPLIT_PATH, real_split


def test_the_split_keeps_the_agreed_photos_out():
    split = real_split()
    assert split["declanfinerty"].held_out == ("eval_board.jpeg",)
    assert split["declanfinerty"].part("board_002.jpeg") == "tuning"
    game = split["jheidel-2015"]
    # the team's rule: up to and including 170248 may inform decisions, from 170317 on held out
    assert game.tuning and game.held_out
    assert max(game.tuning) == "IMG_20151016_170248.jpg"
    assert min(game.held_out) == "IMG_20151016_170317.jpg"
    assert all(p.startswith("IMG_20151016_") for p in game.tuning + game.held_out)
    # the 2014 photos (another board and set): never tuned on; the blurred one only for robustness
    assert split["jheidel-2014"].tuning == () and len(split["jheidel-2014"].held_out) == 10
    assert split["jheidel-2014"].robustness == ("IMG_20141025_164048.jpg",)
    assert game.part("IMG_20141025_163920.jpg") is None


def test_the_split_names_every_photo_of_its_folders_once(shared_data):
    split = real_split()
    for s in split.values():
        named = s.tuning + s.held_out + s.robustness
        assert len(named) == len(set(named)), s.name
        folder = shared_data / s.folder
        assert all((folder / p).is_file() for p in named), s.name
    photos = {p.name for p in (shared_data / "real-photos" / "jheidel-game").glob("*.jpg")}
    in_split = {p for name in ("jheidel-2015", "jheidel-2014") for s in [split[name]]
                for p in s.tuning + s.held_out + s.robustness}
    assert photos == in_split


def test_a_photo_in_two_parts_is_refused(tmp_path: Path):
    data = json.loads(SPLIT_PATH.read_text())
    data["sets"]["declanfinerty"]["tuning"].append("eval_board.jpeg")
    bad = tmp_path / "split.json"
    bad.write_text(json.dumps(data))
    with pytest.raises(ValueError, match="eval_board"):
        real_split(bad)


def test_figures_with_the_board_found_count_a_board_not_found_as_every_square_wrong():
    import numpy as np

    from board_pi.vision.evaluate import evaluate_found, game_like_rows
    from board_pi.vision.read import Reader
    from board_pi.vision.render import render_board

    rows = game_like_rows(np.random.default_rng(30_000_001))
    seen = render_board(rows, seed=30_000_001, hand=False).image
    nothing = np.full((960, 1280, 3), 128, np.uint8)  # no board in it
    f = evaluate_found(Reader(), [("board", seen, rows, None), ("grey", nothing, rows, None)], played=False)
    assert (f["photos"], f["found"], f["turned_wrong"]) == (2, 1, 0)
    assert f["squares"] == 450 and 0.49 < f["square_accuracy"] <= 0.5  # the found one read right
    assert f["empty_read_as_tile"] == 0 and "grey: no board found" in f["errors"]
    assert f["mirrored"] == 0
    # Taken as a camera that flips its picture takes it: said to be, and read the right way round.
    m = evaluate_found(Reader(), [("board", seen, rows, None)], played=False, mirror=True)
    assert (m["found"], m["mirrored"], m["turned_wrong"]) == (1, 1, 0) and m["square_accuracy"] > 0.98


def test_the_tally_counts_blanks_missed_and_phantom_blanks():
    from board_pi.vision.evaluate import Tally

    empty = ["." * 15] * 15
    truth = ["s?A" + "." * 12] + empty[1:]
    grid = [".?A" + "?" * 2 + "." * 10] + empty[1:]  # the played blank missed, two phantoms
    t = Tally()
    t.add(truth, grid)
    f = t.figures()
    assert (f["blanks"], f["blanks_missed"], f["phantom_blanks"], f["empty_read_as_tile"]) == (2, 1, 2, 2)
    assert f["squares"] == 225 and t.squares_right == 222


def test_boards_for_a_sets_own_faces_hold_each_once_and_stay_within_the_bag():
    import numpy as np

    from board_pi.rules.board import split_row
    from board_pi.rules.tiles import TILE_SETS
    from board_pi.vision.evaluate import own_faces, with_every_face

    for name in ("german", "spanish", "polish", "dutch-ij"):
        tiles = TILE_SETS[name]
        faces = own_faces(tiles)
        assert faces and all(len(f) > 1 or not ("A" <= f <= "Z") for f in faces)
        for seed in range(5):
            cells = [c for row in with_every_face(np.random.default_rng(seed), tiles, faces) for c in split_row(row)]
            assert len(cells) == 225
            on_board: dict[str, int] = {}
            for c in cells:
                if c != ".":
                    key = "?" if c.islower() else c
                    on_board[key] = on_board.get(key, 0) + 1
            bag = tiles.full_bag()
            assert all(f in on_board for f in faces)
            assert all(n <= bag[t] for t, n in on_board.items()), name


def test_face_recall_counts_each_face_read_and_says_what_it_was_taken_for():
    from board_pi.rules.tiles import TILE_SETS
    from board_pi.vision.evaluate import face_recall
    from board_pi.vision.read import Reader

    german = TILE_SETS["german"]
    f = face_recall(Reader(tiles=german), [21_001_000], german)
    assert set(f["faces"]) == {"Ä", "Ö", "Ü"}
    assert all(0 <= right <= seen <= 1 for right, seen in f["faces"].values())
    assert sum(seen for _, seen in f["faces"].values()) >= 2  # a hand may hide one
    misses = sum(seen - right for right, seen in f["faces"].values())
    assert sum(f["misread"].values()) == misses
    # Read as an English board (A-Z only), no umlaut can come out: each one seen is counted
    # wrong, with what it was taken for.
    english = face_recall(Reader(tiles=TILE_SETS["english"]), [21_001_000], german)
    assert all(right == 0 for right, _ in english["faces"].values())
    assert sum(english["misread"].values()) == sum(seen for _, seen in english["faces"].values()) >= 2
    assert all(k[0] in "ÄÖÜ" and k[3] not in "ÄÖÜ" for k in english["misread"])


def test_covers_are_counted_per_kind_and_a_clear_board_names_nothing():
    import numpy as np

    from board_pi.vision.evaluate import evaluate_covered, game_like_rows
    from board_pi.vision.read import Reader
    from board_pi.vision.render import COVERS, render_board

    rows = game_like_rows(np.random.default_rng(46_400_010))
    r = render_board(rows, seed=46_400_010, hand=False, effects=False)
    f = evaluate_covered(Reader(), [("board", r.image, rows, r.corners)], seed=7, played=False)
    assert f["photos"] == 1 and f["clear_named"] == 0 and f["clear_squares"] == 0
    assert set(f["by_kind"]) == set(COVERS)
    assert f["under"] == sum(b for _, b in f["by_kind"].values()) > 0
    assert f["named_under"] == sum(a for a, _ in f["by_kind"].values()) > 0
    assert f["named_away"] == 0


def test_doctests() -> None:
    """:func:`turned_out`'s examples: a sparse board read a quarter turn out is told, though
    most of its squares (the empty ones) are read right."""
    import doctest

    from board_pi.vision import evaluate

    result = doctest.testmod(evaluate)
    assert result.attempted >= 2 and result.failed == 0
