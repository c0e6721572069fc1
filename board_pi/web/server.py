"""Serving the status page with waitress (a production WSGI server) in a background thread.

>>> # handle = serve(table, host="0.0.0.0", port=8080, pin_hash=stored)
>>> # print(handle.url); ...; handle.stop()

Each open page holds one of waitress's worker threads for its event stream, so the pool is
sized for the viewers a table expects, with a few threads kept back for ordinary requests:
past ``threads - 4`` live streams, new pages are told to poll instead.

Connections are a resource a stranger can hold, so none is held for nothing: a connection must
send its whole request within ``request_timeout`` seconds of starting it (a header line a
minute does not keep it open), an idle one is closed after ``idle_timeout``, and when every
connection is taken, the one that has waited longest without sending a whole request is closed
to let a new one in. Event streams (requests being answered) are never cut this way.
"""

from __future__ import annotations

import logging
import select
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from flask import Flask

from ..table.facade import Table
from .app import create_app, stop_streams

RESERVED_THREADS = 4  # for /api/state, actions and pages while every stream is busy
REQUEST_TIMEOUT = 20.0  # seconds to send a whole request: ample for a phone on poor Wi-Fi
IDLE_TIMEOUT = 60.0  # seconds a kept-alive connection may sit unused
CONNECTION_LIMIT = 256


def _guarded_classes() -> tuple[type, type]:
    """waitress's server and channel, with the request deadline and the eviction added."""
    from waitress.channel import HTTPChannel
    from waitress.server import TcpWSGIServer

    class Channel(HTTPChannel):  # type: ignore[misc]
        # When the request now being received began (the connection's opening counts as one),
        # or None between requests.
        receiving_since: float | None = None

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.receiving_since = self.creation_time

        def received(self, data: bytes) -> bool:
            if self.request is None and self.receiving_since is None and data:
                self.receiving_since = time.time()
            done = super().received(data)
            if self.request is None:
                self.receiving_since = None
            return bool(done)

    class Server(TcpWSGIServer):  # type: ignore[misc]
        channel_class = Channel
        request_timeout = REQUEST_TIMEOUT

        def maintenance(self, now: float) -> None:
            super().maintenance(now)  # idle connections (channel_timeout)
            cutoff = now - self.request_timeout
            for channel in list(self.active_channels.values()):
                since = getattr(channel, "receiving_since", None)
                if since is not None and since < cutoff and not channel.requests:
                    channel.will_close = True

        def readable(self) -> bool:
            if self.accepting and len(self._map) >= self.adj.connection_limit and self._someone_waiting():
                self._evict_one()
            return bool(super().readable())

        def _someone_waiting(self) -> bool:
            try:
                return bool(select.select([self.socket], [], [], 0)[0])
            except (OSError, ValueError):
                return False

        def _evict_one(self) -> None:
            """Close the connection that has waited longest without a whole request (else the
            longest idle one), so that a new page is let in. Never one being answered."""
            candidates = [c for c in self.active_channels.values()
                          if not c.requests and not c.will_close]
            if not candidates:
                return
            receiving = [c for c in candidates if getattr(c, "receiving_since", None) is not None]
            if receiving:
                victim = min(receiving, key=lambda c: c.receiving_since)
            else:
                victim = min(candidates, key=lambda c: c.last_activity)
            victim.will_close = True  # closed by the loop itself, on its next pass

    return Server, Channel


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
          app: Flask | None = None, request_timeout: float = REQUEST_TIMEOUT,
          idle_timeout: float = IDLE_TIMEOUT, connection_limit: int | None = None,
          cleanup_interval: float | None = None, **app_options: Any) -> ServerHandle:
    """Serve the status page for ``table`` on ``host``:``port`` (0 picks a free port).

    Returns at once with a :class:`ServerHandle` (``.port``, ``.url``, ``.stop()``); the server
    runs in a daemon thread. ``app_options`` go to :func:`~board_pi.web.app.create_app`
    (``data_dir``, ``pin_hash``, ``secret_key``, ``heartbeat``...). ``request_timeout``: seconds
    a connection has to send a whole request; ``idle_timeout``: seconds an idle connection is
    kept; ``connection_limit``: connections at once (by default 256, or twice ``threads``); ``cleanup_interval``: how often the first
    two are enforced (by default a quarter of the shorter). Raises OSError when the port cannot
    be had, ValueError for settings that cannot work.
    """
    from waitress.adjustments import Adjustments
    from waitress.task import ThreadedTaskDispatcher

    if threads < RESERVED_THREADS + 1:
        raise ValueError(f"threads must be at least {RESERVED_THREADS + 1}")
    if connection_limit is None:
        connection_limit = max(CONNECTION_LIMIT, 2 * threads)
    if not (request_timeout > 0 and idle_timeout > 0 and connection_limit >= threads):
        raise ValueError("request_timeout and idle_timeout must be positive, connection_limit at least threads")
    if cleanup_interval is None:
        cleanup_interval = max(0.1, min(request_timeout, idle_timeout) / 4)
    app_options.setdefault("max_streams", threads - RESERVED_THREADS)
    app = app or create_app(table, **app_options)
    # waitress logs a warning each time its queue is busy; streams make that normal here.
    logging.getLogger("waitress.queue").setLevel(logging.ERROR)
    adj = Adjustments(host=host, port=port, threads=threads, ident="board-pi",
                      connection_limit=connection_limit, channel_timeout=idle_timeout,
                      cleanup_interval=cleanup_interval,
                      # Proxy headers reach the app, which trusts none of them but takes their
                      # presence to mean "not from the Pi itself" (the first PIN's guard).
                      clear_untrusted_proxy_headers=False,
                      # Lets a stream notice that its page has gone (waitress.client_disconnected).
                      channel_request_lookahead=1)
    if len(adj.listen) != 1:
        raise ValueError(f"{host!r} names {len(adj.listen)} addresses; give one (0.0.0.0 for all)")
    dispatcher = ThreadedTaskDispatcher()
    dispatcher.set_thread_count(threads)
    server_class, _ = _guarded_classes()
    server = server_class(app, map={}, dispatcher=dispatcher, adj=adj, sockinfo=adj.listen[0])
    server.request_timeout = request_timeout
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
