"""The director's sign-in, the same on a table's status page and on the club's hub.

Viewing is open; anything that changes something needs the director's live session (a cookie
the server still knows: a logout or a new PIN ends it for good), and every change, signed in or
not, the session's CSRF token in an ``X-CSRF-Token`` header. The PIN is chosen on the page:
from the machine itself, or elsewhere with the one-time setup code the service prints; wrong
guesses lock a client out for longer each time (:class:`~board_pi.serve.guard.PinGuard`).

Each app keeps its own state, a :class:`SignInState`, in ``app.extensions["board_pi"]``; :func:`install_signin` adds the CSRF check and the session's
routes (``/api/session``, ``/api/login``, ``/api/logout``, ``/api/pin``), and a route that needs
the director says so with :func:`director_required`.
"""

from __future__ import annotations

import functools
import hmac
import ipaddress
import secrets
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, TypeVar

from flask import Blueprint, Flask, Response, current_app, jsonify, request, session

from ..pin import BadPin, check_pin, hash_pin, validate_pin
from .guard import PinGuard
from .requests import ApiError, body
from .store import DirectorStore

CSRF_HEADER = "X-CSRF-Token"
HASHING = 2  # PINs hashed at once (16 MiB each): a burst of logins cannot eat the Pi's memory
# A request that came through a proxy, even one on this machine, is not "from this machine".
PROXY_HEADERS = ("Forwarded", "X-Forwarded-For", "X-Forwarded-Host", "X-Forwarded-Proto", "X-Real-Ip",
                 "X-Client-Ip", "Via")


@dataclass(kw_only=True)
class SignInState:
    """What the sign-in keeps; each app's state is one (a subclass with its own fields besides)."""

    store: DirectorStore
    guard: PinGuard
    on_pin_set: Callable[[str], Any] | None = None  # told a new PIN's hash before it is kept
    lock: threading.Lock = field(default_factory=threading.Lock)
    hashing: threading.BoundedSemaphore = field(default_factory=lambda: threading.BoundedSemaphore(HASHING))
    hash_wait: float = 15.0  # seconds a login waits for a free hashing slot before a 503

    @property
    def pin_hash(self) -> str | None:
        return self.store.pin_hash()


def state() -> SignInState:
    """The running app's state."""
    return current_app.extensions["board_pi"]  # type: ignore[no-any-return]


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
    return bool(session.get("director")) and state().store.session_alive(session.get("sid"))


def from_this_machine() -> bool:
    """A request made on the machine serving the page (the Pi, the hub's computer): from a
    loopback address, and not passed on by a proxy (which would make every visitor look local)."""
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
    s = state()
    if not s.hashing.acquire(timeout=s.hash_wait):
        raise ApiError(503, "busy checking PINs: try again in a moment")
    try:
        return isinstance(pin, str) and check_pin(pin, stored)
    finally:
        s.hashing.release()


def reserve_guess() -> None:
    """Count a guess before it is checked (a burst cannot outrun the lockout)."""
    lock = state().guard.attempt(client())
    if lock.wait > 0:
        raise ApiError(429, f"too many wrong PINs: try again in {int(lock.wait) + 1} s", wait=lock.wait)


def need_director() -> None:
    """Refuse the request (401) unless it comes from the director's live session."""
    if state().pin_hash is None:
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
    session["sid"] = state().store.new_session()
    session["csrf"] = secrets.token_urlsafe(32)  # a new token with the new privilege


def check_csrf() -> None:
    """Refuse (403) a change that does not carry the session's CSRF token."""
    if request.method in ("POST", "PUT", "PATCH", "DELETE"):
        sent = request.headers.get(CSRF_HEADER, "")
        token = session.get("csrf", "")
        if not token or not sent or not hmac.compare_digest(str(sent), str(token)):
            raise ApiError(403, "missing or wrong CSRF token: reload the page and try again")


def install_signin(app: Flask, *, away_needs_code: str) -> None:
    """The CSRF check on every change, and the session's routes. ``away_needs_code``: what a
    visitor away from the machine is told when choosing the first PIN without the setup code
    (where that code is to be found)."""
    app.before_request(check_csrf)
    app.register_blueprint(_signin_routes(away_needs_code))


def _signin_routes(away_needs_code: str) -> Blueprint:
    routes = Blueprint("signin", __name__)

    @routes.get("/api/session")
    def api_session() -> Response:
        lock = state().guard.status(client())
        pin_set = state().pin_hash is not None
        return jsonify({"director": is_director(), "pin_set": pin_set,
                        "setup_code": not pin_set and not from_this_machine(),
                        "csrf": csrf_token(), "wait": round(lock.wait, 1)})

    @routes.post("/api/login")
    def api_login() -> Response:
        data = body()
        s = state()
        stored = s.pin_hash
        if stored is None:
            raise ApiError(409, "no director's PIN is set yet: choose one first", setup=True)
        reserve_guess()
        if not checked_pin(data.get("pin"), stored):
            lock = s.guard.status(client())
            if lock.wait > 0:
                raise ApiError(429, f"wrong PIN: locked for {int(lock.wait) + 1} s", wait=lock.wait)
            raise ApiError(401, "wrong PIN", login=True)
        s.guard.succeeded(client())
        log_in()
        return jsonify({"ok": True, "director": True, "csrf": session["csrf"]})

    @routes.post("/api/logout")
    def api_logout() -> Response:
        state().store.end_session(session.get("sid"))
        session.clear()
        return jsonify({"ok": True, "director": False, "csrf": csrf_token()})

    @routes.post("/api/pin")
    def api_pin() -> Response:
        """Set the first PIN (none set yet: from this machine, or with the one-time code), or
        change it (the director, giving the current one)."""
        data = body()
        s = state()
        try:
            new = validate_pin(data.get("pin"))
        except BadPin as e:
            raise ApiError(400, str(e)) from None
        current_hash = s.pin_hash
        if current_hash is not None:
            need_director()
            reserve_guess()
            if not checked_pin(data.get("current"), current_hash):
                raise ApiError(401, "the current PIN is wrong")
        elif not from_this_machine():
            reserve_guess()
            if not s.store.code_matches(data.get("code")):
                raise ApiError(403, away_needs_code, setup_code=True)
        s.guard.succeeded(client())
        stored = hash_pin(new)
        with s.lock:
            if s.pin_hash != current_hash:  # someone else set it meanwhile
                raise ApiError(409, "the PIN was changed meanwhile: reload the page")
            if s.on_pin_set is not None:
                try:
                    s.on_pin_set(stored)
                except Exception as e:  # the PIN must not change if it could not be kept
                    raise ApiError(503, f"could not save the new PIN: {e}") from None
            try:
                s.store.set_pin_hash(stored)  # every director's session ends
            except OSError as e:
                raise ApiError(503, f"could not save the new PIN ({e.strerror or e}); the old one stands") from None
        log_in()
        return jsonify({"ok": True, "director": True, "csrf": session["csrf"]})

    return routes
