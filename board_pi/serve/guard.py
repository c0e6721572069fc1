"""Guessing the director's PIN: :class:`PinGuard` locks a client out, for longer each time,
after a few wrong guesses. The PIN itself (hashing, checking, where it is kept) is
:mod:`board_pi.pin`'s.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Callable


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
            now = self.now()
            return Lockout(failures + 1, self._count(client, failures + 1, now, until))

    def attempt(self, client: str) -> Lockout:
        """Reserve a guess for ``client`` before its PIN is hashed, counted as wrong until
        :meth:`succeeded` says otherwise. Returns a lockout with ``wait > 0`` (and counts
        nothing) while the client is locked out; else ``wait == 0`` and the guess may be checked.

        Counting before the slow hash is what stops a burst of simultaneous guesses from all
        being tried: each one takes its place under the lock, so at most ``free + 1`` get through
        before the lockout starts.
        """
        with self._lock:
            failures, _, until = self._entry(client)
            now = self.now()
            if until > now:
                return Lockout(failures, until - now)
            self._count(client, failures + 1, now, until)
            return Lockout(failures + 1, 0.0)

    def _count(self, client: str, failures: int, now: float, until: float) -> float:
        if failures > self.free:
            until = now + min(self.longest, self.base * 2 ** min(failures - self.free - 1, 64))
        self._clients[client] = (failures, now, until)
        if len(self._clients) > 10_000:  # a flood of addresses must not grow memory for ever
            for k in list(self._clients)[:5_000]:
                del self._clients[k]
        return max(0.0, until - now)

    def succeeded(self, client: str) -> None:
        with self._lock:
            self._clients.pop(client, None)
