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
import time
import warnings
from pathlib import Path
from typing import Any, TextIO

from .errors import UsageError
from ..files import write_json
from ..clock import ClockController, GameClock, TimeControl
from ..clock.model import ClockSnapshot

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
    write_json(path, {"clock": clock.to_dict(), **extra}, indent=None)  # a crash never leaves half a state


MAX_STATE_BYTES = 1024**2  # a clock's state is a few hundred bytes; more is the wrong file


def _load(path: Path) -> dict[str, Any] | None:
    if path.is_dir():
        raise UsageError(f"--state {path}: is a folder; give a file name in it")
    if not path.exists():
        if not path.parent.is_dir() or not os.access(path.parent, os.W_OK | os.X_OK):
            raise UsageError(f"--state {path}: cannot be written (no writable folder {path.parent})")
        return None
    try:
        with open(path, "rb") as f:
            raw = f.read(MAX_STATE_BYTES + 1)
        if len(raw) > MAX_STATE_BYTES:
            raise ValueError("far too large for a clock's state")
        data = json.loads(raw.decode("utf-8"))
        if not isinstance(data, dict) or not isinstance(data.get("clock"), dict):
            raise ValueError("no clock in it")
        if not isinstance(data.get("serial", {}), dict):
            raise ValueError("its serial link's resume point is not one")
        return data
    except (OSError, ValueError, RecursionError) as e:  # RecursionError: JSON nested beyond reason
        why = e.strerror if isinstance(e, OSError) and e.strerror else str(e)[:200] or type(e).__name__
        raise UsageError(f"cannot resume from {path}: {why}") from None


def time_control(args: argparse.Namespace) -> TimeControl:
    """The time control from the command line, held to TimeControl's own limits, in the words
    the configuration file and the status page use (board_pi.settings); nan and inf are refused.
    An option not given takes TimeControl's default."""
    from ..settings import check, from_text

    values = {}
    for option, key, value in (("--minutes", "minutes", args.minutes),
                               ("--penalty", "overtime_penalty", args.penalty),
                               ("--max-overtime", "max_overtime_minutes", args.max_overtime),
                               ("--increment", "increment_seconds", args.increment),
                               ("--delay", "delay_seconds", args.delay)):
        if value is None:
            value = getattr(TimeControl, key)
        value, problem = check(TimeControl, key, from_text(value))
        if problem:
            raise UsageError(f"{option}: {problem}")
        values[key] = value
    if values["increment_seconds"] and values["delay_seconds"]:
        raise UsageError("choose --increment or --delay, not both")
    try:
        return TimeControl(minutes=values["minutes"], overtime_penalty=values["overtime_penalty"],
                           max_overtime_minutes=values["max_overtime_minutes"],
                           increment_seconds=values["increment_seconds"], delay_seconds=values["delay_seconds"])
    except ValueError as e:
        raise UsageError(str(e)) from None


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
    control = time_control(args)
    state_path = Path(args.state) if args.state else None
    saved = _load(state_path) if state_path else None
    if saved is not None:
        try:
            clock = GameClock.from_dict(saved["clock"])
        except (ValueError, TypeError, KeyError) as e:  # well-formed JSON, but not a clock's state
            raise UsageError(f"cannot resume from {state_path}: {str(e)[:200]}") from None
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
                    from ..hardware.events import ClockEvent

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
        from ..hardware.serial_clock import SerialClock

        if not args.port:
            raise UsageError("--backend serial needs --port (the Pico's serial port)")
        if not os.path.exists(args.port):
            raise UsageError(f"no serial port at {args.port} (is the Pico plugged in?)")
        if os.path.isdir(args.port):  # it would be retried as a port for ever
            raise UsageError(f"{args.port} is a folder, not a serial port (ls /dev/serial/by-id/)")
        try:
            return SerialClock(args.port, resume=(saved or {}).get("serial"))
        except ValueError as e:  # the state file's resume point is damaged
            raise UsageError(f"cannot resume from {args.state}: {e}") from None
    if args.backend == "gpio":
        from gpiozero.exc import BadPinFactory

        from ..hardware.gpio import GpioClock

        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # gpiozero's fall-back warnings: our message says it
                return GpioClock()
        except BadPinFactory as e:
            raise UsageError(f"no GPIO pins here ({e}); on a Raspberry Pi, install lgpio "
                             "(Raspberry Pi OS ships it)") from None
    if not sys.stdin.isatty():
        raise UsageError("--backend keyboard needs a terminal on standard input")
    from ..hardware.events import EventSource

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
