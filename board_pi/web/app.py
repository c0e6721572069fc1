"""The status page: a Flask app over one :class:`~board_pi.table.table.Table`.

Three pages (the table view, the word judge screen, the director's controls) and the JSON API
they use, documented in ``openapi.json`` (served at ``/api/openapi``). Viewing is open;
anything that changes a game needs the director's PIN, a session cookie, and the session's
CSRF token in an ``X-CSRF-Token`` header. Every bad request gets a 4xx with
``{"error": message}``.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
import os
import re
import secrets
import threading
import time
from dataclasses import dataclass, field
from datetime import timedelta
from importlib import resources
from pathlib import Path
from typing import Any, Callable, Iterator

from flask import Flask, Response, jsonify, render_template, request, session
from werkzeug.exceptions import HTTPException

from ..clock import TimeControl
from ..rules.game import ChallengeRule, GameRules
from ..rules.judge import WordJudge
from ..table.table import Table, TableError
from ..pin import BadPin, check_pin, hash_pin, pin_hash_problem, validate_pin
from .auth import PinGuard
from .director import DirectorStore
from .calibration import NoCalibrationView, render

MAX_BODY = 64 * 1024  # every request the pages make is tiny
CSRF_HEADER = "X-CSRF-Token"
MAX_DEPTH = 16  # the pages' bodies nest two or three levels
HASHING = 2  # PINs hashed at once (16 MiB each): a burst of logins cannot eat the Pi's memory
# A request that came through a proxy, even one on the Pi itself, is not "from the Pi".
PROXY_HEADERS = ("Forwarded", "X-Forwarded-For", "X-Forwarded-Host", "X-Forwarded-Proto", "X-Real-Ip",
                 "X-Client-Ip", "Via")
_WHOLE = re.compile(r"[+-]?[0-9]{1,12}")
_DECIMAL = re.compile(r"[+-]?(?:[0-9]{1,12}(?:\.[0-9]{0,12})?|\.[0-9]{1,12})")


class ApiError(Exception):
    """A request the API refuses: ``status`` and a message for the page."""

    def __init__(self, status: int, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.status, self.message, self.extra = status, message, extra


@dataclass
class WebState:
    """What the app keeps besides the table: the PIN, the guard, the live streams."""

    table: Table
    store: DirectorStore
    guard: PinGuard
    on_pin_set: Callable[[str], Any] | None
    heartbeat: float
    max_streams: int
    judge_clear_seconds: float
    stopping: threading.Event = field(default_factory=threading.Event)
    streams: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)
    hashing: threading.BoundedSemaphore = field(default_factory=lambda: threading.BoundedSemaphore(HASHING))
    hash_wait: float = 15.0  # seconds a login waits for a free hashing slot before a 503

    @property
    def pin_hash(self) -> str | None:
        return self.store.pin_hash()


# -- reading requests --------------------------------------------------------------------------


def _body() -> dict[str, Any]:
    """The request's JSON object (an empty body counts as ``{}``)."""
    raw = request.get_data(cache=True)
    if not raw.strip():
        return {}
    if _depth(raw) > MAX_DEPTH:
        raise ApiError(400, f"the body nests too deep (at most {MAX_DEPTH} levels)")
    try:
        data = json.loads(raw)
    except (ValueError, UnicodeDecodeError, RecursionError) as e:
        raise ApiError(400, f"the body is not valid JSON: {e}") from None
    if not isinstance(data, dict):
        raise ApiError(400, "the body must be a JSON object")
    return data


def _depth(raw: bytes) -> int:
    """How deep the brackets of a JSON text nest, found without parsing (strings skipped): a
    deeply nested body must not reach the parser's recursion at all."""
    deepest = depth = 0
    in_string = escaped = False
    for b in raw:
        if in_string:
            if escaped:
                escaped = False
            elif b == 0x5C:  # backslash
                escaped = True
            elif b == 0x22:  # "
                in_string = False
        elif b == 0x22:
            in_string = True
        elif b in (0x5B, 0x7B):  # [ {
            depth += 1
            deepest = max(deepest, depth)
        elif b in (0x5D, 0x7D):  # ] }
            depth -= 1
    return deepest


