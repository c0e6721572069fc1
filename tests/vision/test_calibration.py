"""Calibration profiles: made, saved, checked on each frame, found again when the board moves."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from board_pi.vision.calibration import (
    Calibration,
    CalibrationError,
    Tracker,
    calibrate,
    check,
    corners_from_markers,
    detect_markers,
    load,
    marker_image,
    save,
)
from tests.vision.drawn_boards import DrawnBoard, corner_error, photograph, some_tiles
from tests.vision.game_boards import boards_of_the_bundled_game
from tests.vision.lenses import through_a_lens


def test_calibrate_save_load_and_check(tmp_path: Path) -> None:
    scene = photograph(DrawnBoard(tiles=some_tiles(1)), turn=90, tilt=20, seed=1)
    cal = calibrate(scene.image, camera={"source": "picamera2", "ExposureTime": 16650})
    assert corner_error(cal.corners, scene.corners) < 0.2 * scene.square_px
    assert cal.rotation == 90 and cal.frame_size == (1280, 960)
    path = save(cal, tmp_path / "calibration" / "table1.json")
    again = load(path)
    assert np.allclose(again.corners, cal.corners, atol=0.01)
    assert again.rotation == 90 and again.camera == {"source": "picamera2", "ExposureTime": 16650}
    assert again.reference == cal.reference
    # The same frame, and the same scene with new noise, pass the check.
    assert check(scene.image, again).ok
    noisy = np.clip(scene.image.astype(int) + np.random.default_rng(0).integers(-8, 9, scene.image.shape), 0, 255).astype(np.uint8)
    assert check(noisy, again).ok


def test_check_notices_a_moved_board_and_the_tracker_finds_it(tmp_path: Path) -> None:
    board = DrawnBoard(tiles=some_tiles(2))
    before = photograph(board, tilt=15, seed=2)
    cal = calibrate(before.image)
    path = tmp_path / "table.json"
    tracker = Tracker(cal, path)
    assert tracker.update(before.image) is not None and tracker.moves == 0
    after = photograph(board, tilt=15, spin=6, seed=7)  # bumped: moved and turned a little
    verdict = check(after.image, cal)
    assert not verdict.ok and verdict.reason == "moved"
    loc = tracker.update(after.image)
    assert loc is not None and tracker.moves == 1
    assert corner_error(loc.corners, after.corners) < 0.2 * after.square_px
    assert np.allclose(load(path).corners, loc.corners, atol=0.01)
    # And the next frame of the moved board is simply checked.
    assert tracker.update(after.image) is not None and tracker.moves == 1


def test_a_board_shifted_by_one_whole_square_is_moved() -> None:
    board = DrawnBoard(tiles=some_tiles(4))
    scene = photograph(board, seed=4, busy=False)
    cal = calibrate(scene.image)
    step = (cal.corners[1] - cal.corners[0]) / 15
    shifted = replace(cal, corners=(cal.corners + step).astype(np.float32))
    verdict = check(scene.image, shifted)
    assert not verdict.ok and verdict.reason == "moved"


def test_a_hand_over_the_board_is_hidden_not_moved() -> None:
    scene = photograph(DrawnBoard(tiles=some_tiles(5)), seed=5)
    cal = calibrate(scene.image)
    covered = scene.image.copy()
    x0, y0 = cal.corners.min(axis=0).astype(int)
    x1, y1 = cal.corners.max(axis=0).astype(int)
    cv2.rectangle(covered, (x0 - 10, y0 - 10), (x1 + 10, y1 - (y1 - y0) // 10), (120, 160, 210), -1)
    verdict = check(covered, cal)
    assert not verdict.ok and verdict.reason == "hidden"
    tracker = Tracker(cal)
    assert tracker.update(covered) is None
    assert tracker.moves == 0 and tracker.calibration is cal


def test_nudged_empty_board_keeps_its_row_one() -> None:
    # With no tiles the locator cannot tell the turn; the tracker keeps A1 where it was.
    board = DrawnBoard()
    before = photograph(board, turn=90, seed=8)
    cal = calibrate(before.image, corners=before.corners, rotation=90)
    after = photograph(board, turn=90, spin=5, seed=9)
    loc = Tracker(cal).update(after.image)
    assert loc is not None and loc.rotation == 90
    assert corner_error(loc.corners, after.corners) < 0.2 * after.square_px


def test_the_empty_look_is_kept_where_the_board_was_nudged_and_dropped_where_it_moved() -> None:
    # The empty board's look holds while each square stays under the light it was seen in: a
    # board nudged keeps it; one moved further (turned on the table, a phone's photo at each
    # press) has the lamp's reflections on other squares, and the look would call them blanks.
    from board_pi.vision.calibration import LOOK_HOLDS, moved_by

    board = DrawnBoard()
    before = photograph(board, seed=8)
    cal = calibrate(before.image, corners=before.corners, rotation=0, use_markers=False)
    assert cal.empty is not None
    for spin, kept in ((2.5, True), (20.0, False)):  # a nudge of 0.46 squares; a move of several
        after = photograph(board, spin=spin, seed=8)
        tracker = Tracker(cal)
        assert tracker.update(after.image) is not None and tracker.moves == 1, spin  # found again
        assert (moved_by(cal.corners, tracker.calibration.corners) <= LOOK_HOLDS) == kept
        assert (tracker.calibration.empty is cal.empty) == kept and (tracker.calibration.empty is None) != kept


def test_markers_place_the_grid_and_carry_its_turn() -> None:
    board = DrawnBoard(markers=True)
    before = photograph(board, tilt=20, seed=10)
    cal = calibrate(before.image, corners=before.corners, rotation=0)
    assert sorted(cal.markers) == [0, 1, 2, 3]
    # The board turned half round on its turntable: empty, so only the markers can tell.
    after = photograph(board, turn=180, tilt=20, seed=11)
    seen = detect_markers(after.image)
    from_markers = corners_from_markers(seen, cal.markers)
    assert from_markers is not None
    assert corner_error(from_markers, after.corners) < 0.15 * after.square_px
    tracker = Tracker(cal)
    loc = tracker.update(after.image)
    assert loc is not None and loc.rotation == 180
    assert corner_error(loc.corners, after.corners) < 0.15 * after.square_px
    # Two markers place the grid well enough; none, not at all.
    two = corners_from_markers({0: seen[0], 2: seen[2]}, cal.markers)
    assert two is not None and corner_error(two, after.corners) < 0.3 * after.square_px
    assert corners_from_markers({}, cal.markers) is None


def test_one_marker_tells_the_turn_and_the_locator_the_grid() -> None:
    board = DrawnBoard(markers=True)
    before = photograph(board, tilt=20, seed=10)
    cal = calibrate(before.image, corners=before.corners, rotation=0)
    after = photograph(board, turn=270, tilt=20, seed=12)
    img = after.image.copy()
    # Cover three of the markers (a coffee cup, a score sheet, an elbow).
    for i, c in detect_markers(img).items():
        if i != 1:
            x0, y0 = c.min(axis=0).astype(int) - 4
            x1, y1 = c.max(axis=0).astype(int) + 4
            cv2.rectangle(img, (x0, y0), (x1, y1), (200, 200, 200), -1)
    assert list(detect_markers(img)) == [1]
    loc = Tracker(cal).update(img)
    assert loc is not None and loc.rotation == 270
    assert corner_error(loc.corners, after.corners) < 0.2 * after.square_px


def test_marker_image() -> None:
    img = marker_image(3, 200)
    assert img.shape == (200, 200) and img.dtype == np.uint8
    assert list(detect_markers(cv2.cvtColor(img, cv2.COLOR_GRAY2BGR))) == [3]
    with pytest.raises(ValueError):
        marker_image(17)


def test_wrong_frame_size_fails_the_check() -> None:
    scene = photograph(DrawnBoard(), seed=12)
    cal = calibrate(scene.image)
    small = cv2.resize(scene.image, (640, 480))
    verdict = check(small, cal)
    assert not verdict.ok and "calibrated for 1280x960" in verdict.reason


@pytest.mark.parametrize("seed", [31_000_001, 31_000_002, 31_000_005])
def test_corners_given_by_hand_snap_to_the_lines(seed: int) -> None:
    """At a table every frame is read through the calibration's corners: a hand's corners a third
    of a square off are put on the grid's lines (rendered empty boards in three random looks)."""
    from board_pi.vision.render import render_board

    board = render_board(["." * 15] * 15, seed=seed, hand=False)
    side = float(np.linalg.norm(board.corners[1] - board.corners[0])) / 15
    given = board.corners + np.random.default_rng(seed).uniform(-0.35, 0.35, (4, 2)).astype(np.float32) * side
    assert corner_error(given, board.corners) > 0.25 * side
    assert corner_error(calibrate(board.image, corners=given, by_hand=True).corners, board.corners) < 0.06 * side
    # Not by hand (a renderer's or a saved profile's corners): taken as they are.
    assert np.array_equal(calibrate(board.image, corners=given).corners, given)


