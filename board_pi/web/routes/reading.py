"""What anyone may read: the table's state, the games kept, the records,
the lexicons, the last play's words; and, for the director, the calibration view."""

from __future__ import annotations

from importlib import resources

from flask import Blueprint, Response, jsonify

from ...serve.requests import ApiError
from ...serve.signin import director_required
from ..access import table
from ..calibration import NoCalibrationView, render

reading = Blueprint("reading", __name__)


@reading.get("/api/state")
def api_state() -> Response:
    return jsonify(table().snapshot())


@reading.get("/api/openapi")
def api_openapi() -> Response:
    text = resources.files("board_pi.web").joinpath("openapi.json").read_text(encoding="utf-8")
    return Response(text, mimetype="application/json")


@reading.get("/api/games")
def api_games() -> Response:
    return jsonify(table().games())


@reading.get("/api/archive/<game_id>.gcg")
def api_archive_gcg(game_id: str) -> Response:
    """A finished game's record from the archive (never overwritten)."""
    record = table().record(game_id)
    resp = Response(record.data, content_type=f"text/plain; charset={record.charset}")
    resp.headers["Content-Disposition"] = f'attachment; filename="{game_id}.gcg"'
    return resp


@reading.get("/api/lexicons")
def api_lexicons() -> Response:
    return jsonify({"lexicons": table().lexicons(), "current": table().lexicon})


@reading.get("/api/gcg")
def api_gcg() -> Response:
    text, game_id = table().gcg()
    resp = Response(text, content_type="text/plain; charset=utf-8")
    resp.headers["Content-Disposition"] = f'attachment; filename="game-{game_id}.gcg"'
    return resp


@reading.get("/api/last-play")
def api_last_play() -> Response:
    """The words the last play formed, for the word judge screen's 'fill in' button."""
    last = table().last_play()
    return jsonify({"words": last.words, "play": last.play})


@reading.get("/api/calibration.png")
@director_required
def api_calibration() -> Response:
    view = table().camera_view()
    try:
        png = render(view.frame, view.reading, view.doubt_below)
    except NoCalibrationView as e:
        raise ApiError(404, str(e)) from None
    return Response(png, mimetype="image/png")
