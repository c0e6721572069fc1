"""The table's eyes on rendered frames: the real renderer, tracker and tile model, no stand-ins."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("cv2")

from board_pi.table.vision import VisionReader  # noqa: E402
from board_pi.vision.calibration import Tracker, calibrate  # noqa: E402
from board_pi.vision.geometry import mirror_image, other_way_round  # noqa: E402
from board_pi.vision.read import rectified  # noqa: E402
from board_pi.vision.render import SAMPLE_ROWS, random_style, render_board  # noqa: E402

EMPTY = ["." * 15] * 15


def frame(rows, n: int, effects: bool = True):  # type: ignore[no-untyped-def]
    r = render_board(rows, seed=100 + n, hand=False, tilt=12.0, style=random_style(np.random.default_rng(5)),
                     pose_seed=5, effects=effects)
    return r.image, r.corners


def test_only_changed_squares_are_read_and_old_tiles_stay_committed() -> None:
    # Steady light (a fixed camera with its exposure frozen): what changes is the tiles.
    image, corners = frame(EMPTY, 0, effects=False)
    reader = VisionReader(tracker=Tracker(calibrate(image, corners, rotation=0, use_markers=False)))
    first = reader.read(image)
    assert first is not None and first.grid == tuple(EMPTY)
    assert reader.stats.squares_read == 225
    reader.commit(EMPTY)
    image, _ = frame(SAMPLE_ROWS, 1, effects=False)
    before = reader.stats.squares_read
    seen = reader.read(image)
    assert seen is not None and seen.grid == SAMPLE_ROWS
    changed = reader.stats.squares_read - before
    assert 13 <= changed < 40  # the 13 new tiles and a few neighbours, not the whole board
    reader.commit(SAMPLE_ROWS)
    # The tracker's check is told where the tiles are, to leave out the lines they hide.
    assert reader.tracker.covered.tolist() == [[t != "." for t in row] for row in SAMPLE_ROWS]
    image, _ = frame(SAMPLE_ROWS, 2, effects=False)  # the same board again: little to read
    before = reader.stats.squares_read
    assert reader.read(image).grid == SAMPLE_ROWS  # type: ignore[union-attr]
    assert reader.stats.squares_read - before < 40  # tiles sit a little differently each render
    # Light that changes (shadows, glare) makes more squares look changed; what is read stays right.
    image, _ = frame(SAMPLE_ROWS, 3)
    assert reader.read(image).grid == SAMPLE_ROWS  # type: ignore[union-attr]
    reader.reset()  # a new game: nothing committed, nothing left out
    assert reader.tracker.covered is None


def test_the_committed_tiles_settle_where_the_board_is_and_which_way_round(tmp_path) -> None:
    from board_pi.vision.calibration import load

    image, corners = frame(SAMPLE_ROWS, 3)
    right = calibrate(image, corners, rotation=0, use_markers=False)
    saved = tmp_path / "calibration.json"
    tracker = Tracker(right, path=saved)
    reader = VisionReader(tracker=tracker)
    reader.read(image)
    reader.commit(SAMPLE_ROWS)
    # The tracker finds the board turned half round (an empty board's pattern cannot tell):
    # the committed tiles put it right.
    from dataclasses import replace

    wrong = replace(right, corners=np.roll(right.corners, -2, axis=0), rotation=180)
    tracker.calibration = wrong  # as the tracker's search left it
    got = reader._orient(image, np.roll(corners, -2, axis=0), wrong)
    assert np.abs(got - corners).max() < 1.0
    assert np.abs(tracker.calibration.corners - corners).max() < 1.0 and tracker.calibration.rotation == 0
    # ... and saved so: a restart reads the board the right way round from its first frame.
    assert np.abs(load(saved).corners - corners).max() < 1.0 and load(saved).rotation == 0
    tracker.calibration = right
    # A false alarm: the grid "found again" a square off; the grid it had reads the tiles back.
    shifted = corners + np.float32([corners[1] - corners[0]]) / 15
    got = reader._orient(image, shifted, right)
    assert np.abs(got - corners).max() < 1.0
    assert np.array_equal(tracker.calibration.corners, right.corners)
    assert tracker.calibration.rotation == right.rotation


def test_tiles_that_cannot_tell_do_not_turn_the_board() -> None:
    # A play withdrawn and its tiles taken away: the committed OHIO on row 8 is gone, and two O's
    # stand in column H. Turned a quarter either way, the grid reads one O of OHIO back, by chance;
    # the grid it had reads none. One tile of four says nothing of a turn: the board stays.
    ohio = [r if i != 7 else ".....OHIO......" for i, r in enumerate(EMPTY)]
    o_in_h = [r if i not in (5, 9) else ".......O......." for i, r in enumerate(EMPTY)]
    image, corners = frame(ohio, 6)
    cal = calibrate(frame(EMPTY, 7)[0], corners, rotation=0, use_markers=False)
    tracker = Tracker(cal)
    reader = VisionReader(tracker=tracker)
    reader.read(image)
    reader.commit(ohio)
    gone, _ = frame(o_in_h, 8)
    placed = [(7, c) for c in range(5, 9)]
    turned = [np.roll(corners, -k, axis=0).astype(np.float32) for k in (1, 3)]
    reads = [reader.reader.read(gone, t, squares=placed, look_again=False).grid[7][5:9] for t in turned]
    assert any(sum(a == b for a, b in zip(r, "OHIO")) == 1 for r in reads), reads  # the chance read
    for t in turned:  # the tracker's search found the grid, turned
        got = reader._orient(gone, t, cal)
        assert np.abs(got - corners).max() < 1.0
        assert np.abs(tracker.calibration.corners - corners).max() < 1.0 and tracker.calibration.rotation == 0


def test_a_table_started_on_a_board_with_tiles_on_it_reads_it_the_right_way_round() -> None:
    # Calibrated on the empty board, the table is started (or restarted) with a game's middle on
    # the board: the tiles change what the check sees, and the board is looked for again. Nothing
    # is committed yet to say which way round it lies, and the finder's own claim, from the
    # tiles' point values, is a quarter turn: the tiles read at all four turns say it is upright.
    from board_pi.vision.evaluate import Tally
    from board_pi.vision.locate import find_board
    from tests.vision.game_boards import boards_of_the_bundled_game

    rows = boards_of_the_bundled_game()[22]
    seed = 50_000_004
    style = random_style(np.random.default_rng(seed))
    # (``steady=False``: the tiles laid from ``seed + n``: a board whose tiles the finder reads a turn wrong)
    empty, played = (render_board(r, seed=seed + n, hand=False, style=style, pose_seed=seed, fill=(0.7, 0.85), tilt=12,
                                  steady=False) for n, r in ((0, EMPTY), (1, rows)))
    cal = calibrate(empty.image, empty.corners, rotation=0, use_markers=False)
    assert find_board(played.image).rotation != 0  # the finder's claim: turned
    tracker = Tracker(cal)
    reading = VisionReader(tracker=tracker).read(played.image)
    assert tracker.moves == 1  # the alarm was raised and the board found again
    # Found again within a fifth of a square, what the reader's shifted looks absorb (found among
    # tiles, not on the bare board's lines: 4 to 7 pixels of a 51-pixel square off at one corner,
    # by the OpenCV and the CPU).
    square = np.linalg.norm(empty.corners[1] - empty.corners[0]) / 15
    assert np.abs(tracker.calibration.corners - empty.corners).max() < 0.2 * square and tracker.calibration.rotation == 0
    t = Tally()
    t.add(rows, reading.grid, None)
    assert t.squares_right >= 223, reading.grid


def test_a_false_alarm_is_raised_once_not_at_every_frame() -> None:
    # Calibrated on the empty board; a board filling with tiles covers premium squares and puts
    # tile edges beside the lines, and the check, held to the empty board, may say "moved". Here
    # the premium squares are made to count for more than they did (the calibration frame's
    # score for them raised), so that it does. The board is found where it was; later frames are
    # held to this one, not searched again.
    from dataclasses import replace

    from board_pi.vision.calibration import check
    from board_pi.vision.evaluate import game_like_rows

    image, corners = frame(EMPTY, 0, effects=False)
    tracker = Tracker(calibrate(image, corners, rotation=0, use_markers=False))
    reader = VisionReader(tracker=tracker)
    reader.read(image)
    reader.commit(EMPTY)
    reader.read(frame(SAMPLE_ROWS, 1, effects=False)[0])
    reader.commit(SAMPLE_ROWS)
    more = game_like_rows(np.random.default_rng(2))
    full = ["".join(a if a != "." else b for a, b in zip(r1, r2)) for r1, r2 in zip(SAMPLE_ROWS, more)]
    first, _ = frame(full, 2, effects=False)
    cal = tracker.calibration
    premium = check(first, cal, tracker.covered).fit.premium
    tracker.calibration = replace(cal, reference={**cal.reference, "premium": 2.5 * premium})
    assert check(first, tracker.calibration, tracker.covered).reason == "moved"  # the alarm
    moves = tracker.moves
    assert reader.read(first) is not None
    assert tracker.moves == moves + 1  # looked for once, found where it was
    assert np.abs(tracker.calibration.corners - corners).max() < 1.0
    # The same board in later frames (sensor noise only: the tiles lie as they lay).
    for n in (3, 4):
        noise = np.random.default_rng(n).normal(0, 2.0, first.shape)
        assert reader.read(np.clip(first + noise, 0, 255).astype(np.uint8)) is not None
    assert tracker.moves == moves + 1  # before: once more at every frame


def _lavender_table():  # type: ignore[no-untyped-def]
    """A table's eyes over an empty lavender board, committed empty; and the frame they saw."""
    from board_pi.vision.editions import edition_style

    r = render_board(EMPTY, seed=3, tilt=12.0, style=edition_style(np.random.default_rng(3), "lavender"),
                     pose_seed=3, effects=False)
    reader = VisionReader(tracker=Tracker(calibrate(r.image, r.corners, rotation=0, use_markers=False)))
    reader.read(r.image)
    reader.commit(EMPTY)
    return reader, r


