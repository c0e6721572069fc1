"""The clock's buttons, lights and buzzer on the Pi's own GPIO pins, through gpiozero.

Written against gpiozero's devices and pin-factory interface, so the same code drives real pins
(on a Pi, gpiozero uses ``lgpio``, which Raspberry Pi OS ships) and gpiozero's ``MockFactory`` in
tests. It knows nothing of the game: it turns pin edges into :class:`ClockEvent` values and shows
whatever it is told to (:meth:`GpioClock.show`, :meth:`beep`, :meth:`verdict`, the methods a
``board_pi.clock.ClockController`` calls).

Buttons (pin to ground, internal pull-up by default):

* A press is reported at once, on the first edge (a clock must stop the moment it is hit); edges
  for ``bounce_ms`` after any accepted edge are contact bounce and ignored. If the button was
  released and pressed again entirely inside that window, the next press edge is still reported
  (an edge to "pressed" while we believe it is already pressed means we missed the release).
* A button held down reports one ``press``; if it is still down ``long_press_s`` later, one
  ``long_press`` (for a player's button: mark the turn as an exchange). Nothing more until it is
  released and pressed again. Long presses are found by :meth:`GpioClock.poll`, which the
  background ticker (:meth:`GpioClock.start`) calls every ``poll_interval`` seconds.
* Both player buttons at once: both presses are reported, in the order they arrived, each with its
  own timestamp; the clock model switches only once (its press guard).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field, fields
from typing import Any, Callable

from .events import ClockEvent, EventSource, log

# gpiozero is imported when a GpioClock is made, so that importing board_pi.hardware never needs it.


def _pin(default: int) -> Any:
    # GPIO 0-27 on the 40-pin header of every Pi since the B+ (BCM numbers, as `pinout` prints).
    return field(default=default, metadata={"min": 0, "max": 27, "what": "a BCM GPIO number"})


@dataclass(frozen=True)
class GpioPins:
    """Pin numbers (BCM/GPIO numbering) and button timing. Every field has a working default.

    The one definition of these settings: the configuration's ``[gpio]`` section has these keys,
    with these defaults and limits (checked through :mod:`board_pi.settings`). The defaults avoid
    the I2C, SPI and UART pins so a display or a HAT can share the header.
    """

    player0_button: int = _pin(17)
    player1_button: int = _pin(27)
    pause_button: int = _pin(22)
    challenge_button: int = _pin(23)
    hold_button: int = _pin(24)
    player0_light: int = _pin(5)
    player1_light: int = _pin(6)
    green_light: int = _pin(13)
    red_light: int = _pin(19)
    buzzer: int = _pin(26)
    pull_up: bool = True  # buttons connect the pin to ground
    bounce_ms: float = field(default=30.0, metadata={"min": 0, "max": 60})
    long_press_s: float = field(default=1.5, metadata={"min": 0, "max": 60})
    poll_interval: float = field(default=0.02, metadata={"min": 0, "above": True, "max": 60})

    # Each button's pin setting and the name the clock knows it by (is_pressed, the events).
    BUTTONS = {"player0_button": "player0", "player1_button": "player1", "pause_button": "pause",
               "challenge_button": "challenge", "hold_button": "hold"}
    OUTPUTS = ("player0_light", "player1_light", "green_light", "red_light", "buzzer")

    def __post_init__(self) -> None:
        used: dict[int, str] = {}
        for name in (*self.BUTTONS, *self.OUTPUTS):
            pin = getattr(self, name)
            if isinstance(pin, bool) or not isinstance(pin, int) or not 0 <= pin <= 27:
                raise ValueError(f"gpio pins: {name} must be a GPIO number 0-27, not {pin!r}")
            if pin in used:
                raise ValueError(f"gpio pins: {name} and {used[pin]} are both on GPIO{pin}")
            used[pin] = name
        for f in fields(self):
            lo, hi = f.metadata.get("min"), f.metadata.get("max")
            if f.name in used.values() or lo is None:
                continue
            value = getattr(self, f.name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) \
                    or not (lo < value if f.metadata.get("above") else lo <= value) or value > hi:
                raise ValueError(f"gpio pins: {f.name} must be a number from {lo} to {hi}, not {value!r}")
        if not isinstance(self.pull_up, bool):
            raise ValueError(f"gpio pins: pull_up must be true or false, not {self.pull_up!r}")

    def pins(self) -> dict[str, int]:
        """Every pin by its setting's name, in the order of the wiring table."""
        return {name: getattr(self, name) for name in (*self.BUTTONS, *self.OUTPUTS)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "GpioPins":
        """From a config section; unknown keys are an error, not silently ignored."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"gpio pins: unknown key(s) {unknown}")
        return cls(**data)


_BUTTON_EVENT: dict[str, tuple[str, int | None]] = {
    "player0": ("press", 0),
    "player1": ("press", 1),
    "pause": ("pause", None),
    "challenge": ("challenge", None),
    "hold": ("hold", None),
}

# Buzzer patterns: (on seconds, off seconds, count).
BEEPS: dict[str, tuple[float, float, int]] = {
    "low_time": (0.08, 0.0, 1),
    "overtime": (0.15, 0.1, 2),
    "overtime_minute": (0.08, 0.0, 1),
    "flag": (1.0, 0.0, 1),
    "draw": (0.05, 0.0, 1),
}


class _Debounced:
    """One button's debounce and long-press state (see the module docstring for the rules)."""

    def __init__(self, name: str, device: Any) -> None:
        self.name = name
        self.device = device
        self.pressed = False
        self.locked_until = float("-inf")
        self.pressed_at: float | None = None  # set while a long press is still possible


class GpioClock(EventSource):
    """Buttons in, lights and buzzer out. Also a ``ClockOutputs`` for the clock controller."""

    def __init__(
        self,
        pins: GpioPins | None = None,
        pin_factory: Any = None,
        time_source: Callable[[], float] = time.monotonic,
        on_event: Callable[[ClockEvent], None] | None = None,
    ) -> None:
        super().__init__(on_event)
        from gpiozero import LED, Buzzer, DigitalInputDevice

        self.pins = pins or GpioPins()
        self._time = time_source
        self._lock = threading.Lock()
        self._bounce = self.pins.bounce_ms / 1000.0
        self._buttons: dict[str, _Debounced] = {}
        self._devices: list[Any] = []
        self.on_tick: Callable[[], Any] | None = None
        self._ticker: threading.Thread | None = None
        self._stop = threading.Event()
        try:
            for setting, name in GpioPins.BUTTONS.items():
                dev = DigitalInputDevice(getattr(self.pins, setting), pull_up=self.pins.pull_up,
                                         bounce_time=None, pin_factory=pin_factory)
                self._devices.append(dev)
                button = _Debounced(name, dev)
                self._buttons[name] = button
                # Debounce is ours (below), timed on our time source, so it is the same on every
                # pin factory; gpiozero's bounce_time is not implemented by every factory.
                dev.when_activated = lambda b=button: self._edge(b, True)
                dev.when_deactivated = lambda b=button: self._edge(b, False)
            self.light = (LED(self.pins.player0_light, pin_factory=pin_factory),
                          LED(self.pins.player1_light, pin_factory=pin_factory))
            self.green = LED(self.pins.green_light, pin_factory=pin_factory)
            self.red = LED(self.pins.red_light, pin_factory=pin_factory)
            self.buzzer = Buzzer(self.pins.buzzer, pin_factory=pin_factory)
            self._devices += [*self.light, self.green, self.red, self.buzzer]
        except Exception:
            self.close()
            raise

    # -- buttons ------------------------------------------------------------------------------

    def _edge(self, b: _Debounced, active: bool) -> None:
        now = self._time()
        with self._lock:
            if now < b.locked_until:
                return  # contact bounce
            if active == b.pressed:
                if not active:
                    return
                # A release and a new press both fell inside the bounce window: a new press.
            b.pressed = active
            b.locked_until = now + self._bounce
            b.pressed_at = now if active else None
        if active:
            kind, player = _BUTTON_EVENT[b.name]
            self._emit(ClockEvent(kind, player, now, "gpio"))  # type: ignore[arg-type]

    def poll(self) -> None:
        """Report long presses that have come due. The ticker calls this; tests may too."""
        now = self._time()
        due: list[ClockEvent] = []
        with self._lock:
            for b in self._buttons.values():
                if b.pressed_at is not None and now - b.pressed_at >= self.pins.long_press_s:
                    b.pressed_at = None
                    # Read the pin itself: a tap shorter than the bounce window leaves us
                    # believing the button is down when it is not.
                    if b.device.is_active:
                        player = _BUTTON_EVENT[b.name][1]
                        if player is not None:
                            due.append(ClockEvent("long_press", player, now, "gpio"))
                    else:
                        b.pressed = False
        for ev in due:
            self._emit(ev)

    def start(self, on_tick: Callable[[], Any] | None = None) -> None:
        """Start the background ticker: :meth:`poll`, then ``on_tick`` (e.g. the controller's
        ``tick``, for low-time beeps), every ``poll_interval`` seconds."""
        if on_tick is not None:
            self.on_tick = on_tick
        if self._ticker is not None:
            return
        self._stop.clear()
        self._ticker = threading.Thread(target=self._run, name="gpio-clock-ticker", daemon=True)
        self._ticker.start()

    @property
    def reader_alive(self) -> bool:
        """The ticker (long presses, beeps) is running; button edges come on gpiozero's thread."""
        return self._ticker is not None and self._ticker.is_alive()

    def _run(self) -> None:
        while not self._stop.wait(self.pins.poll_interval):
            try:
                self.poll()
                if self.on_tick is not None:
                    self.on_tick()
            except Exception:  # one bad tick must not end the ticker
                log.exception("the GPIO clock's ticker failed")

    def is_pressed(self, name: str) -> bool:
        """Whether a button (``player0``, ``pause``, ...) is down right now, read from its pin."""
        return bool(self._buttons[name].device.is_active)

    # -- outputs (the ClockOutputs protocol) --------------------------------------------------

    def show(self, snap: Any) -> None:
        """Turn lights: the running player's lit; both lit while the clock is stopped mid-game
        (paused, a challenge, an out-play awaiting a decision); none before or after the game."""
        stopped = snap.phase in ("paused", "challenge", "out_play")
        for p, led in enumerate(self.light):
            on = stopped or snap.running == p
            if bool(led.value) != on:
                led.value = on

    def beep(self, pattern: str) -> None:
        """Sound one of :data:`BEEPS` in the background (unknown patterns give one short beep)."""
        on, off, n = BEEPS.get(pattern, (0.08, 0.0, 1))
        self.buzzer.beep(on_time=on, off_time=max(off, 0.01), n=n, background=True)

    def verdict(self, acceptable: bool | None) -> None:
        """Green for acceptable, red for not acceptable, both off for None."""
        self.green.value = acceptable is True
        self.red.value = acceptable is False

    def close(self) -> None:
        """Stop the ticker and release every pin."""
        self._stop.set()
        if self._ticker is not None:
            self._ticker.join(timeout=1)
            self._ticker = None
        for dev in self._devices:
            try:
                dev.close()
            except Exception:  # a pin that failed half-way through opening
                pass
        self._devices = []

    def __enter__(self) -> "GpioClock":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
