"""Test rigs: the firmware and the Pi's serial side, in memory or over a pseudo-terminal pair.

Importing this module puts the firmware and the machine/utime stand-ins on sys.path (the
benchmarks use it too).
"""

from __future__ import annotations

import os
import sys
import threading
import time
import tty
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[2]
for _p in (ROOT / "firmware", Path(__file__).resolve().parent / "standins"):
    if str(_p) not in sys.path:
        sys.path.insert(0, str(_p))

import machine  # noqa: E402
import utime  # noqa: E402

import picoclock  # noqa: E402

from board_pi.clock import ClockController, GameClock, TimeControl  # noqa: E402
from board_pi.hardware.events import ClockEvent  # noqa: E402
from board_pi.hardware.serial_clock import SerialClock  # noqa: E402

_monotonic = time.monotonic
PINS = {"player0": 2, "player1": 3, "pause": 4, "challenge": 5, "hold": 6}
BUZZER = 15


class FakeTime:
    def __init__(self, t: float = 100.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t

    def advance(self, seconds: float) -> None:
        self.t += seconds


class Display:
    def __init__(self) -> None:
        self.text: str | None = None
        self.colon = False

    def show(self, text: str, colon: bool = False) -> None:
        self.text, self.colon = text, colon


class MemoryPort:
    """The Pico's end of an in-memory cable."""

    def __init__(self) -> None:
        self.incoming = bytearray()
        self.written = bytearray()

    def read(self) -> bytes:
        data, self.incoming = bytes(self.incoming), bytearray()
        return data

    def write(self, data: bytes) -> None:
        self.written += data


class HostPort:
    """The Pi's end of an in-memory cable."""

    def __init__(self) -> None:
        self.written = bytearray()

    def write(self, data: bytes) -> None:
        self.written += data

    def take(self) -> bytes:
        data, self.written = bytes(self.written), bytearray()
        return data


def make_pico(port, boot: str = "0000ABCD", **kw) -> picoclock.PicoClock:
    buttons = [(name, machine.Pin(n, machine.Pin.IN, machine.Pin.PULL_UP)) for name, n in PINS.items()]
    buzzer = machine.Pin(BUZZER, machine.Pin.OUT, value=0)
    return picoclock.PicoClock(port, buttons, [Display(), Display()], buzzer, boot, **kw)


class Table:
    """The Pi's side: a clock, its controller and the serial backend, recording every event."""

    def __init__(self, host: SerialClock, clock: GameClock) -> None:
        self.host = host
        self.clock = clock
        self.received: list[ClockEvent] = []
        self.actions: list = []
        self.ctl = ClockController(clock, outputs=host, on_action=self.actions.append)
        host.on_event = self._on_event

    def _on_event(self, ev: ClockEvent) -> None:
        self.received.append(ev)
        self.ctl.handle(ev)


class MemoryRig:
    """Pico and Pi in one thread on a fake clock, joined by a cable that ``channel`` may damage."""

    def __init__(self, ft: FakeTime, control: TimeControl | None = None) -> None:
        utime.now_fn = ft
        self.ft = ft
        self.pico = make_pico(MemoryPort())
        self.t0 = ft.t  # the Pico's uptime 0
        self.host = SerialClock("memory", time_source=ft)
        self.table = Table(self.host, GameClock(control or TimeControl(), time_source=ft))
        self.port = HostPort()
        self.host.attach(self.port)

    def step(self, ms: int = 5, channel: Callable[[bytes, str], bytes] | None = None) -> None:
        self.ft.t += ms / 1000
        self.pico.step()
        up = bytes(self.pico.port.written)
        self.pico.port.written = bytearray()
        if channel is not None:
            up = channel(up, "up")
        self.host.feed(up)
        down = self.port.take()
        if channel is not None:
            down = channel(down, "down")
        self.pico.port.incoming += down

    def run(self, ms: int, channel=None, step_ms: int = 5) -> None:
        for _ in range(max(1, ms // step_ms)):
            self.step(step_ms, channel)

    def press(self, name: str, channel=None, hold_ms: int = 60) -> None:
        machine.Pin.drive(PINS[name], 0)
        self.run(hold_ms, channel)
        machine.Pin.drive(PINS[name], 1)
        self.run(60, channel)

    def pico_time(self, t_ms: int) -> float:
        return self.t0 + t_ms / 1000


class PtyPort:
    """The Pico's end of a pseudo-terminal: the master side, read and written without blocking.

    Writes to a cable nobody listens on are dropped, as the Pico's USB serial drops them.
    """

    def __init__(self, fd: int) -> None:
        self.fd = fd
        os.set_blocking(fd, False)
        self.lock = threading.Lock()

    def read(self) -> bytes:
        with self.lock:
            if self.fd < 0:
                return b""
            try:
                return os.read(self.fd, 4096)
            except (BlockingIOError, OSError):
                return b""

    def write(self, data: bytes) -> None:
        with self.lock:
            if self.fd < 0:
                return
            try:
                os.write(self.fd, data)
            except (BlockingIOError, OSError):
                pass

    def unplug(self) -> None:
        with self.lock:
            if self.fd >= 0:
                os.close(self.fd)
                self.fd = -1


class Cable:
    """A pseudo-terminal pair behind a stable path (like /dev/serial/by-id/...), replugged at will."""

    def __init__(self, link_path: Path) -> None:
        self.path = link_path
        self.slave_fd = -1
        self.port = PtyPort(self._new_pair())

    def _new_pair(self) -> int:
        master, slave = os.openpty()
        tty.setraw(slave)  # no echo, no line editing, before anyone opens it
        if self.slave_fd >= 0:
            os.close(self.slave_fd)
        self.slave_fd = slave
        tmp = self.path.with_suffix(".new")
        if tmp.exists() or tmp.is_symlink():
            tmp.unlink()
        tmp.symlink_to(os.ttyname(slave))
        os.replace(tmp, self.path)
        return master

    def unplug(self) -> None:
        self.port.unplug()
        if self.slave_fd >= 0:
            os.close(self.slave_fd)
            self.slave_fd = -1
        self.path.unlink()

    def replug(self) -> None:
        fd = self._new_pair()
        with self.port.lock:
            self.port.fd = fd
            os.set_blocking(fd, False)

    def close(self) -> None:
        self.port.unplug()
        if self.slave_fd >= 0:
            os.close(self.slave_fd)
            self.slave_fd = -1


class PicoThread:
    """Runs a PicoClock's loop in its own thread, as the Pico would (a step every millisecond).

    With ``time`` (a FakeTime shared with the Pi's side) the Pico's clock is the test's: it moves
    only when the test advances it, so what is charged does not depend on the machine's speed.
    """

    def __init__(self, port, boot: str = "0000ABCD", time: FakeTime | None = None, **kw) -> None:
        self.time = time
        utime.now_fn = time if time is not None else _monotonic
        self.lock = threading.Lock()
        self.pico = make_pico(port, boot, **kw)
        self._stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True, name=f"pico-{boot}")
        self.thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            with self.lock:
                self.pico.step()
            time.sleep(0.001)

    def stop(self) -> None:
        self._stop.set()
        self.thread.join(timeout=2)

    def press(self, name: str, hold: float = 0.06) -> None:
        if self.time is None:
            machine.Pin.drive(PINS[name], 0)
            time.sleep(hold)
            machine.Pin.drive(PINS[name], 1)
            time.sleep(0.06)
            return
        button = next(b for b in self.pico.buttons if b.name == name)
        machine.Pin.drive(PINS[name], 0)
        assert wait_for(lambda: button.pressed), f"the Pico did not see {name} go down"
        self.time.advance(hold)  # past the bounce lockout
        machine.Pin.drive(PINS[name], 1)
        assert wait_for(lambda: not button.pressed), f"the Pico did not see {name} come up"


def wait_for(cond: Callable[[], bool], timeout: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return True
        time.sleep(0.005)
    return cond()