def _in_frame(r, corners_on_grid: list[list[float]]) -> np.ndarray:  # type: ignore[no-untyped-def]
    """A quadrilateral given in grid units (x along a row, y down the columns) as frame pixels."""
    import cv2

    from board_pi.vision.geometry import grid_to_image

    quad = np.float32(corners_on_grid).reshape(-1, 1, 2)
    return cv2.perspectiveTransform(quad, grid_to_image(r.corners)).round().astype(np.int32)


def test_a_tile_as_light_as_its_square_is_seen_by_its_colour() -> None:
    # A blank on a lavender square can change its grey less than the change threshold: the
    # square still counts as changed, by its colour.
    import cv2

    reader, r = _lavender_table()
    quad = _in_frame(r, [[4.1, 6.1], [4.9, 6.1], [4.9, 6.9], [4.1, 6.9]])  # E7's middle, a plain square
    mask = np.zeros(r.image.shape[:2], np.uint8)
    cv2.fillConvexPoly(mask, quad, 255)
    before = r.image[mask > 0].astype(float).mean(axis=0)
    # Bluer and less red by amounts that leave the grey (0.114 B + 0.587 G + 0.299 R) as it was.
    after = np.clip(before + 50 * np.array([-1.0, 0.0, 0.114 / 0.299]), 0, 255)
    image = r.image.copy()
    cv2.fillConvexPoly(image, quad, after.tolist())
    look = reader._look(rectified(image, r.corners))
    assert reader.changed_squares(look) == [(6, 4)]
    reader.colour_threshold = float("inf")  # by grey alone it would not count
    assert reader.changed_squares(look) == []


