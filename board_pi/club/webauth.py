"""The hub's director: the same PIN mechanism as a table's page (a salted scrypt hash in the data
directory, the one-time setup code away from the machine, a lockout after wrong guesses, server
side sessions, a CSRF token on every change). The PIN store and the guard are the table page's
own (board_pi.web), handed in by the CLI: club and web are rooms side by side, neither imports
the other.
"""

from __future__ import annotations

import functools
import hmac
import ipaddress
import json
import secrets
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, TypeVar

from flask import Flask, Response, current_app, jsonify, request, session

from ..pin import BadPin, check_pin, hash_pin, validate_pin

CSRF_HEADER = "X-CSRF-Token"
PROXY_HEADERS = ("Forwarded", "X-Forwarded-For", "X-Forwarded-Host", "X-Forwarded-Proto", "X-Real-Ip",
                 "X-Client-Ip", "Via")


class ApiError(Exception):
    def __init__(self, status: int, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.status, self.message, self.extra = status, message, extra


@dataclass
class HubWebState:
    """``store``: the director's PIN and sessions (web.director.DirectorStore, given by the CLI:
    the same as a table's); ``guard``: the lockout after wrong PINs (web.auth.PinGuard)."""

    store: Any
    guard: Any
    heartbeat: float = 15.0
    max_streams: int = 100
    on_pin_set: Callable[[str], Any] | None = None
    stopping: threading.Event = field(default_factory=threading.Event)
    streams: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)
    hashing: threading.BoundedSemaphore = field(default_factory=lambda: threading.BoundedSemaphore(2))
    hash_wait: float = 15.0

    @property
    def pin_hash(self) -> str | None:
        return self.store.pin_hash()

    def open_stream(self) -> bool:
        with self.lock:
            if self.streams >= self.max_streams:
                return False
            self.streams += 1
            return True

    def close_stream(self) -> None:
        with self.lock:
            self.streams -= 1


def web() -> HubWebState:
    return current_app.extensions["board_pi"]  # type: ignore[no-any-return]


def body() -> dict[str, Any]:
    raw = request.get_data(cache=True)
    if not raw.strip():
        return {}
    try:
        data = json.loads(raw)
    except (ValueError, UnicodeDecodeError, RecursionError) as e:
        raise ApiError(400, f"the body is not valid JSON: {e}") from None
    if not isinstance(data, dict):
        raise ApiError(400, "the body must be a JSON object")
    return data


def csrf_token() -> str:
    token = session.get("csrf")
    if not token:
        token = session["csrf"] = secrets.token_urlsafe(32)
    return str(token)


def client() -> str:
    return request.remote_addr or "unknown"


def is_director() -> bool:
    return bool(session.get("director")) and web().store.session_alive(session.get("sid"))


def from_this_machine() -> bool:
    if any(h in request.headers for h in PROXY_HEADERS):
        return False
    try:
        ip = ipaddress.ip_address((request.remote_addr or "").split("%")[0])
    except ValueError:
        return False
    mapped = getattr(ip, "ipv4_mapped", None)
    return bool(ip.is_loopback or (mapped is not None and mapped.is_loopback))


def need_director() -> None:
    if web().pin_hash is None:
        raise ApiError(401, "no director's PIN is set yet: set one on the Director page", login=True)
    if not is_director():
        raise ApiError(401, "the director's PIN is needed for this", login=True)


Route = TypeVar("Route", bound=Callable[..., Any])


def director_required(route: Route) -> Route:
    @functools.wraps(route)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        need_director()
        return route(*args, **kwargs)

    return guarded  # type: ignore[return-value]


def _checked_pin(pin: object, stored: str) -> bool:
    state = web()
    if not state.hashing.acquire(timeout=state.hash_wait):
        raise ApiError(503, "busy checking PINs: try again in a moment")
    try:
        return isinstance(pin, str) and check_pin(pin, stored)
    finally:
        state.hashing.release()


def _reserve_guess() -> None:
    lock = web().guard.attempt(client())
    if lock.wait > 0:
        raise ApiError(429, f"too many wrong PINs: try again in {int(lock.wait) + 1} s", wait=lock.wait)


def _log_in() -> None:
    session.clear()
    session.permanent = True
    session["director"] = True
    session["sid"] = web().store.new_session()
    session["csrf"] = secrets.token_urlsafe(32)


def install_session_routes(app: Flask) -> None:
    """Login, logout, the first PIN or a new one, the session's state; the CSRF check."""

    @app.before_request
    def check_csrf() -> None:
        if request.method in ("POST", "PUT", "PATCH", "DELETE"):
            sent = request.headers.get(CSRF_HEADER, "")
            token = session.get("csrf", "")
            if not token or not sent or not hmac.compare_digest(str(sent), str(token)):
                raise ApiError(403, "missing or wrong CSRF token: reload the page and try again")

    @app.get("/api/session")
    def api_session() -> Response:
        pin_set = web().pin_hash is not None
        return jsonify({"director": is_director(), "pin_set": pin_set,
                        "setup_code": not pin_set and not from_this_machine(), "csrf": csrf_token()})

    @app.post("/api/login")
    def api_login() -> Response:
        data = body()
        stored = web().pin_hash
        if stored is None:
            raise ApiError(409, "no director's PIN is set yet: choose one first", setup=True)
        _reserve_guess()
        if not _checked_pin(data.get("pin"), stored):
            raise ApiError(401, "wrong PIN", login=True)
        web().guard.succeeded(client())
        _log_in()
        return jsonify({"ok": True, "director": True, "csrf": session["csrf"]})

    @app.post("/api/logout")
    def api_logout() -> Response:
        web().store.end_session(session.get("sid"))
        session.clear()
        return jsonify({"ok": True, "director": False, "csrf": csrf_token()})

    @app.post("/api/pin")
    def api_pin() -> Response:
        data = body()
        state = web()
        try:
            new = validate_pin(data.get("pin"))
        except BadPin as e:
            raise ApiError(400, str(e)) from None
        current = state.pin_hash
        if current is not None:
            need_director()
            _reserve_guess()
            if not _checked_pin(data.get("current"), current):
                raise ApiError(401, "the current PIN is wrong")
        elif not from_this_machine():
            _reserve_guess()
            if not state.store.code_matches(data.get("code")):
                raise ApiError(403, "away from the hub's machine, the first PIN needs the one-time code "
                               "printed when `board-pi hub` started", setup_code=True)
        state.guard.succeeded(client())
        with state.lock:
            if state.pin_hash != current:
                raise ApiError(409, "the PIN was changed meanwhile: reload the page")
            try:
                state.store.set_pin_hash(hash_pin(new))
            except OSError as e:
                raise ApiError(503, f"could not save the new PIN ({e.strerror or e})") from None
        _log_in()
        return jsonify({"ok": True, "director": True, "csrf": session["csrf"]})
