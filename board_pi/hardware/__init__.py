"""The clock's hardware: GPIO buttons and lights, and the Pico clock over USB serial.

Knows nothing of the game: backends turn pins and serial frames into :class:`ClockEvent` values
and show what they are told. gpiozero and pyserial are imported only when a backend is made.

Both backends are used the same way (the table wires them so)::

    from board_pi.clock import ClockController, GameClock, TimeControl
    from board_pi.hardware import GpioClock, GpioPins, SerialClock

    clock = GameClock(TimeControl(minutes=25))
    backend = GpioClock(GpioPins())        # or SerialClock("/dev/serial/by-id/usb-MicroPython...")
    controller = ClockController(clock, outputs=backend, on_action=on_clock_action)
    backend.on_event = controller.handle   # or leave it None and read backend.events (a queue)
    backend.start(on_tick=controller.tick) # beeps for low time, overtime minutes, a hold's 15 s

``on_clock_action`` receives a ``ClockAction(kind, player, at, result)`` for every event; a
``result == "switched"`` is the moment to read the board, ``"exchange"`` marks the last turn as an
exchange (the player held their button down). The table calls ``controller.verdict(ok)`` after the
word judge rules, and ``controller.refresh()`` after changing the clock directly (a challenge
resolved, an out-play declared, a director's correction).
"""

from .events import EVENT_KINDS, ClockEvent, EventKind, EventSource
from .gpio import GpioClock, GpioPins
from .serial_clock import SerialClock

__all__ = ["EVENT_KINDS", "ClockEvent", "EventKind", "EventSource", "GpioClock", "GpioPins", "SerialClock"]