def test_a_tile_washed_out_by_glare_is_seen_by_its_letters_ink() -> None:
    # Under a spot of glare a pale tile's face looks much like its square: what changes is the
    # stroke of its letter, a small part of the square, too little to move the square's mean.
    import cv2

    reader, r = _lavender_table()
    image = r.image.copy()
    cv2.fillConvexPoly(image, _in_frame(r, [[4.45, 6.25], [4.55, 6.25], [4.55, 6.75], [4.45, 6.75]]), (40, 40, 40))
    look = reader._look(rectified(image, r.corners))
    assert reader.changed_squares(look) == [(6, 4)]
    reader.ink_threshold = reader.ink_ratio_threshold = float("inf")  # by grey and colour alone, not
    assert reader.changed_squares(look) == []


def test_a_letter_in_a_shadow_over_both_frames_is_seen_by_its_inks_ratio() -> None:
    # A body's shadow over the left of the board, in the committed frame and the next alike (a
    # phone's photos taken from the same side): it darkens a tile's letter and its square
    # together, and their difference in grey levels shrinks below the ink threshold. Their ratio
    # stays as in the light, and the square counts as changed by it.
    import cv2

    reader, r = _lavender_table()
    after = r.image.copy()
    cv2.fillConvexPoly(after, _in_frame(r, [[4.42, 6.25], [4.58, 6.25], [4.58, 6.75], [4.42, 6.75]]), (100, 100, 100))
    shade = np.ones(r.image.shape[:2], np.float32)
    shade[:, : int(_in_frame(r, [[7.5, 7.5]])[0, 0, 0])] = 0.3  # the board's left half, E7 in it

    def shaded(image: np.ndarray) -> np.ndarray:
        return (image * shade[..., None]).round().astype(np.uint8)

    reader._ref_look = reader._look(rectified(shaded(r.image), r.corners))
    look = reader._look(rectified(shaded(after), r.corners))
    assert reader.changed_squares(look) == [(6, 4)]
    reader.ink_ratio_threshold = float("inf")  # by grey levels alone it would not count
    assert reader.changed_squares(look) == []
    reader._ref_look = reader._look(rectified(r.image, r.corners))  # in the light, grey levels tell it
    assert reader.changed_squares(reader._look(rectified(after, r.corners))) == [(6, 4)]


