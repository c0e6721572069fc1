"""The status page's state, and what its routes share: the table, the answers they give.

Who may change anything (the director's session, the CSRF token, the PIN) is
:mod:`board_pi.serve.signin`'s, the same as the hub's.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any, Callable

from flask import Response, current_app, jsonify

from ..serve.guard import PinGuard
from ..serve.signin import HASHING
from ..serve.store import DirectorStore
from ..table.facade import PressResult, TableFacade


@dataclass
class WebState:
    """What the app keeps besides the table: the PIN, the guard, the live streams."""

    table: TableFacade
    store: DirectorStore
    guard: PinGuard
    on_pin_set: Callable[[str], Any] | None
    heartbeat: float
    max_streams: int
    judge_clear_seconds: float
    judge_needs_pin: bool = False
    stopping: threading.Event = field(default_factory=threading.Event)
    streams: int = 0
    encoded: dict[int, str] = field(default_factory=dict)  # seq -> an event as the stream sends it
    lock: threading.Lock = field(default_factory=threading.Lock)
    hashing: threading.BoundedSemaphore = field(default_factory=lambda: threading.BoundedSemaphore(HASHING))
    hash_wait: float = 15.0  # seconds a login waits for a free hashing slot before a 503

    @property
    def pin_hash(self) -> str | None:
        return self.store.pin_hash()


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
