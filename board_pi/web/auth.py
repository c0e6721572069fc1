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
MIN_PIN, MAX_PIN = 4, 64
# What a stored hash may ask of scrypt: more would take minutes or gigabytes per login (n=2**40
# never finishes), locking the director out for good; less is no protection.
N_RANGE, R_RANGE, P_RANGE = (2 ** 10, 2 ** 20), (1, 32), (1, 16)
_MAXMEM = 256 * 1024 * 1024


class BadPin(ValueError):
    """A PIN that cannot be used (too short, too long, not printable)."""


PIN_RULES = f"{MIN_PIN} to {MAX_PIN} printable characters, with no spaces at either end"


def validate_pin(pin: object) -> str:
    """The PIN as given, or BadPin saying what is wrong with it: the one definition of a good PIN,
    for the page and for ``board-pi config set-pin`` alike.

    >>> validate_pin("2468")
    '2468'
    >>> try:
    ...     validate_pin(" 2468")
    ... except BadPin as e:
    ...     print(e)
    the PIN must not start or end with a space
    """
    if not isinstance(pin, str):
        raise BadPin("the PIN must be text")
    if not MIN_PIN <= len(pin) <= MAX_PIN:
        raise BadPin(f"the PIN must have {MIN_PIN} to {MAX_PIN} characters (it has {len(pin)})")
    if pin.strip() != pin:
        raise BadPin("the PIN must not start or end with a space")
    if not pin.isprintable():
        raise BadPin("the PIN must be printable: no control characters, tabs or line breaks")
    return pin


def pin_hash_problem(stored: object) -> str | None:
    """What is wrong with a stored PIN hash, or None when it can be used.

    >>> pin_hash_problem(hash_pin("2468")) is None
    True
    >>> pin_hash_problem("scrypt$1099511627776$8$1$c2FsdA$a2V5")
    'its scrypt cost n=1099511627776 is out of range (1024 to 1048576, a power of two)'
    """
    if not isinstance(stored, str):
        return "it is not text"
    parts = stored.split("$")
    if len(parts) != 6 or parts[0] != "scrypt":
        return "it is not a PIN hash (scrypt$n$r$p$salt$key)"
    if not all(x.isascii() and x.isdigit() and len(x) <= 30 for x in parts[1:4]):
        return "its scrypt parameters are not whole numbers"
    n, r, p = int(parts[1]), int(parts[2]), int(parts[3])
    if not (N_RANGE[0] <= n <= N_RANGE[1] and n & (n - 1) == 0):
        return f"its scrypt cost n={n} is out of range ({N_RANGE[0]} to {N_RANGE[1]}, a power of two)"
    if not (R_RANGE[0] <= r <= R_RANGE[1] and P_RANGE[0] <= p <= P_RANGE[1]):
        return f"its scrypt parameters r={r}, p={p} are out of range (r 1 to 32, p 1 to 16)"
    if 128 * n * r + 128 * r * p > _MAXMEM:
        return f"its scrypt parameters need more than {_MAXMEM // 2**20} MiB"
    try:
        salt, key = _unb64(parts[4]), _unb64(parts[5])
    except ValueError:
        return "its salt or key is not base64"
    if len(salt) < 8 or not 16 <= len(key) <= 64:
        return "its salt or key has the wrong length"
    return None


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
    if not isinstance(pin, str) or pin_hash_problem(stored) is not None:
        return False
    parts = stored.split("$")
    n, r, p = int(parts[1]), int(parts[2]), int(parts[3])
    salt, key = _unb64(parts[4]), _unb64(parts[5])
    try:
        got = hashlib.scrypt(pin.encode("utf-8", "surrogatepass"), salt=salt, n=n, r=r, p=p,
                             dklen=len(key), maxmem=_MAXMEM)
    except (ValueError, TypeError, MemoryError):
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
