"""A journal that cannot be written (a full disk, a file made read-only under the table) never
leaves the game in memory different from the journal: every action is recorded whole or taken
back whole, the page is told, and the same action succeeds once the journal can be written.

The failures are the real SQLite's: ``PRAGMA query_only`` makes it refuse every write (as a
file turned read-only does), and ``PRAGMA max_page_count`` on a database filled to it gives
SQLITE_FULL, the error of a full disk.
"""

from __future__ import annotations

import sqlite3
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest

from board_pi.rules.board import Square
from board_pi.rules.game import ChallengeRule
from board_pi.rules.judge import WordJudge
from board_pi.table.store import Journal
from board_pi.table.table import NotRecorded, Table, TableError

from .test_table import Clock, lexicon, make, turn  # noqa: F401  (lexicon is a fixture)


@contextmanager
def refused(journal: Journal) -> Iterator[None]:
    """The journal's file refuses writes (as after a remount read-only) until the block ends."""
    journal._db.execute("PRAGMA query_only = ON")
    try:
        yield
    finally:
        journal._db.execute("PRAGMA query_only = OFF")


@contextmanager
def disk_full(journal: Journal) -> Iterator[None]:
    """No room left: the database may not grow by another page, and the pages it has are filled
    (other data took the disk), so any write that needs room fails with SQLITE_FULL, the error
    of a full disk. The room comes back when the block ends."""
    db = journal._db
    # Other data's rows, for games that are not the table's, to fill each table of the journal.
    db.execute("BEGIN")
    fillers = [int(db.execute("INSERT INTO games (created, players, rules, meta) VALUES (0, '[]', '{}', '')")
                   .lastrowid or 0) for _ in range(3000)]
    db.execute("COMMIT")
    pages = db.execute("PRAGMA page_count").fetchone()[0]
    db.execute(f"PRAGMA max_page_count = {pages + 2}")
    ids = iter(fillers)
    inserts = ("INSERT INTO games (created, players, rules, meta) VALUES (0, '[]', '{}', ?)",
               "INSERT INTO events (game_id, data, wall) VALUES ({}, ?, 0)",
               "INSERT INTO pending (game_id, data) VALUES ({}, ?)",
               "INSERT INTO clocks (game_id, state, wall) VALUES ({}, ?, 0)")
    for size in (3000, 700, 150, 30, 6, 1):
        for sql in inserts:
            try:
                for _ in range(1000):
                    cur = db.execute(sql.format(next(ids)), ("x" * size,))
                    if sql.startswith("INSERT INTO games"):
                        fillers.append(int(cur.lastrowid or 0))
            except sqlite3.OperationalError as e:
                assert "full" in str(e)
    try:
        yield
    finally:
        for table in ("events", "pending", "clocks", "games"):
            db.execute(f"DELETE FROM {table} WHERE {'id' if table == 'games' else 'game_id'} IN "
                       f"({','.join(map(str, fillers))})")
        db.execute("PRAGMA max_page_count = 1073741823")


def state(table: Table) -> dict[str, Any]:
    """What the page shows, but for its messages (the failure adds one)."""
    snap = table.snapshot()
    del snap["messages"]
    return snap


def journaled(table: Table) -> dict[str, Any]:
    """What the page shows of what a journal keeps (a verdict's lights and the tiles still to be
    taken back are not kept: a restart does not show them again)."""
    snap = state(table)
    del snap["verdict"], snap["removal"]
    return snap


def replayed(table: Table, tmp_path: Path, lexicon) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    """The state a table restarted on the same journal resumes (as `board-pi run` would)."""
    journal = Journal(table.journal.path)
    other = Table(journal, WordJudge(lexicon), time_source=table.now, wall_time=table.wall)
    if not other.resume():  # the game has finished
        other._load(journal.load(journal.games()[-1]["id"]))
    snap = journaled(other)
    journal.close()
    return snap


def ready(tmp_path: Path, lexicon, rule: ChallengeRule = ChallengeRule.SINGLE):  # type: ignore[no-untyped-def]
    table, cam, clock = make(tmp_path, lexicon, rule)
    turn(table, cam, clock, 0, "8D WINDY")
    turn(table, cam, clock, 1, "7C GALE")
    clock.t += 12
    return table, cam, clock


# Each action as the director, the page or a player does it; run with the journal refusing it.
ACTIONS: dict[str, Callable[[Table, Any, Clock], Any]] = {
    "undo": lambda t, cam, clock: t.undo(),
    "a press (the clock switches, a pass)": lambda t, cam, clock: t.press(0),
    "a press with a play": lambda t, cam, clock: (cam.board.__setitem__(Square.parse("H7"), "A"), t.press(0)),
    "challenge": lambda t, cam, clock: t.challenge(0),
    "adjust": lambda t, cam, clock: t.adjust(1, 5, "scoring slip"),
    "time penalty": lambda t, cam, clock: t.time_penalty(0, 10),
    "pause": lambda t, cam, clock: t.pause(),
    "hold": lambda t, cam, clock: t.hold(0),
    "enter a play": lambda t, cam, clock: t.enter_play(0, "H7 A."),
    "correct the last play": lambda t, cam, clock: t.correct_last_play("7C GAL"),
    "exchange": lambda t, cam, clock: t.press(0, exchange=True, exchange_count=3),
    "end the game": lambda t, cam, clock: t.end_game(),
}


PRESSES = ("a press (the clock switches, a pass)", "a press with a play")


