"""The status page's state, and what its routes share: the table, the answers they give.

Who may change anything (the director's session, the CSRF token, the PIN) is
:mod:`board_pi.serve.signin`'s, the same as the hub's.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from flask import Response, current_app, jsonify

from ..serve.signin import SignInState
from ..serve.streams import LiveStreams
from ..table.facade import PressResult, TableFacade


@dataclass
class WebState(SignInState, LiveStreams):
    """What the app keeps besides the table: the director's sign-in (:class:`SignInState`), the
    live streams (:class:`LiveStreams`: the page's event streams and the broadcasters' feeds,
    under one limit)."""

    table: TableFacade
    judge_clear_seconds: float
    judge_needs_pin: bool = False
    encoded: dict[int, str] = field(default_factory=dict)  # seq -> an event as the stream sends it


def web() -> WebState:
    """The running app's state."""
    return current_app.extensions["board_pi"]  # type: ignore[no-any-return]


def table() -> TableFacade:
    """The table the running app shows."""
    return web().table


def ok(**extra: Any) -> Response:
    return jsonify({"ok": True, **extra})


def result(res: PressResult) -> Response:
    """A turn's outcome as the pages read it."""
    return ok(outcome=res.outcome, message=res.message, score=res.score, play=res.play)