def test_corners_given_by_hand_snap_on_real_photos(shared_data: Path) -> None:
    """The 2015 game's tuning photos, tiles and all, each with its labelled corners a third of a
    square off: most put back on the lines, none further off than the hand."""
    from board_pi.vision.evaluate import hand_labelled, real_split
    from board_pi.vision.frames import load_image

    data = Path(__file__).resolve().parents[1] / "data"
    split = real_split()["jheidel-2015"]
    rng = np.random.default_rng(5)
    near, n = 0, 0
    for name, path, _, corners in hand_labelled(data / "jheidel_labels.json", data / "jheidel_corners.json",
                                                shared_data / "real-photos" / "jheidel-game"):
        if split.part(name) != "tuning":
            continue
        truth = np.float32(corners).reshape(4, 2)
        side = float(np.linalg.norm(truth[1] - truth[0])) / 15
        given = truth + rng.uniform(-0.3, 0.3, (4, 2)).astype(np.float32) * side
        snapped = calibrate(load_image(path), corners=given, by_hand=True, use_markers=False).corners
        assert corner_error(snapped, truth) <= corner_error(given, truth) + 0.02 * side, name
        near += corner_error(snapped, truth) < 0.1 * side
        n += 1
    assert n >= 20 and near >= 0.75 * n, (near, n)


