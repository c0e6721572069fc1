"""The tournament clock: a pure model with time injected, and a controller for button events.

>>> from board_pi.clock import GameClock, TimeControl
"""

from .controller import ClockAction, ClockController, ClockOutputs
from .control import ClockError, TimeControl
from .model import ClockSnapshot, GameClock, Hold

__all__ = [
    "ClockAction",
    "ClockController",
    "ClockError",
    "ClockOutputs",
    "ClockSnapshot",
    "GameClock",
    "Hold",
    "TimeControl",
]