def test_a_blank_that_changes_its_square_too_little_is_read_as_the_end_of_the_play() -> None:
    # A play is one line: where new tiles are read, the squares that would join or extend their
    # line are read too. Here only a square whose letter's ink changed counts as changed (the
    # grey and colour thresholds out of reach), so the blank that ends the word is not seen as
    # a change, yet it is read, as the square just past the play's last new tile.
    from board_pi.vision.editions import edition_style

    def board(row: str) -> list[str]:
        return ["." * 15] * 7 + [row] + ["." * 15] * 7

    def shot(rows: list[str], n: int):  # type: ignore[no-untyped-def]
        return render_board(rows, seed=300 + n, tilt=12.0, style=edition_style(np.random.default_rng(3), "lavender"),
                            pose_seed=3, hand=False, effects=False)

    before, after = board(".....CAT......."), board(".....CATTLEd...")
    r = shot(EMPTY, 0)
    reader = VisionReader(tracker=Tracker(calibrate(r.image, r.corners, rotation=0, use_markers=False)))
    reader.read(r.image)
    reader.commit(EMPTY)
    reader.read(shot(before, 1).image)
    reader.commit(before)
    reader.change_threshold = reader.colour_threshold = float("inf")
    image = shot(after, 2).image
    assert (7, 11) not in reader.changed_squares(reader._look(rectified(image, reader.last_corners)))
    seen = reader.read(image)
    assert seen is not None and seen.grid[7] == ".....CATTLE?..."


def test_a_tile_whose_only_neighbour_is_a_blank_missed_at_first_is_read_with_it() -> None:
    # INNO(V)AtE down K4, as the demo's camera draws it: the blank t on K10, plain and pale, is
    # read as empty at first, which leaves the E on K11 a lone tile, taken for a print on the
    # board and read as empty too. The play's line is then read on: K10 a blank, and K11 read
    # again beside it, an E. (Before, only K10 was read again, and the table asked which letter
    # the blank on K10 was in a word with no E.)
    from board_pi.cli.demo import ScriptedCamera

    before = ["." * 15] * 6 + [".FlAREUP.......", ".......AGAVE..."] + ["." * 15] * 7
    after = [list(r) for r in before]
    for r, t in zip((3, 4, 5, 6, 8, 9, 10), "INNOAtE"):
        after[r][10] = t
    camera = ScriptedCamera(seed=1)
    camera.rows = EMPTY
    cal = calibrate(camera.read(), camera.last_corners, rotation=0, use_markers=False)
    eyes = VisionReader(tracker=Tracker(cal))
    for rows in (EMPTY, before):
        camera.rows = rows
        assert eyes.read(camera.read()) is not None
        eyes.commit(rows)
    camera.rows = ["".join(r) for r in after]
    reading = eyes.read(camera.read())
    assert reading is not None
    assert [reading.grid[r][10] for r in range(3, 11)] == list("INNOVA?E"), reading.grid


