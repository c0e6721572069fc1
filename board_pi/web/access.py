"""Who may do what on the status page: the director's session, the CSRF token, the PIN checks.

Viewing is open; anything that changes a game needs the director's PIN, a session cookie, and
the session's CSRF token in an ``X-CSRF-Token`` header. A route that needs the director says so
with :func:`director_required`.
"""

from __future__ import annotations

import functools
import ipaddress
import secrets
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, TypeVar

from flask import Response, current_app, jsonify, request, session

from ..pin import check_pin
from ..table.facade import PressResult, TableFacade
from .auth import PinGuard
from .director import DirectorStore
from .requests import ApiError

CSRF_HEADER = "X-CSRF-Token"
HASHING = 2  # PINs hashed at once (16 MiB each): a burst of logins cannot eat the Pi's memory
# A request that came through a proxy, even one on the Pi itself, is not "from the Pi".
PROXY_HEADERS = ("Forwarded", "X-Forwarded-For", "X-Forwarded-Host", "X-Forwarded-Proto", "X-Real-Ip",
                 "X-Client-Ip", "Via")


@dataclass
class WebState:
    """What the app keeps besides the table: the PIN, the guard, the live streams."""

    table: TableFacade
    store: DirectorStore
    guard: PinGuard
    on_pin_set: Callable[[str], Any] | None
    heartbeat: float
    max_streams: int
    judge_clear_seconds: float
    judge_needs_pin: bool = False
    stopping: threading.Event = field(default_factory=threading.Event)
    streams: int = 0
    encoded: dict[int, str] = field(default_factory=dict)  # seq -> an event as the stream sends it
    lock: threading.Lock = field(default_factory=threading.Lock)
    hashing: threading.BoundedSemaphore = field(default_factory=lambda: threading.BoundedSemaphore(HASHING))
    hash_wait: float = 15.0  # seconds a login waits for a free hashing slot before a 503

    @property
    def pin_hash(self) -> str | None:
        return self.store.pin_hash()


def web() -> WebState:
    """The running app's state."""
    return current_app.extensions["board_pi"]  # type: ignore[no-any-return]


def table() -> TableFacade:
    """The table the running app shows."""
    return web().table


def client() -> str:
    return request.remote_addr or "unknown"


def csrf_token() -> str:
    token = session.get("csrf")
    if not token:
        token = session["csrf"] = secrets.token_urlsafe(32)
    return str(token)


def is_director() -> bool:
    # The cookie alone is not enough: the server must still know its session (a logout or a new
    # PIN ends it for good, not just in that browser).
    return bool(session.get("director")) and web().store.session_alive(session.get("sid"))


def from_the_pi() -> bool:
    """A request made on the Pi itself: from a loopback address, and not passed on by a proxy
    (which would make every visitor look local)."""
    if any(h in request.headers for h in PROXY_HEADERS):
        return False
    try:
        ip = ipaddress.ip_address((request.remote_addr or "").split("%")[0])
    except ValueError:
        return False
    mapped = getattr(ip, "ipv4_mapped", None)
    return bool(ip.is_loopback or (mapped is not None and mapped.is_loopback))


def checked_pin(pin: object, stored: str) -> bool:
    """``check_pin``, but only a few at once: each costs 16 MiB and tens of milliseconds."""
    state = web()
    if not state.hashing.acquire(timeout=state.hash_wait):
        raise ApiError(503, "the table is busy checking PINs: try again in a moment")
    try:
        return isinstance(pin, str) and check_pin(pin, stored)
    finally:
        state.hashing.release()


def reserve_guess() -> None:
    """Count a guess before it is checked (a burst cannot outrun the lockout)."""
    lock = web().guard.attempt(client())
    if lock.wait > 0:
        raise ApiError(429, f"too many wrong PINs: try again in {int(lock.wait) + 1} s", wait=lock.wait)


def need_director() -> None:
    """Refuse the request (401) unless it comes from the director's live session."""
    if web().pin_hash is None:
        raise ApiError(401, "no director's PIN is set yet: set one on the Director page", login=True)
    if not is_director():
        raise ApiError(401, "the director's PIN is needed for this", login=True)


Route = TypeVar("Route", bound=Callable[..., Any])


def director_required(route: Route) -> Route:
    """A route only the director may use (see :func:`need_director`)."""

    @functools.wraps(route)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        need_director()
        return route(*args, **kwargs)

    return guarded  # type: ignore[return-value]


def log_in() -> None:
    """Make this session the director's (a new session id and a new CSRF token)."""
    session.clear()
    session.permanent = True
    session["director"] = True
    session["sid"] = web().store.new_session()
    session["csrf"] = secrets.token_urlsafe(32)  # a new token with the new privilege


def ok(**extra: Any) -> Response:
    return jsonify({"ok": True, **extra})


def result(res: PressResult) -> Response:
    """A turn's outcome as the pages read it."""
    return ok(outcome=res.outcome, message=res.message, score=res.score, play=res.play)
