"""The table's event stream: every change, numbered, for the status page's Server-Sent Events.

A page that lost its connection asks for everything after the last number it saw and catches
up; one that fell too far behind (the buffer keeps the most recent events) is told to reload
the whole state.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class BusEvent:
    seq: int
    type: str
    data: dict[str, Any]
    time: float


class EventBus:
    def __init__(self, keep: int = 2000) -> None:
        self._events: deque[BusEvent] = deque(maxlen=keep)
        self._seq = 0
        self._cond = threading.Condition()

    @property
    def last_seq(self) -> int:
        return self._seq

    def publish(self, type: str, data: dict[str, Any] | None = None) -> BusEvent:
        with self._cond:
            self._seq += 1
            ev = BusEvent(self._seq, type, data or {}, time.time())
            self._events.append(ev)
            self._cond.notify_all()
            return ev

    def since(self, seq: int) -> tuple[list[BusEvent], bool]:
        """Events after ``seq``, and whether some were already dropped (reload the state)."""
        with self._cond:
            evs = [e for e in self._events if e.seq > seq]
            missed = bool(self._events) and seq < self._events[0].seq - 1
            return evs, missed

    def wait(self, seq: int, timeout: float) -> tuple[list[BusEvent], bool]:
        """Block until there are events after ``seq`` or ``timeout`` passes."""
        with self._cond:
            self._cond.wait_for(lambda: self._seq > seq, timeout=timeout)
        return self.since(seq)
