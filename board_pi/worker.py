"""One thread serving a queue: :meth:`Worker.put` returns at once, the items are handled in order.

The table takes the clock's button events this way: a backend's callback must return quickly (its
reader thread also watches the buttons and the link), and a press's reading must not hold up a
hold or a pause pressed after it. The journal's syncs and the learnt tiles' writes go to the disk
this way too, behind the press.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from typing import Any, Callable

log = logging.getLogger("board_pi")

_STOP = object()


class Worker:
    """Handles the items put to it, one at a time, on its own (daemon) thread."""

    def __init__(self, handle: Callable[[Any], Any], name: str) -> None:
        self._handle = handle
        self.name = name
        self._queue: queue.Queue[Any] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._start = threading.Lock()

    def put(self, item: Any) -> None:
        """Queue ``item``; the worker's thread is started on first use (and again if it ended)."""
        with self._start:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name=self.name, daemon=True)
                self._thread.start()
        self._queue.put(item)

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            try:
                if item is _STOP:
                    return
                self._handle(item)
            except Exception:  # the handler says what went wrong; the worker serves on
                log.exception("%s: an item could not be handled", self.name)
            finally:
                self._queue.task_done()

    def join(self, timeout: float) -> bool:
        """Wait until everything put so far is handled; False if ``timeout`` seconds pass first."""
        deadline = time.monotonic() + timeout
        with self._queue.all_tasks_done:
            while self._queue.unfinished_tasks:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._queue.all_tasks_done.wait(left)
        return True

    @property
    def idle(self) -> bool:
        return self._queue.unfinished_tasks == 0

    def stop(self) -> None:
        """End the thread once what is queued has been handled."""
        if self._thread is not None and self._thread.is_alive():
            self._queue.put(_STOP)
