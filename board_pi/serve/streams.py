"""The live streams an app serves (Server-Sent Events: the table's events, the broadcasters'
feeds, the hub's tables), counted under one limit.

Each stream holds one of the server's worker threads for as long as a viewer keeps the page
open, so past :attr:`LiveStreams.max_streams` a new viewer is refused (and its page polls
instead) while threads are left for everything else.

>>> live = LiveStreams(max_streams=1)
>>> live.open_stream(), live.open_stream()
(True, False)
>>> live.close_stream(); live.open_stream()
True
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field


@dataclass(kw_only=True)
class LiveStreams:
    """The count of live streams, their limit, their keep-alive, and the signal to end them."""

    heartbeat: float = 15.0  # seconds between keep-alive events on a quiet stream
    max_streams: int = 100  # streams served at once; one more is refused
    stopping: threading.Event = field(default_factory=threading.Event)  # set: every stream ends
    streams: int = 0
    _streams_lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

    def open_stream(self) -> bool:
        """Count one more stream, unless there are :attr:`max_streams` already (False)."""
        with self._streams_lock:
            if self.streams >= self.max_streams:
                return False
            self.streams += 1
            return True

    def close_stream(self) -> None:
        """A stream has ended."""
        with self._streams_lock:
            self.streams -= 1
