"""Reading squares with the committed ONNX model through OpenCV, and the `board-pi read` command."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from board_pi.vision.evaluate import Tally, game_like_rows, real_boards
from board_pi.vision.read import CLASSES, Profile, ReadError, Reader, label_of, parse_corners
from board_pi.vision.render import render_board

# seeds far from the training seeds (400000...) and from the training script's validation boards
SEEDS = (20_000_001, 20_000_002, 20_000_003)


@pytest.fixture(scope="module")
def reader() -> Reader:
    return Reader()


def _board(seed: int):
    rows = game_like_rows(np.random.default_rng(seed))
    return rows, render_board(rows, seed=seed)


def test_classes_and_labels():
    assert CLASSES[label_of(".")] == "." and CLASSES[label_of("Q")] == "Q"
    assert CLASSES[label_of("q")] == "?" == CLASSES[label_of("?")]
    # the committed model tells apart every face of every tile set, an empty square and a blank
    from board_pi.rules.tiles import all_glyphs
    from board_pi.vision.read import model_classes

    assert CLASSES == model_classes() and CLASSES[0] == "." and CLASSES[-1] == "?"
    assert set(all_glyphs()) <= set(CLASSES)
    assert CLASSES[label_of("Ä")] == "Ä" and CLASSES[label_of("ch")] == "?" and CLASSES[label_of("CH")] == "CH"


def test_reads_held_out_synthetic_boards(reader):
    t = Tally()
    for seed in SEEDS:
        rows, r = _board(seed)
        reading = reader.read(r.image, r.corners)
        assert reading.confidence.shape == (15, 15) and (reading.confidence > 0).all()
        t.add(rows, reading.grid, r.occluded)
    f = t.figures()
    # a floor against regressions on three boards; the targets (99.9% of squares, 99.5% of
    # letters) are measured over many more boards by benchmarks/bench_read.py
    assert f["square_accuracy"] >= 0.985, f
    assert f["letter_accuracy"] >= 0.96, f


def test_a_noisy_frame_is_smoothed_before_it_is_read(reader, monkeypatch):
    # A dim room's camera turns its gain up: the frame darker, every pixel's colours noisy (far
    # more than the model was trained with). Smoothed as far as its noise asks, the board reads
    # about as a clean one; read as it is, the noise turns letters and empty squares into others.
    import board_pi.vision.read as read_module

    rows = game_like_rows(np.random.default_rng(7000))
    r = render_board(rows, seed=7000, hand=False)
    noisy = np.clip(r.image * 0.7 + np.random.default_rng(0).normal(0, 36, r.image.shape), 0, 255).astype(np.uint8)
    assert read_module.grain(read_module.warp_grid(noisy, r.corners, 36)) > 2 * read_module.GRAIN_FROM
    assert read_module.grain(read_module.rectified(noisy, r.corners)) < read_module.GRAIN_FROM
    assert read_module.grain(read_module.rectified(r.image, r.corners)) < read_module.GRAIN_FROM
    def wrong() -> int:
        t = Tally()
        t.add(rows, reader.read(noisy, r.corners).grid, r.occluded)
        return t.squares - t.squares_right
    smoothed = wrong()
    monkeypatch.setattr(read_module, "GRAIN_FROM", float("inf"))  # smoothing switched off
    as_it_is = wrong()
    assert smoothed <= 5 and as_it_is >= 3 * max(smoothed, 3), (smoothed, as_it_is)


def test_reads_tournament_tiles_light_letters_on_dark(reader):
    # Six tuning boards in tournament tiles (editions.tournament_tiles): the model before the
    # pass of 2026-11-28 read 99.32% of their squares (tiles lettered light on dark read as
    # empty: X, A, N, P), the model since 99.93% (a blank on a blank-coloured square missed).
    from board_pi.vision.editions import tournament_tiles
    from board_pi.vision.render import random_style

    t = Tally()
    for seed in range(27_000_000, 27_000_006):
        rng = np.random.default_rng(seed)
        rows = game_like_rows(rng)
        r = render_board(rows, seed=seed, style=tournament_tiles(rng, random_style(rng)))
        t.add(rows, reader.read(r.image, r.corners).grid, r.occluded, tag=f"#{seed} ")
    f = t.figures()
    read_empty = [e for e in f["errors"] if e.endswith("->.") and not e.endswith("?->.")]
    assert f["square_accuracy"] >= 0.998 and not read_empty, f["errors"]


def test_reading_only_some_squares_matches_the_full_reading(reader):
    _, r = _board(SEEDS[0])
    full = reader.read(r.image, r.corners)
    some = [(7, 7), (0, 0), (14, 3), (3, 14)]
    # The rest of the board as committed (as at a table): a square's reading then weighs the
    # same evidence as in the full reading (the tile counts, the colours of the tiles around it),
    # up to which squares were read surely as tiles. The squares read are committed empty, so
    # that a tile there is a change, looked at as closely as in the full reading.
    committed = [list(row) for row in full.grid]
    for rr, cc in some:
        committed[rr][cc] = "."
    part = reader.read(r.image, r.corners, squares=some, committed=["".join(row) for row in committed])
    for rr in range(15):
        for cc in range(15):
            if (rr, cc) in some:
                assert part.grid[rr][cc] == full.grid[rr][cc]
                assert abs(part.confidence[rr, cc] - full.confidence[rr, cc]) < 0.01
            else:
                assert part.grid[rr][cc] == "." and part.confidence[rr, cc] == 0


def test_a_board_rectified_already_is_read_as_the_image_would_be(reader):
    from board_pi.vision.read import rectified

    _, r = _board(SEEDS[1])
    some = [(rr, cc) for rr in range(15) for cc in range(0, 15, 4)]
    alone = reader.read(r.image, r.corners, squares=some)
    given = reader.read(r.image, r.corners, squares=some, warped=rectified(r.image, r.corners))
    assert given.grid == alone.grid and np.array_equal(given.confidence, alone.confidence)


def test_a_tile_that_reads_as_committed_is_not_asked_its_value(reader, monkeypatch):
    # A table takes a square that reads as committed as unchanged: its value and its mark are
    # not read (they could only turn agreement into a change that is not there), which saves a
    # third of a read where a play jostles many tiles.
    _, r = _board(SEEDS[0])
    full = reader.read(r.image, r.corners)
    tiles = [(rr, cc) for rr in range(15) for cc in range(15) if full.grid[rr][cc] not in ".?"][:12]
    as_committed = reader.read(r.image, r.corners, squares=tiles, committed=full.grid)
    unasked = [(rr, cc) for rr, cc in tiles if abs(as_committed.confidence[rr, cc] - full.confidence[rr, cc]) > 1e-4]
    assert unasked, "the value network was asked about every tile read as committed"
    monkeypatch.setattr(reader, "values_net", None)
    alone = reader.read(r.image, r.corners, squares=tiles, committed=full.grid)
    assert alone.grid == as_committed.grid
    assert np.allclose(alone.confidence, as_committed.confidence, atol=1e-5)


def test_looking_again_changes_only_doubtful_squares_and_reads_them_no_worse(reader, monkeypatch):
    # (without the value look, which weighs tiles up to 0.99 belief by their printed value)
    monkeypatch.setattr(reader, "values_net", None)
    doubtful = right_once = right_again = 0
    for seed in (*SEEDS, 20_000_004, 20_000_005, 20_000_006):
        rows, r = _board(seed)
        once = reader.read(r.image, r.corners, look_again=False)
        again = reader.read(r.image, r.corners)
        for i in range(15):
            for j in range(15):
                if once.confidence[i, j] >= Reader.SURE:
                    # Read once only; its belief moves a little at most, with the board-wide
                    # estimates (the empty squares' colours) the doubtful squares' new readings move
                    # (0.042 the most, an empty square of 20,000,006 read at 0.913 and then 0.956).
                    assert again.grid[i][j] == once.grid[i][j]
                    assert abs(again.confidence[i, j] - once.confidence[i, j]) < 0.05
                elif not r.occluded[i, j]:
                    want = CLASSES[label_of(rows[i][j])]
                    doubtful += 1
                    right_once += once.grid[i][j] == want
                    right_again += again.grid[i][j] == want
    assert doubtful > 0  # the boards do have squares the model doubts
    assert right_again >= right_once, (right_once, right_again, doubtful)


def test_bad_corners_and_squares_are_refused(reader):
    _, r = _board(SEEDS[1])
    with pytest.raises(ReadError):
        reader.read(r.image, r.corners[[0, 2, 1, 3]])  # crossed: not a convex quadrilateral
    with pytest.raises(ReadError):
        reader.read(r.image, r.corners, squares=[(15, 0)])
    for text in ("1,2,3", "a,b,c,d,e,f,g,h", "0,0,0,0,0,0,0,0", "0,0,10,0,10,10,0,10"):
        with pytest.raises(ReadError):
            parse_corners(text)


def test_real_photos_with_their_corners(reader, shared_data):
    folder = shared_data / "real-boards" / "declanfinerty"
    for name, img, truth, corners in real_boards(folder):
        t = Tally()
        t.add(truth, reader.read(cv2.imread(str(img)), corners).grid)
        f = t.figures()
        # eval_board never took part in training; the other three did (see model/recipe.json)
        assert f["square_accuracy"] >= (0.97 if name == "eval_board" else 0.99), (name, f)


def test_real_game_on_a_vintage_tile_set(reader, shared_data):
    """The 2015 game, 42 photos labelled by hand (tests/data/jheidel_labels.json): the tuning
    photos may inform decisions (one, 170219, is in the tile model's training data), the
    held-out ones (from 170317) never, nor the 10 photos of 2014 (another board and set); the
    issue's target on real photos never tuned on is 99.5% of squares with the corners given."""
    from pathlib import Path

    from board_pi.vision.evaluate import evaluate_enrolled, evaluate_photos, hand_labelled, real_split

    data = Path(__file__).resolve().parents[1] / "data"
    photos = hand_labelled(data / "jheidel_labels.json", data / "jheidel_corners.json",
                           shared_data / "real-photos" / "jheidel-game")
    split, other = real_split()["jheidel-2015"], real_split()["jheidel-2014"]
    parts = {part: [p for p in photos if split.part(p[0]) == part] for part in ("tuning", "held_out")}
    parts["2014"] = [p for p in photos if other.part(p[0]) == "held_out"]
    assert (len(parts["tuning"]), len(parts["held_out"]), len(parts["2014"])) == (27, 15, 10)
    # Measured 2026-11-26: tuning 99.95%, held out 99.67% (3,364 of 3,375; the game's vintage
    # blank on O10 read empty on 9 of them), the 2014 photos of another board 99.82% (4 of their 8
    # blanks missed). Since the tuning photos are trained on (2026-11-28): tuning 100%, held out
    # 99.79% (O10's blank read empty on 4, an empty square read as a blank on 3), 2014 100%.
    # Floors against regressions, reported by bench_read.py.
    for part, least, phantoms in (("tuning", 0.998, 2), ("held_out", 0.995, 3), ("2014", 0.995, 2)):
        f = evaluate_photos(reader, parts[part])
        assert f["square_accuracy"] >= least and f["empty_read_as_tile"] <= phantoms, (part, f)

    # Enrolled on either of the first two labelled (170219, 170803: their squares known, as the
    # printed layout's are), the reader reads the other as this board and set look: no empty
    # square of the tiles' colour taken for a blank but one corner square of the held-out photo
    # since the reader weighs squares' colours (vision/empty.py).
    pair = [p for p in photos if p[0] in ("IMG_20151016_170219.jpg", "IMG_20151016_170803.jpg")]
    g = evaluate_enrolled(reader, pair)
    assert g["square_accuracy"] >= 0.995 and g["empty_read_as_tile"] <= 1, g


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "board_pi.cli", "read", *args], capture_output=True, text=True,
                          timeout=120)


