"""The hub's pages: every table at a glance, one table in full, the round's results and
standings, pairings, and the broadcasters' feeds. Flask, served like the table's page.

Viewing is open; sending pairings needs the director's PIN (kept in the hub's data directory,
set and checked the same way as on a table), a session cookie and the CSRF token.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Callable, Iterator

from flask import Flask, Response, jsonify, render_template, request

from ..feeds import feed_blueprint
from ..serve.guard import PinGuard
from ..serve.requests import ApiError, body, refusal
from ..serve.signin import SignInState, csrf_token, director_required, install_signin
from ..serve.streams import LiveStreams
from ..serve.store import DirectorStore
from .hub import Hub
from .results import PairingError, from_hub, gcg_archive, parse_pairings, results_csv, standings, tsh_lines

MAX_BODY = 256 * 1024  # a round's pairings for 60 tables are a few KB


def table_summary(row: dict[str, Any], behind: int = 0) -> dict[str, Any]:
    """One table as ``/api/tables`` gives it: table, players, scores, turn, online, finished,
    and what the dashboard draws (clocks, board, the play waiting for confirmation)."""
    body_ = row.get("state") or {}
    snap = body_.get("snapshot") or {}
    players = snap.get("players") or []
    clock = snap.get("clock") or {}
    pending = snap.get("pending")
    return {
        "table": row["table"],
        "players": [p.get("name") for p in players],
        "scores": [p.get("score") for p in players],
        "turn": snap.get("turn"),
        "online": bool(row.get("online")),
        "finished": bool(snap.get("over")),
        "game": snap.get("game"),
        "clocks": [{"remaining_ms": (p.get("clock") or {}).get("remaining_ms"),
                    "running": bool((p.get("clock") or {}).get("running")),
                    "overtime_penalty": (p.get("clock") or {}).get("overtime_penalty", 0)} for p in players],
        "phase": clock.get("phase"),
        "pending": ({"kind": pending.get("kind"), "message": pending.get("message")}
                    if isinstance(pending, dict) and pending else None),
        "board": snap.get("board") or [],
        "last_play": snap.get("last_play") or [],
        "bag": snap.get("bag"),
        "moves": len(snap.get("moves") or []),
        "pairing": body_.get("pairing"),
        "next_pairing": body_.get("next_pairing"),
        "updated": row.get("state_time"),
        "seq": row.get("last"),
        "behind": behind,
    }


@dataclass
class HubWebState(SignInState, LiveStreams):
    """What the hub's app keeps besides the hub: the director's sign-in (:class:`SignInState`),
    the live streams (:class:`LiveStreams`)."""


def create_hub_app(hub: Hub, *, store: DirectorStore, guard: PinGuard, secret_key: bytes | None = None,
                   heartbeat: float = 15.0, max_streams: int = 100) -> Flask:
    """The hub's app. ``store`` keeps the director's PIN and sessions, ``guard`` locks out wrong
    PINs (the same as a table's page: :mod:`board_pi.serve.signin`)."""
    app = Flask(__name__)
    app.secret_key = secret_key or __import__("os").urandom(32)
    app.config.update(MAX_CONTENT_LENGTH=MAX_BODY, SESSION_COOKIE_NAME="board_pi_hub_session",
                      SESSION_COOKIE_HTTPONLY=True, SESSION_COOKIE_SAMESITE="Strict",
                      PERMANENT_SESSION_LIFETIME=timedelta(hours=12))
    app.json.sort_keys = False  # type: ignore[attr-defined]
    state = HubWebState(store=store, guard=guard, heartbeat=heartbeat, max_streams=max_streams)
    app.extensions["board_pi"] = state
    install_signin(app, away_needs_code="away from the hub's machine, the first PIN needs the one-time code "
                   "printed when `board-pi hub` started")

    def tables() -> list[dict[str, Any]]:
        return [table_summary(r, hub.behind(r["table"])) for r in hub.store.tables()]

    def one(n: int) -> dict[str, Any]:
        for r in hub.store.tables():
            if r["table"] == n:
                return r
        raise ApiError(404, f"no table {n} has reported to the hub")

    def results() -> list[Any]:
        numbers = {(p["round"], p["table"]): tuple(p.get("numbers") or ()) for p in hub.store.pairings()}
        return from_hub(hub.store.results(), numbers)

    # -- pages ----------------------------------------------------------------------------------

    def page(template: str, title: str, **kw: Any) -> str:
        return render_template(template, title=title, csrf=csrf_token(), **kw)

    @app.get("/")
    def dashboard() -> str:
        return page("hub.html", "Tables")

    @app.get("/tables/<int:n>")
    def table_page(n: int) -> str:
        return page("hub_table.html", f"Table {n}", table=n)

    @app.get("/results")
    def results_page() -> str:
        return page("hub_results.html", "Results")

    @app.get("/director")
    def director_page() -> str:
        return page("hub_director.html", "Director")

    @app.get("/favicon.ico")
    def favicon() -> tuple[str, int]:
        return "", 204

    # -- reading --------------------------------------------------------------------------------

    @app.get("/api/tables")
    def api_tables() -> Response:
        return jsonify(tables())

    @app.get("/api/tables/<int:n>")
    def api_table(n: int) -> Response:
        row = one(n)
        body_ = row.get("state") or {}
        return jsonify({**table_summary(row, hub.behind(n)), "snapshot": body_.get("snapshot")})

    @app.get("/api/tables/<int:n>/events")
    def api_table_events(n: int) -> Response:
        one(n)
        return jsonify(hub.store.events(n))

    @app.get("/api/hub")
    def api_hub() -> Response:
        return jsonify({"connected": hub.connected, "problem": hub.connection_problem,
                        "broker": hub.settings.broker.display() if hub.settings.broker else None,
                        "duplicates": hub.duplicates, "resends": hub.resends})

    @app.get("/api/results")
    def api_results() -> Response:
        rs = results()
        rounds = sorted({r.round for r in rs if r.round is not None})
        want = request.args.get("round")
        if want not in (None, ""):
            if not str(want).isdigit():
                raise ApiError(400, "round must be a number")
            rs = [r for r in rs if r.round == int(str(want))]
        return jsonify({"rounds": rounds,
                        "results": [{"table": r.table, "round": r.round, "division": r.division,
                                     "players": list(r.players), "scores": list(r.scores)} for r in rs],
                        "standings": [s.__dict__ for s in standings(results())]})

    @app.get("/results.tsh")
    def results_tsh() -> Response:
        return _download(tsh_lines(results()) + "\n", "results.tsh", "text/plain")

    @app.get("/results.csv")
    def results_csv_file() -> Response:
        return _download(results_csv(results()), "results.csv", "text/csv")

    @app.get("/games.zip")
    def games_zip() -> Response:
        return _download(gcg_archive(results()), "games.zip", "application/zip")

    @app.get("/api/pairings")
    def api_pairings() -> Response:
        return jsonify(hub.store.pairings())

    @app.get("/api/events")
    def api_events() -> Response:
        """Server-Sent Events: which table changed (the dashboard then fetches it)."""
        return sse_stream(app, lambda seq: hub.bus.wait(seq, 1.0), hub.bus.last_seq,
                          lambda e: (e.type, e.data))

    # -- the director -----------------------------------------------------------------------------

    @app.post("/api/pairings")
    @director_required
    def api_send_pairings() -> Response:
        data = body()
        rnd = data.get("round")
        if isinstance(rnd, str) and rnd.strip().isdigit():
            rnd = int(rnd.strip())
        if not isinstance(rnd, int) or isinstance(rnd, bool) or not 1 <= rnd <= 999:
            raise ApiError(400, "round must be a number from 1 to 999")
        text = data.get("pairings")
        if not isinstance(text, str):
            raise ApiError(400, "pairings must be text: one line per table, e.g. '5 Ada Lovelace - Ben Franklin'")
        try:
            pairings = parse_pairings(text)
        except PairingError as e:
            raise ApiError(400, str(e)) from None
        sent = hub.send_pairings(rnd, pairings, now=bool(data.get("now", False)))
        return jsonify({"ok": True, "sent": sent})

    @app.post("/api/tables/<int:n>/control")
    @director_required
    def api_control(n: int) -> Any:
        data = body()
        action = data.get("action")
        if action not in ("pause", "resume", "end"):
            raise ApiError(400, "action must be pause, resume or end")
        reason = data.get("reason", "")
        if not isinstance(reason, str) or len(reason) > 120:
            raise ApiError(400, "reason must be text of at most 120 characters")
        if n not in {t["table"] for t in hub.store.tables()}:
            raise ApiError(404, f"no table {n} has reported to the hub")
        return jsonify({"ok": True, **hub.control(n, action, reason.strip())})

    app.register_blueprint(feed_blueprint(
        lambda table=None: _snapshot_of(hub, table), lambda seq, timeout: hub.bus.wait(seq, timeout),
        lambda: hub.bus.last_seq, state), url_prefix="/tables/<int:table>")

    @app.errorhandler(ApiError)
    def api_error(e: ApiError) -> tuple[Response, int]:
        return refusal(e)

    @app.after_request
    def headers(resp: Response) -> Response:
        resp.headers.setdefault("X-Content-Type-Options", "nosniff")
        resp.headers.setdefault("Referrer-Policy", "same-origin")
        if not request.path.endswith("/overlay"):  # the overlay is embedded by streaming programs
            resp.headers.setdefault("X-Frame-Options", "DENY")
        resp.headers.setdefault("Content-Security-Policy",
                                "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
                                "connect-src 'self'; base-uri 'none'; form-action 'self'")
        if request.path.startswith("/api/"):
            resp.headers.setdefault("Cache-Control", "no-store")
        return resp

    return app


def _snapshot_of(hub: Hub, table: int | None) -> dict[str, Any] | None:
    for r in hub.store.tables():
        if r["table"] == table:
            return (r.get("state") or {}).get("snapshot")
    return None


def _download(content: str | bytes, name: str, mimetype: str) -> Response:
    resp = Response(content, mimetype=mimetype)
    resp.headers["Content-Disposition"] = f'attachment; filename="{name}"'
    return resp


def sse_stream(app: Flask, wait: Callable[[int], tuple[list[Any], bool]], start: int,
               encode: Callable[[Any], tuple[str, Any]]) -> Response:
    """An event stream from a bus, with heartbeats; ends when the server stops."""
    state: HubWebState = app.extensions["board_pi"]
    if not state.open_stream():
        raise ApiError(503, "too many live viewers: reload in a moment")
    gone: Callable[[], bool] = request.environ.get("waitress.client_disconnected") or (lambda: False)

    def stream() -> Iterator[str]:
        try:
            yield "retry: 2000\n\n"
            seq = start
            quiet = time.monotonic()
            while not state.stopping.is_set() and not gone():
                events, _ = wait(seq)
                if events:
                    seq = events[-1].seq
                    for e in events:
                        kind, data = encode(e)
                        yield f"id: {e.seq}\nevent: {kind}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"
                    quiet = time.monotonic()
                elif time.monotonic() - quiet >= state.heartbeat:
                    yield "event: ping\ndata: {}\n\n"
                    quiet = time.monotonic()
        finally:
            state.close_stream()

    resp = Response(stream(), mimetype="text/event-stream")
    resp.headers["Cache-Control"] = "no-store"
    resp.headers["X-Accel-Buffering"] = "no"
    return resp
