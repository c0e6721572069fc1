"""The director's actions on the game: a new game, the clock, corrections, and the turns the
table could not settle alone. Every route here needs the director (:func:`director_required`)."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, jsonify

from ...clock import TimeControl
from ...rules.game import ChallengeRule, GameRules
from ...rules.tiles import TILE_SETS
from ...serve.requests import ApiError, body, letters, one_of, setting, text, whole
from ...serve.signin import director_required
from ..access import ok, result, table

actions = Blueprint("actions", __name__)

MAX_PLAYERS = 4
CHALLENGE_RULES = tuple(rule.value for rule in ChallengeRule)
# The time control's settings the new-game form sets (the rest keep TimeControl's defaults).
FORM_TIME_CONTROL = ("minutes", "overtime_penalty", "max_overtime_minutes", "increment_seconds")


def _player(data: dict[str, Any], name: str = "player") -> int:
    n = table().players or MAX_PLAYERS
    return whole(data, name, 0, max(0, n - 1))


@actions.post("/api/game")
@director_required
def api_new_game() -> Response:
    data = body()
    players = data.get("players")
    if not isinstance(players, list) or not 2 <= len(players) <= MAX_PLAYERS:
        raise ApiError(400, f"players must be a list of 2 to {MAX_PLAYERS} names")
    names = [text({"name": p}, "name", 40) for p in players]
    if len(set(n.casefold() for n in names)) != len(names):
        raise ApiError(400, "two players have the same name")
    rule = ChallengeRule(one_of(data, "challenge", CHALLENGE_RULES, ChallengeRule.SINGLE.value))
    values = {name: setting(data, TimeControl, name) for name in FORM_TIME_CONTROL}
    try:
        control = TimeControl(**values)
    except ValueError as e:
        raise ApiError(400, str(e)) from None
    lexicon = text(data, "lexicon", 80, default="", required=False)
    event = text(data, "event", 80, default="", required=False)
    # The game's tile set: as asked, else the one the table plays now (a German club stays German).
    playing = (table().snapshot().get("tile_set") or {}).get("name", "english")
    tiles = TILE_SETS[one_of(data, "tiles", tuple(TILE_SETS), playing)]
    rules = GameRules(challenge=rule, tournament=len(names) == 2, tiles=tiles)
    return ok(game=table().new_game(names, rules, control, lexicon=lexicon, event=event))


@actions.post("/api/pause")
@director_required
def api_pause() -> Response:
    table().pause()
    return ok()


@actions.post("/api/resume")
@director_required
def api_resume() -> Response:
    table().resume_clock()
    return ok()


@actions.post("/api/undo")
@director_required
def api_undo() -> Response:
    return ok(undone=table().undo())


@actions.post("/api/adjust")
@director_required
def api_adjust() -> Response:
    data = body()
    player = _player(data)
    points = whole(data, "points", -1000, 1000)
    reason = text(data, "reason", 200)
    table().adjust(player, points, reason)
    return ok()


@actions.post("/api/end")
@director_required
def api_end() -> Response:
    table().end_game(text(body(), "reason", 200, default="ended by the director"))
    return ok()


@actions.post("/api/correct")
@director_required
def api_correct() -> Response:
    return result(table().correct_last_play(text(body(), "play", 40)))


@actions.post("/api/play")
@director_required
def api_play() -> Response:
    data = body()
    return result(table().enter_play(_player(data), text(data, "play", 40)))


@actions.post("/api/press")
@director_required
def api_press() -> Response:
    data = body()
    player = _player(data)
    exchange = data.get("exchange", False)
    if not isinstance(exchange, bool):
        raise ApiError(400, "exchange must be true or false")
    count = whole(data, "exchange_count", 1, 7) if data.get("exchange_count") is not None else None
    return result(table().press(player, exchange=exchange, exchange_count=count))


@actions.post("/api/confirm")
@director_required
def api_confirm() -> Response:
    data = body()
    tiles = letters(data, "tiles") if data.get("tiles") is not None else None
    return result(table().confirm(tiles))


@actions.post("/api/blanks")
@director_required
def api_blanks() -> Response:
    return result(table().set_blanks(letters(body(), "letters")))


@actions.post("/api/racks")
@director_required
def api_racks() -> Response:
    racks = body().get("racks")
    if not isinstance(racks, dict):
        raise ApiError(400, "racks must be an object mapping player numbers to racks")
    out: dict[int, str] = {}
    for k, v in racks.items():
        out[whole({"player": k}, "player", 0, MAX_PLAYERS - 1)] = text({"rack": v}, "rack", 7, required=False)
    table().give_racks(out)
    return ok()


@actions.post("/api/hold")
@director_required
def api_hold() -> Response:
    table().hold(_player(body()))
    return ok()


@actions.post("/api/challenge")
@director_required
def api_challenge() -> Response:
    verdict = table().challenge(_player(body()))
    return jsonify({"ok": True, "verdict": str(verdict), "acceptable": verdict.acceptable})


@actions.post("/api/accept")
@director_required
def api_accept() -> Response:
    return result(table().accept_out_play())
