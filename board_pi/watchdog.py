"""Talking to systemd: READY, WATCHDOG, STATUS and STOPPING over $NOTIFY_SOCKET (sd_notify).

The service runs as ``Type=notify`` with ``WatchdogSec=``: systemd waits for ``READY=1`` before it
calls the table started, and restarts it when the ``WATCHDOG=1`` pings stop. The protocol is one
datagram of ``KEY=value`` lines to the AF_UNIX socket named in $NOTIFY_SOCKET (a path, or an
abstract name when it starts with ``@``), so the standard library's socket module is enough.

Outside systemd (a checkout, the tests, the demo) $NOTIFY_SOCKET is unset and every call does
nothing, so the table calls these unconditionally.

The table pings only while it is healthy: its main loop calls :meth:`Heartbeat.beat` each time
round, and :class:`WatchdogKeeper` pings systemd from a thread only while the last beat is recent.
A hung main loop thus stops the pings and systemd restarts the service, where a thread that pinged
regardless would keep a stuck table alive. The table wires it like this::

    notifier = SystemdNotifier()
    heartbeat = Heartbeat()
    keeper = WatchdogKeeper(notifier, healthy=lambda: heartbeat.recent(20))
    keeper.start()
    ...                                  # open the camera, the clock, the page
    notifier.ready("table 1: ready")
    try:
        while running:
            heartbeat.beat()             # each time round the main loop
            ...
    finally:
        notifier.stopping()
        keeper.stop()
"""

from __future__ import annotations

import os
import socket
import threading
import time
from typing import Callable, Mapping


class SystemdNotifier:
    """Sends notifications to systemd; a no-op when not started by systemd with ``Type=notify``."""

    def __init__(self, environ: Mapping[str, str] | None = None):
        env = os.environ if environ is None else environ
        addr = env.get("NOTIFY_SOCKET", "")
        # systemd may watch a forked child's PID; WATCHDOG_PID says whose pings count.
        self._watchdog_usec = 0
        pid = env.get("WATCHDOG_PID")
        if env.get("WATCHDOG_USEC", "").isdigit() and (not pid or pid == str(os.getpid())):
            self._watchdog_usec = int(env["WATCHDOG_USEC"])
        self._address: str | bytes | None = None
        if addr.startswith("@"):
            self._address = b"\0" + addr[1:].encode()  # Linux abstract namespace
        elif addr.startswith("/"):
            self._address = addr
        self._lock = threading.Lock()

    @property
    def enabled(self) -> bool:
        """True when running under systemd with a notify socket."""
        return self._address is not None

    @property
    def watchdog_interval(self) -> float | None:
        """Seconds between pings (half of ``WatchdogSec=``, as systemd advises); None if no watchdog."""
        return self._watchdog_usec / 2e6 if self._watchdog_usec else None

    def notify(self, **fields: str | int) -> bool:
        """Send ``KEY=value`` lines; True if sent. Errors are swallowed: a lost notification must
        never bring the table down (systemd then restarts it, which is the right outcome)."""
        if self._address is None:
            return False
        msg = "\n".join(f"{k.upper()}={v}" for k, v in fields.items()).encode()
        with self._lock:
            try:
                with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as s:
                    s.connect(self._address)
                    s.sendall(msg)
                return True
            except OSError:
                return False

    def ready(self, status: str | None = None) -> bool:
        """The table is up: camera open, clock ready, page served."""
        return self.notify(READY=1, **({"STATUS": status} if status else {}))

    def watchdog(self) -> bool:
        """One keep-alive ping."""
        return self.notify(WATCHDOG=1)

    def status(self, text: str) -> bool:
        """A one-line status shown by ``systemctl status board-pi``."""
        return self.notify(STATUS=text)

    def extend_timeout(self, seconds: float) -> bool:
        """Ask for more time to start (or stop) than ``TimeoutStartSec=`` gives, e.g. while a large
        lexicon compiles on first start."""
        return self.notify(EXTEND_TIMEOUT_USEC=int(seconds * 1e6))

    def stopping(self, status: str | None = None) -> bool:
        """The table is shutting down on purpose."""
        return self.notify(STOPPING=1, **({"STATUS": status} if status else {}))


class Heartbeat:
    """The main loop's sign of life: ``beat()`` each time round; ``recent(age)`` asks if it is alive."""

    def __init__(self, clock: Callable[[], float] = time.monotonic):
        self._clock = clock
        self._last = clock()

    def beat(self) -> None:
        self._last = self._clock()

    def age(self) -> float:
        """Seconds since the last beat."""
        return self._clock() - self._last

    def recent(self, max_age: float) -> bool:
        return self.age() <= max_age


class WatchdogKeeper:
    """A daemon thread that pings systemd every ``interval`` seconds while ``healthy()`` is true.

    >>> keeper = WatchdogKeeper(SystemdNotifier(environ={}), healthy=lambda: True)
    >>> keeper.start()   # outside systemd: nothing to ping, no thread started
    False
    """

    def __init__(self, notifier: SystemdNotifier, healthy: Callable[[], bool], interval: float | None = None):
        self.notifier = notifier
        self.healthy = healthy
        self.interval = interval if interval is not None else notifier.watchdog_interval
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.pings = 0
        self.missed = 0

    def start(self) -> bool:
        """Start pinging; False (and no thread) when there is no socket or no watchdog."""
        if not self.notifier.enabled or not self.interval:
            return False
        self._thread = threading.Thread(target=self._run, name="systemd-watchdog", daemon=True)
        self._thread.start()
        return True

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                ok = bool(self.healthy())
            except Exception:  # a failing health check is unhealthy, not a dead thread
                ok = False
            if ok and self.notifier.watchdog():
                self.pings += 1
            else:
                self.missed += 1

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