def test_a_table_with_no_calibration_finds_the_board_in_every_frame_keeping_its_turn() -> None:
    from board_pi.table.vision import default_locator
    from board_pi.vision.locate import find_board

    locate = default_locator()
    assert locate is not None
    # Tiles on it, so that the first frame's turn comes from their point values.
    image, corners = frame(SAMPLE_ROWS, 4)
    loc = find_board(image)
    assert loc is not None and loc.rotation == 0
    assert np.allclose(locate(image), loc.corners)
    assert np.abs(loc.corners - corners).max() < 3  # the grid where the renderer drew it
    # After that, the last frame's corners tell the turn: the tiles are not asked. A board the
    # last frame had a quarter turn round (A1 at the image's top right) keeps that turn.
    for k in range(4):
        previous = np.roll(corners, -k, axis=0)
        assert np.allclose(locate(image, previous=previous), np.roll(loc.corners, -k, axis=0))
    assert locate(np.zeros((480, 640, 3), np.uint8), previous=corners) is None
    # The table's reader does so itself: the first frame turned by the tiles, the next by it.
    reader = VisionReader()
    assert reader.read(image) is not None and np.allclose(reader.last_corners, loc.corners)
    reader.last_corners = np.roll(loc.corners, -1, axis=0)
    reader.read(image)
    assert np.allclose(reader.last_corners, np.roll(loc.corners, -1, axis=0))


def test_committed_tiles_off_the_frame_s_edge_stay_as_committed(caplog: pytest.LogCaptureFixture) -> None:
    # The camera knocked (or the board slid) so that column A runs off the frame: its squares
    # cannot be seen, and the smeared edge there must not read as the C of A8 taken away.
    import cv2

    from board_pi.rules.board import Board
    from board_pi.rules.play import Play
    from board_pi.rules.tiles import ENGLISH
    from board_pi.vision.geometry import square_side, squares_outside

    board = Board()
    for placement in Play.parse("8A CRANKIEST").placements(board, ENGLISH):
        board[placement.square] = placement.tile
    rows = board.rows()
    image, corners = frame(rows, 0, effects=False)
    told: list[str] = []  # the table's page (Table.tell), as `board-pi run` wires it
    reader = VisionReader(tracker=Tracker(calibrate(image, corners, rotation=0, use_markers=False)), tell=told.append)
    assert reader.read(image).grid == tuple(rows)  # type: ignore[union-attr]
    reader.commit(rows)
    later, _ = frame(rows, 1, effects=False)
    shift = float(corners[:, 0].min()) + 0.7 * square_side(corners)
    h, w = later.shape[:2]
    moved = cv2.warpAffine(later, np.float32([[1, 0, -shift], [0, 1, 0]]), (w, h), borderMode=cv2.BORDER_REPLICATE)
    assert reader.outside == ()
    with caplog.at_level("WARNING", logger="board_pi.table.vision"):
        seen = reader.read(moved)
        reader.read(moved)
    assert seen is not None and reader.tracker.moves == 1
    assert (7, 0) in reader.outside and list(reader.outside) == squares_outside(reader.last_corners, (w, h))
    assert seen.grid == tuple(rows)
    said = [r.getMessage() for r in caplog.records if "does not show" in r.getMessage()]
    assert len(said) == 1 and "(A1, A2" in said[0], said  # once, not at every frame
    assert told == said


def test_squares_something_lies_over_since_the_last_commit_are_named() -> None:
    # A sheet laid over the board after a play: its squares' lines are gone against the last
    # committed frame's own, and they are named; taken away again, nothing is.
    from board_pi.rules.board import Board
    from board_pi.rules.play import Play
    from board_pi.rules.tiles import ENGLISH
    from board_pi.vision.render import lay_over

    board = Board()
    for placement in Play.parse("8A CRANKIEST").placements(board, ENGLISH):
        board[placement.square] = placement.tile
    rows = board.rows()
    image, corners = frame(rows, 0, effects=False)
    reader = VisionReader(tracker=Tracker(calibrate(image, corners, rotation=0, use_markers=False)))
    reader.read(image)
    assert reader.covered == ()
    reader.commit(rows)
    later, _ = frame(rows, 1, effects=False)
    under, share = lay_over(np.random.default_rng(3), later, corners, "sheet", centre=(11.0, 3.0), size=(5.0, 4.0),
                            angle=0.0)
    seen = reader.read(under)
    hidden = {(int(r), int(c)) for r, c in np.argwhere(share >= 0.9)}
    assert len(hidden) >= 12 and hidden <= set(reader.covered), reader.covered
    assert seen is not None and seen.grid == tuple(rows)  # nothing was there: read empty as before
    reader.read(later)
    assert reader.covered == ()


