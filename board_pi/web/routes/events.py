"""The event stream (Server-Sent Events): every change of the table, numbered, as it happens.

A page that reconnects says the last number it saw (``since`` or ``Last-Event-ID``) and gets
what it missed; one too far behind (or from before a restart) gets the whole state again.
"""

from __future__ import annotations

import json
import time
from typing import Any, Callable, Iterator

from flask import Blueprint, Response, request

from ...serve.requests import ApiError
from ..access import WebState, table, web

events = Blueprint("events", __name__)

def _sse(seq: int, type: str, data: Any) -> str:
    return f"id: {seq}\nevent: {type}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"


def _sse_event(state: WebState, e: Any) -> str:
    """The event as sent; encoded once, for every viewer (the stream runs outside the app's
    context, so ``state`` is handed in)."""
    encoded = state.encoded
    text = encoded.get(e.seq)
    if text is None:
        text = _sse(e.seq, e.type, e.data)
        with state.lock:
            encoded[e.seq] = text
            if len(encoded) > 256:
                for k in sorted(encoded)[:128]:
                    encoded.pop(k, None)
    return text


def _batch(state: WebState, evs: list[Any]) -> Iterator[str]:
    # A page only needs the newest state of a batch; the other events say what happened.
    last_state = max((e.seq for e in evs if e.type == "state"), default=None)
    for e in evs:
        if e.type != "state" or e.seq == last_state:
            yield _sse_event(state, e)


def _since() -> int | None:
    raw = request.args.get("since") or request.headers.get("Last-Event-ID")
    if raw in (None, ""):
        return None
    try:
        since = int(str(raw))
    except ValueError:
        raise ApiError(400, "since must be an event number") from None
    if since < 0:
        raise ApiError(400, "since must be an event number")
    return since


@events.get("/api/events")
def api_events() -> Response:
    since = _since()
    state = web()
    if not state.open_stream():
        raise ApiError(503, "too many live viewers: poll /api/state instead (the page does so by itself)")
    facade = table()
    bus = facade.events
    # Under waitress (with request lookahead) a closed page is noticed within a second, so it
    # does not keep a worker thread until the next heartbeat.
    gone: Callable[[], bool] = request.environ.get("waitress.client_disconnected") or (lambda: False)

    def whole_state() -> tuple[int, str]:
        snap = facade.snapshot()
        return snap["seq"], _sse(snap["seq"], "state", snap)

    def stream() -> Iterator[str]:
        try:
            yield "retry: 2000\n\n"  # reconnect after 2 s; also sends the headers at once
            seq = since
            if seq is not None:
                evs, missed = bus.since(seq)
                if missed or seq > bus.last_seq:
                    seq = None  # too far behind (or from before a restart): the whole state
                else:
                    yield from _batch(state, evs)
                    seq = evs[-1].seq if evs else seq
            if seq is None:
                seq, text = whole_state()
                yield text
            quiet_since = time.monotonic()
            while not state.stopping.is_set() and not gone():
                evs, missed = bus.wait(seq, min(state.heartbeat, 1.0))
                if missed:
                    seq, text = whole_state()
                    yield text
                    quiet_since = time.monotonic()
                elif evs:
                    yield from _batch(state, evs)
                    seq = evs[-1].seq
                    quiet_since = time.monotonic()
                elif time.monotonic() - quiet_since >= state.heartbeat:
                    # No id, so the page's Last-Event-ID stays; keeps its watchdog content.
                    yield "event: ping\ndata: {}\n\n"
                    quiet_since = time.monotonic()
        finally:
            state.close_stream()

    resp = Response(stream(), mimetype="text/event-stream")
    resp.headers["Cache-Control"] = "no-store"
    resp.headers["X-Accel-Buffering"] = "no"
    return resp
