"""``board-pi clock``: a standalone tournament clock in the terminal, on GPIO buttons, the Pico, or
the keyboard. It wires the pure clock model to a hardware backend (as the table does) and keeps its
state in a file, so a restarted clock resumes where it stopped.
"""

from __future__ import annotations

import argparse
import json
import os
import select
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any, TextIO

from .cli import UsageError
from .clock import ClockController, GameClock, TimeControl
from .clock.model import ClockSnapshot

# The keyboard backend's keys.
KEYS = {"z": ("press", 0), "m": ("press", 1), " ": ("pause", None), "c": ("challenge", None),
        "h": ("hold", None)}


def format_time(seconds: float) -> str:
    """``25:00``, ``0:07``, and ``-2:05`` in overtime; seconds shown rounded towards zero time."""
    if seconds >= 0:
        s = int(-(-seconds // 1))  # rounded up: 0:00 only once the time is out
        return f"{s // 60}:{s % 60:02d}"
    s = int(-seconds)
    return f"-{s // 60}:{s % 60:02d}"


def status_line(snap: ClockSnapshot) -> str:
    parts = []
    for p, rem in enumerate(snap.remaining):
        mark = ">" if snap.running == p else " "
        extra = " FLAG" if snap.flagged[p] else (f" -{snap.penalties[p]}" if snap.penalties[p] else "")
        parts.append(f"{mark}player {p} {format_time(rem):>6}{extra}")
    tail: str = snap.phase
    if snap.hold is not None:
        tail += f", hold by {snap.hold.by}" + (" (may draw)" if snap.may_draw else "")
    return " | ".join(parts) + f"  [{tail}]"


def _save(path: Path, clock: GameClock, extra: dict[str, Any]) -> None:
    data = {"clock": clock.to_dict(), **extra}
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    with os.fdopen(fd, "w") as f:
        json.dump(data, f)
    os.replace(tmp, path)  # atomic: a crash mid-write never leaves half a state


def _load(path: Path) -> dict[str, Any] | None:
    if not path.exists():
        return None
    try:
        data = json.loads(path.read_text())
        if not isinstance(data, dict) or "clock" not in data:
            raise ValueError("no clock in it")
        return data
    except (OSError, ValueError) as e:
        raise UsageError(f"cannot resume from {path}: {e}") from None


class _Terminal:
    """Status on one line when stdout is a terminal; a line per change otherwise."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.tty = out.isatty()
        self.last = ""

    def show(self, line: str) -> None:
        if line == self.last:
            return
        self.last = line
        if self.tty:
            self.out.write("\r\x1b[K" + line)
        else:
            self.out.write(line + "\n")
        self.out.flush()

    def note(self, text: str) -> None:
        self.out.write(("\r\x1b[K" if self.tty else "") + text + "\n")
        self.out.flush()


def cmd_clock(args: argparse.Namespace) -> int:
    try:
        control = TimeControl(minutes=args.minutes, overtime_penalty=args.penalty,
                              max_overtime_minutes=args.max_overtime, increment_seconds=args.increment,
                              delay_seconds=args.delay)
    except ValueError as e:
        raise UsageError(str(e)) from None
    state_path = Path(args.state) if args.state else None
    saved = _load(state_path) if state_path else None
    if saved is not None:
        try:
            clock = GameClock.from_dict(saved["clock"])
        except ValueError as e:
            raise UsageError(f"cannot resume from {state_path}: {e}") from None
    else:
        clock = GameClock(control)
    term = _Terminal(sys.stdout)
    backend = _open_backend(args, saved)
    ctl = ClockController(clock, outputs=backend)
    ctl.on_action = lambda a: term.note(f"{a.kind}{'' if a.player is None else ' ' + str(a.player)}: {a.result}") \
        if a.result != "ignored" else None
    backend.on_event = ctl.handle
    if saved is not None:
        term.note(f"resumed from {state_path}")
    keyboard = _Keyboard() if args.backend == "keyboard" else None
    started = time.monotonic()
    last_save = 0.0
    try:
        if hasattr(backend, "start"):
            backend.start()
        while args.seconds is None or time.monotonic() - started < args.seconds:
            if keyboard is not None:
                key = keyboard.read(0.05)
                if key == "q":
                    break
                if key in KEYS:
                    from .hardware.events import ClockEvent

                    kind, player = KEYS[key]
                    backend._emit(ClockEvent(kind, player, time.monotonic(), "keyboard"))  # type: ignore[arg-type]
            else:
                time.sleep(0.05)
            term.show(status_line(ctl.tick()))
            if state_path and time.monotonic() - last_save >= 1.0:
                _save(state_path, clock, _extra(backend))
                last_save = time.monotonic()
    except KeyboardInterrupt:
        pass
    finally:
        if keyboard is not None:
            keyboard.close()
        if state_path:
            _save(state_path, clock, _extra(backend))
        if hasattr(backend, "close"):
            backend.close()
    term.note(status_line(ctl.tick()))
    return 0


def _extra(backend: Any) -> dict[str, Any]:
    return {"serial": backend.resume_point()} if hasattr(backend, "resume_point") else {}


def _open_backend(args: argparse.Namespace, saved: dict[str, Any] | None) -> Any:
    if args.backend == "serial":
        from .hardware.serial_clock import SerialClock

        if not args.port:
            raise UsageError("--backend serial needs --port (the Pico's serial port)")
        if not os.path.exists(args.port):
            raise UsageError(f"no serial port at {args.port} (is the Pico plugged in?)")
        return SerialClock(args.port, resume=(saved or {}).get("serial"))
    if args.backend == "gpio":
        from gpiozero.exc import BadPinFactory

        from .hardware.gpio import GpioClock

        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # gpiozero's fall-back warnings: our message says it
                return GpioClock()
        except BadPinFactory as e:
            raise UsageError(f"no GPIO pins here ({e}); on a Raspberry Pi, install lgpio "
                             "(Raspberry Pi OS ships it)") from None
    if not sys.stdin.isatty():
        raise UsageError("--backend keyboard needs a terminal on standard input")
    from .hardware.events import EventSource

    class _Keys(EventSource):
        def show(self, snap: Any) -> None: ...
        def beep(self, pattern: str) -> None:
            sys.stdout.write("\a")
        def verdict(self, acceptable: bool | None) -> None: ...

    return _Keys()


class _Keyboard:
    """Single key presses from a terminal, without waiting for Enter."""

    def __init__(self) -> None:
        import termios
        import tty

        self.fd = sys.stdin.fileno()
        self.saved = termios.tcgetattr(self.fd)
        tty.setcbreak(self.fd)

    def read(self, timeout: float) -> str | None:
        ready, _, _ = select.select([self.fd], [], [], timeout)
        return os.read(self.fd, 1).decode("latin-1").lower() if ready else None

    def close(self) -> None:
        import termios

        termios.tcsetattr(self.fd, termios.TCSADRAIN, self.saved)