def _played_board(seed: int, hand: bool | None = None):
    """A rendered board a game could leave: no tile without a tile beside it (``board-pi read``
    reads photos of games, and takes a lone tile for a mark on the board). ``hand`` as for
    :func:`render_board`."""
    from board_pi.rules.board import split_row
    from board_pi.vision.decode import lone_tiles

    cells = [split_row(row) for row in game_like_rows(np.random.default_rng(seed))]
    tiles = np.array([[ch != "." for ch in row] for row in cells])
    lone = lone_tiles(tiles, ~tiles)
    rows = ["".join("." if lone[r, c] else ch for c, ch in enumerate(row)) for r, row in enumerate(cells)]
    return rows, render_board(rows, seed=seed, hand=hand)


def test_command_prints_the_grid_and_json(tmp_path):
    rows, r = _played_board(SEEDS[2])
    path = tmp_path / "frame.png"
    cv2.imwrite(str(path), r.image)
    corners = ",".join(f"{v:.2f}" for v in r.corners.reshape(-1))
    p = _cli(str(path), "--corners", corners)
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert len(lines) == 15 and all(len(x) == 15 and set(x) <= set(CLASSES) for x in lines)
    assert sum(a == CLASSES[label_of(b)] for la, lb in zip(lines, rows) for a, b in zip(la, lb)) >= 220
    p = _cli(str(path), "--corners", corners, "--json")
    assert p.returncode == 0, p.stderr
    obj = json.loads(p.stdout)
    assert obj["grid"] == lines
    assert len(obj["confidence"]) == 15 and all(len(row) == 15 for row in obj["confidence"])
    assert all(0 <= v <= 1 for row in obj["confidence"] for v in row)
    assert np.allclose(obj["corners"], r.corners, atol=0.01)


