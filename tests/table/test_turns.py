"""The table's hardest paths: the still-board wait giving up, a press read with no lock held while
the clock's buttons are answered, a pending play discarded, a journal failure taken back whole.

Time is the table's injected clock throughout (nothing sleeps past a guard); a slow reading is a
camera that waits until the test lets it see.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from board_pi.clock import TimeControl
from board_pi.hardware.events import ClockEvent
from board_pi.rules.board import Square
from board_pi.rules.game import ChallengeRule, GameRules
from board_pi.rules.judge import WordJudge
from board_pi.table.kinds import Outcome, PendingKind
from board_pi.table.store import Journal
from board_pi.table.table import NotRecorded, Settings, Table, TableError
from board_pi.table.turns import TurnReader

from .test_journal_failures import journaled, refused, replayed
from .test_table import BoardCamera, Clock, RowsReader, lexicon, make, turn  # noqa: F401  (lexicon: a fixture)


class ShakyCamera(BoardCamera):
    """A hand over the board: every frame shows one more tile, so no two readings agree."""

    def __init__(self) -> None:
        super().__init__()
        self.frames = 0

    def read(self) -> list[str]:
        self.frames += 1
        rows = self.board.rows()
        row = list(rows[0])
        row[self.frames % 15] = "E"
        rows[0] = "".join(row)
        return rows


class FrameClock:
    """The camera's own time: each frame it takes is ``per_frame`` seconds of it."""

    def __init__(self, camera: ShakyCamera, per_frame: float) -> None:
        self.camera, self.per_frame = camera, per_frame

    def __call__(self) -> float:
        return self.camera.frames * self.per_frame


def test_the_still_board_wait_gives_up_after_its_frames_and_says_why() -> None:
    cam = ShakyCamera()
    reader = TurnReader(cam, RowsReader(cam), Settings(settle_max_frames=5, settle_seconds=1e9),
                        time_source=FrameClock(cam, 0.1))
    settled = reader.settle(lambda reading: reading.grid)
    assert settled.reading is None and cam.frames == 5
    assert settled.why == "the board did not keep still: waited and gave up; press again or enter the play on the page"


def test_the_still_board_wait_gives_up_after_its_seconds_of_camera_time() -> None:
    cam = ShakyCamera()
    reader = TurnReader(cam, RowsReader(cam), Settings(settle_max_frames=100, settle_seconds=2.0),
                        time_source=FrameClock(cam, 0.5))
    assert reader.settle(lambda reading: reading.grid).reading is None
    assert cam.frames == 5  # 2 s of a camera at 2 frames a second, and the frame that passed them


def test_a_board_that_keeps_still_is_read_at_the_second_agreeing_frame() -> None:
    cam = BoardCamera()
    cam.lay("8D WINDY")
    frames = []
    reader = TurnReader(cam, RowsReader(cam), Settings(settle_frames=3))
    settled = reader.settle(lambda reading: frames.append(1) or reading.grid)
    assert settled.reading is not None and settled.reading.grid[7] == "...WINDY......."
    assert len(frames) == 3


def test_a_board_with_something_lying_over_it_does_not_count_as_still(tmp_path: Path, lexicon) -> None:  # type: ignore[no-untyped-def]
    # The table's reader names the squares whose lines are gone since the last commit (a sheet,
    # a phone, a hand resting: VisionReader.covered). A play may lie unseen under them, so the
    # board is not taken as still while they are there, and the players are told what to do.
    table, cam, clock = make(tmp_path, lexicon)
    reader = table.turns.reader
    reader.covered = ((2, 3), (2, 4), (2, 5))
    cam.lay("8D WINDY")
    clock.t += 30
    r = table.press(0)
    assert r.outcome is Outcome.PENDING and table.pending is not None and table.pending.kind is PendingKind.REREAD
    assert r.message.startswith("something lies over 3 squares (D3, E3, F3): take it off the board"), r.message
    # The players enter the play on the page (or press again once the board is clear).
    assert table.confirm({"D8": "W", "E8": "I", "F8": "N", "G8": "D", "H8": "Y"}).outcome is Outcome.PLAY
    assert table.snapshot()["moves"][-1]["text"] == "8D WINDY"


