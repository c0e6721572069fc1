"""The journal, tested the hard way: the table process is killed (SIGKILL) at random points."""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from board_pi.rules.codec import event_from_dict
from board_pi.rules.game import Game
from board_pi.rules.judge import WordJudge
from board_pi.rules.lexicon import Lexicon
from board_pi.table.store import Journal
from board_pi.table.table import Table

ROOT = Path(__file__).resolve().parents[2]
CHILD = Path(__file__).with_name("journal_child.py")


def _rebuilt(journal: Journal) -> Game:
    stored = journal.unfinished() or journal.load(journal.games()[-1]["id"])
    g = Game(stored.players)
    for d in stored.events:
        if d["type"] == "undo":
            g.undo()
        else:
            g.append(event_from_dict(d))
    return g


def test_killed_at_random_points_loses_nothing_committed(tmp_path: Path, shared_data: Path) -> None:
    gcg = shared_data / "gcg" / "macondo" / "noah_vs_peter.gcg"
    db = tmp_path / "journal.db"
    rng = random.Random(20261121)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    committed = 0
    finished = False
    kills = 0
    for _ in range(60):
        child = subprocess.Popen([sys.executable, str(CHILD), str(db), str(gcg)], stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True, env=env)
        stop_after = rng.randint(1, 8)
        seen = 0
        assert child.stdout is not None
        for line in child.stdout:
            line = line.strip()
            if line == "done":
                finished = True
                break
            committed = max(committed, int(line))
            seen += 1
            if seen >= stop_after:
                time.sleep(rng.uniform(0, 0.01))  # somewhere in the middle of the next write
                child.send_signal(signal.SIGKILL)
                kills += 1
                break
        child.wait(timeout=60)
        # After each restart: the database is sound, nothing committed is lost, and the state a
        # table resumes equals the state rebuilt from the events committed so far.
        j = Journal(db)
        assert j.integrity_check() == "ok"
        rebuilt = _rebuilt(j)
        assert len(rebuilt.events) >= committed
        table = Table(j, WordJudge(Lexicon.from_words(["AA"], "t")))
        assert table.resume()
        assert table.game is not None
        s, r = table.game.state, rebuilt.state
        assert (s.board, s.scores, s.racks, s.bag, s.turn) == (r.board, r.scores, r.racks, r.bag, r.turn)
        j.close()
        if finished:
            break
    assert kills >= 3
    assert finished, "the game should finish within the restarts"
    final = _rebuilt(Journal(db))
    assert final.state.scores == [451, 407]  # noah_vs_peter before the end-of-game rack points


def test_an_unwritable_journal_is_a_clear_error(tmp_path: Path) -> None:
    from board_pi.table.store import JournalError

    bad = tmp_path / "not-a-db.db"
    bad.write_bytes(b"this is not an sqlite database" * 100)
    with pytest.raises(JournalError):
        Journal(bad)


def test_wal_and_full_sync(tmp_path: Path) -> None:
    j = Journal(tmp_path / "j.db")
    con = sqlite3.connect(tmp_path / "j.db")
    assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    con.close()
    # The sync is the journal's own connection's setting: FULL (2), every commit on the disk.
    assert j._db.execute("PRAGMA synchronous").fetchone()[0] == 2
    j.close()


def test_the_time_spent_writing_is_counted(tmp_path: Path) -> None:
    j = Journal(tmp_path / "j.db")
    assert j.write_seconds == 0.0
    game = j.new_game(["Ann", "Bob"], {})
    j.commit(game, [{"type": "pass", "player": 0}])
    after_one = j.write_seconds
    assert after_one > 0.0
    j.append(game, {"type": "pass", "player": 1})
    assert j.write_seconds > after_one
    j.close()