def test_corners_given_by_hand_kept_where_no_lines_agree(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from board_pi.cli import main

    rng = np.random.default_rng(7)
    frame = cv2.GaussianBlur(rng.integers(0, 255, (960, 1280, 3)).astype(np.uint8), (0, 0), 3)
    given = np.float32([[300, 150], [1000, 160], [990, 850], [310, 840]])
    assert np.array_equal(calibrate(frame, corners=given, by_hand=True).corners, given)
    img = tmp_path / "frame.png"
    cv2.imwrite(str(img), frame)
    arg = ",".join(f"{v:.0f}" for v in given.ravel())
    assert main(["calibrate", str(img), "--corners", arg, "--no-lens", "--out", str(tmp_path / "c.json")]) == 0
    said = capsys.readouterr().out
    assert "the corners given kept as they are" in said
    assert np.allclose(load(tmp_path / "c.json").corners, given)


def test_no_board_no_calibration() -> None:
    with pytest.raises(CalibrationError, match="no board found"):
        calibrate(np.full((480, 640, 3), 90, np.uint8))
    with pytest.raises(CalibrationError, match="convex"):
        calibrate(np.full((480, 640, 3), 90, np.uint8), corners=np.array([[0, 0], [10, 10], [10, 0], [0, 10]], np.float32))


@pytest.mark.parametrize(
    "content, message",
    [
        ("{not json", "not valid JSON"),
        ("[1, 2]", "not a JSON object"),
        ('{"version": 7}', "format version 7"),
        ('{"version": 1, "frame_size": [640, 480], "rotation": 0}', "missing or malformed"),
        ('{"version": 1, "frame_size": [640, 480], "rotation": 45, "corners": [[0,0],[9,0],[9,9],[0,9]]}', "rotation must be"),
        ('{"version": 1, "frame_size": [640, 480], "rotation": 0, "corners": [[0,0],[9,0],[9,9]]}', "four"),
        ('{"version": 1, "frame_size": [640, 480], "rotation": 0, "corners": [[0,0],[9,9],[9,0],[0,9]]}', "convex"),
        ('{"version": 1, "frame_size": [0, 480], "rotation": 0, "corners": [[0,0],[9,0],[9,9],[0,9]]}', "width, height"),
        ('{"version": 1, "frame_size": [640, 480], "rotation": 0, "corners": [[0,0],[9,0],[9,9],[0,9]], "markers": {"dictionary": "DICT_4X4_50", "grid_corners": {"0": [1]}}}', "malformed markers"),
        # damaged by hand, by a disk or by an attacker: each a message, never a traceback
        ('{"version": 1, "frame_size": [640, 480], "rotation": 0, "corners": [[0,0],[9,0],[9,9],[0,9]], "markers": 5}', "markers must be"),
        ('{"version": 1, "frame_size": [640, 480], "rotation": 0, "corners": [[0,0],[9,0],[9,9],[0,9]], "markers": {"dictionary": "DICT_4X4_50", "grid_corners": [1]}}', "malformed markers"),
        ('{"version": 1, "frame_size": [640, 480], "rotation": 0, "corners": [[0,0],[9,0],[9,9],[0,9]], "markers": {"dictionary": "DICT_4X4_50", "grid_corners": {"0": [[0,0],[1,0],[1,1],[0,NaN]]}}}', "malformed markers"),
        ('{"version": 1, "frame_size": [640, 480], "rotation": 0, "corners": [[0,0],[9,0],[9,9],[0,9]], "reference": {"lines": "x"}}', "reference must hold numbers"),
        ('{"version": 1, "frame_size": [640, 480], "rotation": 0, "corners": [[0,0],[9,0],[9,9],[0,9]], "camera": {"ExposureTime": {"a": 1}}}', "camera setting"),
        ('{"version": 1, "frame_size": [1e400, 480], "rotation": 0, "corners": [[0,0],[9,0],[9,9],[0,9]]}', "width, height"),
        ('{"version": 1, "frame_size": [640, 480], "rotation": 1e400, "corners": [[0,0],[9,0],[9,9],[0,9]]}', "rotation must be"),
        ('{"version": 1, "frame_size": [640, 480], "rotation": 0, "corners": [[0,0],[9,0],[9,9],["a","b"]]}', "four"),
        ('{"version": 1, "frame_size": [640, 480], "rotation": 0, "corners": 7}', "four"),
        ('{"version": 1, "frame_size": [640, 480], "rotation": 0, "corners": [[0,0],[9,0],[9,9],[0,9]], "lens": {"bend": 2}}', "lens must be"),
        ('{"version": 1, "frame_size": [640, 480], "rotation": 0, "corners": [[0,0],[9,0],[9,9],[0,9]], "lens": 0.1}', "lens must be"),
        ('{"version": 1, "frame_size": [640, 480], "rotation": 0, "corners": [[0,0],[9,0],[9,9],[0,9]], "lens": {"bend": NaN}}', "lens must be"),
        ('{"version": ' + "9" * 5000 + "}", "not a calibration"),
        ("[" * 100_000 + "]" * 100_000, "not a calibration"),
        ("", "not valid JSON"),
    ],
)
def test_bad_calibration_files(tmp_path: Path, content: str, message: str) -> None:
    p = tmp_path / "cal.json"
    p.write_text(content)
    with pytest.raises(CalibrationError, match=message):
        load(p)


def test_missing_calibration_file(tmp_path: Path) -> None:
    with pytest.raises(CalibrationError, match="no calibration file"):
        load(tmp_path / "nope.json")


def test_calibration_files_that_are_not_files(tmp_path: Path) -> None:
    with pytest.raises(CalibrationError, match="not a file"):
        load(tmp_path)
    with pytest.raises(CalibrationError, match="not a file"):
        load("/dev/zero")  # never read: it would never end
    (tmp_path / "big.json").write_text(" " * 300_000 + "{}")
    with pytest.raises(CalibrationError, match="larger than any calibration"):
        load(tmp_path / "big.json")
    (tmp_path / "latin1.json").write_bytes(b'{"created": "\xe9t\xe9"}')
    with pytest.raises(CalibrationError, match="cannot read"):
        load(tmp_path / "latin1.json")


def test_profile_json_is_plain(tmp_path: Path) -> None:
    cal = Calibration(np.array([[10, 10], [110, 12], [108, 111], [9, 109]], np.float32), 270, (640, 480))
    data = json.loads(save(cal, tmp_path / "c.json").read_text())
    assert data["version"] == 1 and data["rotation"] == 270 and data["markers"] is None
    assert data["corners"][1] == [110.0, 12.0]


def test_real_board_check_and_shift(shared_data: Path) -> None:
    img = cv2.imread(str(shared_data / "real-boards" / "declanfinerty" / "eval_board.jpeg"))
    cal = calibrate(img)
    assert check(img, cal).ok
    sq = float(np.linalg.norm(cal.corners[1] - cal.corners[0])) / 15
    moved = cv2.warpAffine(img, np.float32([[1, 0, 0.5 * sq], [0, 1, 0]]), (img.shape[1], img.shape[0]))
    assert not check(moved, cal).ok


def test_calibrate_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from board_pi.cli import main

    scene = photograph(DrawnBoard(tiles=some_tiles(6)), turn=270, tilt=15, seed=13)
    img = tmp_path / "frame.png"
    cv2.imwrite(str(img), scene.image)
    out = tmp_path / "calibration" / "t.json"
    assert main(["calibrate", str(img), "--out", str(out)]) == 0
    said = capsys.readouterr()
    assert "turned 270 degrees" in said.out and "burnt out" not in said.err
    cal = load(out)
    assert cal.camera == {"source": str(img)} and cal.rotation == 270
    assert corner_error(cal.corners, scene.corners) < 0.2 * scene.square_px
    # Corners given by hand, upright order: snapped to the grid's lines, from where they are
    # and from a third of a square off (a click on a 1280x960 frame).
    off = np.random.default_rng(3).uniform(-0.35, 0.35, (4, 2)).astype(np.float32) * scene.square_px
    for hand in (scene.corners, scene.corners + off):
        given = ",".join(f"{v:.1f}" for v in hand.ravel())
        capsys.readouterr()
        assert main(["calibrate", str(img), "--corners", given, "--rotation", "270", "--out", str(out)]) == 0
        assert "the corners given snapped to the grid's lines" in capsys.readouterr().out
        assert corner_error(load(out).corners, scene.corners) < 0.05 * scene.square_px
    assert corner_error(scene.corners + off, scene.corners) > 0.3 * scene.square_px
    # The same board under a lamp too close: calibrated, with a warning to take the light down.
    cv2.imwrite(str(img), np.clip(scene.image * 1.6, 0, 255).astype(np.uint8))
    capsys.readouterr()
    assert main(["calibrate", str(img), "--out", str(out)]) == 0
    said = capsys.readouterr()
    assert "turned 270 degrees" in said.out
    assert "warning:" in said.err and "of the board is burnt out white" in said.err and "calibrate again" in said.err
    assert main(["calibrate", "--print-markers", str(tmp_path / "m")]) == 0
    assert sorted(p.name for p in (tmp_path / "m").iterdir()) == [f"marker_{i}.png" for i in range(4)]


@pytest.mark.parametrize(
    "argv, message",
    [
        (["calibrate"], "give a frame source"),
        (["calibrate", "/nonexistent.jpg"], "no such camera, file or folder"),
        (["calibrate", "IMG", "--corners", "1,2,3"], "eight numbers"),
        (["calibrate", "BLANK"], "no board found"),
        (["calibrate", "HUGE"], "400 megapixels"),
    ],
)
def test_calibrate_command_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str) -> None:
    from board_pi.cli import main

    img = tmp_path / "blank.png"
    cv2.imwrite(str(img), np.full((240, 320, 3), 128, np.uint8))
    from tests.vision.huge_image import huge_png

    huge = huge_png(tmp_path / "huge.png")
    argv = [str(img) if a in ("IMG", "BLANK") else str(huge) if a == "HUGE" else a for a in argv]
    assert main(argv + ["--out", str(tmp_path / "c.json")]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "c.json").exists()