def _int(data: dict[str, Any], name: str, lo: int, hi: int, default: int | None = None) -> int:
    value = data.get(name, default)
    if value is None:
        raise ApiError(400, f"{name} is required")
    if isinstance(value, bool) or not isinstance(value, int):
        # Not str.isdigit: it takes "²" and "٣", which int() then refuses.
        if isinstance(value, str) and _WHOLE.fullmatch(value.strip()):
            value = int(value.strip())
        else:
            raise ApiError(400, f"{name} must be a whole number")
    if not lo <= value <= hi:
        raise ApiError(400, f"{name} must be between {lo} and {hi}")
    return value


def _number(data: dict[str, Any], name: str, lo: float, hi: float, default: float) -> float:
    value = data.get(name, default)
    if isinstance(value, str):
        # Not float(): it also takes "nan", "1e999", "1_0" and other scripts' digits.
        if not _DECIMAL.fullmatch(value.strip()):
            raise ApiError(400, f"{name} must be a number")
        value = float(value.strip())
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
        raise ApiError(400, f"{name} must be a number")
    if not lo <= value <= hi:
        raise ApiError(400, f"{name} must be between {lo:g} and {hi:g}")
    return float(value)


def _text(data: dict[str, Any], name: str, max_len: int = 200, default: str | None = None,
          required: bool = True) -> str:
    value = data.get(name, default)
    if value is None:
        if required:
            raise ApiError(400, f"{name} is required")
        return ""
    if not isinstance(value, str):
        raise ApiError(400, f"{name} must be text")
    value = value.strip()
    if len(value) > max_len:
        raise ApiError(400, f"{name} is too long (at most {max_len} characters)")
    if not value.isprintable():
        raise ApiError(400, f"{name} has characters that cannot be shown")
    if required and not value:
        raise ApiError(400, f"{name} is required")
    return value


def _letters(data: dict[str, Any], name: str) -> dict[str, str]:
    value = data.get(name)
    if not isinstance(value, dict) or len(value) > 225:
        raise ApiError(400, f"{name} must be an object mapping squares (like \"8H\") to letters")
    out = {}
    for k, v in value.items():
        if not isinstance(v, str) or len(k) > 4 or len(v) > 4:
            raise ApiError(400, f"{name}: square {k!s:.8} must map to one letter")
        out[k] = v.strip()
    return out


# -- the app ---------------------------------------------------------------------------------


