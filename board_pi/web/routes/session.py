"""The director's session: logging in and out, and setting or changing the PIN."""

from __future__ import annotations

from flask import Blueprint, Response, session

from ...pin import BadPin, hash_pin, validate_pin
from ..access import checked_pin, client, csrf_token, from_the_pi, log_in, need_director, ok, reserve_guess, web
from ..requests import ApiError, body

director_session = Blueprint("session", __name__)


@director_session.post("/api/login")
def api_login() -> Response:
    data = body()
    state = web()
    stored = state.pin_hash
    if stored is None:
        raise ApiError(409, "no director's PIN is set yet: choose one first", setup=True)
    reserve_guess()
    if not checked_pin(data.get("pin"), stored):
        lock = state.guard.status(client())
        if lock.wait > 0:
            raise ApiError(429, f"wrong PIN: locked for {int(lock.wait) + 1} s", wait=lock.wait)
        raise ApiError(401, "wrong PIN", login=True)
    state.guard.succeeded(client())
    log_in()
    return ok(director=True, csrf=session["csrf"])


@director_session.post("/api/logout")
def api_logout() -> Response:
    web().store.end_session(session.get("sid"))
    session.clear()
    return ok(director=False, csrf=csrf_token())


@director_session.post("/api/pin")
def api_pin() -> Response:
    """Set the first PIN (none set yet: from the Pi itself, or with the one-time code from the
    service's log), or change it (the director, giving the current one)."""
    data = body()
    state = web()
    try:
        new = validate_pin(data.get("pin"))
    except BadPin as e:
        raise ApiError(400, str(e)) from None
    current_hash = state.pin_hash
    if current_hash is not None:
        need_director()
        reserve_guess()
        if not checked_pin(data.get("current"), current_hash):
            raise ApiError(401, "the current PIN is wrong")
        state.guard.succeeded(client())
    elif not from_the_pi():
        reserve_guess()
        if not state.store.code_matches(data.get("code")):
            raise ApiError(403, "away from the table, the first PIN needs the one-time code: it is in "
                           "the service's log (journalctl -u board-pi) and on `board-pi doctor`",
                           setup_code=True)
        state.guard.succeeded(client())
    stored = hash_pin(new)
    with state.lock:
        if state.pin_hash != current_hash:  # someone else set it meanwhile
            raise ApiError(409, "the PIN was changed meanwhile: reload the page")
        if state.on_pin_set is not None:
            try:
                state.on_pin_set(stored)
            except Exception as e:  # the PIN must not change if it could not be kept
                raise ApiError(503, f"could not save the new PIN: {e}") from None
        try:
            state.store.set_pin_hash(stored)  # every director's session ends
        except OSError as e:
            raise ApiError(503, f"could not save the new PIN ({e.strerror or e}); the old one stands") from None
    log_in()
    return ok(director=True, csrf=session["csrf"])