def test_board_carried_elsewhere_is_found_after_a_while() -> None:
    board = DrawnBoard(tiles=some_tiles(7))
    before = photograph(board, fill=0.5, seed=14, busy=False)
    cal = calibrate(before.image)
    # Same table, board now in the right-hand part of the frame; its old place shows cloth.
    after = photograph(board, fill=0.5, seed=14, busy=False)
    shift = np.float32([[1, 0, 330], [0, 1, 0]])
    img = cv2.warpAffine(after.image, shift, (1280, 960), borderMode=cv2.BORDER_REFLECT)
    truth = after.corners + np.float32([330, 0])
    tracker = Tracker(cal)
    results = [tracker.update(img) for _ in range(Tracker.SEARCH_AFTER_HIDDEN + 1)]
    found = [r for r in results if r is not None]
    assert found, "never looked for the board again"
    assert corner_error(found[-1].corners, truth) < 0.2 * after.square_px


def test_the_pieces_beside_a_known_tile_are_left_out() -> None:
    from board_pi.vision.calibration import _free_pieces

    assert _free_pieces(None).all()
    covered = np.zeros((15, 15), bool)
    covered[7, 7] = True
    free = _free_pieces(covered)
    # [0, row, line]: the vertical lines left and right of H8; [1, column, line]: above and below it.
    assert sorted(zip(*np.nonzero(~free))) == [(0, 7, 7), (0, 7, 8), (1, 7, 7), (1, 7, 8)]
    corner = np.zeros((15, 15), bool)
    corner[0, 0] = True  # the board's edge is a line too
    assert sorted(zip(*np.nonzero(~_free_pieces(corner)))) == [(0, 0, 0), (0, 0, 1), (1, 0, 0), (1, 0, 1)]


