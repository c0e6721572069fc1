"""The director's PIN: stored hashed, checked in constant time, and guarded against guessing.

A PIN is short, so a plain hash would fall to a search of every PIN in moments; scrypt with a
random salt makes each guess cost real memory and time, and :class:`PinGuard` locks a client
out, for longer each time, after a few wrong guesses.

>>> stored = hash_pin("2468")
>>> stored.startswith("scrypt$")
True
>>> check_pin("2468", stored), check_pin("1357", stored)
(True, False)
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import threading
import time
from dataclasses import dataclass
from typing import Callable

# scrypt costs: n=2**14, r=8 takes about 16 MiB and tens of milliseconds (more on a Pi): cheap
# for one login, dear for a search through all 10^4..10^8 PINs.
_N, _R, _P = 2 ** 14, 8, 1
_KEY_LEN = 32
MIN_PIN, MAX_PIN = 4, 32


class BadPin(ValueError):
    """A PIN that cannot be used (too short, too long, not printable)."""


def validate_pin(pin: object) -> str:
    """The PIN as given, or BadPin saying what is wrong with it."""
    if not isinstance(pin, str):
        raise BadPin("the PIN must be text")
    if not MIN_PIN <= len(pin) <= MAX_PIN:
        raise BadPin(f"the PIN must have {MIN_PIN} to {MAX_PIN} characters")
    if not pin.isprintable() or pin.strip() != pin:
        raise BadPin("the PIN must be printable, with no spaces at either end")
    return pin


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode("ascii").rstrip("=")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def hash_pin(pin: str, *, salt: bytes | None = None) -> str:
    """``scrypt$n$r$p$salt$key``: what the configuration stores instead of the PIN."""
    validate_pin(pin)
    salt = os.urandom(16) if salt is None else salt
    key = hashlib.scrypt(pin.encode("utf-8"), salt=salt, n=_N, r=_R, p=_P, dklen=_KEY_LEN,
                         maxmem=64 * 1024 * 1024)
    return f"scrypt${_N}${_R}${_P}${_b64(salt)}${_b64(key)}"


def check_pin(pin: str, stored: str) -> bool:
    """Whether ``pin`` matches ``stored`` (from :func:`hash_pin`). A damaged hash matches nothing."""
    if not isinstance(pin, str) or not isinstance(stored, str):
        return False
    parts = stored.split("$")
    if len(parts) != 6 or parts[0] != "scrypt":
        return False
    try:
        n, r, p = int(parts[1]), int(parts[2]), int(parts[3])
        salt, key = _unb64(parts[4]), _unb64(parts[5])
        if not (2 <= n <= 2 ** 20 and 1 <= r <= 32 and 1 <= p <= 16):
            return False
        got = hashlib.scrypt(pin.encode("utf-8"), salt=salt, n=n, r=r, p=p, dklen=len(key),
                             maxmem=256 * 1024 * 1024)
    except (ValueError, TypeError):
        return False
    return hmac.compare_digest(got, key)


@dataclass(frozen=True)
class Lockout:
    """How a client stands: ``wait`` seconds until it may guess again (0 = now)."""

    failures: int
    wait: float


class PinGuard:
    """Counts wrong PINs per client and locks it out, doubling the lockout each time.

    The first ``free`` wrong guesses cost nothing; each one after that locks the client out for
    ``base`` seconds, doubled each time up to ``longest``. A right PIN clears the count. A
    client's count is also forgotten after ``forget`` seconds without a wrong guess.
    """

    def __init__(self, free: int = 3, base: float = 30.0, longest: float = 900.0,
                 forget: float = 3600.0, time_source: Callable[[], float] = time.monotonic) -> None:
        self.free, self.base, self.longest, self.forget = free, base, longest, forget
        self.now = time_source
        self._lock = threading.Lock()
        self._clients: dict[str, tuple[int, float, float]] = {}  # failures, last failure, locked until

    def status(self, client: str) -> Lockout:
        with self._lock:
            failures, last, until = self._entry(client)
            return Lockout(failures, max(0.0, until - self.now()))

    def _entry(self, client: str) -> tuple[int, float, float]:
        entry = self._clients.get(client)
        if entry is None:
            return 0, 0.0, 0.0
        if self.now() - entry[1] > self.forget and self.now() >= entry[2]:
            del self._clients[client]
            return 0, 0.0, 0.0
        return entry

    def failed(self, client: str) -> Lockout:
        with self._lock:
            failures, _, until = self._entry(client)
            failures += 1
            now = self.now()
            if failures > self.free:
                wait = min(self.longest, self.base * 2 ** (failures - self.free - 1))
                until = now + wait
            self._clients[client] = (failures, now, until)
            if len(self._clients) > 10_000:  # a flood of addresses must not grow memory for ever
                for k in list(self._clients)[:5_000]:
                    del self._clients[k]
            return Lockout(failures, max(0.0, until - now))

    def succeeded(self, client: str) -> None:
        with self._lock:
            self._clients.pop(client, None)