def test_command_says_when_the_board_is_burnt_out(tmp_path):
    # The same photo overexposed: read as ever, with a word on stderr that a blank tile and an
    # empty square look alike there. As it was, nothing is said.
    rows, r = _played_board(SEEDS[2])
    corners = ",".join(f"{v:.2f}" for v in r.corners.reshape(-1))
    path = tmp_path / "frame.png"
    cv2.imwrite(str(path), r.image)
    p = _cli(str(path), "--corners", corners)
    assert p.returncode == 0 and "burnt out" not in p.stderr, p.stderr
    cv2.imwrite(str(path), np.clip(r.image * 1.8, 0, 255).astype(np.uint8))
    p = _cli(str(path), "--corners", corners)
    assert p.returncode == 0, p.stderr
    assert len(p.stdout.splitlines()) == 15
    assert "of the board is burnt out white" in p.stderr and "a blank tile and an empty square look alike" in p.stderr


def test_command_reads_a_phone_photo_with_corners_in_its_own_pixels(tmp_path):
    # A 12-megapixel photo is decoded at half size; the corners given and printed are still the
    # photo's own, and it reads as the same board does at the camera's size.
    rows, r = _played_board(SEEDS[2])
    small, big = tmp_path / "frame.png", tmp_path / "phone.jpg"
    cv2.imwrite(str(small), r.image)
    cv2.imwrite(str(big), cv2.resize(r.image, (4032, 3024), interpolation=cv2.INTER_CUBIC),
                [cv2.IMWRITE_JPEG_QUALITY, 95])
    k = 4032 / r.image.shape[1]
    corners = ",".join(f"{v:.2f}" for v in (r.corners * k).reshape(-1))
    p = _cli(str(big), "--corners", corners, "--json")
    assert p.returncode == 0, p.stderr
    obj = json.loads(p.stdout)
    assert np.allclose(obj["corners"], r.corners * k, atol=0.02)
    q = _cli(str(small), "--corners", ",".join(f"{v:.2f}" for v in r.corners.reshape(-1)), "--json")
    assert json.loads(q.stdout)["grid"] == obj["grid"]
    assert sum(a == CLASSES[label_of(b)] for la, lb in zip(obj["grid"], rows) for a, b in zip(la, lb)) >= 220


