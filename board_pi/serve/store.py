"""What the status page keeps about its director: the PIN's hash and the one-time setup code (kept
by :mod:`board_pi.pin`) and the live sessions, as small private files in the data directory (the
service's own state directory).

The configuration file is not the place: on an installed table it is root's, read-only to the
service (``ProtectSystem=strict``), so a PIN chosen on the page could never be kept there. A hash
left in an old configuration (``web.director_pin_hash``) is still honoured until a PIN is set
here, and never written.

Until a PIN is set, only someone at the Pi itself, or someone holding the one-time code that
``board-pi run`` prints in the service's log and ``board-pi doctor`` shows, may choose it; a
spectator on the club's network cannot take the table.

Without a data directory (tests, the demo) everything is kept in memory only.

>>> store = DirectorStore(None)
>>> store.pin_hash(), len(store.setup_code())
(None, 9)
"""

from __future__ import annotations

import hmac
import json
import secrets
import threading
import time
from pathlib import Path
from typing import Callable

from ..pin import (SESSIONS_FILE, DirectorStoreError, new_setup_code, normalise_code, pin_hash_problem,
                   read_small, save_pin_hash, setup_code, stored_pin_hash, write_private)

SESSION_HOURS = 12
MAX_SESSIONS = 64


class DirectorStore:
    """The director's PIN hash, the setup code and the live sessions of one table.

    ``data_dir``: where they are kept (None: in memory only). ``legacy_hash``: a hash from an old
    configuration, used until a PIN is set here. ``clock``: wall-clock seconds, for the sessions'
    expiry. Raises DirectorStoreError when the stored hash cannot be used.
    """

    def __init__(self, data_dir: Path | None, legacy_hash: str | None = None,
                 clock: Callable[[], float] = time.time) -> None:
        self.data_dir = Path(data_dir) if data_dir is not None else None
        self.clock = clock
        self._lock = threading.Lock()
        self._hash, self.source = stored_pin_hash(self.data_dir, legacy_hash)
        self._code: str | None = None
        self._sessions: dict[str, float] = self._load_sessions()

    # -- the PIN ----------------------------------------------------------------------------

    def pin_hash(self) -> str | None:
        return self._hash

    def set_pin_hash(self, stored: str) -> None:
        """Keep a new PIN hash (raises OSError when it cannot be written, and keeps the old
        one); the setup code is used up and every session ends."""
        problem = pin_hash_problem(stored)
        if problem:
            raise DirectorStoreError(f"not a usable PIN hash: {problem}")
        with self._lock:
            if self.data_dir is not None:
                self.source = str(save_pin_hash(self.data_dir, stored))
            else:
                self.source = "memory"
            self._hash = stored
            self._code = None
            self._sessions.clear()
            self._save_sessions()

    # -- the one-time setup code ------------------------------------------------------------

    def setup_code(self) -> str | None:
        """The code that lets a page away from the Pi choose the first PIN (None once a PIN is
        set). Raises OSError when the data directory cannot keep it."""
        if self._hash is not None:
            return None
        with self._lock:
            if self.data_dir is not None:
                self._code = setup_code(self.data_dir)
            elif self._code is None:
                self._code = new_setup_code()
            return self._code

    def code_matches(self, given: object) -> bool:
        if not isinstance(given, str) or len(given) > 64 or self._hash is not None:
            return False
        try:
            code = self.setup_code()
        except OSError:
            return False
        return code is not None and hmac.compare_digest(normalise_code(given).encode(), code.encode())

    # -- sessions: kept here so that logging out (or a new PIN) ends a cookie for good --------

    def new_session(self) -> str:
        sid = secrets.token_urlsafe(24)
        with self._lock:
            self._prune()
            while len(self._sessions) >= MAX_SESSIONS:  # the oldest director's session ends
                self._sessions.pop(min(self._sessions, key=self._sessions.__getitem__))
            self._sessions[sid] = self.clock() + SESSION_HOURS * 3600
            self._save_sessions()
        return sid

    def session_alive(self, sid: object) -> bool:
        if not isinstance(sid, str):
            return False
        with self._lock:
            until = self._sessions.get(sid)
            return until is not None and self.clock() < until

    def end_session(self, sid: object) -> None:
        with self._lock:
            if isinstance(sid, str) and self._sessions.pop(sid, None) is not None:
                self._save_sessions()

    def _prune(self) -> None:
        now = self.clock()
        for sid in [s for s, until in self._sessions.items() if until <= now]:
            del self._sessions[sid]

    def _load_sessions(self) -> dict[str, float]:
        if self.data_dir is None:
            return {}
        try:
            data = json.loads(read_small(self.data_dir / SESSIONS_FILE) or "{}")
        except (OSError, ValueError):
            return {}  # unreadable: directors log in again, nothing worse
        if not isinstance(data, dict):
            return {}
        return {k: float(v) for k, v in data.items()
                if isinstance(k, str) and isinstance(v, (int, float)) and not isinstance(v, bool)}

    def _save_sessions(self) -> None:
        if self.data_dir is None:
            return
        try:
            write_private(self.data_dir / SESSIONS_FILE, json.dumps(self._sessions))
        except OSError:
            pass  # sessions then last only until a restart: a logout still holds while we run
