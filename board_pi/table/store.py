"""The journal: every event of a game appended to SQLite before it is shown.

The database runs in write-ahead-log mode. A commit returns once its transaction is in the log
(a crash of the program loses nothing), and one thread syncs the log to the disk straight after
(:meth:`Journal.sync` waits for it), so a press never waits on the disk: an SD card can stall a
sync for a second. A power cut loses at most what was not yet synced, a few milliseconds'
worth, and the log stays whole either way (SQLite's write-ahead log with ``synchronous=NORMAL``).
An unfinished game resumes exactly where it was: its board, scores and rack counts from the
game events, its clocks from the last saved clock state.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..worker import Worker

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    created REAL NOT NULL,
    players TEXT NOT NULL,
    rules TEXT NOT NULL,
    meta TEXT NOT NULL DEFAULT '{}',
    finished REAL
);
CREATE TABLE IF NOT EXISTS events (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    game_id INTEGER NOT NULL REFERENCES games(id),
    data TEXT NOT NULL,
    wall REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS events_by_game ON events(game_id, seq);
CREATE TABLE IF NOT EXISTS clocks (
    game_id INTEGER PRIMARY KEY REFERENCES games(id),
    state TEXT NOT NULL,
    wall REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS pending (
    game_id INTEGER PRIMARY KEY REFERENCES games(id),
    data TEXT NOT NULL
);
"""


class JournalError(RuntimeError):
    """The journal cannot be opened or written (disk full, damaged file)."""


class JournalDamaged(JournalError):
    """The file is there but is not a sound journal (truncated, garbage, not a database): it can
    be set aside and a clean journal started, nothing else can read it anyway."""


class JournalUnwritable(JournalError):
    """The journal cannot be written where it is (a directory, a read-only file or folder): the
    director must fix the path or the permissions; setting it aside would not help."""


# What SQLite says about a file that is not a sound database, as opposed to one it may not write.
_DAMAGED = ("not a database", "malformed", "file is encrypted", "corrupt")


def _kind(e: sqlite3.Error) -> type[JournalError]:
    text = str(e).lower()
    if any(d in text for d in _DAMAGED):
        return JournalDamaged
    return JournalUnwritable


