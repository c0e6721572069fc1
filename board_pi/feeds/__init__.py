"""The fields broadcasters use, from a table's snapshot: as plain text (one file per field, the
way streaming programs read text sources), as JSON, as server-sent events, and as an overlay page
for a streaming program's browser source. One definition for the table's own page (board_pi.web)
and the director's hub (board_pi.club), which both mount :func:`feed_blueprint`.

>>> snap = {"players": [{"name": "Ada", "score": 104}, {"name": "Ben", "score": 92}], "turn": 1,
...         "unseen": {"A": 2, "?": 1, "Z": 1}, "bag": 0, "over": False,
...         "moves": [{"player": 0, "text": "A7 SNE.ZED", "score": 54, "total": 104}],
...         "board": ["." * 15] * 6 + ["......x........"] + ["." * 15] * 8}
>>> f = feed_fields(snap)
>>> f["score"], f["unseen"], f["unseen_count"], f["last_play"], f["blanks"]
('Ada 104 - Ben 92', 'AAZ?', '4', 'Ada: A7 SNE.ZED 54', 'G7 x')
"""

from __future__ import annotations

import re
from typing import Any

FIELDS = ("score", "player1", "score1", "player2", "score2", "turn", "unseen", "unseen_count", "last_play",
          "blanks", "status")
_TILE = re.compile(r"\[[^\]]+\]|.")
COLUMNS = "ABCDEFGHIJKLMNO"


def _tiles(row: str) -> list[str]:
    """A board row's squares: one character each, or a bracketed multi-letter tile ("[ch]")."""
    return [t[1:-1] if t.startswith("[") else t for t in _TILE.findall(row)]


def blanks_on_board(board: list[str]) -> list[str]:
    """Every blank on the board as ``<square> <letter>`` (a blank is written in lower case)."""
    out = []
    for r, row in enumerate(board):
        for c, t in enumerate(_tiles(row)):
            if t != "." and t.islower() and c < len(COLUMNS):
                out.append(f"{COLUMNS[c]}{r + 1} {t}")
    return out


def feed_fields(snap: dict[str, Any]) -> dict[str, str]:
    """The broadcast fields, all text (an empty text where the table has no game)."""
    players = snap.get("players") or []
    names = [str(p.get("name", "")) for p in players]
    scores = [p.get("score", 0) for p in players]
    unseen = snap.get("unseen") or {}
    moves = snap.get("moves") or []
    last = moves[-1] if moves else None
    turn = snap.get("turn")
    status = "over" if snap.get("over") else ("no game" if not players else "playing")
    fields = {
        "score": " - ".join(f"{n} {s}" for n, s in zip(names, scores)),
        "player1": names[0] if names else "", "score1": str(scores[0]) if scores else "",
        "player2": names[1] if len(names) > 1 else "", "score2": str(scores[1]) if len(scores) > 1 else "",
        "turn": names[turn] if isinstance(turn, int) and 0 <= turn < len(names) else "",
        # in the set's own order as the snapshot gives it (Ä after A), the blanks last
        "unseen": "".join(t * int(n) if len(t) == 1 else f"[{t}]" * int(n)
                          for t, n in sorted(unseen.items(), key=lambda kv: kv[0] == "?")),
        "unseen_count": str(sum(int(n) for n in unseen.values())) if players else "",
        "last_play": (f"{names[last['player']]}: {last['text']} {last['score']}"
                      if last and isinstance(last.get("player"), int) and last["player"] < len(names) else ""),
        "blanks": ", ".join(blanks_on_board(list(snap.get("board") or []))),
        "status": status,
    }
    return fields


def feed_blueprint(snapshot: Any, wait: Any, last_seq: Any, streams: Any, name: str = "feeds") -> Any:
    """Routes for one table's feeds (the table's own page mounts it at ``/``, the hub at
    ``/tables/<table>``): ``/feed.json``, ``/feed/<field>.txt``, ``/feed/events`` (Server-Sent
    Events: the fields whenever they change) and ``/overlay`` (a page for a streaming program's
    browser source). ``snapshot(table=None)`` gives the table's snapshot (None: unknown table);
    ``wait(seq, timeout)`` waits on an event bus; ``streams`` has ``open_stream``,
    ``close_stream``, ``stopping`` and ``heartbeat``."""
    import json
    import time

    from flask import Blueprint, Response, abort, jsonify, render_template, request

    from importlib import resources

    bp = Blueprint(name, __name__, template_folder="templates")

    @bp.get("/overlay.js")
    def overlay_js(**kw: Any) -> Any:
        text = resources.files("board_pi.feeds").joinpath("static", "overlay.js").read_text("utf-8")
        return Response(text, mimetype="text/javascript")

    @bp.get("/overlay.css")
    def overlay_css(**kw: Any) -> Any:
        text = resources.files("board_pi.feeds").joinpath("static", "overlay.css").read_text("utf-8")
        return Response(text, mimetype="text/css")

    def fields_of(kw: dict[str, Any]) -> dict[str, str]:
        snap = snapshot(**kw)
        if snap is None:
            abort(404, description="no such table")
        return feed_fields(snap)

    @bp.get("/feed.json")
    def feed_json(**kw: Any) -> Any:
        resp = jsonify(fields_of(kw))
        resp.headers["Cache-Control"] = "no-store"
        resp.headers["Access-Control-Allow-Origin"] = "*"  # overlays made elsewhere may read it
        return resp

    @bp.get("/feed/<field>.txt")
    def feed_text(field: str, **kw: Any) -> Any:
        if field not in FIELDS:
            abort(404, description=f"no field {field[:40]!r}: the fields are {', '.join(FIELDS)}")
        resp = Response(fields_of(kw)[field] + "\n", mimetype="text/plain")
        resp.headers["Cache-Control"] = "no-store"
        return resp

    @bp.get("/feed/events")
    def feed_events(**kw: Any) -> Any:
        first = fields_of(kw)
        if not streams.open_stream():
            abort(503, description="too many live feeds: try again in a moment")
        gone = request.environ.get("waitress.client_disconnected") or (lambda: False)

        def stream() -> Any:
            try:
                sent = first
                yield f"retry: 2000\n\nevent: fields\ndata: {json.dumps(sent)}\n\n"
                seq, quiet = last_seq(), time.monotonic()
                while not streams.stopping.is_set() and not gone():
                    events, _ = wait(seq, 1.0)
                    if events:
                        seq = events[-1].seq
                        snap = snapshot(**kw)
                        now = feed_fields(snap) if snap is not None else sent
                        if now != sent:
                            sent = now
                            yield f"event: fields\ndata: {json.dumps(now)}\n\n"
                            quiet = time.monotonic()
                    if time.monotonic() - quiet >= streams.heartbeat:
                        yield "event: ping\ndata: {}\n\n"
                        quiet = time.monotonic()
            finally:
                streams.close_stream()

        resp = Response(stream(), mimetype="text/event-stream")
        resp.headers["Cache-Control"] = "no-store"
        resp.headers["X-Accel-Buffering"] = "no"
        return resp

    @bp.get("/overlay")
    def overlay(**kw: Any) -> Any:
        fields = fields_of(kw)
        return render_template("overlay.html", fields=fields)

    return bp