def test_command_reads_a_board_small_in_a_large_photo_from_all_its_pixels(tmp_path):
    # The whole table photographed by a phone, the board a third of the frame's width: found in
    # the finder's far copy of the photo decoded at half size (its squares 22 pixels
    # there), then read from the photo decoded again at full size (44 pixels). A board filling
    # the photo is read at half size, as before.
    from board_pi.vision.read import photo_board
    from tests.vision.drawn_boards import corner_error_any_turn

    rows, r = _played_board(SEEDS[2])
    square = float(np.linalg.norm(r.corners[1] - r.corners[0])) / 15
    noise = np.random.default_rng(1).normal(0, 8, (3024, 4032, 1))
    table = np.clip(np.float32([60, 90, 120]) + noise, 0, 255).astype(np.uint8)
    x, y = 1500, 1100
    table[y:y + 960, x:x + 1280] = r.image
    path = tmp_path / "table.jpg"
    cv2.imwrite(str(path), table, [cv2.IMWRITE_JPEG_QUALITY, 92])
    truth = r.corners + np.float32([x, y])
    image, corners, scale = photo_board(path, None)
    assert scale == 1.0 and image.shape[:2] == (3024, 4032)
    assert corner_error_any_turn(corners, truth) < 0.25 * square
    p = _cli(str(path), "--json")
    assert p.returncode == 0, p.stderr
    obj = json.loads(p.stdout)
    assert corner_error_any_turn(np.float32(obj["corners"]), truth) < 0.25 * square
    assert sum(a == CLASSES[label_of(b)] for la, lb in zip(obj["grid"], rows) for a, b in zip(la, lb)) >= 220
    filling = tmp_path / "filling.jpg"
    cv2.imwrite(str(filling), cv2.resize(r.image, (4032, 3024), interpolation=cv2.INTER_CUBIC))
    assert photo_board(filling, None)[2] == 2.0


def test_command_bad_input_gets_a_message_not_a_traceback(tmp_path):
    junk = tmp_path / "junk.jpeg"
    junk.write_bytes(b"this is not a jpeg")
    for args in ([str(tmp_path / "missing.jpg"), "--corners", "0,0,1,0,1,1,0,1"],
                 [str(junk), "--corners", "0,0,100,0,100,100,0,100"]):
        p = _cli(*args)
        assert p.returncode == 2 and "board-pi read:" in p.stderr and "Traceback" not in p.stderr, p.stderr
    _, r = _board(SEEDS[0])
    path = tmp_path / "frame.png"
    cv2.imwrite(str(path), r.image)
    p = _cli(str(path), "--corners", "1,2,3,4")
    assert p.returncode == 2 and "8 numbers" in p.stderr and "Traceback" not in p.stderr


def test_command_without_corners(tmp_path):
    _, r = _board(SEEDS[0])
    path = tmp_path / "frame.png"
    cv2.imwrite(str(path), r.image)
    p = _cli(str(path))
    assert "Traceback" not in p.stderr
    if importlib.util.find_spec("board_pi.vision.locate") is None:
        assert p.returncode == 2 and "automatic board finding is not available; pass --corners" in p.stderr
    else:
        assert p.returncode in (0, 1)
        assert p.returncode == 1 or len(p.stdout.splitlines()) == 15


# --------------------------------------------------------------------------- bounded and damaged inputs


def test_command_refuses_an_image_of_too_many_pixels(tmp_path):
    from tests.vision.huge_image import huge_png

    p = _cli(str(huge_png(tmp_path / "big.png")), "--corners", "0,0,100,0,100,100,0,100")
    assert p.returncode == 2 and "400 megapixels" in p.stderr and "Traceback" not in p.stderr, p.stderr