def test_a_press_that_never_sees_a_still_board_asks_for_the_play(tmp_path: Path, lexicon) -> None:  # type: ignore[no-untyped-def]
    cam = ShakyCamera()
    clock = Clock()
    table = Table(Journal(tmp_path / "j.db"), WordJudge(lexicon), camera=cam, reader=RowsReader(cam),
                  settings=Settings(settle_max_frames=4), time_source=clock, camera_time=FrameClock(cam, 0.1))
    table.new_game(["Ann", "Bob"], GameRules(), TimeControl())
    table.press(1)
    clock.t += 30
    r = table.press(0)
    assert r.outcome is Outcome.PENDING and "did not keep still" in r.message
    assert table.pending is not None and table.pending.kind is PendingKind.REREAD
    assert table.clock is not None and table.clock.running == 1  # the clock switched all the same
    # The players enter the play on the page instead; the reading waits no more.
    assert table.confirm({"H8": "A", "H9": "T"}).outcome is Outcome.PLAY
    assert table.pending is None and table.snapshot()["moves"][-1]["text"] == "H8 AT"


def test_a_discarded_pending_play_leaves_the_game_as_it_was_and_stays_discarded(tmp_path: Path, lexicon) -> None:  # type: ignore[no-untyped-def]
    table, cam, clock = make(tmp_path, lexicon)
    cam.doubt = {Square.parse("F8")}
    r = turn(table, cam, clock, 0, "8D WINDY")
    assert r.outcome is Outcome.PENDING and table.pending is not None
    assert table.pending.kind is PendingKind.READING and table.pending.doubtful == ["F8"]
    before = table.snapshot()
    table.discard_pending()
    after = table.snapshot()
    assert after["pending"] is None and after["moves"] == before["moves"] == []
    assert after["clock"]["running"] == 1  # Bob's time runs: Ann's press stands
    with pytest.raises(TableError, match="nothing is waiting"):
        table.discard_pending()
    assert replayed(table, tmp_path, lexicon)["pending"] is None  # the journal has it discarded
    assert table.enter_play(0, "8D WINDY").outcome is Outcome.PLAY


def test_a_play_the_journal_refuses_is_taken_back_whole(tmp_path: Path, lexicon) -> None:  # type: ignore[no-untyped-def]
    table, cam, clock = make(tmp_path, lexicon)
    turn(table, cam, clock, 0, "8D WINDY")
    clock.t += 20
    before = journaled(table)
    events = list(table.game.events) if table.game else []
    with refused(table.journal), pytest.raises(NotRecorded):
        table.enter_play(1, "7C GALE")
    assert table.game is not None and table.game.events == events  # cut back (Game.truncate)
    assert journaled(table) == before == replayed(table, tmp_path, lexicon)
    assert table.enter_play(1, "7C GALE").outcome is Outcome.PLAY  # the same play, once it can be kept


