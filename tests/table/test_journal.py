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
from board_pi.table.store import Journal, JournalError
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


def test_each_commit_is_synced_to_the_disk_behind_it(tmp_path: Path) -> None:
    j = Journal(tmp_path / "j.db")
    con = sqlite3.connect(tmp_path / "j.db")
    assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    con.close()
    game = j.new_game(["Ann", "Bob"], {})
    j.commit(game, [{"type": "pass", "player": 0}])
    j.append(game, {"type": "pass", "player": 1})
    assert j.written == 3
    assert j.sync(timeout=10)
    assert j.synced == 3
    j.close()


def test_a_commit_does_not_wait_for_the_disk(tmp_path: Path) -> None:
    """A card that stalls its syncs (held here by taking the syncing thread's lock) does not
    hold up a press: the commit is in the log at once, on the disk once the stall ends."""
    j = Journal(tmp_path / "j.db")
    game = j.new_game(["Ann", "Bob"], {})
    assert j.sync(timeout=10)
    with j._syncing:
        j.commit(game, [{"type": "pass", "player": 0}])
        assert j.load(game).events == [{"type": "pass", "player": 0}]
        assert not j.sync(timeout=0.2)
        assert j.synced < j.written
    assert j.sync(timeout=10)
    j.close()
    assert Journal(tmp_path / "j.db").load(game).events == [{"type": "pass", "player": 0}]


def test_the_syncing_thread_copies_the_log_into_the_database(tmp_path: Path) -> None:
    """Checkpoints are the syncing thread's too: until one, the database file holds only its
    header page and everything else is in the log."""
    j = Journal(tmp_path / "j.db")
    j.CHECKPOINT_EVERY = 3
    game = j.new_game(["Ann", "Bob"], {})
    assert j.sync(timeout=10)
    assert (tmp_path / "j.db").stat().st_size <= 4096
    for player in (0, 1):
        j.commit(game, [{"type": "pass", "player": player}])
        assert j.sync(timeout=10)
    assert (tmp_path / "j.db").stat().st_size > 4096
    con = sqlite3.connect(f"file:{tmp_path / 'j.db'}?mode=ro", uri=True)
    assert con.execute("SELECT COUNT(*) FROM events").fetchone()[0] == 2
    con.close()
    j.close()


def test_a_sync_the_disk_refused_is_told_at_the_next_commit(tmp_path: Path) -> None:
    j = Journal(tmp_path / "j.db")
    game = j.new_game(["Ann", "Bob"], {})
    assert j.sync(timeout=10)
    read, write = os.pipe()  # a pipe cannot be synced: fsync fails as on a failing card
    with j._syncing:
        assert j._log_fd is not None
        os.close(j._log_fd)
        j._log_fd = read
    j.commit(game, [{"type": "pass", "player": 0}])
    assert j.sync(timeout=10)
    with pytest.raises(JournalError, match="did not keep an earlier write"):
        j.commit(game, [{"type": "pass", "player": 1}])
    with j._syncing:
        j._log_fd = None  # the log opened anew at the next sync
    os.close(read)
    os.close(write)
    # Told once: the journal goes on, and nothing it took was lost.
    j.commit(game, [{"type": "pass", "player": 1}])
    assert j.sync(timeout=10)
    assert [e["player"] for e in j.load(game).events] == [0, 1]
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