def _profile_files(tmp_path):
    """Tile profiles damaged in the ways a disk, a careless copy or a hand can damage them."""
    rng = np.random.default_rng(0)
    good = tmp_path / "good.npz"
    Profile(rng.normal(size=(40, 96)).astype(np.float32), rng.integers(0, 28, 40)).save(good)
    data = good.read_bytes()
    out = {}

    def put(name, content):
        out[name] = tmp_path / f"{name}.npz"
        out[name].write_bytes(content)

    put("empty", b"")
    put("truncated", data[: len(data) // 2])
    put("garbage", b"\x00garbage" * 50)
    for name, arrays in {
        "wrong arrays": {"a": np.zeros(3)},
        "no examples": {"embeddings": np.zeros((0, 96), np.float32), "labels": np.zeros(0, np.int64)},
        "labels off the classes": {"embeddings": np.zeros((3, 96), np.float32), "labels": np.array([0, 1, 99])},
        "fewer labels": {"embeddings": np.zeros((3, 96), np.float32), "labels": np.array([0, 1])},
        "other features": {"embeddings": np.zeros((3, 10), np.float32), "labels": np.array([0, 1, 2])},
        "not finite": {"embeddings": np.full((3, 96), np.nan, np.float32), "labels": np.array([0, 1, 2])},
        "text": {"embeddings": np.full((3, 96), "x"), "labels": np.array([0, 1, 2])},
        "fractional labels": {"embeddings": np.zeros((3, 96), np.float32), "labels": np.array([0.5, 1, 2])},
    }.items():
        out[name] = tmp_path / f"{name.replace(' ', '_')}.npz"
        np.savez(out[name], **arrays)
    out["a folder"] = tmp_path / "folder.npz"
    out["a folder"].mkdir()
    return good, out


def test_damaged_profiles_get_a_message_naming_the_file(tmp_path):
    from board_pi.vision.read import ProfileError, load_profile

    good, damaged = _profile_files(tmp_path)
    assert load_profile(good).labels.size == 40
    for name, path in damaged.items():
        with pytest.raises(ProfileError) as e:
            load_profile(path)
        assert str(path) in str(e.value), name
        assert isinstance(e.value, ValueError) and isinstance(e.value, ReadError)


def test_read_command_with_a_damaged_profile_exits_2(tmp_path, capsys):
    from board_pi.cli import main

    _, damaged = _profile_files(tmp_path)
    rows, r = _board(SEEDS[0])
    frame = tmp_path / "frame.png"
    cv2.imwrite(str(frame), r.image)
    corners = ",".join(f"{v:.2f}" for v in r.corners.reshape(-1))
    for name, path in damaged.items():
        assert main(["read", str(frame), "--corners", corners, "--profile", str(path)]) == 2, name
        err = capsys.readouterr().err
        assert err.startswith("board-pi read: ") and str(path) in err, (name, err)


def test_a_profile_for_another_model_is_refused_when_the_reader_is_made():
    from board_pi.vision.read import EMBEDDING_FEATURES, Profile, ProfileError

    reader = Reader()
    _, emb = reader.run(np.zeros((1, 40, 40, 3), np.uint8))
    assert emb.shape[1] == EMBEDDING_FEATURES  # the committed model's, as load_profile checks
    with pytest.raises(ProfileError, match="features per tile"):
        Reader(profile=Profile(np.ones((2, 10), np.float32), np.array([1, 2])))


def test_a_failed_save_leaves_the_old_profile(tmp_path, monkeypatch):
    from board_pi.vision.read import load_profile

    rng = np.random.default_rng(1)
    path = tmp_path / "tiles.npz"
    Profile(rng.normal(size=(5, 96)).astype(np.float32), rng.integers(0, 28, 5)).save(path)

    def disk_full(f, **arrays):  # numpy writes half the file, then the disk is full
        f.write(b"PK\x03\x04 half a profile")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(np, "savez_compressed", disk_full)
    with pytest.raises(OSError):
        Profile(rng.normal(size=(7, 96)).astype(np.float32), rng.integers(0, 28, 7)).save(path)
    assert load_profile(path).labels.size == 5 and [p.name for p in tmp_path.iterdir()] == ["tiles.npz"]


def test_a_model_made_for_another_patch_size_is_refused_with_a_reason(tmp_path):
    import shutil

    from board_pi.vision.read import MODEL_PATH, PATCH, ReadError, Reader

    shutil.copy(MODEL_PATH, tmp_path / "tiles.onnx")
    recipe = json.loads(MODEL_PATH.with_name("recipe.json").read_text(encoding="utf-8"))
    (tmp_path / "recipe.json").write_text(json.dumps({**recipe, "patch": PATCH + 12}), encoding="utf-8")
    with pytest.raises(ReadError, match=f"reads {PATCH + 12}-pixel patches"):
        Reader(tmp_path / "tiles.onnx")
    (tmp_path / "recipe.json").write_text(json.dumps(recipe), encoding="utf-8")
    assert Reader(tmp_path / "tiles.onnx").classes == tuple(recipe["classes"])


def _model_alone(folder: Path) -> Path:
    """A copy of the committed model with no second opinion beside it."""
    import shutil

    from board_pi.vision.read import MODEL_PATH

    folder.mkdir(exist_ok=True)
    shutil.copy(MODEL_PATH, folder / "tiles.onnx")
    shutil.copy(MODEL_PATH.with_name("recipe.json"), folder / "recipe.json")
    return folder / "tiles.onnx"


def test_the_second_opinion_is_the_mean_of_two_networks_and_only_where_asked(tmp_path):
    from board_pi.vision.read import MODEL_PATH, patches, _warp

    committed = Reader()
    alone = Reader(_model_alone(tmp_path / "alone"))
    second = Reader(MODEL_PATH.parent / Reader.SECOND_OPINION / "tiles.onnx")
    assert committed.second_net is not None and alone.second_net is None and second.second_net is None
    _, r = _board(SEEDS[0])
    batch = patches(_warp(r.image, r.corners), [(7, 7), (0, 0), (3, 9), (14, 14)])
    p_alone, emb_alone = alone.run(batch)
    p_second, _ = second.run(batch)
    p_one, emb_one = committed.run(batch)
    p_both, emb_both = committed.run(batch, second_opinion=True)
    assert np.allclose(p_one, p_alone, atol=1e-6) and np.allclose(emb_one, emb_alone, atol=1e-6)
    assert np.allclose(p_both, (p_alone + p_second) / 2, atol=1e-6)
    assert np.allclose(emb_both, emb_alone, atol=1e-6)  # the embeddings stay the model's own
    assert not np.allclose(p_alone, p_second, atol=1e-3)  # two networks, not one read twice


def test_a_second_opinion_of_other_classes_is_refused_with_a_reason(tmp_path):
    from board_pi.vision.read import MODEL_PATH

    path = _model_alone(tmp_path / "model")
    other = _model_alone(tmp_path / "model" / Reader.SECOND_OPINION)
    recipe = json.loads(MODEL_PATH.with_name("recipe.json").read_text(encoding="utf-8"))
    other.with_name("recipe.json").write_text(json.dumps({**recipe, "classes": recipe["classes"][:-2] + ["?"]}),
                                              encoding="utf-8")
    with pytest.raises(ReadError, match="second opinion .* reads other classes"):
        Reader(path)


def test_the_second_opinion_reads_doubtful_squares_right_that_the_model_alone_misses(tmp_path):
    # German boards of the set the second opinion was chosen on (seeds 25,001,000 on): the model
    # alone, with no network beside it, misreads one square on each (an R as an H, an empty
    # square as an N). (Until 2026-12-05, 25,001,032 and 25,001,128: a T as an E, a D as an O;
    # the pair reads the T as an E too with the tile model of that day.)
    # (Until 2026-11-29 the boards were 25,001,088 and 25,001,100 for the phantom blanks; judged
    # against the light's curve across the board, the model alone now reads them right. Until
    # 2026-12-01 25,001,145 too, for an empty square read as a blank; judged against the light
    # the squares around it show, the model alone now reads it right.)
    from board_pi.rules.tiles import TILE_SETS

    german = TILE_SETS["german"]
    from board_pi.vision.evaluate import evaluate_synthetic

    seeds = (25_001_001, 25_001_031)
    pair, alone = Reader(tiles=german), Reader(_model_alone(tmp_path / "alone"), tiles=german)
    by_pair, by_alone = evaluate_synthetic(pair, seeds, tiles=german), evaluate_synthetic(alone, seeds, tiles=german)
    assert len(by_alone["errors"]) == 2 and by_alone["square_accuracy"] < 1.0, by_alone["errors"]
    assert by_pair["square_accuracy"] == 1.0 and by_pair["errors"] == [], by_pair["errors"]


def test_a_read_with_more_doubtful_squares_than_the_most_reads_alone(tmp_path):
    # A hand over the board leaves 40-80 squares in doubt: the second opinion is not asked.
    from board_pi.rules.tiles import TILE_SETS

    german = TILE_SETS["german"]
    rows = game_like_rows(np.random.default_rng(25_001_009), german)
    r = render_board(rows, seed=25_001_009, tiles=german)
    pair, alone = Reader(tiles=german), Reader(_model_alone(tmp_path / "alone"), tiles=german)
    assert pair.read(r.image, r.corners).grid != alone.read(r.image, r.corners).grid
    pair.SECOND_OPINION_MOST = 0
    pair.accents_net = pair.values_net = None  # the copy alone has no accents or value network beside it either
    a, b = pair.read(r.image, r.corners), alone.read(r.image, r.corners)
    assert a.grid == b.grid and np.allclose(a.confidence, b.confidence, atol=1e-6)


def test_a_square_read_as_a_blank_is_looked_at_again(monkeypatch):
    # A tuning board (a green club edition, seeds 37,000,000 on) where the model, from the
    # centred cut alone, is sure enough of a blank on an empty square not to doubt it; from
    # shifted cuts and to the second opinion the square reads empty, and the board then reads it
    # so. (The square's colour is no tile's under any light, and since 2026-12-04 says so past
    # MAX_LOG_ODDS, which reads it empty too: the colour is held to MAX_LOG_ODDS here, as before,
    # to see the look. Until the tile model of 2026-12-05 the boards were the English and German
    # tuning boards 25,000,025 and 25,001,117; that model is sure of no phantom blank there, nor
    # on any of the first 150 boards of either set.)
    from board_pi.rules.board import split_row
    from board_pi.vision import empty
    from board_pi.vision.editions import edition_style

    monkeypatch.setattr(empty, "UNLIKE_TILE", float("inf"))
    seed, (row, col) = 37_000_033, (4, 5)
    rng = np.random.default_rng(seed)
    rows = game_like_rows(rng)
    r = render_board(rows, seed=seed, style=edition_style(rng, "green"), hand=False)
    assert split_row(rows[row])[col] == "." and not r.occluded[row, col]
    reader = Reader()
    assert split_row(reader.read(r.image, r.corners).grid[row])[col] == "."
    reader.LOOK_AGAIN_AT_BLANKS = False
    assert split_row(reader.read(r.image, r.corners).grid[row])[col] == "?"


def test_a_square_read_as_committed_is_not_looked_at_again(reader: Reader):
    # At a table every changed square is read with the committed board beside it. A square that
    # reads as committed is unchanged whatever its belief, so it is not looked at again: on a
    # board committed as its centred cuts read, the reader reads as it does without looking again.
    from board_pi.vision.read import _warp, patches, row_text

    _, r = _board(25_000_007)  # (a board with some squares in doubt; 25,000,009 before the tile model of 2026-12-05)
    squares = [(y, x) for y in range(15) for x in range(15)]
    p, _ = reader.run(patches(_warp(r.image, r.corners), squares))
    cells = [reader.classes[k] for k in p.argmax(1)]
    committed = [row_text(cells[y * 15:(y + 1) * 15]) for y in range(15)]
    assert (p.max(1) < reader.SURE).sum() >= 3  # squares a look again would otherwise read anew
    once = reader.read(r.image, r.corners, look_again=False, committed=committed)
    again = reader.read(r.image, r.corners, committed=committed)
    assert once.grid == again.grid and np.array_equal(once.confidence, again.confidence)
    # Without the committed board, the doubtful squares are looked at again.
    assert not np.array_equal(reader.read(r.image, r.corners, look_again=False).confidence,
                              reader.read(r.image, r.corners).confidence)


def test_a_hand_read_as_blanks_does_not_take_the_count_from_the_blanks_clear_of_it(monkeypatch):
    # Boards of the tuning set (seeds 25,00k,000 on) with a hand over them: the model reads
    # squares under the hand as letterless tiles, as sure of them as of the two real blanks. The
    # set holds two, and the hand's patch of doubt gives way, not a blank standing clear of it.
    # (Each model shows it on other boards, and since every square read as a blank is looked at
    # again, fewer do: these are the English, Dutch and Dutch IJ tuning boards where the reader of
    # 2026-12-05 still does, among others; no Spanish board of the first 200 does, where the
    # reader of 2026-11-29 did on 25,003,100, and no French or English one did. Since 2026-12-04
    # the Dutch board's blanks, each a colour no light gives its square with empty squares
    # around, keep their count by their colour too: it is held to MAX_TOWARDS_TILE, as before,
    # to see the hand's patch give way.)
    from board_pi.rules.board import split_row
    from board_pi.rules.tiles import TILE_SETS
    from board_pi.vision import empty

    for name, seed in (("english", 25_000_060), ("dutch", 25_005_151), ("dutch-ij", 25_006_156)):
        tiles = TILE_SETS[name]
        rows = game_like_rows(np.random.default_rng(seed), tiles)
        r = render_board(rows, seed=seed, tiles=tiles)
        blanks = {(y, x) for y, row in enumerate(rows) for x, t in enumerate(split_row(row))
                  if (t == "?" or t.islower()) and not r.occluded[y, x]}
        assert blanks and r.occluded.any()
        reader = Reader(tiles=tiles)
        got = [split_row(row) for row in reader.read(r.image, r.corners).grid]
        assert all(got[y][x] == "?" for y, x in blanks), (name, seed)
        assert sum(row.count("?") for row in got) == 2
        reader.HAND_BLANK = 1.0  # a hand weighed as a blank: real blanks lose their count to it
        reader.values_net = None  # (the value look alone moves some of the hand's squares to letters)
        with monkeypatch.context() as m:
            m.setattr(empty, "UNLIKE_EMPTY", float("inf"))
            got = [split_row(row) for row in reader.read(r.image, r.corners).grid]
        assert sum(got[y][x] == "?" for y, x in blanks) < len(blanks), (name, seed)


def test_the_modules_examples_hold() -> None:
    import doctest

    from board_pi.vision import read

    result = doctest.testmod(read)
    assert result.attempted > 0 and result.failed == 0


def _off_by_a_fifth(r, seed: int) -> np.ndarray:
    """``r``'s corners each moved at random by up to a fifth of a square, as a hand may give them."""
    from board_pi.vision.geometry import square_side

    rng = np.random.default_rng(seed)
    return np.float32(r.corners) + np.float32(rng.uniform(-0.2, 0.2, (4, 2)) * square_side(np.float32(r.corners)))


def test_corners_given_by_hand_have_their_doubtful_squares_looked_at_through_the_lines(reader: Reader):
    # Games' boards of the tuning set (seeds 25,00k,000 on), no hand over them, whose corners, a
    # fifth of a square off, cut an empty square with a strip of the tile beside it, read as a
    # letter, or a tile with a strip of the square beside it, read as another letter. Through the
    # corners snapped to the grid's lines as well, each reads right, and the rest as before.
    # (Until the tile model of 2026-12-05, 25,000,004's F2 read as an H and 25,000,175's blank at
    # N3 as empty; that model reads both right through the corners as given.)
    from board_pi.rules.board import split_row

    for seed, (row, col), want, wrong in ((25_000_179, (2, 10), ".", "N"), (25_000_162, (14, 14), "I", "T")):
        rows, r = _played_board(seed, hand=False)
        corners = _off_by_a_fifth(r, seed)
        assert split_row(rows[row])[col].replace("h", "?") == want
        as_given = reader.read(r.image, corners, played=True).grid
        by_hand = reader.read(r.image, corners, played=True, by_hand=True).grid
        assert split_row(as_given[row])[col] == wrong, seed
        assert split_row(by_hand[row])[col] == want, seed
        others = [(y, x) for y in range(15) for x in range(15) if (y, x) != (row, col)]
        assert all(split_row(as_given[y])[x] == split_row(by_hand[y])[x] for y, x in others), seed


def test_corners_given_by_hand_on_the_lines_are_read_as_they_are(reader: Reader):
    # The snap moves true corners by less than a tenth of a square (Reader.HAND_MOVE): the squares
    # are not looked at again, and the reading is the one through the corners as given. (The
    # board has squares in doubt, which would be asked.)
    from board_pi.vision.read import _warp, patches

    rows, r = _board(SEEDS[0])
    p, _ = reader.run(patches(_warp(r.image, r.corners), [(y, x) for y in range(15) for x in range(15)]))
    assert (p.max(1) < reader.SURE).any()
    as_given = reader.read(r.image, r.corners)
    by_hand = reader.read(r.image, r.corners, by_hand=True)
    assert by_hand.grid == as_given.grid and np.array_equal(by_hand.confidence, as_given.confidence)


def test_command_looks_at_doubtful_squares_through_the_lines_when_given_corners(tmp_path):
    # A game's board (seed 25,000,179, tuning) with its corners a fifth of a square off: as given,
    # the empty K3 beside a tile reads as an N; `board-pi read --corners` reads it empty.
    rows, r = _played_board(25_000_179, hand=False)
    path = tmp_path / "frame.png"
    cv2.imwrite(str(path), r.image)
    corners = _off_by_a_fifth(r, 25_000_179)
    assert Reader().read(r.image, corners, played=True).grid[2][10] == "N"
    p = _cli(str(path), "--corners", ",".join(f"{v:.2f}" for v in corners.reshape(-1)))
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines()[2][10] == "." == rows[2][10]


def test_corners_given_far_off_are_read_through_the_grid_s_lines(reader: Reader, tmp_path):
    # A game's board (seed 25,000,020, tuning) with its corners about 0.4 of a square off: cut
    # through them, two squares read wrong (five before the tile model of 2026-12-05). The lines near them agree on one grid, so every
    # square is read through that grid instead (Reader.HAND_OUTRIGHT), and all read right.
    from board_pi.vision.evaluate import Tally
    from board_pi.vision.geometry import square_side

    rows, r = _played_board(25_000_020, hand=False)
    true = np.float32(r.corners)
    side = square_side(true)
    corners = true + np.float32([[0.4, -0.3], [-0.35, -0.4], [-0.4, 0.35], [0.3, 0.4]]) * side
    as_given, by_hand = Tally(), Tally()
    as_given.add(rows, reader.read(r.image, corners, played=True).grid)
    reading = reader.read(r.image, corners, played=True, by_hand=True)
    by_hand.add(rows, reading.grid)
    assert as_given.squares - as_given.squares_right >= 2, as_given.errors
    assert by_hand.squares_right == by_hand.squares, by_hand.errors
    assert np.abs(reading.corners - true).max() < 0.05 * side  # the reading's corners are the lines'
    path = tmp_path / "frame.png"
    cv2.imwrite(str(path), r.image)
    given = ",".join(f"{v:.2f}" for v in corners.reshape(-1))
    p = _cli(str(path), "--corners", given)
    assert p.returncode == 0, p.stderr
    assert "the corners given snapped to the grid's lines (moved up to 0." in p.stderr, p.stderr
    # With --json nothing is said on standard error (a caller may read both as one): the JSON
    # holds the corners read through and the corners given.
    p = _cli(str(path), "--corners", given, "--json")
    assert p.returncode == 0 and p.stderr == "", p.stderr
    got = json.loads(p.stdout)
    assert np.abs(np.float32(got["corners"]) - true).max() < 0.05 * side
    assert np.abs(np.float32(got["corners_given"]) - corners).max() < 0.01


def _crankiest(seed: int):  # type: ignore[no-untyped-def]
    """A rendered board with a play along row 8 from its edge (A8 to J8), seen at a slant."""
    from board_pi.rules.board import Board
    from board_pi.rules.play import Play
    from board_pi.rules.tiles import ENGLISH

    board = Board()
    for placement in Play.parse("8A CRANKIEST").placements(board, ENGLISH):
        board[placement.square] = placement.tile
    return board.rows(), render_board(board.rows(), seed=seed, hand=False, tilt=10.0, effects=False)


def test_squares_off_the_photo_s_edge_are_not_read_and_are_said_to_be(tmp_path: Path) -> None:
    # A camera too near, or a photo cropped: column A runs off the photo's left edge. Its squares
    # showed the edge's pixels smeared, and the C on A8 read as an empty square, said by nothing.
    from board_pi.vision.geometry import square_side, squares_not_shown, squares_outside

    rows, r = _crankiest(81)
    x0 = int(r.corners[:, 0].min() + 0.7 * square_side(r.corners))
    photo, corners = r.image[:, x0:], r.corners - np.float32([x0, 0])
    reader = Reader()
    whole = reader.read(r.image, r.corners, played=True)
    assert whole.outside == () and whole.grid[7] == rows[7]
    cut = squares_outside(corners, (photo.shape[1], photo.shape[0]))
    assert (7, 0) in cut and {c for _, c in cut} == {0}
    reading = reader.read(photo, corners, played=True)
    assert list(reading.outside) == cut
    assert reading.grid[7] == "." + rows[7][1:] and reading.confidence[7, 0] == 0
    assert reading.to_json()["outside"] == [f"A{r + 1}" for r, _ in cut]
    assert reading.covered == () == whole.covered  # not taken for something lying over the board
    # The command says which squares it could not see, on standard error; with --json, in it.
    path = tmp_path / "cut.png"
    cv2.imwrite(str(path), photo)
    p = _cli(str(path))
    assert p.returncode == 0, p.stderr
    assert squares_not_shown(cut, "photo") in p.stderr
    p = _cli(str(path), "--json")
    assert p.returncode == 0 and "does not show" not in p.stderr
    assert "A8" in json.loads(p.stdout.splitlines()[-1])["outside"]


def test_a_layout_photo_that_does_not_show_the_whole_board_is_not_enrolled() -> None:
    from board_pi.vision.enrol import enrol
    from board_pi.vision.geometry import square_side

    _, r = _crankiest(82)
    y0 = int(r.corners[:, 1].max() - 0.6 * square_side(r.corners))
    with pytest.raises(ReadError, match=r"does not show \d+ of the layout's squares \([A-O]15"):
        enrol(r.image[:y0], r.corners)
