"""Events and rules as plain dicts (for the journal and the JSON API), and back.

>>> from board_pi.rules.game import PlayMade
>>> from board_pi.rules.play import Play
>>> d = event_to_dict(PlayMade(0, Play.parse("8D WINDY")))
>>> d
{'type': 'play', 'player': 0, 'play': '8D WINDY'}
>>> event_from_dict(d) == PlayMade(0, Play.parse("8D WINDY"))
True
"""

from __future__ import annotations

import dataclasses
from typing import Any

from .board import LAYOUTS
from .game import ChallengeRule, GameRules
from .events import (ChallengeBonus, ChallengeJudged, EndRackPoints, Event, Exchanged, GameEnded, Passed,
                     PhonyWithdrawn, PlayMade, RackPenalty, ScoreAdjusted, TimePenalty, TurnLost)
from .play import Play
from .tiles import tile_set

_TYPES: dict[str, type] = {
    "play": PlayMade, "pass": Passed, "exchange": Exchanged, "challenge": ChallengeJudged,
    "phony_withdrawn": PhonyWithdrawn, "challenge_bonus": ChallengeBonus, "turn_lost": TurnLost,
    "time_penalty": TimePenalty, "end_rack_points": EndRackPoints, "rack_penalty": RackPenalty,
    "score_adjusted": ScoreAdjusted, "game_ended": GameEnded,
}
_NAMES = {v: k for k, v in _TYPES.items()}


class CodecError(ValueError):
    """A dict that is not a valid event or rules description."""


def event_to_dict(e: Event) -> dict[str, Any]:
    out: dict[str, Any] = {"type": _NAMES[type(e)]}
    for f in dataclasses.fields(e):
        v = getattr(e, f.name)
        out[f.name] = str(v) if isinstance(v, Play) else v
    return out


def event_from_dict(d: dict[str, Any]) -> Event:
    try:
        cls = _TYPES[d["type"]]
        kwargs = {f.name: d[f.name] for f in dataclasses.fields(cls) if f.name in d}
        if cls is PlayMade:
            kwargs["play"] = Play.parse(kwargs["play"])
        return cls(**kwargs)
    except (KeyError, TypeError, ValueError) as e:
        raise CodecError(f"not an event: {d!r} ({e})") from None


def rules_to_dict(r: GameRules) -> dict[str, Any]:
    return {"challenge": r.challenge.value, "challenge_per_word": r.challenge_per_word,
            "tournament": r.tournament, "tiles": r.tiles.name, "layout": r.layout.name,
            "rack_size": r.rack_size, "bingo_bonus": r.bingo_bonus,
            "max_scoreless_turns": r.max_scoreless_turns}


def rules_from_dict(d: dict[str, Any]) -> GameRules:
    try:
        return GameRules(
            challenge=ChallengeRule(d.get("challenge", "single")),
            challenge_per_word=bool(d.get("challenge_per_word", False)),
            tournament=bool(d.get("tournament", True)),
            tiles=tile_set(d.get("tiles", "english")),
            layout=LAYOUTS[d.get("layout", "standard")],
            rack_size=int(d.get("rack_size", 7)),
            bingo_bonus=int(d.get("bingo_bonus", 50)),
            max_scoreless_turns=int(d.get("max_scoreless_turns", 6)),
        )
    except (KeyError, ValueError, TypeError) as e:
        raise CodecError(f"bad rules: {e}") from None