def create_app(table: Table, *, pin_hash: str | None = None, secret_key: bytes | str | None = None,
               on_pin_set: Callable[[str], Any] | None = None, heartbeat: float = 15.0,
               max_streams: int = 200, judge_clear_seconds: float = 8.0,
               guard: PinGuard | None = None, secure_cookies: bool = False,
               judge_needs_pin: bool = False, data_dir: Path | str | None = None,
               store: DirectorStore | None = None, lexicons: tuple[str, ...] = ()) -> Flask:
    """The status page's app for ``table``.

    ``data_dir``: where the director's PIN hash, the one-time setup code and the live sessions
    are kept (:class:`~board_pi.web.director.DirectorStore`; None keeps them in memory).
    ``pin_hash``: a PIN hash from :func:`~board_pi.pin.hash_pin` to use when the data
    directory holds none (an old configuration's). With no PIN at all, the director's page asks
    for one on first use, from the Pi itself or with the setup code; ``on_pin_set`` is also told
    its hash. ``store`` replaces both. ``secret_key`` signs the session cookie (a random one
    means directors log in again after a restart). ``lexicons``: lexicons the director may
    choose besides those in the lexicon folders (the configuration's, which may be a path). ``heartbeat``: seconds between keep-alive
    events on the event stream. ``max_streams``: live event streams served at once; more
    viewers get a 503 and their page polls ``/api/state`` instead. ``judge_needs_pin``: only the
    director may use the word judge screen (for events where phones at the table could use it
    to check words mid-game); by default anyone at the table may.
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
    state = WebState(table, store, guard or PinGuard(), on_pin_set, heartbeat, max_streams,
                     judge_clear_seconds)
    app.extensions["board_pi"] = state

    # -- helpers ----------------------------------------------------------------------------

    def csrf_token() -> str:
        token = session.get("csrf")
        if not token:
            token = session["csrf"] = secrets.token_urlsafe(32)
        return str(token)

    def is_director() -> bool:
        # The cookie alone is not enough: the server must still know its session (a logout or a
        # new PIN ends it for good, not just in that browser).
        return bool(session.get("director")) and state.store.session_alive(session.get("sid"))

    def from_the_pi() -> bool:
        """A request made on the Pi itself: from a loopback address, and not passed on by a
        proxy (which would make every visitor look local)."""
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
        if not state.hashing.acquire(timeout=state.hash_wait):
            raise ApiError(503, "the table is busy checking PINs: try again in a moment")
        try:
            return isinstance(pin, str) and check_pin(pin, stored)
        finally:
            state.hashing.release()

    def reserve_guess() -> None:
        """Count a guess before it is checked (a burst cannot outrun the lockout)."""
        lock = state.guard.attempt(client())
        if lock.wait > 0:
            raise ApiError(429, f"too many wrong PINs: try again in {int(lock.wait) + 1} s", wait=lock.wait)

    def need_director() -> None:
        if state.pin_hash is None:
            raise ApiError(401, "no director's PIN is set yet: set one on the Director page", login=True)
        if not is_director():
            raise ApiError(401, "the director's PIN is needed for this", login=True)

    def client() -> str:
        return request.remote_addr or "unknown"

    def ok(**extra: Any) -> Response:
        return jsonify({"ok": True, **extra})

    def result(res: Any) -> Response:
        return ok(outcome=res.outcome, message=res.message, score=res.score, play=res.play)

    def player_index(data: dict[str, Any], name: str = "player") -> int:
        n = len(table.game.players) if table.game is not None else 4
        return _int(data, name, 0, max(0, n - 1))

    # -- errors and headers -----------------------------------------------------------------

    @app.errorhandler(ApiError)
    def api_error(e: ApiError) -> tuple[Response, int]:
        resp = jsonify({"error": e.message, **e.extra})
        if "wait" in e.extra:
            resp.headers["Retry-After"] = str(int(e.extra["wait"]) + 1)
        return resp, e.status

    @app.errorhandler(TableError)
    def table_error(e: TableError) -> tuple[Response, int]:
        return jsonify({"error": str(e)}), 400

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

    @app.before_request
    def check_csrf() -> None:
        if request.method in ("POST", "PUT", "PATCH", "DELETE"):
            sent = request.headers.get(CSRF_HEADER, "")
            token = session.get("csrf", "")
            if not token or not sent or not hmac.compare_digest(str(sent), str(token)):
                raise ApiError(403, "missing or wrong CSRF token: reload the page and try again")

    @app.after_request
    def headers(resp: Response) -> Response:
        resp.headers.setdefault("X-Content-Type-Options", "nosniff")
        resp.headers.setdefault("X-Frame-Options", "DENY")
        resp.headers.setdefault("Referrer-Policy", "same-origin")
        resp.headers.setdefault(
            "Content-Security-Policy",
            "default-src 'self'; img-src 'self' data: blob:; style-src 'self'; script-src 'self'; "
            "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'")
        if request.path.startswith("/api/"):
            resp.headers.setdefault("Cache-Control", "no-store")
        return resp

    # -- pages ------------------------------------------------------------------------------

    def page(template: str, title: str) -> str:
        return render_template(template, title=title, csrf=csrf_token(),
                               judge_clear_seconds=state.judge_clear_seconds)

    @app.get("/")
    def table_page() -> str:
        return page("table.html", "Table")

    @app.get("/judge")
    def judge_page() -> str:
        return page("judge.html", "Word judge")

    @app.get("/director")
    def director_page() -> str:
        return page("director.html", "Director")

    @app.get("/favicon.ico")
    def favicon() -> tuple[str, int]:
        return "", 204  # no icon: saves a 404 in every browser's log

    # -- reading ----------------------------------------------------------------------------

    @app.get("/api/state")
    def api_state() -> Response:
        seq = table.bus.last_seq  # taken first: events after it may repeat, none are lost
        return jsonify({**table.snapshot(), "seq": seq})

    @app.get("/api/openapi")
    def api_openapi() -> Response:
        text = resources.files("board_pi.web").joinpath("openapi.json").read_text(encoding="utf-8")
        return Response(text, mimetype="application/json")

    @app.get("/api/session")
    def api_session() -> Response:
        lock = state.guard.status(client())
        pin_set = state.pin_hash is not None
        return jsonify({"director": is_director(), "pin_set": pin_set,
                        "setup_code": not pin_set and not from_the_pi(),
                        "csrf": csrf_token(), "wait": round(lock.wait, 1)})

    @app.get("/api/games")
    def api_games() -> Response:
        archive = table.archive.list() if table.archive is not None else []
        return jsonify({"games": table.journal.games(), "current": table.game_id, "archive": archive})

    @app.get("/api/archive/<game_id>.gcg")
    def api_archive_gcg(game_id: str) -> Response:
        """A finished game's record from the archive (never overwritten)."""
        if table.archive is None:
            raise ApiError(404, "this table keeps no archive of finished games")
        charset = "utf-8"
        try:
            text: str | bytes = table.archive.get(game_id)
        except KeyError:
            raise ApiError(404, f"no finished game {game_id!r}") from None
        except UnicodeDecodeError:
            # A record from another program, in the GCG's old default encoding: sent as it is.
            text, charset = (Path(table.archive.dir) / f"{game_id}.gcg").read_bytes(), "iso-8859-1"
        resp = Response(text, content_type=f"text/plain; charset={charset}")
        resp.headers["Content-Disposition"] = f'attachment; filename="{game_id}.gcg"'
        return resp

    @app.get("/api/lexicons")
    def api_lexicons() -> Response:
        from ..wordlists import available

        return jsonify({"lexicons": available(), "current": table.judge.lexicon.name})

    @app.get("/api/gcg")
    def api_gcg() -> Response:
        if table.game is None:
            raise ApiError(404, "no game yet: nothing to download")
        text = table.gcg()
        resp = Response(text, content_type="text/plain; charset=utf-8")
        resp.headers["Content-Disposition"] = f'attachment; filename="game-{table.game_id}.gcg"'
        return resp

    @app.get("/api/last-play")
    def api_last_play() -> Response:
        """The words the last play formed, for the word judge screen's 'fill in' button."""
        with table._lock:  # a consistent read while the table thread may be changing the game
            game = table.game
            lp = game.state.last_play if game is not None else None
            if game is None or lp is None:
                return jsonify({"words": [], "play": None})
            moves = game.state.moves
            return jsonify({"words": [w.upper() for w in lp.words], "play": moves[-1].text if moves else None})

    # -- the event stream -------------------------------------------------------------------

    def sse(seq: int, type: str, data: Any) -> str:
        return f"id: {seq}\nevent: {type}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"

    encoded: dict[int, str] = {}  # seq -> the event as sent: every viewer gets the same text

    def sse_event(e: Any) -> str:
        text = encoded.get(e.seq)
        if text is None:
            text = sse(e.seq, e.type, e.data)
            with state.lock:
                encoded[e.seq] = text
                if len(encoded) > 256:
                    for k in sorted(encoded)[:128]:
                        encoded.pop(k, None)
        return text

    @app.get("/api/events")
    def api_events() -> Response:
        raw = request.args.get("since") or request.headers.get("Last-Event-ID")
        since: int | None = None
        if raw not in (None, ""):
            try:
                since = int(str(raw))
            except ValueError:
                raise ApiError(400, "since must be an event number") from None
            if since < 0:
                raise ApiError(400, "since must be an event number")
        with state.lock:
            if state.streams >= state.max_streams:
                raise ApiError(503, "too many live viewers: poll /api/state instead (the page does so by itself)")
            state.streams += 1
        bus = table.bus
        # Under waitress (with request lookahead) a closed page is noticed within a second, so
        # it does not keep a worker thread until the next heartbeat.
        gone: Callable[[], bool] = request.environ.get("waitress.client_disconnected") or (lambda: False)

        def batch(events: list[Any]) -> Iterator[str]:
            # A page only needs the newest state of a batch; the other events say what happened.
            last_state = max((e.seq for e in events if e.type == "state"), default=None)
            for e in events:
                if e.type != "state" or e.seq == last_state:
                    yield sse_event(e)

        def stream() -> Iterator[str]:
            try:
                yield "retry: 2000\n\n"  # reconnect after 2 s; also sends the headers at once
                seq = since
                if seq is not None:
                    events, missed = bus.since(seq)
                    if missed or seq > bus.last_seq:
                        seq = None  # too far behind (or from before a restart): the whole state
                    else:
                        yield from batch(events)
                        seq = events[-1].seq if events else seq
                if seq is None:
                    seq = bus.last_seq
                    yield sse(seq, "state", {**table.snapshot(), "seq": seq})
                quiet_since = time.monotonic()
                while not state.stopping.is_set() and not gone():
                    events, missed = bus.wait(seq, min(state.heartbeat, 1.0))
                    if missed:
                        seq = bus.last_seq
                        yield sse(seq, "state", {**table.snapshot(), "seq": seq})
                        quiet_since = time.monotonic()
                    elif events:
                        yield from batch(events)
                        seq = events[-1].seq
                        quiet_since = time.monotonic()
                    elif time.monotonic() - quiet_since >= state.heartbeat:
                        # No id, so the page's Last-Event-ID stays; keeps its watchdog content.
                        yield "event: ping\ndata: {}\n\n"
                        quiet_since = time.monotonic()
            finally:
                with state.lock:
                    state.streams -= 1

        resp = Response(stream(), mimetype="text/event-stream")
        resp.headers["Cache-Control"] = "no-store"
        resp.headers["X-Accel-Buffering"] = "no"
        return resp

    # -- the director's session -------------------------------------------------------------

    def log_in() -> None:
        session.clear()
        session.permanent = True
        session["director"] = True
        session["sid"] = state.store.new_session()
        session["csrf"] = secrets.token_urlsafe(32)  # a new token with the new privilege

    @app.post("/api/login")
    def api_login() -> Response:
        data = _body()
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

    @app.post("/api/logout")
    def api_logout() -> Response:
        state.store.end_session(session.get("sid"))
        session.clear()
        return ok(director=False, csrf=csrf_token())

    @app.post("/api/pin")
    def api_pin() -> Response:
        """Set the first PIN (none set yet: from the Pi itself, or with the one-time code from
        the service's log), or change it (the director, giving the current one)."""
        data = _body()
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

    # -- the word judge ---------------------------------------------------------------------

    @app.post("/api/judge")
    def api_judge() -> Response:
        if judge_needs_pin:
            need_director()
        data = _body()
        words = data.get("words")
        if isinstance(words, str):
            words = words.replace(",", " ").split()
        if not isinstance(words, list) or not all(isinstance(w, str) for w in words):
            raise ApiError(400, "words must be a list of words")
        words = [w.strip() for w in words if w.strip()]
        if any(len(w) > 15 for w in words):
            raise ApiError(400, "a word has at most 15 letters")
        verdict = table.judge_words(words)
        return jsonify({"verdict": str(verdict), "acceptable": verdict.acceptable, "words": verdict.words})

    @app.get("/api/judge/log")
    def api_judge_log() -> Response:
        need_director()
        return jsonify({"log": [{"time": a.time, "words": list(a.words), "acceptable": a.acceptable,
                                 "lexicon": a.lexicon} for a in table.judge.log]})

    # -- the game's actions (the director's) ------------------------------------------------

    @app.post("/api/game")
    def api_new_game() -> Response:
        need_director()
        data = _body()
        players = data.get("players")
        if not isinstance(players, list) or not 2 <= len(players) <= 4:
            raise ApiError(400, "players must be a list of 2 to 4 names")
        names = [_text({"name": p}, "name", 40) for p in players]
        if len(set(n.casefold() for n in names)) != len(names):
            raise ApiError(400, "two players have the same name")
        try:
            rule = ChallengeRule(str(data.get("challenge", "single")))
        except ValueError:
            raise ApiError(400, "challenge must be one of " + ", ".join(r.value for r in ChallengeRule)) from None
        try:
            control = TimeControl(
                minutes=_number(data, "minutes", 1, 180, 25),
                overtime_penalty=_int(data, "overtime_penalty", 0, 100, 10),
                max_overtime_minutes=_number(data, "max_overtime_minutes", 0, 60, 10),
                increment_seconds=_number(data, "increment_seconds", 0, 600, 0),
            )
        except ValueError as e:
            raise ApiError(400, str(e)) from None
        lexicon = _text(data, "lexicon", 80, default="", required=False)
        if lexicon and lexicon != table.judge.lexicon.name:
            from ..rules.lexicon import LexiconError
            from ..wordlists import available, load_lexicon

            # By name only, from the lexicon folders or the configuration: a path would let the
            # judge answer whether a word is in any file the table can read.
            allowed = {Path(spec).stem if ("/" in spec or spec.endswith(".txt")) else spec: spec
                       for spec in (table.settings.lexicon, *lexicons)}
            if lexicon in allowed:
                spec = allowed[lexicon]
            elif lexicon in available() and re.fullmatch(r"[\w-][\w.-]*", lexicon) and ".." not in lexicon:
                spec = lexicon
            else:
                raise ApiError(400, f"no lexicon named {lexicon!r} (known: {', '.join(available())})")
            try:
                lex = load_lexicon(spec)
            except LexiconError as e:
                raise ApiError(400, str(e)) from None
            old = table.judge
            table.use_judge(WordJudge(lex, clock=time.time, on_log=old.on_log, log=old.log))
        rules = GameRules(challenge=rule, tournament=len(names) == 2)
        meta = {"lexicon": table.judge.lexicon.name}
        event = _text(data, "event", 80, default="", required=False)
        if event:
            meta["event"] = event
        game_id = table.new_game(names, rules, control, meta)
        return ok(game=game_id)

    @app.post("/api/pause")
    def api_pause() -> Response:
        need_director()
        table.pause()
        return ok()

    @app.post("/api/resume")
    def api_resume() -> Response:
        need_director()
        table.resume_clock()
        return ok()

    @app.post("/api/undo")
    def api_undo() -> Response:
        need_director()
        return ok(undone=table.undo())

    @app.post("/api/adjust")
    def api_adjust() -> Response:
        need_director()
        data = _body()
        player = player_index(data)
        points = _int(data, "points", -1000, 1000)
        reason = _text(data, "reason", 200)
        table.adjust(player, points, reason)
        return ok()

    @app.post("/api/end")
    def api_end() -> Response:
        need_director()
        data = _body()
        table.end_game(_text(data, "reason", 200, default="ended by the director"))
        return ok()

    @app.post("/api/correct")
    def api_correct() -> Response:
        need_director()
        data = _body()
        return result(table.correct_last_play(_text(data, "play", 40)))

    @app.post("/api/play")
    def api_play() -> Response:
        need_director()
        data = _body()
        return result(table.enter_play(player_index(data), _text(data, "play", 40)))

    @app.post("/api/press")
    def api_press() -> Response:
        need_director()
        data = _body()
        player = player_index(data)
        exchange = data.get("exchange", False)
        if not isinstance(exchange, bool):
            raise ApiError(400, "exchange must be true or false")
        count = _int(data, "exchange_count", 1, 7) if data.get("exchange_count") is not None else None
        return result(table.press(player, exchange=exchange, exchange_count=count))

    @app.post("/api/confirm")
    def api_confirm() -> Response:
        need_director()
        data = _body()
        tiles = _letters(data, "tiles") if data.get("tiles") is not None else None
        return result(table.confirm(tiles))

    @app.post("/api/blanks")
    def api_blanks() -> Response:
        need_director()
        data = _body()
        return result(table.set_blanks(_letters(data, "letters")))

    @app.post("/api/racks")
    def api_racks() -> Response:
        need_director()
        data = _body()
        racks = data.get("racks")
        if not isinstance(racks, dict):
            raise ApiError(400, "racks must be an object mapping player numbers to racks")
        out: dict[int, str] = {}
        for k, v in racks.items():
            out[_int({"player": k}, "player", 0, 3)] = _text({"rack": v}, "rack", 7, required=False)
        table.give_racks(out)
        return ok()

    @app.post("/api/hold")
    def api_hold() -> Response:
        need_director()
        table.hold(player_index(_body()))
        return ok()

    @app.post("/api/challenge")
    def api_challenge() -> Response:
        need_director()
        verdict = table.challenge(player_index(_body()))
        return jsonify({"ok": True, "verdict": str(verdict), "acceptable": verdict.acceptable})

    @app.post("/api/accept")
    def api_accept() -> Response:
        need_director()
        return result(table.accept_out_play())

    @app.get("/api/calibration.png")
    def api_calibration() -> Response:
        need_director()
        try:
            png = render(table.last_frame, table.last_reading, table.settings.doubt_below)
        except NoCalibrationView as e:
            raise ApiError(404, str(e)) from None
        return Response(png, mimetype="image/png")

    return app


def stop_streams(app: Flask) -> None:
    """Tell every open event stream of ``app`` to finish (the server is stopping)."""
    app.extensions["board_pi"].stopping.set()
