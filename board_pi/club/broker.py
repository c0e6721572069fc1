"""The broker's accounts and access list, and a local Mosquitto for tests and benchmarks.

A club night runs one Mosquitto broker (Debian's ``mosquitto`` package). Each table has its own
account and may publish only under its own topics; only the hub's account may send commands.
:func:`access_list` writes that rule down in Mosquitto's ``acl_file`` format, and
:func:`password_file` makes the hashed password file with Mosquitto's own ``mosquitto_passwd``.

:class:`LocalBroker` runs a real ``mosquitto`` process on a free port with a generated
configuration, so that tests and ``benchmarks/bench_club.py`` talk to the same broker a club
would run, and can kill and restart it mid-game.

>>> print(access_list([3], hub_user="hub", prefix="board-pi"))  # doctest: +NORMALIZE_WHITESPACE
# board-pi: the hub reads everything and alone sends commands
user hub
topic readwrite board-pi/#
<BLANKLINE>
# table 3: publishes only under its own topics, reads only its own commands
user table-3
topic write board-pi/table/3/state
topic write board-pi/table/3/events
topic write board-pi/table/3/result
topic write board-pi/table/3/online
topic read board-pi/table/3/command
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

from .topics import TABLE_WRITES, Topics


class BrokerError(RuntimeError):
    """The broker cannot be set up or started (not installed, port taken, bad files)."""


def table_user(table: int) -> str:
    """The broker account of table ``table`` (``table-3``)."""
    return f"table-{table}"


def access_list(tables: Iterable[int], hub_user: str = "hub", prefix: str = "board-pi") -> str:
    """Mosquitto's access list: the hub reads and writes everything under ``prefix``; each table
    writes only its own state, events, result and online topics and reads only its commands."""
    lines = [f"# {prefix}: the hub reads everything and alone sends commands",
             f"user {hub_user}", f"topic readwrite {prefix}/#", ""]
    for n in tables:
        t = Topics(prefix, n)
        lines += [f"# table {n}: publishes only under its own topics, reads only its own commands",
                  f"user {table_user(n)}"]
        lines += [f"topic write {getattr(t, name)}" for name in TABLE_WRITES]
        lines += [f"topic read {t.command}", ""]
    return "\n".join(lines)


def password_file(path: Path, accounts: dict[str, str]) -> None:
    """Write Mosquitto's password file for ``accounts`` (user -> password), hashed by
    ``mosquitto_passwd`` (the plain text is written first, then hashed in place)."""
    tool = shutil.which("mosquitto_passwd")
    if tool is None:
        raise BrokerError("mosquitto_passwd is not installed (Debian: apt-get install mosquitto)")
    for user, password in accounts.items():
        if not user or ":" in user or "\n" in user or "\n" in password:
            raise BrokerError(f"a broker account name cannot be empty or hold ':' or a new line: {user!r}")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.writelines(f"{u}:{p}\n" for u, p in accounts.items())
    done = subprocess.run([tool, "-U", str(path)], capture_output=True, text=True)
    if done.returncode != 0:
        raise BrokerError(f"mosquitto_passwd could not hash {path}: {done.stderr.strip() or done.stdout.strip()}")


def mosquitto_path() -> str | None:
    """Where the ``mosquitto`` program is (Debian puts it in /usr/sbin, often not on PATH)."""
    return shutil.which("mosquitto") or next(
        (p for p in ("/usr/sbin/mosquitto", "/usr/local/sbin/mosquitto") if os.access(p, os.X_OK)), None)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class LocalBroker:
    """A ``mosquitto`` process on 127.0.0.1 with accounts and an access list, its files in ``root``.

    ``persistence`` keeps retained messages and the hub's queued messages across a clean stop
    (a killed broker keeps what it last saved: ``autosave_interval``).
    """

    root: Path
    accounts: dict[str, str] = field(default_factory=dict)
    acl: str | None = None
    port: int = 0
    persistence: bool = True
    autosave_interval: int = 60
    tls: tuple[Path, Path] | None = None  # certificate and key: the listener speaks TLS
    process: subprocess.Popen[bytes] | None = None

    @property
    def config_path(self) -> Path:
        return self.root / "mosquitto.conf"

    @property
    def log_path(self) -> Path:
        return self.root / "mosquitto.log"

    def url(self, user: str | None = None, password: str | None = None) -> str:
        scheme = "mqtts" if self.tls else "mqtt"
        cred = "" if user is None else f"{user}:{password}@" if password is not None else f"{user}@"
        return f"{scheme}://{cred}127.0.0.1:{self.port}"

    def write_config(self) -> None:
        exe = mosquitto_path()
        if exe is None:
            raise BrokerError("mosquitto is not installed (Debian: apt-get install mosquitto)")
        self.root.mkdir(parents=True, exist_ok=True)
        if not self.port:
            self.port = free_port()
        lines = [f"listener {self.port} 127.0.0.1",
                 f"log_dest file {self.log_path}",
                 "log_type error", "log_type warning", "log_type notice",
                 "connection_messages true",
                 # A club night has thousands of events; the hub's queue while it restarts must
                 # hold a whole room's backlog, not Mosquitto's default 1000 messages.
                 "max_queued_messages 200000",
                 "max_inflight_messages 100"]
        if os.geteuid() == 0:
            # As root Mosquitto would switch to the `mosquitto` user, who cannot read our files.
            lines.append("user root")
        if self.accounts:
            password_file(self.root / "passwd", self.accounts)
            lines += ["allow_anonymous false", f"password_file {self.root / 'passwd'}"]
        else:
            lines.append("allow_anonymous true")
        if self.acl is not None:
            (self.root / "acl").write_text(self.acl, encoding="utf-8")
            lines.append(f"acl_file {self.root / 'acl'}")
        if self.persistence:
            (self.root / "data").mkdir(exist_ok=True)
            lines += ["persistence true", f"persistence_location {self.root / 'data'}/",
                      f"autosave_interval {self.autosave_interval}"]
        if self.tls is not None:
            cert, key = self.tls
            lines += [f"certfile {cert}", f"keyfile {key}"]
        self.config_path.write_text("\n".join(lines) + "\n", encoding="utf-8")

    def start(self, timeout: float = 10.0) -> "LocalBroker":
        if self.process is not None and self.process.poll() is None:
            return self
        if not self.config_path.exists():
            self.write_config()
        exe = mosquitto_path()
        assert exe is not None
        self.process = subprocess.Popen([exe, "-c", str(self.config_path)], stdout=subprocess.DEVNULL,
                                        stderr=subprocess.PIPE)
        deadline = time.monotonic() + timeout
        while True:  # until it listens (or has died saying why)
            if self.process.poll() is not None:
                err = (self.process.stderr.read() if self.process.stderr else b"").decode(errors="replace")
                log = self.log_path.read_text(errors="replace")[-800:] if self.log_path.exists() else ""
                raise BrokerError(f"mosquitto exited with {self.process.returncode}: {err.strip()} {log.strip()}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.5).close()
                return self
            except OSError:
                if time.monotonic() > deadline:
                    self.kill()
                    raise BrokerError(f"mosquitto did not listen on port {self.port} within {timeout:g} s")
                time.sleep(0.02)

    def stop(self) -> None:
        """A clean stop (SIGTERM): Mosquitto saves its persistence file."""
        self._end(signal.SIGTERM)

    def kill(self) -> None:
        """A crash (SIGKILL): what was not yet saved is lost, as on a power cut."""
        self._end(signal.SIGKILL)

    def _end(self, sig: int) -> None:
        p = self.process
        if p is None or p.poll() is not None:
            return
        p.send_signal(sig)
        try:
            p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
        if p.stderr is not None:
            p.stderr.close()

    def pid(self) -> int | None:
        return None if self.process is None else self.process.pid

    def __enter__(self) -> "LocalBroker":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


class TcpCut:
    """A TCP relay between a table and the broker whose connections can be cut (as when the
    table's Wi-Fi drops): cut() closes them and refuses new ones until mend()."""

    def __init__(self, port: int) -> None:
        self.target = port
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1]
        self.open = True
        self.socks: list[socket.socket] = []
        self.lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                c, _ = self.server.accept()
            except OSError:
                return
            if not self.open:
                c.close()
                continue
            try:
                b = socket.create_connection(("127.0.0.1", self.target))
            except OSError:
                c.close()
                continue
            with self.lock:
                self.socks += [c, b]
            for src, dst in ((c, b), (b, c)):
                threading.Thread(target=self._pipe, args=(src, dst), daemon=True).start()

    @staticmethod
    def _pipe(src: socket.socket, dst: socket.socket) -> None:
        try:
            while data := src.recv(65536):
                dst.sendall(data)
        except OSError:
            pass
        for s in (src, dst):
            try:
                s.close()
            except OSError:
                pass

    def cut(self) -> None:
        self.open = False
        with self.lock:
            for s in self.socks:
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                s.close()
            self.socks = []

    def mend(self) -> None:
        self.open = True

    def close(self) -> None:
        self.cut()
        self.server.close()