def test_something_lying_over_the_board_at_the_first_play_is_named_by_the_calibration() -> None:
    # Before any board is committed, the board's own lines are the measure, and the calibration
    # frame of the empty board says what each square looks like at this table.
    from board_pi.vision.render import lay_over

    empty, corners = frame(EMPTY, 0, effects=False)
    cal = calibrate(empty, corners, rotation=0, use_markers=False)
    first = [r if i != 7 else "...WINDY......." for i, r in enumerate(EMPTY)]
    played, _ = frame(first, 1, effects=False)
    for kind in ("sheet", "phone"):
        reader = VisionReader(tracker=Tracker(cal))
        under, share = lay_over(np.random.default_rng(4), played, corners, kind, centre=(4.0, 12.0), size=(5.0, 4.0),
                                angle=0.0)
        seen = reader.read(under)
        hidden = {(int(r), int(c)) for r, c in np.argwhere(share >= 0.9)}
        assert len(hidden) >= 12 and hidden <= set(reader.covered), (kind, reader.covered)
        assert seen is not None and seen.grid[7] == first[7]
    clear = VisionReader(tracker=Tracker(cal))
    clear.read(played)
    assert clear.covered == ()
    # A table with no calibration (its board found in each frame): no empty board to judge by.
    uncalibrated = VisionReader(locate=lambda f: corners)
    uncalibrated.read(lay_over(np.random.default_rng(4), played, corners, "phone", centre=(4.0, 12.0),
                               size=(5.0, 4.0), angle=0.0)[0])
    assert uncalibrated.covered == ()


def _first_plays() -> tuple[list[str], list[str]]:
    one = [r if i != 7 else "...WINDY......." for i, r in enumerate(EMPTY)]
    two = [r if i != 6 else "..GALE........." for i, r in enumerate(one)]
    return one, two


@pytest.mark.parametrize("mirror", [False, True])
def test_the_first_play_s_tiles_say_which_way_round_a_table_s_board_lies(mirror: bool) -> None:
    # Calibrated on the empty board, whose pattern is the same all four ways and in a mirror, a
    # quarter turn out (the camera over the table's side); with ``mirror``, a camera that flips
    # its picture too. The first play's tiles, seen still in two frames, say how the board lies:
    # it is read the right way round from then on, and the calibration kept so.
    def seen(rows: list[str], n: int) -> tuple[np.ndarray, np.ndarray]:
        image, corners = frame(rows, n, effects=False)
        return mirror_image(image, corners) if mirror else (image, corners)  # as a finder finds it there

    one, two = _first_plays()
    empty, corners = seen(EMPTY, 0)
    tracker = Tracker(calibrate(empty, np.roll(corners, 1, axis=0), rotation=0, use_markers=False))
    told: list[str] = []
    reader = VisionReader(tracker=tracker, tell=told.append)
    assert reader.read(empty).grid == tuple(EMPTY)  # type: ignore[union-attr]
    reader.commit(EMPTY)
    image, _ = seen(one, 1)
    first = reader.read(image)
    assert first is not None and first.grid != tuple(one)  # one frame: perhaps an arm passing over
    again = reader.read(image)
    assert again is not None and again.grid == tuple(one)
    want = corners[[1, 0, 3, 2]] if mirror else corners
    assert np.abs(tracker.calibration.corners - want).max() < 1.0
    assert len(told) == 1 and ("mirror image" in told[0] if mirror else "lies otherwise" in told[0]), told
    reader.commit(one)
    image, _ = seen(two, 2)
    assert reader.read(image).grid == tuple(two)  # type: ignore[union-attr]


