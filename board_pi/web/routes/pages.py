"""The three pages: the table view, the word judge screen, the director's controls."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, render_template

from ...clock import TimeControl
from ...rules.game import ChallengeRule
from ...rules.tiles import TILE_SETS
from ...settings import limits
from ...serve.signin import csrf_token
from ..access import web

pages = Blueprint("pages", __name__)


# How the new-game form names the challenge rules; the rules themselves are ChallengeRule's.
RULE_LABELS = {"single": "single (free)", "double": "double (lose a turn)", "five_points": "5 points",
               "ten_points": "10 points", "void": "void"}


def new_game_form() -> dict[str, Any]:
    """What the director's new-game form offers: the challenge rules (in RULE_LABELS' order, the default first) and
    the time control's settings with TimeControl's defaults and limits, so the form and the
    server hold a value to the same bounds."""
    order = list(RULE_LABELS)
    rules = sorted(ChallengeRule, key=lambda r: order.index(r.value) if r.value in order else len(order))
    return {
        "rules": [(r.value, RULE_LABELS.get(r.value, r.value)) for r in rules],
        "tile_sets": [(name, ts.title.split(":")[0] or name) for name, ts in TILE_SETS.items()],
        "time": {name: {"limits": limits(TimeControl, name), "default": getattr(TimeControl, name)}
                 for name in ("minutes", "overtime_penalty", "max_overtime_minutes")},
    }


def _page(template: str, title: str, **extra: Any) -> str:
    return render_template(template, title=title, csrf=csrf_token(),
                           judge_clear_seconds=web().judge_clear_seconds, **extra)


@pages.get("/")
def table_page() -> str:
    return _page("table.html", "Table")


@pages.get("/judge")
def judge_page() -> str:
    return _page("judge.html", "Word judge")


@pages.get("/director")
def director_page() -> str:
    return _page("director.html", "Director", form=new_game_form())


@pages.get("/favicon.ico")
def favicon() -> tuple[str, int]:
    return "", 204  # no icon: saves a 404 in every browser's log
