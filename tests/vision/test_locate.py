"""Finding the board: drawn boards with known corners, and the real photos in ../shared/data."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import cv2
import numpy as np
import pytest

from board_pi.vision.locate import TUNING, BoardLocation, find_board, locate_grid, tile_orientation_votes, warp_board
from tests.vision.drawn_boards import (DELUXE, MODERN, DrawnBoard, corner_error, corner_error_any_turn, photograph,
                                      random_edition, some_tiles)

if TYPE_CHECKING:
    from board_pi.vision.render import Rendered
    from tests.vision.drawn_boards import Scene

LABELS = Path(__file__).resolve().parents[1] / "data" / "jheidel_corners.json"


def assert_found(image: np.ndarray, corners: np.ndarray, within: float) -> None:
    """The board is found, its grid within ``within`` of a square of ``corners`` (any turn)."""
    loc = find_board(image)
    assert loc is not None
    square = float(np.linalg.norm(corners[1] - corners[0])) / 15
    assert corner_error_any_turn(loc.corners, corners) < within * square


@pytest.mark.parametrize(
    "edition, turn, tilt, spin",
    [
        ("modern", 0, 0, 0),
        ("modern", 90, 30, 5),
        ("modern", 180, 35, -10),
        ("modern", 270, 20, 25),
        ("deluxe", 0, 35, 0),
        ("deluxe", 90, 15, -20),
        ("deluxe", 180, 25, 40),
        ("deluxe", 270, 35, 10),
    ],
)
def test_finds_turned_and_tilted_boards_with_their_orientation(edition: str, turn: int, tilt: float, spin: float) -> None:
    colours = dict(MODERN if edition == "modern" else DELUXE)
    seed = turn + int(tilt)
    scene = photograph(DrawnBoard(colours=colours, tiles=some_tiles(seed)), turn=turn, tilt=tilt, spin=spin, seed=seed)
    loc = find_board(scene.image)
    assert loc is not None
    assert corner_error(loc.corners, scene.corners) < 0.2 * scene.square_px
    assert loc.rotation == turn
    assert loc.orientation_confidence > 0.3
    assert loc.corners.shape == (4, 2) and loc.corners.dtype == np.float32


def test_arm_over_an_edge_and_a_cluttered_table() -> None:
    scene = photograph(DrawnBoard(tiles=some_tiles(3)), turn=90, tilt=25, spin=8, seed=5, arm=True, busy=True)
    loc = find_board(scene.image)
    assert loc is not None
    assert corner_error(loc.corners, scene.corners) < 0.25 * scene.square_px


def test_small_board_far_away() -> None:
    scene = photograph(DrawnBoard(), tilt=30, fill=0.45, seed=9)
    loc = find_board(scene.image)
    assert loc is not None
    assert corner_error_any_turn(loc.corners, scene.corners) < 0.25 * scene.square_px


def far_scene(seed: int, size: tuple[int, int], fill: float, blur: float = 0.8) -> "Scene":
    """A photo of the whole table, the board ``fill`` of its height: of the deluxe edition and
    seen square on for an even ``seed``, of the modern one and tilted for an odd one."""
    colours = dict(MODERN if seed % 2 else DELUXE)
    return photograph(DrawnBoard(colours=colours, tiles=some_tiles(seed)), size=size, fill=fill,
                      tilt=20 * (seed % 2), spin=7 * seed, seed=seed, blur=blur)


def assert_found_far(scene: "Scene", **without: object) -> None:
    """The board is found looking far, within a quarter of a square; and not with the finder's
    tuning changed by ``without`` (the look that finds it turned off), when given."""
    loc = find_board(scene.image, far=True)
    assert loc is not None
    assert corner_error_any_turn(loc.corners, scene.corners) < 0.25 * scene.square_px
    if without:
        assert find_board(scene.image, tuning=replace(TUNING, **without), far=True) is None


@pytest.mark.parametrize("seed, size, fill", [(0, (2016, 1512), 0.22), (1, (2016, 1512), 0.22), (2, (1280, 960), 0.3)])
def test_a_board_small_in_a_photo_is_found_looking_far(seed: int, size: tuple[int, int], fill: float) -> None:
    # A phone photo of the whole table: the board fills a fifth (a quarter) of the frame's height,
    # its squares under 20 pixels (16), under 10 in the copy of 1024 pixels (13), too small
    # there for the lattice. Looking far, the photo is looked at in a larger copy, or whole.
    scene = far_scene(seed, size, fill)
    assert scene.square_px < 20
    assert_found_far(scene)
    # Not looking far (a table's frames), it is not found.
    assert find_board(scene.image) is None


@pytest.mark.parametrize("seed", [0, 1, 3])
def test_a_board_small_in_a_small_photo_is_found_in_it_enlarged(seed: int) -> None:
    # A photo of 800x600 pixels (a phone's photo sent small, a small webcam's frame), the board
    # a third of its height: squares of 9 or 10 pixels, their lines a pixel wide. Looking far,
    # the photo is looked at enlarged (far_small_side, then far_side); before, it had no far copy
    # and the board was not found (far_side=800 leaves only the photo as it is).
    scene = far_scene(seed, (800, 600), 0.3)
    assert_found_far(scene, far_small_side=800, far_side=800)
    assert find_board(scene.image) is None


@pytest.mark.parametrize("seed", [0, 1, 5])
def test_a_board_a_fifth_of_a_photo_s_height_is_found_in_it_enlarged(seed: int) -> None:
    # A 1280x960 photo, the board a fifth of its height: squares of 10 or 11 pixels. Looked at
    # as it is, their lines thickened by the threshold leave too little of them; the photo is
    # then looked at enlarged to far_side. Before 2026-12-03 it was not (far_side=1280 here
    # leaves the photo as it is), and the board was not found.
    scene = far_scene(seed, (1280, 960), 0.2)
    assert scene.square_px < 11
    assert_found_far(scene, far_side=1280)


@pytest.mark.parametrize("seed", [0, 1])
def test_a_board_small_in_a_large_photo_is_found_in_the_photo_itself(seed: int) -> None:
    # A 2560x1920 photo (20 megapixels decoded at half size), the board a seventh of its height:
    # squares of 15 or 16 pixels, 12 or 13 in the far copy of 2048, too few there. The photo is
    # then looked at itself (far_large_side; 2048 here leaves only that copy, as before 2026-12-03,
    # and with no sharpening, which finds it there too).
    assert_found_far(far_scene(seed, (2560, 1920), 0.15), far_large_side=2048, soft_sharpen=(2.0, 0.0))


@pytest.mark.parametrize("seed", [0, 2])
def test_a_board_small_in_a_soft_photo_is_found_sharpened(seed: int) -> None:
    # A 1280x960 photo out of focus (a blur of 2 pixels), the board a quarter of its height: its
    # lines, a pixel wide, are blurred into the squares beside them. Looking far, the photo is
    # looked at sharpened once nothing else finds it (soft_sharpen; an amount of 0 is no
    # sharpening, as before 2026-12-03, and the board was not found).
    assert_found_far(far_scene(seed, (1280, 960), 0.25, blur=2.0), soft_sharpen=(2.0, 0.0))


def test_other_premium_colours() -> None:
    # A green-and-yellow edition: the window is chosen by the premium layout, not its colours.
    colours = dict(MODERN)
    for prem, bgr in zip([k for k in colours if not isinstance(k, str)], [(40, 160, 40), (80, 200, 220), (160, 60, 160), (40, 120, 240)]):
        colours[prem] = bgr
    scene = photograph(DrawnBoard(colours=colours), tilt=20, seed=2)
    loc = find_board(scene.image)
    assert loc is not None
    assert corner_error_any_turn(loc.corners, scene.corners) < 0.2 * scene.square_px


@pytest.mark.parametrize("seed", [50_008, 50_009, 50_017])
def test_board_whose_lines_hardly_show(seed: int) -> None:
    # Rendered editions whose light lines hardly differ from their pale squares: found with
    # fainter lines looked for (50_008), from the premium squares alone (50_009), or with the
    # local contrast stretched (50_017).
    r = random_edition(seed)
    assert_found(r.image, r.corners, 0.25)


def test_lattice_seen_in_part_at_the_small_size() -> None:
    # At 640 px a walk covering a quarter of the grid fits a skewed lattice; the 1024-px copy,
    # asked because so little of the grid was seen, finds it whole (before: not found).
    r = random_edition(50_007)
    assert_found(r.image, r.corners, 0.25)


@pytest.mark.parametrize("edition, seed", [("cream", 2), ("cream", 7), ("wooden", 7), ("green", 3), ("sage", 5),
                                           ("lavender", 7)])
def test_crowded_board_filling_a_top_down_frame(edition: str, seed: int) -> None:
    # A fixed camera straight above, the grid filling the frame, most squares covered: the walk
    # must start from a square among squares of its size, not from two squares merged where a
    # line was missed (cream 2 was placed four squares off, cream 7 and wooden 7 not found); the
    # lavender board's white lines show only once the local contrast is stretched (CLAHE).
    from board_pi.rules.tiles import ENGLISH
    from board_pi.vision.editions import edition_style
    from board_pi.vision.evaluate import game_like_rows
    from board_pi.vision.render import random_style, render_board

    rng = np.random.default_rng(31_000_000 + seed)
    rows = game_like_rows(rng, ENGLISH)
    style = random_style(rng) if edition == "cream" else edition_style(rng, edition)
    r = render_board(rows, seed=31_000_000 + seed, style=style, tilt=3, fill=(0.95, 1.02), hand=False)
    assert_found(r.image, r.corners, 0.25)


@pytest.mark.parametrize("seed", [32_002_003, 32_002_005])
def test_pale_edition_grid_is_not_a_square_off(seed: int) -> None:
    # Lavender boards whose pale premiums the wooden tiles outshine: the premium match put the
    # grid a column off; the even frame just outside the true grid tells it.
    from board_pi.vision.editions import edition_style
    from board_pi.vision.evaluate import game_like_rows
    from board_pi.vision.render import render_board

    rng = np.random.default_rng(seed)
    rows = game_like_rows(rng)
    r = render_board(rows, seed=seed, style=edition_style(rng, "lavender"), hand=False)
    assert_found(r.image, r.corners, 0.3)


@pytest.mark.parametrize("seed", [26_800_021, 26_800_131])
def test_pale_lines_between_dark_tiles(seed: int) -> None:
    # Tiles lettered light on dark plastic, on near-white squares with pale lines: the lines pass
    # the faint threshold only thickened, so the squares between them come out under half a step
    # and no look kept them (before: not found). The thick-line look, tried last, takes them.
    from board_pi.vision.editions import tournament_tiles
    from board_pi.vision.evaluate import game_like_rows
    from board_pi.vision.render import random_style, render_board

    rng = np.random.default_rng(seed)
    rows = game_like_rows(rng)
    r = render_board(rows, seed=seed, style=tournament_tiles(rng, random_style(rng)), hand=False)
    assert_found(r.image, r.corners, 0.25)


@pytest.mark.parametrize("seed", [25_000_040, 25_000_159])
def test_faint_lines_seen_only_in_dashes(seed: int) -> None:
    # Thin faint lines, blurred (grey on cream; near-white on white under tournament tiles): the
    # threshold sees them only in dashes, the squares run into each other through the gaps, and
    # no look kept a grid (before: not found). The last look thickens the lines until the gaps close.
    from board_pi.vision.evaluate import game_like_rows
    from board_pi.vision.render import render_board

    r = render_board(game_like_rows(np.random.default_rng(seed)), seed=seed)
    assert_found(r.image, r.corners, 0.25)


def _bench_frame(seed: int, hand: bool | None = None) -> Rendered:
    """A frame as bench_read draws them (seeds 40_000_000 on: a hand in about a third of them)."""
    from board_pi.vision.evaluate import game_like_rows
    from board_pi.vision.render import render_board

    extra = {} if hand is None else {"hand": hand}
    return render_board(game_like_rows(np.random.default_rng(seed)), seed=seed, **extra)


@pytest.mark.parametrize("seed", [40_000_019, 41_000_022])
def test_white_lines_between_tinted_squares(seed: int) -> None:
    # Blurred white lines between cream squares all but vanish in grey; the squares are tinted
    # and the lines are not, so the saturation shows them (before: not found).
    r = _bench_frame(seed, hand=True if seed >= 41_000_000 else None)
    assert_found(r.image, r.corners, 0.3)


@pytest.mark.parametrize("seed", [40_000_052, 41_000_017, 41_000_026])
def test_a_hand_over_the_board_does_not_move_the_grid(seed: int) -> None:
    # Wooden tiles outshine the premiums, and a hand across the frame spoils its evenness: the
    # grid was placed a square off (six squares off, half out of the frame, for 40_000_052). The
    # squares' colours gathering by their kind in the layout tell the window.
    r = _bench_frame(seed, hand=True if seed >= 41_000_000 else None)
    assert_found(r.image, r.corners, 0.3)


def test_a_look_that_keeps_too_few_squares_is_no_grid() -> None:
    # A walk among a few squares whose fit then keeps fewer than four: no grid, not an OpenCV
    # error from fitting a homography to three points (the saturation's faint look at this frame).
    from board_pi.vision.locate import _downscale
    from board_pi.vision.locate.lattice import find_lattice
    from board_pi.vision.locate.squares import find_quads

    r = _bench_frame(40_000_011, hand=True)
    for side in TUNING.work_sides:
        sat = cv2.cvtColor(_downscale(r.image, side), cv2.COLOR_BGR2HSV)[..., 1]
        find_lattice(find_quads(sat, TUNING.faint_line_contrast), TUNING.faint_min_walk)
    loc = find_board(r.image)
    if loc is not None:
        assert_found(r.image, r.corners, 0.3)


def test_squares_of_a_kind_gather_only_in_the_right_window() -> None:
    # A printed board's colours by kind, a few squares covered by tiles of one colour: the
    # kinds explain most of the spread in the right window and little a square off.
    from board_pi.vision.geometry import PREMIUM_KINDS
    from board_pi.vision.locate.lattice import _kinds_alike

    palette = np.array([[200, 130, 140], [170, 150, 120], [120, 120, 160], [150, 170, 140], [90, 160, 170]], np.float32)
    board = np.full((17, 17, 3), (60, 128, 128), np.float32)  # the frame round the grid
    board[1:16, 1:16] = palette[PREMIUM_KINDS]
    rng = np.random.default_rng(0)
    for r, c in rng.integers(1, 16, size=(30, 2)):
        board[r, c] = (180, 135, 160)  # tiles, on squares of every kind
    right = _kinds_alike(board[1:16, 1:16])
    assert right > 0.5
    assert max(_kinds_alike(board[a:a + 15, b:b + 15]) for a, b in [(0, 1), (2, 1), (1, 0), (1, 2), (0, 0)]) < right / 2


def test_empty_board_says_its_turn_is_unknown() -> None:
    scene = photograph(DrawnBoard(), seed=4)
    loc = find_board(scene.image)
    assert loc is not None
    assert loc.orientation_confidence == 0.0
    assert corner_error_any_turn(loc.corners, scene.corners) < 0.2 * scene.square_px


@pytest.mark.parametrize("what", ["noise", "blank", "clutter", "tiny"])
def test_no_board_no_answer(what: str) -> None:
    rng = np.random.default_rng(1)
    if what == "noise":
        img = rng.integers(0, 255, (480, 640, 3), dtype=np.uint8)
    elif what == "blank":
        img = np.full((480, 640, 3), 128, np.uint8)
    elif what == "clutter":
        from tests.vision.drawn_boards import clutter

        img = clutter((960, 1280), rng)
    else:
        img = np.zeros((3, 3, 3), np.uint8)
    assert find_board(img) is None


@pytest.mark.parametrize("shape", [(1, 1), (2, 2), (29, 400), (400, 5)])
def test_an_image_too_small_to_show_a_board_is_given_up_on_at_once(shape: tuple[int, int]) -> None:
    # Not blank: a far look enlarges a small photo and sharpens it in proportion, which on a
    # photo of a few pixels was a blur the size of the enlarged copy (minutes, not milliseconds).
    img = np.random.default_rng(2).integers(0, 255, shape + (3,), dtype=np.uint8)
    assert locate_grid(img, far=True) is None
    assert find_board(img, far=True) is None


def test_checkerboard_is_not_a_scrabble_board_unless_it_has_fifteen_squares() -> None:
    # A 6x6 chessboard-like grid has squares but no 15x15 window with a premium layout; the
    # locator may still answer (it cannot know), but then only with a 15-square window that
    # lies mostly outside the pattern, so its confidence must be low.
    img = np.full((600, 600, 3), 200, np.uint8)
    for r in range(6):
        for c in range(6):
            if (r + c) % 2 == 0:
                cv2.rectangle(img, (150 + 50 * c, 150 + 50 * r), (200 + 50 * c, 200 + 50 * r), (30, 30, 30), -1)
    loc = find_board(img)
    assert loc is None or loc.confidence < 0.5


def test_grey_and_four_channel_images() -> None:
    scene = photograph(DrawnBoard(tiles=some_tiles(1)), tilt=10, seed=6)
    grey = cv2.cvtColor(scene.image, cv2.COLOR_BGR2GRAY)
    bgra = cv2.cvtColor(scene.image, cv2.COLOR_BGR2BGRA)
    for img in (grey, bgra):
        loc = find_board(img)
        assert loc is not None
        assert corner_error_any_turn(loc.corners, scene.corners) < 0.2 * scene.square_px


def test_bad_input_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="numpy array"):
        find_board("board.jpg")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        find_board(np.zeros((0, 0, 3), np.uint8))


def test_warp_board_puts_each_square_in_its_place() -> None:
    board = DrawnBoard(tiles={(0, 0): "A", (7, 7): "Q", (14, 14): "Z"})
    top, grid = board.top_down()
    scene = photograph(board, turn=90, tilt=20, seed=3, busy=False, noise=0, blur=0)
    flat = warp_board(scene.image, scene.corners, square_px=32)
    assert flat.shape == (15 * 32, 15 * 32, 3)
    # Compare with the drawing itself, rectified the same way: upright, A1 top-left.
    want = warp_board(top, grid, square_px=32)
    diff = cv2.absdiff(cv2.GaussianBlur(flat, (5, 5), 0), cv2.GaussianBlur(want, (5, 5), 0))
    assert float(diff.mean()) < 12


def test_warp_board_margin() -> None:
    board = DrawnBoard()
    top, grid = board.top_down()
    out = warp_board(top, grid, square_px=20, margin=0.5)
    assert out.shape[:2] == (15 * 20 + 20, 15 * 20 + 20)
    # The board's frame colour shows in the margin, outside the grid.
    assert np.abs(out[2, out.shape[1] // 2].astype(int) - np.array(board.colours["frame"])).max() < 30
    with pytest.raises(ValueError):
        warp_board(top, grid, square_px=0)
    with pytest.raises(ValueError):
        warp_board(top, grid, margin=-1)


def test_board_location_rotated() -> None:
    c = np.array([[0, 0], [10, 0], [10, 10], [0, 10]], np.float32)
    loc = BoardLocation(c, 0.9, 0, 0.5)
    r = loc.rotated(1)
    assert r.rotation == 90 and np.array_equal(r.corners[0], c[1])
    assert loc.rotated(4).rotation == 0 and loc.rotated(-1).rotation == 270


def test_orientation_votes_follow_the_digit() -> None:
    board = DrawnBoard(tiles=some_tiles(2))
    top, grid = board.top_down()
    flat = cv2.cvtColor(warp_board(top, grid, square_px=32), cv2.COLOR_BGR2GRAY)
    for k in range(4):
        votes = tile_orientation_votes(np.rot90(flat, -k).copy())  # turned k quarter turns clockwise
        assert int(np.argmax(votes)) == k and votes[k] >= 5


# --------------------------------------------------------------------------- real photos


def _rel_error(found: np.ndarray, truth: np.ndarray) -> float:
    sq = float(np.mean([np.linalg.norm(truth[i] - truth[(i + 1) % 4]) for i in range(4)])) / 15
    return corner_error(found, truth) / sq


@pytest.mark.parametrize("name", ["board_001", "board_002", "board_003", "eval_board"])
def test_real_boards(shared_data: Path, name: str) -> None:
    folder = shared_data / "real-boards" / "declanfinerty"
    img = cv2.imread(str(folder / f"{name}.jpeg"))
    truth = np.array(json.loads((folder / f"{name}.corners.json").read_text())["corners"], np.float32)
    loc = find_board(img)
    assert loc is not None
    # The labels mark the corner square's corner, by hand; a quarter of a square is the bar.
    assert _rel_error(loc.corners, truth) < 0.25
    assert loc.rotation == 0


def test_real_game_photos(shared_data: Path) -> None:
    folder = shared_data / "real-photos" / "jheidel-game"
    labels = json.loads(LABELS.read_text())["photos"]
    # Only the corners placed by hand: those marked "found" are the finder's own (board-pi label).
    checked = {name: lab for name, lab in labels.items() if not lab.get("found")}
    assert len(checked) == 10
    for name, lab in checked.items():
        img = cv2.imread(str(folder / name))
        truth = np.array(lab["corners"], np.float32)
        canonical = locate_grid(img)
        assert canonical is not None, name
        assert min(_rel_error(np.roll(canonical[0], k, axis=0), truth) for k in range(4)) < 0.25, name
        loc = find_board(img)
        assert loc is not None
        if loc.orientation_confidence > 0.3:
            assert loc.rotation == lab["rotation"], name


def test_a_grainy_photo_is_looked_at_again_softened(shared_data: Path) -> None:
    # A real game's photo (a tuning one) as a dim room's camera takes it, its gain turned up:
    # darker, with the sensor's noise of 28 grey levels in each pixel. The noise breaks the
    # board's pale lines into dashes: no lattice is found, and its outline puts the grid most of
    # a square off. Softened, the lattice is found where the corners were labelled.
    from board_pi.vision.frames import grain

    name = "IMG_20151016_165959.jpg"
    photo = cv2.imread(str(shared_data / "real-photos" / "jheidel-game" / name))
    truth = np.array(json.loads(LABELS.read_text())["photos"][name]["corners"], np.float32)
    grainy = np.clip(photo * 0.7 + np.random.default_rng(5).normal(0, 28, photo.shape), 0, 255).astype(np.uint8)
    assert grain(photo) < TUNING.grainy_noise < grain(grainy)
    unsoftened = locate_grid(grainy, tuning=replace(TUNING, grainy_blurs=()))
    assert unsoftened is None or min(_rel_error(np.roll(unsoftened[0], k, axis=0), truth) for k in range(4)) > 0.5
    found = locate_grid(grainy)
    assert found is not None
    assert min(_rel_error(np.roll(found[0], k, axis=0), truth) for k in range(4)) < 0.25
    # Another, the board small in it (the photo on a cloth twice its size, brought back to its
    # own size) and noise of 20: softened in the finder's 1024-pixel copy, its squares are too
    # small to show; a photo's board is looked for in the photo itself too.
    name = "IMG_20151016_165303.jpg"
    photo = cv2.imread(str(shared_data / "real-photos" / "jheidel-game" / name))
    h, w = photo.shape[:2]
    cloth = np.full((2 * h, 2 * w, 3), (70, 95, 60), np.uint8)
    cloth[h // 3:h // 3 + h, w // 2:w // 2 + w] = photo
    small = cv2.resize(cloth, (w, h), interpolation=cv2.INTER_AREA)
    grainy = np.clip(small * 0.7 + np.random.default_rng(5).normal(0, 20, small.shape), 0, 255).astype(np.uint8)
    truth = (np.array(json.loads(LABELS.read_text())["photos"][name]["corners"], np.float32) + (w // 2, h // 3)) / 2
    assert locate_grid(grainy, tuning=replace(TUNING, grainy_far_blurs=()), far=True) is None
    found = locate_grid(grainy, far=True)
    assert found is not None
    assert min(_rel_error(np.roll(found[0], k, axis=0), truth) for k in range(4)) < 0.25


def test_the_finder_works_from_its_named_tuning() -> None:
    # The numbers in locate/tuning.py are the ones the stages use: asking for more squares than a
    # grid has, or for a larger working copy, changes what is found.
    scene = photograph(DrawnBoard(tiles=some_tiles(2)), turn=0, tilt=10, seed=2)
    assert find_board(scene.image) is not None
    # (and no outline matching the layout at all: a board found from its outline needs none)
    assert find_board(scene.image, tuning=replace(TUNING, min_squares=226, outline_min_match=1.0)) is None
    loc = find_board(scene.image, tuning=replace(TUNING, work_sides=(1280,)))
    assert loc is not None and corner_error(loc.corners, scene.corners) < 0.2 * scene.square_px


@pytest.mark.parametrize("name, seed", [("french", 25_002_067), ("italian", 25_004_115)])
def test_a_board_whose_grid_lines_do_not_show_is_found_from_its_outline(name: str, seed: int) -> None:
    # Rendered tuning boards whose pale lines on pale squares hardly show: the playing surface
    # against the frame still shows, and the grid it outlines matches the premium layout.
    from board_pi.rules.tiles import TILE_SETS
    from board_pi.vision.evaluate import game_like_rows
    from board_pi.vision.locate import _outline_at
    from board_pi.vision.render import render_board

    tiles = TILE_SETS[name]
    r = render_board(game_like_rows(np.random.default_rng(seed), tiles), seed=seed, tiles=tiles)
    square = float(np.linalg.norm(r.corners[1] - r.corners[0])) / 15
    outline = _outline_at(r.image, cv2.cvtColor(r.image, cv2.COLOR_BGR2GRAY), TUNING)
    assert outline is not None and corner_error_any_turn(outline[0], r.corners) < 0.3 * square
    # Where no lattice is found at all, the finder answers with the outline. Whether a few lines
    # show turns on the OpenCV that renders the board: under 5.1 neither board shows a lattice;
    # under 4.14 the Italian one shows a partial one (a fifth of its squares), which is kept.
    lattice = find_board(r.image, tuning=replace(TUNING, outline_min_match=1.0))
    assert lattice is None or name == "italian"
    if lattice is None:
        loc = find_board(r.image)
        assert loc is not None and loc.confidence == TUNING.outline_confidence  # little was seen as squares
        assert corner_error_any_turn(loc.corners, r.corners) < 0.3 * square


def test_a_board_found_again_keeps_the_turn_nearest_where_it_was() -> None:
    import doctest

    import board_pi.vision.locate as locate

    assert doctest.testmod(locate).failed == 0
    previous = np.array([[100, 100], [500, 110], [490, 500], [95, 490]], np.float32)
    nudged = previous + np.float32(6)
    for k in range(4):
        found = np.roll(nudged, k, axis=0)  # the same grid, its corners named from another one
        assert locate.nearest_turn(found, previous) == k
        assert np.allclose(np.roll(found, -locate.nearest_turn(found, previous), axis=0), nudged)
        assert np.allclose(BoardLocation(found, 1.0, 0, 1.0).rotated(k).corners, nudged)


def _numpy_cpu_features() -> dict[str, bool]:
    try:
        from numpy._core._multiarray_umath import __cpu_features__
    except ImportError:  # numpy before 2.0
        from numpy.core._multiarray_umath import __cpu_features__
    return dict(__cpu_features__)


_FIND = """
import sys, cv2
from board_pi.vision.locate import find_board
for path in sys.argv[1:]:
    loc = find_board(cv2.imread(path))
    print("none" if loc is None else f"{loc.corners.tobytes().hex()} {loc.rotation}")
