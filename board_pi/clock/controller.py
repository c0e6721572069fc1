"""Turning button events into clock actions, and the clock's state into lights, beeps and digits.

The controller sits between any button backend (GPIO pins, the Pico over serial, a keyboard) and
the :class:`GameClock`. It imports nothing of ours beyond the model: an event is anything with
``kind``, ``player`` and ``timestamp`` attributes (``board_pi.hardware.ClockEvent`` is one), and
the outputs are anything with the methods of :class:`ClockOutputs`.

Event kinds: ``press`` (a player's button: ends their turn; before the game starts, pressing your
side starts the opponent's clock), ``long_press`` (a player's button held down: their last turn was
an exchange), ``pause`` (the director's button: pause or resume), ``challenge`` (both clocks stop
for adjudication) and ``hold`` (hold the opponent's play; pressed again, release it).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any, Callable, Literal, Protocol

from .control import ClockError
from .model import ClockSnapshot, GameClock

Result = Literal[
    "started", "switched", "ignored", "paused", "resumed", "exchange", "challenge", "hold", "hold_released"
]


class ClockOutputs(Protocol):
    """What a clock's hardware can show. Every method must return quickly."""

    def show(self, snap: ClockSnapshot) -> None:
        """Show the clock: turn lights, digits."""

    def beep(self, pattern: str) -> None:
        """Sound the buzzer: ``low_time``, ``overtime``, ``overtime_minute``, ``flag``, ``draw``."""

    def verdict(self, acceptable: bool | None) -> None:
        """Light green (acceptable), red (not acceptable), or neither (None)."""


@dataclass(frozen=True)
class ClockAction:
    """What an event did to the clock."""

    kind: str
    player: int | None
    at: float
    result: Result


class ClockController:
    """Applies events to a clock and keeps the outputs in step. Thread-safe.

    ``on_action`` is called (outside the lock) with every :class:`ClockAction`, ignored ones
    included, so the table can read the board on a switch or mark an exchange.
    """

    def __init__(
        self,
        clock: GameClock,
        outputs: ClockOutputs | None = None,
        on_action: Callable[[ClockAction], None] | None = None,
    ) -> None:
        self.clock = clock
        self.outputs = outputs
        self.on_action = on_action
        self._lock = threading.RLock()
        self._low = [False] * clock.players
        self._minutes = [0] * clock.players
        self._flagged = [False] * clock.players
        self._draw_signalled = False
        self.refresh()

    def handle(self, event: Any) -> ClockAction:
        """Apply one button event (``kind``, ``player``, ``timestamp``)."""
        kind, player, at = str(event.kind), getattr(event, "player", None), getattr(event, "timestamp", None)
        with self._lock:
            result = self._apply(kind, player, at)
            action = ClockAction(kind, player, self.clock._now() if at is None else at, result)
            self._update()
        if self.on_action is not None:
            self.on_action(action)
        return action

    def _apply(self, kind: str, player: int | None, at: float | None) -> Result:
        c = self.clock
        try:
            if kind == "press" and player is not None:
                if c.phase == "ready":
                    c.start((player + 1) % c.players, at=at)
                    return "started"
                return "switched" if c.press(player, at=at) else "ignored"
            if kind == "long_press" and player is not None:
                return "exchange" if c.last_mover == player and c.phase != "ready" else "ignored"
            if kind == "pause":
                return "paused" if c.toggle_pause(at=at) else "resumed"
            if kind == "challenge":
                if c.phase == "challenge":
                    return "ignored"
                c.challenge(at=at)
                return "challenge"
            if kind == "hold":
                if c.hold is not None:
                    c.release_hold(at=at)
                    return "hold_released"
                c.hold_play(at=at)
                self._draw_signalled = False
                return "hold"
        except ClockError:
            return "ignored"
        return "ignored"

    def tick(self, at: float | None = None) -> ClockSnapshot:
        """Call a few times a second: beeps for low time, overtime minutes, a flag, a hold's 15 s."""
        with self._lock:
            return self._update(at)

    def refresh(self) -> ClockSnapshot:
        """Show the clock's state now (after the table changed the clock directly)."""
        return self.tick()

    def verdict(self, acceptable: bool | None) -> None:
        """Light the verdict (the table calls this after the word judge rules)."""
        if self.outputs is not None:
            self.outputs.verdict(acceptable)

    def _update(self, at: float | None = None) -> ClockSnapshot:
        snap = self.clock.snapshot(at)
        beeps: list[str] = []
        for p in range(self.clock.players):
            low = snap.low_time[p]
            if low and not self._low[p]:
                beeps.append("low_time")
            self._low[p] = low
            minutes = snap.penalties[p] // max(1, self.clock.control.overtime_penalty) if snap.remaining[p] < 0 else 0
            if minutes > self._minutes[p]:
                beeps.append("overtime" if self._minutes[p] == 0 else "overtime_minute")
            self._minutes[p] = minutes
            if snap.flagged[p] and not self._flagged[p]:
                beeps.append("flag")
            self._flagged[p] = snap.flagged[p]
        if snap.may_draw and not self._draw_signalled:
            beeps.append("draw")
            self._draw_signalled = True
        if self.outputs is not None:
            self.outputs.show(snap)
            for b in beeps:
                self.outputs.beep(b)
        return snap
