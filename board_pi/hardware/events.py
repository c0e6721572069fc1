"""The one event type every clock backend produces, and how a consumer receives them.

A backend (GPIO pins, the Pico over serial) turns button activity into :class:`ClockEvent` values
stamped on the ``time.monotonic`` timeline (the backend's ``time_source``). A consumer either sets
``on_event`` (called on the backend's thread, must return quickly) or reads ``events``, a queue
that is filled only while no ``on_event`` is set::

    gpio = GpioClock(GpioPins())
    controller = ClockController(clock, outputs=gpio)
    gpio.on_event = controller.handle       # or: ev = gpio.events.get(timeout=1)
"""

from __future__ import annotations

import logging
import queue
import threading
from dataclasses import dataclass
from typing import Callable, Literal

log = logging.getLogger("board_pi.hardware")

EventKind = Literal["press", "long_press", "pause", "challenge", "hold"]
EVENT_KINDS: tuple[str, ...] = ("press", "long_press", "pause", "challenge", "hold")


@dataclass(frozen=True)
class ClockEvent:
    """A button event: ``player`` is 0 or 1 for ``press``/``long_press``, None for the others.

    ``timestamp`` is when the button went down, on the backend's ``time_source`` timeline (for the
    Pico, its own timestamp mapped onto ours). ``source`` names the backend (``gpio``, ``serial``).
    """

    kind: EventKind
    player: int | None
    timestamp: float
    source: str = ""


class EventSource:
    """Delivers events to ``on_event`` if set, otherwise to the ``events`` queue."""

    #: The queue keeps at most this many unread events (a consumer that never reads loses the
    #: oldest, never blocks the button thread).
    QUEUE_LIMIT = 1000

    def __init__(self, on_event: Callable[[ClockEvent], None] | None = None) -> None:
        self.on_event = on_event
        self.events: queue.Queue[ClockEvent] = queue.Queue(maxsize=self.QUEUE_LIMIT)
        self._emit_lock = threading.Lock()
        self.consumer_errors = 0  # events whose consumer failed (logged; the backend read on)
        self.last_consumer_error: str | None = None

    def _emit(self, event: ClockEvent) -> None:
        callback = self.on_event
        if callback is not None:
            # The consumer's fault is not the buttons': one failed event must not end the thread
            # that reads them, or every later press would be lost.
            try:
                callback(event)
            except Exception as e:
                self.consumer_errors += 1
                self.last_consumer_error = f"{event.kind} event not taken: {type(e).__name__}: {e}"
                log.exception("a %s event from the %s clock was not taken", event.kind, event.source)
            return
        with self._emit_lock:
            while True:
                try:
                    self.events.put_nowait(event)
                    return
                except queue.Full:
                    try:
                        self.events.get_nowait()
                    except queue.Empty:
                        pass