"""


def test_the_board_is_found_alike_whatever_the_cpu_s_sorting_code(tmp_path: Path) -> None:
    # numpy picks its sorting and selection code by CPU (AVX2 here, NEON on a Pi), and each
    # breaks ties among equal keys its own way; outlines of squares lie equally far apart often
    # (a square's inner and outer outline share a centre). The finder orders such ties itself,
    # so a Pi finds the board where this machine does. Before it did, with numpy's AVX2 code
    # switched off, the first of these boards was found a few tenths of a pixel elsewhere and
    # the second and fourth turned otherwise.
    if not _numpy_cpu_features().get("X86_V3"):
        pytest.skip("numpy's AVX2 code (X86_V3) is not used on this CPU, so it cannot be switched off")
    from board_pi.vision.evaluate import game_like_rows
    from board_pi.vision.render import render_board

    paths, here = [], []
    for k in range(4):
        seed = 77_000_000 + k
        image = render_board(game_like_rows(np.random.default_rng(seed)), seed=seed).image
        path = tmp_path / f"{k}.png"
        cv2.imwrite(str(path), image)  # lossless: the other process sees the same pixels
        loc = find_board(image)
        here.append("none" if loc is None else f"{loc.corners.tobytes().hex()} {loc.rotation}")
        paths.append(str(path))
    env = {**os.environ, "NPY_DISABLE_CPU_FEATURES": "X86_V3"}
    there = subprocess.run([sys.executable, "-c", _FIND, *paths], capture_output=True, text=True, env=env,
                           check=True).stdout.splitlines()
    assert there == here


def test_a_board_wholly_in_the_frame_is_found_before_a_neighbour_s_cut_by_its_edge() -> None:
    # A club camera over one table sees the next table's board at its frame's edge, more of it
    # nearer and larger. The finder took that board, cut off by the edge, for the table's own.
    from board_pi.vision.evaluate import game_like_rows
    from board_pi.vision.geometry import squares_outside
    from board_pi.vision.render import render_board

    own = render_board(game_like_rows(np.random.default_rng(91)), seed=91, hand=False, fill=(0.5, 0.5))
    other = render_board(game_like_rows(np.random.default_rng(92)), seed=92, hand=False, fill=(0.95, 0.95))
    cut = int(other.corners[:, 0].min() + 0.9 * (other.corners[:, 0].max() - other.corners[:, 0].min()))
    frame = np.concatenate([own.image, other.image[:, :cut]], axis=1)
    assert squares_outside(other.corners, (cut, frame.shape[0]))  # the neighbour's board is cut
    loc = find_board(frame)
    assert loc is not None
    assert corner_error_any_turn(loc.corners, own.corners) < 0.2 * float(np.linalg.norm(own.corners[1] - own.corners[0])) / 15
    assert not squares_outside(loc.corners, (frame.shape[1], frame.shape[0]))