@pytest.mark.parametrize("failure, name", [
    pytest.param(failure, name, id=f"{failure.__name__}-{name}")
    for failure in (refused, disk_full) for name in sorted(ACTIONS)
    # A pause only rewrites the clock's row, in place: a full disk still takes it (below), and so
    # it takes a press's switch (a press on a full disk: below).
    if (failure, name) not in ((disk_full, "pause"), *((disk_full, p) for p in PRESSES))])
def test_an_action_the_journal_cannot_take_changes_nothing(tmp_path: Path, lexicon, name: str,  # type: ignore[no-untyped-def]
                                                             failure) -> None:
    table, cam, clock = ready(tmp_path, lexicon)
    before = state(table)
    seen = table.bus.last_seq
    with failure(table.journal):
        with pytest.raises(NotRecorded, match="not recorded, nothing changed"):
            ACTIONS[name](table, cam, clock)
    # Memory is what the journal holds: what the page shows, and what a restart resumes.
    assert state(table) == before
    assert replayed(table, tmp_path, lexicon) == journaled(table)
    # The page was told, and told nothing of an action that did not happen.
    events, _ = table.bus.since(seen)
    assert [e.type for e in events] == ["message", "state"]
    assert "not recorded" in events[0].data["text"]
    # Once the journal can be written, the same action works, once.
    ACTIONS[name](table, cam, clock)
    assert state(table) != before
    assert replayed(table, tmp_path, lexicon) == journaled(table)


def test_an_undo_on_a_full_disk_is_not_a_restart_loop(tmp_path: Path, lexicon) -> None:  # type: ignore[no-untyped-def]
    # The story: the undo fails, the director enters the play again, and the journal
    # then held it twice, so every start failed with "it is Ben's turn".
    table, cam, clock = ready(tmp_path, lexicon)
    with refused(table.journal):
        with pytest.raises(NotRecorded):
            table.undo()
    assert [m["text"] for m in table.snapshot()["moves"]] == ["8D WINDY", "7C GALE"]  # not undone
    with pytest.raises(TableError):
        table.enter_play(1, "7C GALE")  # the page shows it is Ann's turn: nothing to re-enter
    assert table.undo() == "play"
    table.enter_play(1, "7C GALE")
    again = Table(Journal(table.journal.path), WordJudge(lexicon))
    assert again.resume()
    assert again.game is not None and [m.text for m in again.game.state.moves] == ["8D WINDY", "7C GALE"]


def test_confirming_a_reading_the_journal_cannot_take(tmp_path: Path, lexicon) -> None:  # type: ignore[no-untyped-def]
    table, cam, clock = ready(tmp_path, lexicon)
    cam.doubt = {Square.parse("H7")}
    r = turn(table, cam, clock, 0, "H7 A.")
    assert r.outcome == "pending"
    before = state(table)
    with refused(table.journal):
        with pytest.raises(NotRecorded):
            table.confirm()
    assert state(table) == before and replayed(table, tmp_path, lexicon) == journaled(table)
    assert table.confirm().outcome == "play"
    assert replayed(table, tmp_path, lexicon) == journaled(table)


def test_a_flag_the_journal_cannot_take_is_tried_again(tmp_path: Path, lexicon) -> None:  # type: ignore[no-untyped-def]
    table, cam, clock = make(tmp_path, lexicon, minutes=1)
    clock.t += 60 + 10 * 60 + 1  # Ann is past the overtime limit
    with refused(table.journal):
        table.tick()  # the main loop's tick: it must not raise
        table.tick()
        assert not table.snapshot()["over"]
        assert sum("not recorded" in m for m in table.snapshot()["messages"]) == 1  # said once
    table.tick()
    assert table.snapshot()["over"]
    assert replayed(table, tmp_path, lexicon)["over"]


def test_a_new_game_the_journal_cannot_take_is_not_started(tmp_path: Path, lexicon) -> None:  # type: ignore[no-untyped-def]
    table, cam, clock = ready(tmp_path, lexicon)
    game_id = table.game_id
    with refused(table.journal):
        with pytest.raises(NotRecorded):
            table.new_game(["Cy", "Di"])
    assert table.game_id == game_id and table.game is not None and table.game.players == ["Ann", "Bob"]


def test_a_pause_on_a_full_disk_is_recorded_in_place(tmp_path: Path, lexicon) -> None:  # type: ignore[no-untyped-def]
    table, cam, clock = ready(tmp_path, lexicon)
    with disk_full(table.journal):
        table.pause()
    assert replayed(table, tmp_path, lexicon) == journaled(table)
    assert table.snapshot()["clock"]["phase"] == "paused"


@pytest.mark.parametrize("name", PRESSES)
def test_a_press_on_a_full_disk_switches_the_clock_and_says_the_turn_was_not_recorded(  # type: ignore[no-untyped-def]
        tmp_path: Path, lexicon, name: str) -> None:
    """The clock switches at the press, before the board is read, and a full disk takes that (it
    rewrites the clock's row in place, as a pause does); the turn read afterwards needs new rows,
    which it refuses. The turn is taken back whole, the page says so, and memory is still what the
    journal holds."""
    table, cam, clock = ready(tmp_path, lexicon)
    moves = table.snapshot()["moves"]
    with disk_full(table.journal), pytest.raises(NotRecorded, match="the clock switched, but the turn"):
        ACTIONS[name](table, cam, clock)
    assert table.snapshot()["moves"] == moves and table.pending is None
    assert table.clock is not None and table.clock.running == 1  # the press stood
    assert replayed(table, tmp_path, lexicon) == journaled(table)
    assert any("enter the turn on the page" in m for m in table.messages)