def test_a_wooden_board_filling_with_tiles_is_never_taken_for_hidden() -> None:
    # Cream tiles on a wooden board hide the dark lines around them and show bright edges of
    # their own that line up with the grid. The check once took those edges for the grid's lines,
    # saw half as many pieces as on the empty board, and called the board hidden: the table then
    # waited for an arm to go and gave up. The grid is whichever lines up in more pieces, and the
    # squares known to hold tiles are left out.
    from board_pi.cli.demo import demo_style
    from board_pi.vision.render import render_board

    style = demo_style(1, edition="wooden")
    empty = render_board(["." * 15] * 15, seed=1, hand=False, tilt=15.0, style=style, pose_seed=1)
    cal = calibrate(empty.image, empty.corners, rotation=0, use_markers=False)
    committed = np.zeros((15, 15), bool)
    boards = boards_of_the_bundled_game()
    assert len(boards) >= 25
    for n, rows in enumerate(boards):
        image = render_board(rows, seed=1009 + n, hand=False, tilt=15.0, style=style, pose_seed=1).image
        told = check(image, cal, committed)
        assert told.reason != "hidden" and told.fit.pieces > 0.8, (n, told)
        assert check(image, cal).reason != "hidden", n  # and without being told of the tiles
        committed = np.array([[t != "." for t in row] for row in rows])
    # An arm over the full board is still hidden, told of its tiles or not.
    x0, y0 = cal.corners.min(axis=0).astype(int)
    x1, y1 = cal.corners.max(axis=0).astype(int)
    cv2.rectangle(image, (x0 - 10, y0 - 10), (x1 + 10, y1 - (y1 - y0) // 10), (120, 160, 210), -1)
    assert check(image, cal, committed).reason == "hidden"
    assert check(image, cal).reason == "hidden"
    # Told of so many tiles that too few pieces are left clear of them, it judges by them all.
    assert check(image, cal, np.ones((15, 15), bool)).reason == "hidden"


def test_a_new_light_on_a_board_at_rest_is_not_taken_for_a_move() -> None:
    # Each of the game's boards drawn under a light of its own, as a lamp moved or the sun come
    # out would show it (``steady=False``: the tiles' shadows fall another way in each frame,
    # and the camera's focus and compression differ): the lines fit less well than in the
    # calibration frame (once below its bar, on the sage board after the 28th play) but still
    # clearly best where the grid is. A board pushed by a quarter or a third of a square, or
    # turned by two degrees, is still moved.
    from board_pi.cli.demo import demo_style
    from board_pi.vision.render import render_board

    style = demo_style(1, edition="sage")
    empty = render_board(["." * 15] * 15, seed=1, hand=False, tilt=15.0, style=style, pose_seed=1, steady=False)
    cal = calibrate(empty.image, empty.corners, rotation=0, use_markers=False)
    side = float(np.linalg.norm(cal.corners[1] - cal.corners[0])) / 15
    committed = np.zeros((15, 15), bool)
    for n, rows in enumerate(boards_of_the_bundled_game()):
        image = render_board(rows, seed=1009 + n, hand=False, tilt=15.0, style=style, pose_seed=1, steady=False).image
        verdict = check(image, cal, committed)
        assert verdict.ok, (n, verdict)
        if n % 3 == 0 or n == 27:
            turn = cv2.getRotationMatrix2D(tuple(map(float, cal.corners.mean(axis=0))), 2.0, 1.0)
            shifts = [np.float32([[1, 0, push * side], [0, 1, 0.5 * push * side]]) for push in (0.25, 1 / 3)]
            for how, move in zip(("a quarter", "a third", "two degrees"), shifts + [turn]):
                moved = cv2.warpAffine(image, move, (image.shape[1], image.shape[0]), borderMode=cv2.BORDER_REPLICATE)
                assert check(moved, cal, committed).reason == "moved", (n, how)
        committed = np.array([[t != "." for t in row] for row in rows])


@pytest.mark.parametrize("seed, bend", [(13, -0.1), (15, 0.3), (14, 0.0)])
def test_a_lens_that_bends_lines_is_measured_on_the_empty_board_and_undone(tmp_path: Path, seed: int, bend: float) -> None:
    # A camera close over the table through a wide lens (a barrel: 0.3 pulls the middle of the
    # long side's edge in by 30%) or a long one (a pincushion), the board filling the frame: one
    # homography misplaces the squares at its edges. Calibrated on the empty board with the lens
    # measured, the table straightens each frame and reads the board whole.
    from board_pi.table.vision import VisionReader
    from board_pi.vision.evaluate import Tally
    from board_pi.vision.read import Reader
    from board_pi.vision.render import random_style, render_board

    rows = ["...............", "...............", "..QUIZ.........", "...............", "....JOKED......",
            "........A......", "........X......", "...BLOWZY......", "........E......", "........S......",
            "...............", "..........HI...", "...............", "VEXT.........AB", "..............Y"]
    style = random_style(np.random.default_rng(seed))
    # (``steady=False``: the tiles laid from ``seed + k``, as in the frames these counts were taken on)
    empty, played = (through_a_lens(render_board(r, seed=seed + k, hand=False, style=style, pose_seed=seed,
                                                  fill=(0.85, 0.95), effects=False, steady=False).image, bend)
                     for k, r in ((0, ["." * 15] * 15), (100, rows)))
    cal = calibrate(empty, lens=True, use_markers=False)
    assert abs(cal.bend - bend) <= 0.05, cal.bend
    assert load(save(cal, tmp_path / "c.json")).bend == cal.bend
    reader = Reader()

    def right(c: Calibration) -> int:
        t = Tally()
        t.add(rows, VisionReader(reader=reader, tracker=Tracker(c)).read(played).grid, None)
        return t.squares_right

    with_lens = right(cal)
    assert with_lens >= 222, with_lens
    if bend > 0.2:  # a bend the reader's shifted looks cannot absorb (a pincushion of 0.1 they nearly do)
        straight = calibrate(empty, use_markers=False)  # the lens not measured: lines taken as straight
        assert straight.bend == 0 and right(straight) <= with_lens - 5


def test_calibrate_command_refuses_a_frame_that_does_not_show_the_whole_board(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Every frame at the table would read the squares off its edge as empty: a play there lost.
    from board_pi.cli import main
    from board_pi.vision.geometry import square_side
    from board_pi.vision.render import render_board

    r = render_board(["." * 15] * 15, seed=83, hand=False, tilt=10.0, effects=False)
    x1 = int(r.corners[:, 0].max() - 0.7 * square_side(r.corners))
    img = tmp_path / "frame.png"
    cv2.imwrite(str(img), r.image[:, :x1])
    out = tmp_path / "c.json"
    assert main(["calibrate", str(img), "--out", str(out), "--no-lens"]) == 2
    said = capsys.readouterr().err
    assert "the frame does not show" in said and "O8" in said and "whole board is in view" in said, said
    assert not out.exists()
    cv2.imwrite(str(img), r.image)
    assert main(["calibrate", str(img), "--out", str(out), "--no-lens"]) == 0