def test_a_table_s_turn_stands_where_the_first_tiles_are_in_doubt() -> None:
    # Calibrated three quarter turns out, NOON's tiles read as Z's sideways: they are in doubt of
    # the turn (Turn.in_doubt), and the turn the table was calibrated with stands.
    noon = [r if i != 7 else ".......NOON...." for i, r in enumerate(EMPTY)]
    empty, corners = frame(EMPTY, 0, effects=False)
    out = np.roll(corners, 3, axis=0)
    tracker = Tracker(calibrate(empty, out, rotation=0, use_markers=False))
    reader = VisionReader(tracker=tracker)
    reader.read(empty)
    reader.commit(EMPTY)
    image, _ = frame(noon, 1, effects=False)
    for _ in range(3):
        reader.read(image)
    assert not reader.turn_settled  # the next play's tiles are asked in turn
    assert np.array_equal(tracker.calibration.corners, out)
    # Not by chance: the tiles would turn it, were a turn in doubt taken.
    tiles = np.array([[t != "." for t in row] for row in reader.read(image).grid])  # type: ignore[union-attr]
    assert reader.reader.which_way_up(image, out, tiles).in_doubt
    assert not np.array_equal(reader.turn_by_the_tiles(image, out, tracker.calibration), out)


@pytest.mark.parametrize("mirror", [False, True])
def test_a_table_with_no_calibration_takes_the_first_play_s_word_for_which_way_round(mirror: bool) -> None:
    # No calibration: the board is found in every frame, its turn the last frame's, the first
    # frame's guessed (an empty board cannot say). The camera sees the board a quarter turn
    # round (and, with ``mirror``, flips its picture): the first play's tiles settle it.
    def seen(rows: list[str], n: int) -> np.ndarray:
        image = render_board(rows, seed=100 + n, hand=False, tilt=12.0, style=random_style(np.random.default_rng(5)),
                             pose_seed=5, effects=False, quarter_turns=1).image
        return np.ascontiguousarray(image[:, ::-1]) if mirror else image

    one, two = _first_plays()
    told: list[str] = []
    reader = VisionReader(tell=told.append)
    assert reader.read(seen(EMPTY, 0)) is not None
    reader.commit(EMPTY)
    image = seen(one, 1)
    assert reader.read(image).grid != tuple(one)  # type: ignore[union-attr]  # read the guessed way round
    assert reader.read(image).grid == tuple(one)  # type: ignore[union-attr]
    assert len(told) == 1 and ("mirror image" in told[0] if mirror else "lies otherwise" in told[0]), told
    reader.commit(one)
    for n in (2, 3):  # later frames keep the way round the tiles said
        assert reader.read(seen(two, n)).grid == tuple(two)  # type: ignore[union-attr]


def test_a_first_play_that_cannot_tell_a_mirror_leaves_it_to_the_next() -> None:
    # MAT reads alike in a mirror: the first play cannot say the camera flips its picture, and
    # the table does not settle on the turn alone (kept for good, it read whole games mirrored).
    # The next play's letters can, and from then on the board is read the right way round.
    def seen(rows: list[str], n: int) -> np.ndarray:
        image, _ = frame(rows, n, effects=False)
        return np.ascontiguousarray(image[:, ::-1])

    one = [r if i != 7 else "......MAT......" for i, r in enumerate(EMPTY)]
    two = [r if i != 8 else "......REFLECTS." for i, r in enumerate(one)]
    empty = seen(EMPTY, 0)
    found = mirror_image(*frame(EMPTY, 0, effects=False))[1]  # as a finder finds the grid there
    c = other_way_round(found)  # the board's own way round: A1 first
    tracker = Tracker(calibrate(empty, found, rotation=0, use_markers=False))
    reader = VisionReader(tracker=tracker)
    reader.read(empty)
    reader.commit(EMPTY)
    first = seen(one, 1)
    for _ in range(2):
        reader.read(first)
    assert not reader.turn_settled
    reader.commit(one)  # as the players let it stand
    second = seen(two, 2)
    reader.read(second)
    assert reader.read(second).grid == tuple(two)  # type: ignore[union-attr]
    assert reader.turn_settled and np.abs(tracker.calibration.corners - c).max() < 1.0  # A1 first: the mirror undone
