"""The clock's hardware: GPIO buttons and lights, and the Pico clock over USB serial.

Knows nothing of the game: backends turn pins and serial frames into :class:`ClockEvent` values
and show what they are told. gpiozero and pyserial are imported only when a backend is made.
"""

from .events import EVENT_KINDS, ClockEvent, EventKind, EventSource
from .gpio import GpioClock, GpioPins
from .serial_clock import SerialClock

__all__ = ["EVENT_KINDS", "ClockEvent", "EventKind", "EventSource", "GpioClock", "GpioPins", "SerialClock"]
