"""The status page: a Flask app over one table, seen through its
:class:`~board_pi.table.facade.TableFacade` (snapshot, events, commands).

Three pages (the table view, the word judge screen, the director's controls) and the JSON API
they use, documented in ``openapi.json`` (served at ``/api/openapi``); the routes are in
:mod:`board_pi.web.routes`, one blueprint per job. Viewing is open; anything that changes a game
needs the director's PIN, a session cookie, and the session's CSRF token in an ``X-CSRF-Token``
header (:mod:`board_pi.serve.signin`, the same as the hub's). Every bad request gets a 4xx with
``{"error": message}``.
"""

from __future__ import annotations

import os
from datetime import timedelta
from pathlib import Path
from typing import Any, Callable

from flask import Flask, Response, jsonify, request
from werkzeug.exceptions import HTTPException

from ..feeds import feed_blueprint
from ..pin import pin_hash_problem
from ..table.facade import NotFound, Table, TableError, TableFacade
from ..serve.guard import PinGuard
from ..serve.requests import MAX_BODY, ApiError, refusal
from ..serve.signin import install_signin
from ..serve.store import DirectorStore
from .access import WebState
from .routes import BLUEPRINTS

SECURITY_POLICY = ("default-src 'self'; img-src 'self' data: blob:; style-src 'self'; script-src 'self'; "
                   "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'")


def create_app(table: Table | TableFacade, *, pin_hash: str | None = None,
               secret_key: bytes | str | None = None, on_pin_set: Callable[[str], Any] | None = None,
               heartbeat: float = 15.0, max_streams: int = 200, judge_clear_seconds: float = 8.0,
               guard: PinGuard | None = None, secure_cookies: bool = False,
               judge_needs_pin: bool = False, data_dir: Path | str | None = None,
               store: DirectorStore | None = None, lexicons: tuple[str, ...] = ()) -> Flask:
    """The status page's app for ``table`` (a Table, or the facade over one).

    ``data_dir``: where the director's PIN hash, the one-time setup code and the live sessions
    are kept (:class:`~board_pi.serve.store.DirectorStore`; None keeps them in memory).
    ``pin_hash``: a PIN hash from :func:`~board_pi.pin.hash_pin` to use when the data
    directory holds none (an old configuration's). With no PIN at all, the director's page asks
    for one on first use, from the Pi itself or with the setup code; ``on_pin_set`` is also told
    its hash. ``store`` replaces both. ``secret_key`` signs the session cookie (a random one
    means directors log in again after a restart). ``lexicons``: lexicons the director may
    choose besides those in the lexicon folders (the configuration's, which may be a path).
    ``heartbeat``: seconds between keep-alive events on the event stream. ``max_streams``: live
    event streams served at once; more viewers get a 503 and their page polls ``/api/state``
    instead. ``judge_needs_pin``: only the director may use the word judge screen (for events
    where phones at the table could use it to check words mid-game); by default anyone at the
    table may.
    """
    app = Flask(__name__)
    app.secret_key = secret_key or os.urandom(32)
    app.config.update(
        MAX_CONTENT_LENGTH=MAX_BODY,
        SESSION_COOKIE_NAME="board_pi_session",
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Strict",
        SESSION_COOKIE_SECURE=secure_cookies,
        PERMANENT_SESSION_LIFETIME=timedelta(hours=12),
    )
    app.json.sort_keys = False  # type: ignore[attr-defined]
    if store is None:
        if pin_hash is not None and pin_hash_problem(pin_hash):
            raise ValueError(f"pin_hash cannot be used: {pin_hash_problem(pin_hash)}")
        store = DirectorStore(Path(data_dir) if data_dir is not None else None, pin_hash)
    facade = table if isinstance(table, TableFacade) else TableFacade(table, lexicons=lexicons)
    app.extensions["board_pi"] = WebState(facade, judge_clear_seconds, judge_needs_pin, heartbeat=heartbeat,
                                          max_streams=max_streams, store=store, guard=guard or PinGuard(),
                                          on_pin_set=on_pin_set)
    _answer_errors(app)
    _answer_headers(app)
    install_signin(app, away_needs_code="away from the table, the first PIN needs the one-time code: it is in "
                   "the service's log (journalctl -u board-pi) and on `board-pi doctor`")
    for blueprint in BLUEPRINTS:
        app.register_blueprint(blueprint)
    # The broadcasters' feeds of this table (the same as the hub serves per table).
    state = app.extensions["board_pi"]
    app.register_blueprint(feed_blueprint(lambda: facade.snapshot(), facade.events.wait,
                                          lambda: facade.events.last_seq, state))
    return app


def _answer_errors(app: Flask) -> None:
    """Every error a JSON answer on the API: ``{"error": message}`` with the right status."""

    @app.errorhandler(ApiError)
    def api_error(e: ApiError) -> tuple[Response, int]:
        return refusal(e)

    @app.errorhandler(TableError)
    def table_error(e: TableError) -> tuple[Response, int]:
        return jsonify({"error": str(e)}), 400

    @app.errorhandler(NotFound)
    def not_found(e: NotFound) -> tuple[Response, int]:
        return jsonify({"error": str(e.args[0]) if e.args else "not found"}), 404

    @app.errorhandler(HTTPException)
    def http_error(e: HTTPException) -> Any:
        if request.path.startswith("/api/"):
            return jsonify({"error": e.description or e.name}), e.code or 500
        return e

    @app.errorhandler(Exception)
    def unexpected(e: Exception) -> tuple[Response, int]:
        # A fault of ours, not the request's: say so plainly, keep the server up.
        app.logger.exception("unexpected error on %s", request.path)
        return jsonify({"error": f"the table could not do that: {type(e).__name__}: {e}"}), 500


def _answer_headers(app: Flask) -> None:
    """The headers on every answer."""

    @app.after_request
    def headers(resp: Response) -> Response:
        resp.headers.setdefault("X-Content-Type-Options", "nosniff")
        if request.path != "/overlay":  # a streaming program's browser source may frame the overlay
            resp.headers.setdefault("X-Frame-Options", "DENY")
        resp.headers.setdefault("Referrer-Policy", "same-origin")
        resp.headers.setdefault("Content-Security-Policy", SECURITY_POLICY)
        if request.path.startswith("/api/"):
            resp.headers.setdefault("Cache-Control", "no-store")
        return resp


def stop_streams(app: Flask) -> None:
    """Tell every open event stream of ``app`` to finish (the server is stopping)."""
    app.extensions["board_pi"].stopping.set()
