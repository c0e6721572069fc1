"""The Pico clock over USB serial (pyserial): button events in, the clock's state out.

The Pico counts on its own and switches the moment a button is hit; it reports every button event
with its own timestamp, reliably (``picolink``). This side maps those timestamps onto our
``time_source`` timeline, hands each event on exactly once as a :class:`ClockEvent`, and sends the
clock's state back whenever it changes, so the Pico shows what the Pi decided.

The link survives a pulled cable (the port is reopened every ``reconnect_interval`` seconds, by
path, so use a stable one such as ``/dev/serial/by-id/...``) and a restart of either side: the Pico
keeps unacknowledged presses and sends them again; a restarted Pi that passes the saved
:meth:`SerialClock.resume_point` back in does not take a press twice. Presses made while the Pi was
down are charged at the moment they were made.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from typing import Any, Callable

from .events import EVENT_KINDS, ClockEvent, EventSource, log
from .picolink import VERSION, Frame, ReliableLink, new_boot_id

HOST_VERSION = "board-pi-1"
PICO_TIMEOUT = 3.0       # no frame from the Pico for this long: not connected
STATE_REFRESH = 10.0     # resend the state this often even when nothing changed
STATE_TOLERANCE = 0.25   # resend when the Pico's idea of a player's time is this far out
OFFSET_SAMPLES = 16


class SerialClock(EventSource):
    """The Pico clock on a serial port; also a ``ClockOutputs`` for the clock controller."""

    def __init__(
        self,
        port: str,
        baudrate: int = 115200,
        time_source: Callable[[], float] = time.monotonic,
        on_event: Callable[[ClockEvent], None] | None = None,
        resume: dict[str, Any] | None = None,
        reconnect_interval: float = 0.5,
    ) -> None:
        super().__init__(on_event)
        self.port = port
        self.baudrate = baudrate
        self._time = time_source
        self.reconnect_interval = reconnect_interval
        self._lock = threading.RLock()
        self.link = ReliableLink(boot=new_boot_id())
        if resume:
            try:
                boot, delivered = str(resume["pico_boot"]), int(resume["delivered"])
            except (KeyError, TypeError, ValueError):
                raise ValueError(f"not a serial clock resume point: {resume!r}") from None
            self.link.peer, self.link.expected = boot, delivered + 1
        self.on_tick: Callable[[], Any] | None = None
        self.tick_interval = 0.05
        self._serial: Any = None
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._offsets: dict[str, deque[float]] = {}
        self._heard_at: float | None = None
        self.pico_boot: str | None = None
        self.pico_version: str | None = None
        self.pico_view: tuple[str, ...] | None = None  # the Pico's last TICK: phase, running, times
        self.last_error: str | None = None
        self.connects = 0
        self._snap: Any = None
        self._sent: tuple[Any, ...] | None = None  # (sent at, phase, running, flags, remaining)
        # A press was delivered: the Pico waits for a state that accounts for it, changed or not.
        self._owe_state = False

    # -- lifecycle -------------------------------------------------------------------------

    def start(self, on_tick: Callable[[], Any] | None = None) -> "SerialClock":
        """Start the reader thread (it opens the port, and reopens it whenever it goes away).

        ``on_tick`` (e.g. the controller's ``tick``) is called from it every ``tick_interval``
        seconds, as :meth:`GpioClock.start` does.
        """
        if on_tick is not None:
            self.on_tick = on_tick
        if self._thread is None:
            self._stop.clear()
            self._thread = threading.Thread(target=self._run, name="serial-clock", daemon=True)
            self._thread.start()
        return self

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)
            self._thread = None
        self._close_port()

    def __enter__(self) -> "SerialClock":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def connected(self) -> bool:
        """The port is open and the Pico has been heard from in the last few seconds."""
        heard = self._heard_at
        return self._serial is not None and heard is not None and self._time() - heard < PICO_TIMEOUT

    def resume_point(self) -> dict[str, Any]:
        """Save this with the clock's state; pass it back as ``resume`` after a restart."""
        with self._lock:
            return {"pico_boot": self.link.peer, "delivered": self.link.expected - 1}

    # -- the reader thread -----------------------------------------------------------------

    def _open_port(self) -> bool:
        import serial

        try:
            ser = serial.Serial(self.port, self.baudrate, timeout=0.005, write_timeout=0.5)
        except (serial.SerialException, OSError, ValueError) as e:
            self.last_error = f"cannot open {self.port}: {e}"
            return False
        self.attach(ser)
        return True

    def attach(self, transport: Any) -> None:
        """Use ``transport`` (anything with ``write(bytes)``) as the open link and greet the Pico.

        The reader thread does this with the pyserial port it opened; a caller with another
        transport feeds what it reads to :meth:`feed` itself.
        """
        with self._lock:
            self._serial = transport
            self.connects += 1
            self.last_error = None
            # Old state frames are stale now; the base in our next frame tells the Pico so.
            self.link.forget_outbox()
            self.link.send_plain("HELLO", (HOST_VERSION,))
            self._sent = None
            self._send_state(self._time(), force=True)
            self._flush()

    def _close_port(self) -> None:
        with self._lock:
            ser, self._serial = self._serial, None
        if ser is not None:
            try:
                ser.close()
            except Exception:  # closing a port whose device has gone
                pass

    @property
    def reader_alive(self) -> bool:
        """The reader thread is running (the watchdog's question: are presses still read?)."""
        return self._thread is not None and self._thread.is_alive()

    def _run(self) -> None:
        import serial

        last_tick = 0.0
        while not self._stop.is_set():
            if self.on_tick is not None and time.monotonic() - last_tick >= self.tick_interval:
                last_tick = time.monotonic()
                try:
                    self.on_tick()
                except Exception:  # a display fault: the presses must still be read
                    log.exception("the serial clock's tick failed")
            if self._serial is None:
                if not self._open_port():
                    self._stop.wait(self.reconnect_interval)
                    continue
            try:
                ser = self._serial
                data = ser.read(max(1, ser.in_waiting)) if ser is not None else b""
            except (serial.SerialException, OSError, TypeError, AttributeError) as e:
                # TypeError/AttributeError: pyserial's fd went away under it (the cable was pulled).
                self.last_error = f"{self.port}: {e}"
                self._close_port()
                self._stop.wait(self.reconnect_interval)
                continue
            try:
                self.feed(data)
            except Exception as e:  # a fault of ours on strange input: log it, read on
                self.last_error = f"{self.port}: {type(e).__name__}: {e}"
                log.exception("the serial clock could not take what it read")

    def feed(self, data: bytes, now: float | None = None) -> None:
        """Take bytes read from the link (the reader thread calls this; an empty read still
        drives retransmission). Events are handed on after the lock is released."""
        if now is None:
            now = self._time()
        events: list[ClockEvent] = []
        with self._lock:
            frames = self.link.receive(data, now, accept=self._can_place) if data else []
            for f in frames:
                ev = self._on_frame(f, now)
                if ev is not None:
                    events.append(ev)
            if self.link.due(now):
                # Our frames are state, and a state resent late would be stale: instead of
                # retransmitting it, give it up (the next frame's base says so) and send the
                # state as it is now. A beep that never arrived is not worth repeating.
                self.link.back_off()
                self.link.forget_outbox()
                self._send_state(now, force=True)
            else:
                self.link.poll(now)
            if self._sent is not None and now - self._sent[0] >= STATE_REFRESH:
                self._send_state(now, force=True)
            self._flush()
        if self.link.stats.version_mismatch and self.pico_version is None:
            self.last_error = (f"{self.port}: the Pico speaks another protocol version than this board-pi "
                               f"(version {VERSION}); copy firmware/ from this board-pi onto it")
        for ev in events:
            self._emit(ev)
        if events:
            with self._lock:
                if self._owe_state:
                    self._send_state(self._time(), force=True)
                    self._flush()

    def _flush(self) -> None:
        data = self.link.take_output()
        if not data or self._serial is None:
            return
        try:
            self._serial.write(data)
        except Exception as e:  # a write to a vanished device: the reader reconnects
            self.last_error = f"{self.port}: {e}"

    # -- frames from the Pico --------------------------------------------------------------

    def _sample(self, boot: str, pico_ms: str, now: float) -> None:
        if not pico_ms.isdigit() or len(pico_ms) > 12:
            return
        samples = self._offsets.setdefault(boot, deque(maxlen=OFFSET_SAMPLES))
        # Transit delay only ever adds, so the smallest offset seen is the truest.
        samples.append(now - int(pico_ms) / 1000.0)
        if len(self._offsets) > 2:
            for old in [b for b in self._offsets if b != boot][:-1]:
                del self._offsets[old]

    def _offset(self, boot: str) -> float | None:
        s = self._offsets.get(boot)
        return min(s) if s else None

    def _can_place(self, f: Frame) -> bool:
        """A press is only taken once we can place its timestamp on our timeline."""
        return f.kind != "EV" or self._offset(f.boot) is not None

    def _on_frame(self, f: Frame, now: float) -> ClockEvent | None:
        self._heard_at = now
        if f.boot != self.pico_boot and f.kind in ("HELLO", "TICK", "EV"):
            # A Pico we have not met, or one that restarted: it needs to be told the state.
            self.pico_boot = f.boot
            self._send_state(now, force=True)
        if f.kind == "HELLO":
            if len(f.args) >= 2:
                self.pico_version = f.args[0]
                self._sample(f.boot, f.args[1], now)
            self.link.kick(now)
        elif f.kind == "TICK":
            if f.args:
                self._sample(f.boot, f.args[0], now)
                self.pico_view = f.args[1:]
        elif f.kind == "EV":
            return self._event(f, now)
        return None

    def _event(self, f: Frame, now: float) -> ClockEvent | None:
        if len(f.args) != 4:
            self.link.stats.bad_frames += 1
            return None
        kind, player_s, t_s = f.args[0], f.args[1], f.args[2]
        player = None if player_s == "-" else (int(player_s) if player_s in ("0", "1") else -1)
        offset = self._offset(f.boot)
        if kind not in EVENT_KINDS or player == -1 or not t_s.isdigit() or offset is None:
            self.link.stats.bad_frames += 1
            return None
        at = min(now, int(t_s) / 1000.0 + offset)
        self._owe_state = True
        return ClockEvent(kind, player, at, "serial")  # type: ignore[arg-type]

    # -- outputs (the ClockOutputs protocol) -----------------------------------------------

    def show(self, snap: Any) -> None:
        """Send the clock's state to the Pico when it differs from what the Pico shows."""
        with self._lock:
            self._snap = snap
            self._send_state(self._time())
            self._flush()

    def _send_state(self, now: float, force: bool = False) -> None:
        snap = self._snap
        if snap is None or self._serial is None:
            return
        force = force or self._owe_state
        # The snapshot may be older than now (a resend): count the running player's time on.
        age = max(0.0, now - float(snap.at)) if snap.phase == "running" else 0.0
        rem = tuple(float(r) - (age if snap.running == p else 0.0) for p, r in enumerate(snap.remaining[:2]))
        flags = "".join("1" if f else "0" for f in snap.flagged[:2])
        if not force and self._sent is not None:
            at, phase, running, sflags, srem = self._sent
            if (phase, running, sflags) == (snap.phase, snap.running, flags):
                # What the Pico shows now, counting from what we last sent.
                drift = max(abs(srem[p] - (now - at if running == p and phase == "running" else 0) - rem[p])
                            for p in range(2))
                if drift < STATE_TOLERANCE:
                    return
        boot = self.pico_boot or "00000000"
        applied = self.link.expected - 1 if self.link.peer == boot else 0
        max_ot = snap.max_overtime or 0
        args = (boot, str(applied), snap.phase, "-" if snap.running is None else str(snap.running),
                str(round(rem[0] * 1000)), str(round(rem[1] * 1000)), str(round(max_ot * 1000)), flags)
        self.link.send("STATE", args, now)
        self._sent = (now, snap.phase, snap.running, flags, rem)
        self._owe_state = False

    def beep(self, pattern: str) -> None:
        """Sound the Pico's buzzer (not queued while the Pico is away: a late beep means nothing)."""
        with self._lock:
            if self.connected:
                self.link.send("BEEP", (pattern,), self._time())
                self._flush()

    def verdict(self, acceptable: bool | None) -> None:
        """The Pico clock has no verdict lights; the GPIO lights or the status page show it."""


class NoPico(Exception):
    """Nothing on the port answered as a board-pi Pico clock."""


def firmware_version(port: str, baudrate: int = 115200, timeout: float = 3.0) -> str:
    """Ask the Pico clock on ``port`` which firmware it runs: its answer to our HELLO.

    A plain one-off exchange for ``board-pi doctor``, before the table takes the port: it sends a
    HELLO and reads frames until the Pico's own HELLO arrives. Raises :class:`NoPico` when nothing
    answers within ``timeout`` seconds, or only something that speaks another protocol version.
    """
    import serial  # imported when used: pyserial is only needed with the Pico clock

    from .picolink import LineSplitter, parse_line

    hello = Frame(VERSION, new_boot_id(), 0, 1, "HELLO", (HOST_VERSION,)).encode()
    splitter = LineSplitter()
    foreign = 0
    with serial.Serial(port, baudrate, timeout=0.1, exclusive=True) as link:
        deadline = time.monotonic() + timeout
        next_hello = 0.0
        while time.monotonic() < deadline:
            if time.monotonic() >= next_hello:  # the Pico may be booting: ask again now and then
                link.write(hello)
                next_hello = time.monotonic() + 0.5
            for line in splitter.feed(link.read(256)):
                f = parse_line(line)
                if f is None:
                    continue
                if f.version != VERSION:
                    foreign += 1
                elif f.kind == "HELLO" and f.args:
                    return f.args[0]
    if foreign:
        raise NoPico(f"it speaks another protocol version than this board-pi (version {VERSION})")
    raise NoPico(f"no answer in {timeout:g} s")
