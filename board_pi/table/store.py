"""The journal: every event of a game appended to SQLite before it is shown.

The database runs in write-ahead-log mode with full sync, so an event that was committed
survives a power cut, and an unfinished game resumes exactly where it was: its board, scores
and rack counts from the game events, its clocks from the last saved clock state.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

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


class Journal:
    """An SQLite journal of games; one writer (the table), safe to use from several threads."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        try:
            self._db = sqlite3.connect(str(self.path), check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute("PRAGMA foreign_keys=ON")
            self._db.executescript(SCHEMA)
        except sqlite3.DatabaseError as e:
            raise JournalError(f"cannot open the journal {self.path}: {e}") from None

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def _write(self, sql: str, args: tuple[Any, ...]) -> int:
        with self._lock:
            try:
                cur = self._db.execute("BEGIN IMMEDIATE")
                cur = self._db.execute(sql, args)
                self._db.execute("COMMIT")
                return int(cur.lastrowid or 0)
            except sqlite3.DatabaseError as e:
                try:
                    self._db.execute("ROLLBACK")
                except sqlite3.DatabaseError:
                    pass
                raise JournalError(f"cannot write the journal {self.path}: {e}") from None

    def new_game(self, players: list[str], rules: dict[str, Any], meta: dict[str, Any] | None = None) -> int:
        return self._write("INSERT INTO games (created, players, rules, meta) VALUES (?, ?, ?, ?)",
                           (time.time(), json.dumps(players), json.dumps(rules), json.dumps(meta or {})))

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
        with self._lock:
            row = self._db.execute("SELECT id, created, players, rules, meta, finished FROM games "
                                   "WHERE id = ?", (game_id,)).fetchone()
            if row is None:
                raise JournalError(f"no game {game_id} in the journal")
            events = [json.loads(d) for (d,) in self._db.execute(
                "SELECT data FROM events WHERE game_id = ? ORDER BY seq", (game_id,))]
            clock = self._db.execute("SELECT state FROM clocks WHERE game_id = ?", (game_id,)).fetchone()
            pending = self._db.execute("SELECT data FROM pending WHERE game_id = ?", (game_id,)).fetchone()
        return StoredGame(row[0], row[1], json.loads(row[2]), json.loads(row[3]), json.loads(row[4]),
                          events, json.loads(clock[0]) if clock else None,
                          json.loads(pending[0]) if pending else None, row[5])

    def unfinished(self) -> StoredGame | None:
        """The most recent game that has not finished, if any."""
        with self._lock:
            row = self._db.execute("SELECT id FROM games WHERE finished IS NULL ORDER BY id DESC LIMIT 1").fetchone()
        return self.load(row[0]) if row else None

    def games(self) -> list[dict[str, Any]]:
        with self._lock:
            rows = self._db.execute("SELECT id, created, players, finished FROM games ORDER BY id").fetchall()
        return [{"id": r[0], "created": r[1], "players": json.loads(r[2]), "finished": r[3]} for r in rows]

    def integrity_check(self) -> str:
        with self._lock:
            return str(self._db.execute("PRAGMA integrity_check").fetchone()[0])
