"""What the table keeps about its director: the PIN's hash, the one-time setup code and the live
sessions, as small private files in the data directory (the service's own state directory).

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

import json
import os
import secrets
import threading
import time
from pathlib import Path
from typing import Callable

from .auth import pin_hash_problem

PIN_FILE = "director-pin"
CODE_FILE = "director-code"
SESSIONS_FILE = "director-sessions.json"
SESSION_HOURS = 12
_CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # nothing to misread: no 0/O, 1/I
MAX_SESSIONS = 64


class DirectorStoreError(ValueError):
    """A stored PIN hash that cannot be used, or a file that cannot be read or written."""


def write_private(path: Path, text: str) -> None:
    """Write ``text`` over ``path`` atomically, readable by its owner only (0600).

    Run as root (``sudo board-pi config set-pin``), the file is given to the owner of its
    directory, the service's user, which must be able to read it. Raises OSError.
    """
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o600)
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            st = path.parent.stat()
            os.chown(tmp, st.st_uid, st.st_gid)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _read_small(path: Path, limit: int = 64 * 1024) -> str | None:
    """The file's text, or None when there is none. Raises OSError when it cannot be read."""
    try:
        with open(path, "rb") as f:
            data = f.read(limit + 1)
    except FileNotFoundError:
        return None
    if len(data) > limit:
        raise DirectorStoreError(f"{path}: too large to be ours ({limit} bytes at most)")
    return data.decode("utf-8", "replace")


def stored_pin_hash(data_dir: Path | None, legacy_hash: str | None = None) -> tuple[str | None, str]:
    """The PIN hash in force and where it comes from: ``<data>/director-pin``, else the old
    configuration's hash, else (None, ""). Raises DirectorStoreError for a hash that cannot be
    used (damaged, or scrypt costs out of range) or a file that cannot be read.
    """
    if data_dir is not None:
        path = data_dir / PIN_FILE
        try:
            text = _read_small(path)
        except OSError as e:
            raise DirectorStoreError(f"{path}: cannot be read ({e.strerror or e})") from None
        if text is not None:
            stored = text.strip()
            problem = pin_hash_problem(stored)
            if problem:
                raise DirectorStoreError(f"{path}: the director's PIN hash cannot be used: {problem}; "
                                         "set a new PIN with `board-pi config set-pin`")
            return stored, str(path)
    if legacy_hash:
        problem = pin_hash_problem(legacy_hash)
        if problem:
            raise DirectorStoreError(f"web.director_pin_hash in the configuration cannot be used: {problem}; "
                                     "set a new PIN with `board-pi config set-pin`")
        return legacy_hash, "the configuration (web.director_pin_hash)"
    return None, ""


def save_pin_hash(data_dir: Path, stored: str) -> Path:
    """Keep ``stored`` as the director's PIN hash in ``<data>/director-pin`` (0600, atomically);
    the setup code is used up and every director's session ends. Returns the file. Raises
    DirectorStoreError for an unusable hash, OSError when it cannot be written (nothing changed).
    """
    problem = pin_hash_problem(stored)
    if problem:
        raise DirectorStoreError(f"not a usable PIN hash: {problem}")
    path = data_dir / PIN_FILE
    write_private(path, stored + "\n")
    for name in (CODE_FILE, SESSIONS_FILE):
        try:
            (data_dir / name).unlink()
        except FileNotFoundError:
            pass
    return path


def new_setup_code() -> str:
    """Eight characters from a 32-letter alphabet (40 bits), as ``ABCD-EF23``."""
    raw = "".join(secrets.choice(_CODE_ALPHABET) for _ in range(8))
    return f"{raw[:4]}-{raw[4:]}"


def normalise_code(code: str) -> str:
    """A code as typed (any case, spaces or no dash) in the stored form."""
    raw = "".join(ch for ch in code.upper() if ch.isalnum())
    return f"{raw[:4]}-{raw[4:]}" if len(raw) == 8 else raw


def setup_code(data_dir: Path) -> str:
    """The one-time code in ``<data>/director-code``, made (0600) when there is none, so that
    ``board-pi run`` and ``board-pi doctor`` show the same one. Raises OSError."""
    path = data_dir / CODE_FILE
    try:
        text = _read_small(path, 256)
    except DirectorStoreError:
        text = None
    code = normalise_code(text or "")
    if len(code) != 9:
        code = new_setup_code()
        write_private(path, code + "\n")
    return code


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
        import hmac

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
            data = json.loads(_read_small(self.data_dir / SESSIONS_FILE) or "{}")
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