class GatedCamera(BoardCamera):
    """A camera that shows nothing until the test opens the gate: a reading that takes long."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = threading.Event()
        self.waiting = threading.Event()

    def read(self) -> list[str]:
        self.waiting.set()
        assert self.gate.wait(30), "the test never opened the gate"
        return self.board.rows()


@pytest.fixture
def slow_table(tmp_path: Path, lexicon):  # type: ignore[no-untyped-def]
    cam = GatedCamera()
    clock = Clock()
    table = Table(Journal(tmp_path / "j.db"), WordJudge(lexicon), camera=cam, reader=RowsReader(cam),
                  time_source=clock)
    table.new_game(["Ann", "Bob"], GameRules(challenge=ChallengeRule.SINGLE), TimeControl())
    table.handle(ClockEvent("press", 1, clock.t, "test"))  # Bob starts Ann's clock
    assert table.wait_idle(10)
    yield table, cam, clock
    cam.gate.set()
    table.wait_idle(10)
    table.close()
    table.journal.close()


def test_a_hold_pressed_during_a_slow_reading_is_taken_at_once(slow_table) -> None:  # type: ignore[no-untyped-def]
    table, cam, clock = slow_table
    clock.t += 30
    cam.lay("8D WINDY")
    table.handle(ClockEvent("press", 0, clock.t, "test"))  # returns at once: the event is queued
    assert cam.waiting.wait(10)  # the board is being read, and stays so until the gate opens
    assert table.clock is not None and table.clock.running == 1  # the clock switched at the press
    clock.t += 3
    table.handle(ClockEvent("hold", None, clock.t, "test"))
    assert table._buttons.join(10)  # the hold is taken while the reading still waits
    assert not cam.gate.is_set()
    assert table.snapshot()["clock"]["hold"] == {"by": 1, "of": 0}
    assert table.snapshot()["moves"] == []  # the play is not known yet
    cam.gate.set()
    assert table.wait_idle(10)
    assert [m["text"] for m in table.snapshot()["moves"]] == ["8D WINDY"]
    assert table.snapshot()["clock"]["hold"] == {"by": 1, "of": 0}  # the hold stands on the play read


def test_a_pause_pressed_during_a_slow_reading_stops_the_clock_at_once(slow_table) -> None:  # type: ignore[no-untyped-def]
    table, cam, clock = slow_table
    clock.t += 30
    cam.lay("8D WINDY")
    table.handle(ClockEvent("press", 0, clock.t, "test"))
    assert cam.waiting.wait(10)
    table.handle(ClockEvent("pause", None, clock.t, "test"))
    assert table._buttons.join(10) and not cam.gate.is_set()
    assert table.clock is not None and table.clock.phase == "paused"
    cam.gate.set()
    assert table.wait_idle(10)
    assert [m["text"] for m in table.snapshot()["moves"]] == ["8D WINDY"]
    assert table.clock.phase == "paused"


def test_a_challenge_pressed_during_a_slow_reading_stops_the_clocks_and_judges_the_play_read(slow_table) -> None:  # type: ignore[no-untyped-def]
    table, cam, clock = slow_table
    clock.t += 30
    cam.lay("8E ZQXJ")
    table.handle(ClockEvent("press", 0, clock.t, "test"))
    assert cam.waiting.wait(10)
    clock.t += 2
    table.handle(ClockEvent("challenge", None, clock.t, "test"))
    assert table._buttons.join(10) and not cam.gate.is_set()
    assert table.clock is not None and table.clock.phase == "challenge"  # both clocks stopped now
    used = table.snapshot()["players"][1]["clock"]["remaining_ms"]
    clock.t += 60  # the reading is slow: nobody's time runs meanwhile
    cam.gate.set()
    assert table.wait_idle(10)
    snap = table.snapshot()
    assert snap["verdict"]["acceptable"] is False
    assert [p["score"] for p in snap["players"]] == [0, 0]  # the phony came off
    assert snap["players"][1]["clock"]["remaining_ms"] == used
    assert snap["clock"]["running"] == 1  # the challenger's turn


def test_a_press_during_a_reading_is_refused_and_the_page_cannot_challenge_yet(slow_table) -> None:  # type: ignore[no-untyped-def]
    table, cam, clock = slow_table
    clock.t += 30
    cam.lay("8D WINDY")
    table.handle(ClockEvent("press", 0, clock.t, "test"))
    assert cam.waiting.wait(10)
    clock.t += 5
    r = table.press(1)  # Bob, whose clock now runs, presses before the play shows
    assert r.outcome is Outcome.IGNORED and "being read" in r.message
    with pytest.raises(TableError, match="being read"):
        table.challenge(1)
    cam.gate.set()
    assert table.wait_idle(10)
    assert [m["text"] for m in table.snapshot()["moves"]] == ["8D WINDY"]


def test_a_game_changed_during_the_reading_takes_nothing_from_it(slow_table) -> None:  # type: ignore[no-untyped-def]
    table, cam, clock = slow_table
    clock.t += 30
    cam.lay("8D WINDY")
    table.handle(ClockEvent("press", 0, clock.t, "test"))
    assert cam.waiting.wait(10)
    table.enter_play(0, "8H WIND")  # the page enters the play meanwhile
    cam.gate.set()
    assert table.wait_idle(10)
    assert [m["text"] for m in table.snapshot()["moves"]] == ["8H WIND"]
    assert any("changed while the board was read" in m for m in table.messages)


def test_a_camera_fault_during_a_reading_asks_for_the_play(tmp_path: Path, lexicon) -> None:  # type: ignore[no-untyped-def]
    class Broken(BoardCamera):
        def read(self) -> Any:
            raise OSError(5, "Input/output error")

    cam = Broken()
    table = Table(Journal(tmp_path / "j.db"), WordJudge(lexicon), camera=cam, reader=RowsReader(cam),
                  time_source=Clock())
    table.new_game(["Ann", "Bob"], GameRules(), TimeControl(press_guard_seconds=0))
    table.press(1)
    r = table.press(0)
    assert r.outcome is Outcome.PENDING and "OSError" in r.message
    assert table.pending is not None and table.pending.kind is PendingKind.REREAD
    assert any("OSError" in m for m in table.messages)


def test_pending_kinds_are_checked_when_a_journal_is_read() -> None:
    from board_pi.table.kinds import Pending

    assert Pending.from_dict({"kind": "blank", "player": 0, "message": ""}).kind is PendingKind.BLANK
    with pytest.raises(ValueError):
        Pending.from_dict({"kind": "guess", "player": 0, "message": ""})


def test_game_truncate_keeps_the_first_events(lexicon) -> None:  # type: ignore[no-untyped-def]
    from board_pi.rules.game import Game, IllegalEvent

    g = Game(["Ann", "Bob"])
    g.play(0, "8D WINDY")
    g.pass_turn(1)
    g.truncate(1)
    assert len(g.events) == 1 and g.state.turn == 1 and g.state.scores == [32, 0]
    with pytest.raises(IllegalEvent):
        g.truncate(2)


def test_a_turn_whose_board_was_not_read_when_the_table_stopped_waits_on_the_page(slow_table, tmp_path: Path, lexicon) -> None:  # type: ignore[no-untyped-def]
    table, cam, clock = slow_table
    clock.t += 30
    cam.lay("8D WINDY")
    table.handle(ClockEvent("press", 0, clock.t, "test"))
    assert cam.waiting.wait(10)  # the clock has switched; the board is still being read
    assert table.snapshot()["pending"] is None  # while the table runs, nothing waits on the page
    # The table stops here (power cut): another one starts on the same journal.
    again = Table(Journal(tmp_path / "j.db"), WordJudge(lexicon), time_source=clock)
    try:
        assert again.resume()
        assert again.clock is not None and again.clock.running == 1  # the switch was kept
        assert again.pending is not None and again.pending.kind is PendingKind.REREAD
        assert again.pending.player == 0 and "stopped before this turn's board was read" in again.pending.message
        assert again.press(1).outcome is Outcome.IGNORED  # the turn is settled first
        assert again.confirm({"D8": "W", "E8": "I", "F8": "N", "G8": "D", "H8": "Y"}).outcome is Outcome.PLAY
        assert [m["text"] for m in again.snapshot()["moves"]] == ["8D WINDY"]
    finally:
        again.close()
        again.journal.close()
    cam.gate.set()


def test_a_turn_read_in_time_leaves_nothing_waiting_in_the_journal(slow_table, tmp_path: Path, lexicon) -> None:  # type: ignore[no-untyped-def]
    table, cam, clock = slow_table
    clock.t += 30
    cam.lay("8D WINDY")
    table.handle(ClockEvent("press", 0, clock.t, "test"))
    cam.gate.set()
    assert table.wait_idle(10)
    again = Table(Journal(tmp_path / "j.db"), WordJudge(lexicon), time_source=clock)
    try:
        assert again.resume() and again.pending is None
        assert [m["text"] for m in again.snapshot()["moves"]] == ["8D WINDY"]
    finally:
        again.close()
        again.journal.close()


def test_a_reading_confirmed_on_the_page_takes_two_letter_tiles(tmp_path: Path, lexicon) -> None:  # type: ignore[no-untyped-def]
    from board_pi.rules.tiles import SPANISH
    from board_pi.table.kinds import Pending

    clock = Clock()
    table = Table(Journal(tmp_path / "j.db"), WordJudge(lexicon), time_source=clock)
    try:
        table.new_game(["Ana", "Bea"], GameRules(tiles=SPANISH), TimeControl())
        table.press(1)
        clock.t += 20
        # As a press that saw no still board leaves it: the players say what was played.
        table.pending = Pending(PendingKind.REREAD, 0, "no still board")
        with pytest.raises(TableError, match="tile of the game's set"):
            table.confirm({"H8": "K"})  # no K in the Spanish set
        r = table.confirm({"H8": "CH", "I8": "E"})
        assert r.outcome is Outcome.PLAY and r.score == (5 + 1) * 2  # CH 5, E 1, on the centre star
    finally:
        table.close()
        table.journal.close()
