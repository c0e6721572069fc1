"""The reader of turns: waits for a still board and reads it, holding no lock of the table.

A reading takes from a fraction of a second to several (a hand over the board, a slow Pi). The
table asks :meth:`TurnReader.settle` with its lock released, so the clock's buttons, the page and
the director are answered meanwhile; the table checks afterwards that the game is still where it
was when the board was read.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Hashable, Protocol

from .reading import DOUBT_BELOW, BoardReading


class Camera(Protocol):
    def read(self) -> Any | None:
        """The next frame (BGR array), or None when there is none."""


class BoardReader(Protocol):
    def read(self, frame: Any) -> BoardReading | None:
        """Read the 225 squares of a frame, or None when no board is in view."""


@dataclass
class Settings:
    """How the table behaves (the configuration file fills these)."""

    doubt_below: float = DOUBT_BELOW
    settle_frames: int = 2  # consecutive readings that must agree before the board counts as still
    settle_max_frames: int = 12  # give up after this many frames...
    settle_seconds: float = 6.0  # ...or this long
    lexicon: str = "default"


@dataclass(frozen=True)
class Settled:
    """What the wait for a still board found: a reading and its frame, or why there is none."""

    reading: BoardReading | None
    frame: Any = None
    why: str = ""


NO_CAMERA = "no camera: enter the play on the page"


class TurnReader:
    """Takes frames until consecutive readings agree where they matter.

    ``time_source`` times the wait (``settle_seconds``): real time for a camera, the frames
    themselves for a simulated one. One reading at a time: the camera is not shared between
    threads.
    """

    def __init__(self, camera: Camera | None, reader: BoardReader | None, settings: Settings,
                 time_source: Callable[[], float] = time.time) -> None:
        self.camera = camera
        self.reader = reader
        self.settings = settings
        self.time = time_source
        self.timings: dict[str, float] = {}
        self._camera_lock = threading.Lock()

    @property
    def can_read(self) -> bool:
        return self.camera is not None and self.reader is not None

    def settle(self, key: Callable[[BoardReading], Hashable]) -> Settled:
        """Frames until ``settle_frames`` readings in a row have the same ``key``.

        The key is what matters of a reading (the table compares the tiles that differ from the
        committed board: a hand over the board, or a tile still moving, changes that from frame to
        frame; flicker on squares already committed does not count). Gives up after
        ``settle_max_frames`` frames or ``settle_seconds``, saying why.
        """
        if self.camera is None or self.reader is None:
            return Settled(None, why=NO_CAMERA)
        s = self.settings
        with self._camera_lock:
            deadline = self.time() + s.settle_seconds
            previous: Hashable | None = None
            agree = 1
            why = "the board did not keep still"
            for _ in range(s.settle_max_frames):
                frame = self.camera.read()
                if frame is None:
                    why = "the camera gave no picture"
                    break
                t = time.perf_counter()
                reading = self.reader.read(frame)
                self.timings["read"] = time.perf_counter() - t
                # Squares something lies over since the last board committed (a sheet, a phone,
                # a hand resting): what was played under it is not seen, so the board does not
                # count as still until they show again.
                hidden = tuple(getattr(self.reader, "covered", ()))
                if reading is None:
                    why = "the board is not in view (a hand or arm over it?)"
                    previous, agree = None, 1
                elif hidden:
                    from ..vision.geometry import squares_named

                    why = (f"something lies over {len(hidden)} square{'s' if len(hidden) != 1 else ''} "
                           f"({squares_named(list(hidden))}): take it off the board")
                    previous, agree = None, 1
                else:
                    k = key(reading)
                    if k == previous:
                        agree += 1
                        if agree >= s.settle_frames:
                            return Settled(reading, frame)
                    else:
                        previous, agree = k, 1
                if self.time() > deadline:
                    break
        return Settled(None, why=why + ": waited and gave up; press again or enter the play on the page")

    def look(self) -> BoardReading | None:
        """One frame read as it is (is a withdrawn phony off the board yet?); None if not seen."""
        if self.camera is None or self.reader is None:
            return None
        with self._camera_lock:
            frame = self.camera.read()
            return self.reader.read(frame) if frame is not None else None

    def commit(self, rows: list[str]) -> None:
        """Tell the reader the board as committed (a reader that tracks the board uses it)."""
        commit = getattr(self.reader, "commit", None)
        if commit is not None:
            commit(rows)

    def learn(self) -> None:
        """Let the reader learn the tiles of the board last committed (a reader that learns)."""
        learn = getattr(self.reader, "learn", None)
        if learn is not None:
            learn()

    def flush(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for what the reader learnt to reach the disk (a reader
        that keeps what it learns); False if it has not."""
        flush = getattr(self.reader, "flush", None)
        return True if flush is None else bool(flush(timeout))