def _sync_folder(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class Keep:
    """Marks "leave it as it is" where None means "clear it"."""


KEEP = Keep()


@dataclass(frozen=True)
class StoredGame:
    id: int
    created: float
    players: list[str]
    rules: dict[str, Any]
    meta: dict[str, Any]
    events: list[dict[str, Any]]
    clock: dict[str, Any] | None
    pending: dict[str, Any] | None
    finished: float | None


@dataclass(frozen=True)
class JournalEntry:
    """One recorded event with its place in the journal (``seq`` grows by one per event)."""

    seq: int
    game_id: int
    event: dict[str, Any]
    wall: float


# The one thread that syncs the journals' logs to the disk, each as soon as it is asked.
_SYNCER = Worker(lambda journal: journal._sync_now(), "journal sync")


class Journal:
    """An SQLite journal of games; one writer (the table), safe to use from several threads."""

    CHECKPOINT_EVERY = 200
    """Syncs between two checkpoints (the log copied into the database, by the syncing thread,
    so that no press waits for one either)."""
    CHECKPOINT_BACKSTOP = 10_000
    """Pages of log after which a commit checkpoints itself, should the syncing thread's
    checkpoints fail: the log cannot grow without end."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        # Commits written to the log, and how many of them are synced to the disk (the syncing
        # thread's, under _syncing); a sync that failed is told at the next commit.
        self._synced = threading.Condition()
        self.written = self.synced = 0
        self._sync_failed: str | None = None
        self._syncing = threading.Lock()
        self._log_fd: int | None = None
        self._checkpointer: sqlite3.Connection | None = None
        self._since_checkpoint = 0
        self._closed = False
        self.longest_sync = 0.0
        """Seconds the slowest sync of the log took: how long a power cut could have taken back
        a commit already shown."""
        # Seconds spent writing transactions so far: each waits until the disk has them (its
        # writes and the sync, either of which a slow or busy card can stall); the benchmarks
        # report it apart.
        self.write_seconds = 0.0
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise JournalUnwritable(f"cannot open the journal {self.path}: {e.strerror or e}") from None
        if self.path.is_dir():
            raise JournalUnwritable(f"cannot open the journal {self.path}: it is a directory")
        db = None
        try:
            db = sqlite3.connect(str(self.path), check_same_thread=False, isolation_level=None)
            mode = db.execute("PRAGMA journal_mode=WAL").fetchone()[0]
            db.execute("PRAGMA synchronous=NORMAL")  # the log is synced by _SYNCER, not by the commit
            db.execute(f"PRAGMA wal_autocheckpoint={self.CHECKPOINT_BACKSTOP}")
            db.execute("PRAGMA foreign_keys=ON")
            db.executescript(SCHEMA)
            # A damaged page may only show when read: check the whole file once, at the start.
            check = db.execute("PRAGMA quick_check").fetchone()[0]
            if check != "ok":
                raise JournalDamaged(f"the journal {self.path} is damaged: {check}")
            # A read-only file opens and reads; find out now, not at the first play.
            db.execute("BEGIN IMMEDIATE")
            db.execute("ROLLBACK")
        except sqlite3.Error as e:
            if db is not None:
                db.close()
            raise _kind(e)(f"cannot open the journal {self.path}: {e}") from None
        except JournalError:
            if db is not None:
                db.close()
            raise
        self._db = db
        # An in-memory journal (tests, examples) has no log and nothing to sync.
        self._log = Path(f"{self.path}-wal") if mode == "wal" else None

    def close(self) -> None:
        """Close the journal once everything written is on the disk."""
        self.sync()
        with self._syncing:
            self._closed = True
            if self._log_fd is not None:
                os.close(self._log_fd)
                self._log_fd = None
            if self._checkpointer is not None:
                self._checkpointer.close()
                self._checkpointer = None
        with self._lock:
            self._db.close()

    def sync(self, timeout: float | None = None) -> bool:
        """Wait until every commit so far is on the disk; False if ``timeout`` seconds pass first."""
        with self._synced:
            target = self.written
            return self._synced.wait_for(lambda: self.synced >= target or self._closed, timeout)

    def _written(self) -> None:
        """A commit is in the log: the syncing thread is asked to put it on the disk."""
        with self._synced:
            self.written += 1
        if self._log is not None:
            _SYNCER.put(self)
        else:
            with self._synced:
                self.synced = self.written
                self._synced.notify_all()

    def _sync_now(self) -> None:
        """Sync the log to the disk (the syncing thread), and now and then checkpoint it."""
        with self._syncing:
            with self._synced:
                target = self.written
            if self.synced >= target or self._closed:
                return
            failed = None
            try:
                if self._log_fd is None:
                    self._log_fd = os.open(self._log, os.O_RDONLY)
                    _sync_folder(self._log.parent)  # the log's name, made when it was first written
                t = time.perf_counter()
                os.fsync(self._log_fd)
                self.longest_sync = max(self.longest_sync, time.perf_counter() - t)
                self._since_checkpoint += 1
                if self._since_checkpoint >= self.CHECKPOINT_EVERY:
                    self._checkpoint()
            except (OSError, sqlite3.Error) as e:
                failed = getattr(e, "strerror", None) or str(e)
            with self._synced:
                self.synced = max(self.synced, target)
                if failed is not None:
                    self._sync_failed = failed
                self._synced.notify_all()

    def _checkpoint(self) -> None:
        """Copy the log into the database on the syncing thread's own connection; a passive
        checkpoint waits for no one, and the table's commits go on meanwhile."""
        if self._checkpointer is None:
            self._checkpointer = sqlite3.connect(str(self.path), check_same_thread=False, isolation_level=None)
            self._checkpointer.execute("PRAGMA synchronous=FULL")
        self._checkpointer.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
        self._since_checkpoint = 0

    def _check_synced(self) -> None:
        """A sync that failed since the last commit is told now, once (a failing card)."""
        with self._synced:
            failed, self._sync_failed = self._sync_failed, None
        if failed is not None:
            raise JournalUnwritable(f"cannot write the journal {self.path}: the disk did not keep an earlier "
                                    f"write ({failed}); check the card (`board-pi doctor`)")

    def _write(self, sql: str, args: tuple[Any, ...]) -> int:
        return self._transaction([(sql, args)])

    def _transaction(self, statements: list[tuple[str, tuple[Any, ...]]]) -> int:
        """Run ``statements`` as one transaction: all of them reach the disk, or none does.
        Returns the last inserted row id."""
        self._check_synced()
        with self._lock:
            t = time.perf_counter()
            try:
                self._db.execute("BEGIN IMMEDIATE")
                last = 0
                for sql, args in statements:
                    cur = self._db.execute(sql, args)
                    last = int(cur.lastrowid or 0) or last
                self._db.execute("COMMIT")
                self._written()
                return last
            except sqlite3.Error as e:
                try:
                    self._db.execute("ROLLBACK")
                except sqlite3.Error:
                    pass
                raise JournalError(f"cannot write the journal {self.path}: {e}") from None
            finally:
                self.write_seconds += time.perf_counter() - t

    def new_game(self, players: list[str], rules: dict[str, Any], meta: dict[str, Any] | None = None,
                 clock: dict[str, Any] | None = None) -> int:
        """A new game, with its clock's state when given (both or neither are written)."""
        self._check_synced()
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
                cur = self._db.execute("INSERT INTO games (created, players, rules, meta) VALUES (?, ?, ?, ?)",
                                       (time.time(), json.dumps(players), json.dumps(rules),
                                        json.dumps(meta or {})))
                game_id = int(cur.lastrowid or 0)
                if clock is not None:
                    self._db.execute("INSERT INTO clocks (game_id, state, wall) VALUES (?, ?, ?)",
                                     (game_id, json.dumps(clock), time.time()))
                self._db.execute("COMMIT")
                self._written()
                return game_id
            except sqlite3.Error as e:
                try:
                    self._db.execute("ROLLBACK")
                except sqlite3.Error:
                    pass
                raise JournalError(f"cannot write the journal {self.path}: {e}") from None

    def commit(self, game_id: int, events: list[dict[str, Any]], *, clock: dict[str, Any] | None = None,
               pending: dict[str, Any] | None | Keep = KEEP, finished: bool = False) -> None:
        """One action of the table, whole: its events in order, the clock's state (when given),
        what waits on the page (``KEEP`` leaves it as it is, None clears it), and the end of the
        game. On any failure nothing of it is written (JournalError)."""
        now = time.time()
        statements: list[tuple[str, tuple[Any, ...]]] = [
            ("INSERT INTO events (game_id, data, wall) VALUES (?, ?, ?)", (game_id, json.dumps(e), now))
            for e in events]
        if clock is not None:
            statements.append(("INSERT INTO clocks (game_id, state, wall) VALUES (?, ?, ?) ON CONFLICT(game_id) "
                               "DO UPDATE SET state = excluded.state, wall = excluded.wall",
                               (game_id, json.dumps(clock), now)))
        if pending is None:
            statements.append(("DELETE FROM pending WHERE game_id = ?", (game_id,)))
        elif not isinstance(pending, Keep):
            statements.append(("INSERT INTO pending (game_id, data) VALUES (?, ?) ON CONFLICT(game_id) "
                               "DO UPDATE SET data = excluded.data", (game_id, json.dumps(pending))))
        if finished:
            statements.append(("UPDATE games SET finished = ? WHERE id = ?", (now, game_id)))
        self._transaction(statements)

    def append(self, game_id: int, event: dict[str, Any]) -> int:
        """Append one event; returns its sequence number once it is on disk."""
        return self._write("INSERT INTO events (game_id, data, wall) VALUES (?, ?, ?)",
                           (game_id, json.dumps(event), time.time()))

    def save_clock(self, game_id: int, state: dict[str, Any]) -> None:
        self._write("INSERT INTO clocks (game_id, state, wall) VALUES (?, ?, ?) ON CONFLICT(game_id) "
                    "DO UPDATE SET state = excluded.state, wall = excluded.wall",
                    (game_id, json.dumps(state), time.time()))

    def save_pending(self, game_id: int, pending: dict[str, Any] | None) -> None:
        if pending is None:
            self._write("DELETE FROM pending WHERE game_id = ?", (game_id,))
        else:
            self._write("INSERT INTO pending (game_id, data) VALUES (?, ?) ON CONFLICT(game_id) "
                        "DO UPDATE SET data = excluded.data", (game_id, json.dumps(pending)))

    def set_meta(self, game_id: int, meta: dict[str, Any]) -> None:
        self._write("UPDATE games SET meta = ? WHERE id = ?", (json.dumps(meta), game_id))

    def finish(self, game_id: int) -> None:
        self._write("UPDATE games SET finished = ? WHERE id = ?", (time.time(), game_id))

    def load(self, game_id: int) -> StoredGame:
        """One game as stored; JournalDamaged when what is stored is not what the table wrote."""
        try:
            with self._lock:
                row = self._db.execute("SELECT id, created, players, rules, meta, finished FROM games "
                                       "WHERE id = ?", (game_id,)).fetchone()
                if row is None:
                    raise JournalError(f"no game {game_id} in the journal")
                events = [json.loads(d) for (d,) in self._db.execute(
                    "SELECT data FROM events WHERE game_id = ? ORDER BY seq", (game_id,))]
                clock = self._db.execute("SELECT state FROM clocks WHERE game_id = ?", (game_id,)).fetchone()
                pending = self._db.execute("SELECT data FROM pending WHERE game_id = ?", (game_id,)).fetchone()
            game = StoredGame(row[0], row[1], json.loads(row[2]), json.loads(row[3]), json.loads(row[4]),
                              events, json.loads(clock[0]) if clock else None,
                              json.loads(pending[0]) if pending else None, row[5])
        except sqlite3.Error as e:
            raise _kind(e)(f"cannot read the journal {self.path}: {e}") from None
        except (ValueError, TypeError, RecursionError) as e:
            raise JournalDamaged(f"game {game_id} in the journal {self.path} is damaged: {e}") from None
        shapes = ((game.players, list), (game.rules, dict), (game.meta, dict), (game.clock, (dict, type(None))),
                  (game.pending, (dict, type(None))))
        if not all(isinstance(v, t) for v, t in shapes) or not all(isinstance(e, dict) for e in events):
            raise JournalDamaged(f"game {game_id} in the journal {self.path} is damaged: a record of the "
                                 "wrong shape")
        return game

    def unfinished(self) -> StoredGame | None:
        """The most recent game that has not finished, if any."""
        try:
            with self._lock:
                row = self._db.execute("SELECT id FROM games WHERE finished IS NULL ORDER BY id DESC LIMIT 1").fetchone()
        except sqlite3.Error as e:
            raise _kind(e)(f"cannot read the journal {self.path}: {e}") from None
        return self.load(row[0]) if row else None

    def games(self) -> list[dict[str, Any]]:
        with self._lock:
            rows = self._db.execute("SELECT id, created, players, finished FROM games ORDER BY id").fetchall()
        return [{"id": r[0], "created": r[1], "players": json.loads(r[2]), "finished": r[3]} for r in rows]

    def events_after(self, seq: int, limit: int = 500) -> list[JournalEntry]:
        """The events recorded after sequence number ``seq``, oldest first, at most ``limit``: for
        readers that follow the journal (the club publisher sends each one once, in order)."""
        try:
            with self._lock:
                rows = self._db.execute("SELECT seq, game_id, data, wall FROM events WHERE seq > ? "
                                        "ORDER BY seq LIMIT ?", (seq, limit)).fetchall()
            return [JournalEntry(r[0], r[1], json.loads(r[2]), r[3]) for r in rows]
        except sqlite3.Error as e:
            raise _kind(e)(f"cannot read the journal {self.path}: {e}") from None
        except ValueError as e:
            raise JournalDamaged(f"an event in the journal {self.path} is damaged: {e}") from None

    def last_seq(self) -> int:
        """The sequence number of the last event recorded (0 for none)."""
        try:
            with self._lock:
                row = self._db.execute("SELECT MAX(seq) FROM events").fetchone()
        except sqlite3.Error as e:
            raise _kind(e)(f"cannot read the journal {self.path}: {e}") from None
        return int(row[0] or 0)

    def integrity_check(self) -> str:
        with self._lock:
            return str(self._db.execute("PRAGMA integrity_check").fetchone()[0])
