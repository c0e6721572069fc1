"""Serving the status page with waitress (a production WSGI server) in a background thread.

>>> # handle = serve(table, host="0.0.0.0", port=8080, pin_hash=stored)
>>> # print(handle.url); ...; handle.stop()

Each open page holds one of waitress's worker threads for its event stream, so the pool is
sized for the viewers a table expects, with a few threads kept back for ordinary requests:
past ``threads - 4`` live streams, new pages are told to poll instead.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field
from typing import Any

from flask import Flask

from ..table.table import Table
from .app import create_app, stop_streams

RESERVED_THREADS = 4  # for /api/state, actions and pages while every stream is busy


@dataclass
class ServerHandle:
    """A running status page: its address, and how to stop it."""

    app: Flask
    host: str
    port: int
    _server: Any = field(repr=False)
    _thread: threading.Thread = field(repr=False)

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        if self.host in ("0.0.0.0", "::", ""):
            host = "127.0.0.1"
        return f"http://{host}:{self.port}/"

    def stop(self, timeout: float = 5.0) -> None:
        """End the event streams, close every connection and wait for the server thread."""
        from waitress import wasyncore

        stop_streams(self.app)
        try:
            self._server.task_dispatcher.shutdown(cancel_pending=True, timeout=timeout)
        finally:
            wasyncore.close_all(self._server._map)
        self._thread.join(timeout)

    @property
    def running(self) -> bool:
        return self._thread.is_alive()


def serve(table: Table, host: str = "127.0.0.1", port: int = 8080, *, threads: int = 64,
          app: Flask | None = None, **app_options: Any) -> ServerHandle:
    """Serve the status page for ``table`` on ``host``:``port`` (0 picks a free port).

    Returns at once with a :class:`ServerHandle` (``.port``, ``.url``, ``.stop()``); the server
    runs in a daemon thread. ``app_options`` go to :func:`~board_pi.web.app.create_app`
    (``pin_hash``, ``secret_key``, ``on_pin_set``, ``heartbeat``...). Raises OSError when the
    port cannot be had.
    """
    from waitress.server import create_server

    if threads < RESERVED_THREADS + 1:
        raise ValueError(f"threads must be at least {RESERVED_THREADS + 1}")
    app_options.setdefault("max_streams", threads - RESERVED_THREADS)
    app = app or create_app(table, **app_options)
    # waitress logs a warning each time its queue is busy; streams make that normal here.
    logging.getLogger("waitress.queue").setLevel(logging.ERROR)
    server = create_server(app, host=host, port=port, threads=threads, ident="board-pi",
                           connection_limit=max(100, threads * 2), channel_timeout=120,
                           clear_untrusted_proxy_headers=True,
                           # Lets a stream notice that its page has gone (waitress.client_disconnected).
                           channel_request_lookahead=1)
    stopping = app.extensions["board_pi"].stopping

    def run() -> None:
        try:
            server.run()
        except (OSError, ValueError):
            # Closing the sockets from stop() can wake the poll loop on a closed descriptor.
            if not stopping.is_set():
                raise

    thread = threading.Thread(target=run, name=f"board-pi-web:{server.effective_port}", daemon=True)
    thread.start()
    return ServerHandle(app, host, int(server.effective_port), server, thread)
