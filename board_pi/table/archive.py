"""The finished games: every game kept as a GCG file in the data directory, with an index.

Layout under the data directory::

    games/
      20261121-2130-ann-vs-bob.gcg      one file per game, never overwritten
      20261121-2130-ann-vs-bob-2.gcg    a second game with the same start minute and players
      index.sqlite3                     id, file, when saved, the game's details as JSON

The GCG files are the record; the index only makes listing fast. A file written while the index
could not be (a power cut between the two) is picked up when the archive is next opened, and a
damaged index is set aside and rebuilt from the files, so a game once saved is never lost.

>>> import tempfile
>>> archive = GameArchive(tempfile.mkdtemp())
>>> path = archive.save("#player1 ann Ann\\n#player2 bob Bob\\n", {"players": ["Ann", "Bob"], "scores": [412, 380]})
>>> [g["id"] for g in archive.list()] == [path.stem]
True
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import re
import sqlite3
import unicodedata
from pathlib import Path
from typing import Any, Mapping

RESERVED = ("id", "file", "saved_at")
_ID_RE = re.compile(r"^[a-z0-9][a-z0-9-]{0,120}$")


class GameNotFound(KeyError):
    """No finished game with that id."""


class GameArchive:
    """Finished games in ``<data_dir>/games``: :meth:`save`, :meth:`list`, :meth:`get`."""

    def __init__(self, data_dir: str | os.PathLike[str]):
        self.dir = Path(data_dir) / "games"
        self.dir.mkdir(parents=True, exist_ok=True)
        self.index_path = self.dir / "index.sqlite3"
        self._open_index()
        self._move_misplaced()
        self.reindex()

    # ------------------------------------------------------------------ the index

    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.index_path, timeout=10)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=FULL")
        return db

    def _open_index(self) -> None:
        try:
            with self._connect() as db:
                db.execute(
                    "CREATE TABLE IF NOT EXISTS games (id TEXT PRIMARY KEY, file TEXT NOT NULL UNIQUE,"
                    " saved_at TEXT NOT NULL, meta TEXT NOT NULL)"
                )
                if db.execute("PRAGMA quick_check").fetchone()[0] != "ok":
                    raise sqlite3.DatabaseError("index failed its check")
            db.close()
        except sqlite3.OperationalError:
            raise  # busy or locked: the index is fine, this is not the moment to rebuild it
        except sqlite3.DatabaseError:
            # The files are the record: set the damaged index aside (kept for inspection), rebuild.
            stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M%S")
            for suffix in ("", "-wal", "-shm"):
                p = Path(str(self.index_path) + suffix)
                if p.exists():
                    p.rename(p.with_name(f"{p.name}.damaged-{stamp}"))
            self._open_index()

    def _move_misplaced(self) -> int:
        """Bring back games an older board-pi kept one folder too deep (``games/games/``), with
        their details; returns how many. The folder goes once it is empty."""
        old = self.dir / "games"
        if not old.is_dir():
            return 0
        details: dict[str, tuple[str, str]] = {}
        try:
            db = sqlite3.connect(old / "index.sqlite3")
            try:
                details = {f: (saved, meta) for f, saved, meta in
                           db.execute("SELECT file, saved_at, meta FROM games")}
            finally:
                db.close()
        except sqlite3.Error:
            pass  # no index, or a damaged one: the records are read again by reindex()
        moved = 0
        for f in sorted(old.glob("*.gcg")):
            if not _ID_RE.match(f.stem):
                continue
            path = self._write_new(f.stem, f.read_bytes())
            if f.name in details:
                saved, meta = details[f.name]
                with self._connect() as db:
                    db.execute("INSERT OR IGNORE INTO games VALUES (?, ?, ?, ?)", (path.stem, path.name, saved, meta))
                db.close()
            f.unlink()
            moved += 1
        if not any(old.glob("*.gcg")):
            for name in ("index.sqlite3", "index.sqlite3-wal", "index.sqlite3-shm"):
                (old / name).unlink(missing_ok=True)
            try:
                old.rmdir()
            except OSError:
                pass  # something else is in it: leave it
        return moved

    def reindex(self) -> int:
        """Add GCG files that the index lacks (details read from the record); return how many."""
        with self._connect() as db:
            known = {row[0] for row in db.execute("SELECT file FROM games")}
            added = 0
            for f in sorted(self.dir.glob("*.gcg")):
                if f.name in known or not _ID_RE.match(f.stem):
                    continue
                meta = _meta_from_gcg(f.read_text(encoding="utf-8", errors="replace"))
                saved = _dt.datetime.fromtimestamp(f.stat().st_mtime, _dt.timezone.utc).isoformat(timespec="seconds")
                db.execute("INSERT OR IGNORE INTO games VALUES (?, ?, ?, ?)", (f.stem, f.name, saved, json.dumps(meta)))
                added += 1
        db.close()
        return added

    # ------------------------------------------------------------------ the API

    def save(self, gcg_text: str, meta: Mapping[str, Any]) -> Path:
        """Keep a finished game; returns its file. Never overwrites: a name already taken gets a
        suffix. ``meta`` (players, scores, lexicon, ...) must be JSON-serialisable and may not use
        the keys ``id``, ``file`` or ``saved_at``, which the archive sets."""
        if not isinstance(gcg_text, str) or not gcg_text.strip():
            raise ValueError("the game record is empty")
        if not isinstance(meta, Mapping):
            raise ValueError("meta must be a dict")
        clash = [k for k in RESERVED if k in meta]
        if clash:
            raise ValueError(f"meta may not set {', '.join(clash)}: the archive sets them")
        try:
            meta_json = json.dumps(dict(meta), ensure_ascii=False, sort_keys=True)
        except (TypeError, ValueError) as e:
            raise ValueError(f"meta is not JSON-serialisable: {e}") from None

        now = _dt.datetime.now(_dt.timezone.utc)
        stem = _stem(now, meta)
        data = gcg_text if gcg_text.endswith("\n") else gcg_text + "\n"
        path = self._write_new(stem, data.encode("utf-8"))
        with self._connect() as db:
            # Another archive opened meanwhile may already have indexed the new file as recovered:
            # the details given here are the right ones.
            db.execute(
                "INSERT INTO games VALUES (?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET"
                " saved_at = excluded.saved_at, meta = excluded.meta",
                (path.stem, path.name, now.isoformat(timespec="seconds"), meta_json),
            )
        db.close()
        return path

    def list(self) -> list[dict[str, Any]]:
        """Every finished game, newest first: ``{"id", "file", "saved_at", **meta}``."""
        with self._connect() as db:
            rows = db.execute("SELECT id, file, saved_at, meta FROM games ORDER BY saved_at DESC, rowid DESC").fetchall()
        db.close()
        out = []
        for gid, file, saved_at, meta in rows:
            try:
                extra = json.loads(meta)
            except ValueError:
                extra = {}
            out.append({**extra, "id": gid, "file": file, "saved_at": saved_at})
        return out

    def get(self, game_id: str) -> str:
        """The GCG text of one game; :class:`GameNotFound` for an unknown (or malformed) id."""
        if not isinstance(game_id, str) or not _ID_RE.match(game_id):
            raise GameNotFound(game_id)
        path = self.dir / f"{game_id}.gcg"
        try:
            return path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise GameNotFound(game_id) from None

    def path(self, game_id: str) -> Path:
        """The file of one game (for a download); :class:`GameNotFound` if there is none."""
        self.get(game_id)
        return self.dir / f"{game_id}.gcg"

    # ------------------------------------------------------------------ files

    def _write_new(self, stem: str, data: bytes) -> Path:
        tmp = self.dir / f".{stem}.{os.getpid()}.tmp"
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        try:
            n = 1
            while True:
                path = self.dir / (f"{stem}.gcg" if n == 1 else f"{stem}-{n}.gcg")
                try:
                    os.link(tmp, path)  # fails if the name is taken: an old game is never replaced
                    break
                except FileExistsError:
                    n += 1
        finally:
            tmp.unlink(missing_ok=True)
        dfd = os.open(self.dir, os.O_RDONLY)
        try:
            os.fsync(dfd)  # the new name survives a power cut
        finally:
            os.close(dfd)
        return path


def _slug(name: str) -> str:
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "-", ascii_name.lower()).strip("-")[:24]


def _stem(when: _dt.datetime, meta: Mapping[str, Any]) -> str:
    stem = when.strftime("%Y%m%d-%H%M")
    players = meta.get("players")
    if isinstance(players, (list, tuple)) and len(players) == 2 and all(isinstance(p, str) for p in players):
        a, b = (_slug(p) for p in players)
        if a and b:
            stem += f"-{a}-vs-{b}"
    return stem


def _meta_from_gcg(text: str) -> dict[str, Any]:
    """Players from a record's ``#player1``/``#player2`` pragmas (for files added by hand)."""
    players: dict[int, str] = {}
    for line in text.splitlines():
        m = re.match(r"^#player([12])\s+(\S+)(?:\s+(.*))?$", line.strip())
        if m:
            players[int(m.group(1))] = (m.group(3) or m.group(2)).strip()
    meta: dict[str, Any] = {"recovered": True}
    if len(players) == 2:
        meta["players"] = [players[1], players[2]]
    return meta
