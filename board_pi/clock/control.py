"""How a game is timed: the time control, each setting with its limits written once.

>>> TimeControl(minutes=25).allowance
1500.0
>>> TimeControl(minutes=0)
Traceback (most recent call last):
...
ValueError: time control: minutes out of range (0)
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, fields
from typing import Any


class ClockError(ValueError):
    """An action the clock cannot take in its current phase (a clear message, never a traceback)."""


@dataclass(frozen=True)
class TimeControl:
    """How a game is timed.

    ``minutes`` per player; ``overtime_penalty`` points per started minute over;
    ``max_overtime_minutes`` over which a player is flagged (0 = no limit). ``increment_seconds``
    (added after each of a player's turns) and ``delay_seconds`` (the first seconds of each turn
    are free) are for casual games; tournaments leave both at 0. ``out_play_stops_clocks`` stops
    both clocks when the last tile is played while the opponent decides whether to challenge.
    ``hold_draw_seconds``: how long into a hold the player who made the play may draw provisional
    tiles. ``charge_downtime``: whether time that passed while the table was down is charged to the
    player whose clock was running (a real clock keeps running) or to no one.
    ``challenge_loses_turn``: double challenge (an unsuccessful challenger loses their turn) or
    single challenge (the challenger's turn goes on). ``press_guard_seconds``: a press within this
    long of a player's clock starting is taken as part of the press that started it (both buttons
    hit at once switch the clock once, not twice). ``low_time_seconds``: when the clock warns.
    """

    # Each setting's limits, written once here: the configuration file, the status page's form
    # and `board-pi clock` all check against them (board_pi.settings reads this metadata).
    minutes: float = field(default=25, metadata={"min": 0, "above": True, "max": 600})
    overtime_penalty: int = field(default=10, metadata={"min": 0, "max": 1000})
    max_overtime_minutes: float = field(default=10, metadata={"min": 0, "max": 600})
    increment_seconds: float = field(default=0.0, metadata={"min": 0, "max": 600})
    delay_seconds: float = field(default=0.0, metadata={"min": 0, "max": 600})
    out_play_stops_clocks: bool = True
    hold_draw_seconds: float = field(default=15.0, metadata={"min": 0})
    charge_downtime: bool = True
    challenge_loses_turn: bool = True
    press_guard_seconds: float = field(default=0.3, metadata={"min": 0})
    low_time_seconds: float = field(default=60.0, metadata={"min": 0})

    def __post_init__(self) -> None:
        for f in fields(self):
            value, limits = getattr(self, f.name), f.metadata
            if f.type in (bool, "bool"):
                if not isinstance(value, bool):
                    raise ValueError(f"time control: {f.name} must be true or false, not {value!r}")
                continue
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
                raise ValueError(f"time control: {f.name} must be a number, not {value!r}")
            if f.type in (int, "int") and not isinstance(value, int):
                raise ValueError(f"time control: {f.name} must be whole points, not {value!r}")
            lo, hi = limits.get("min"), limits.get("max")
            if (lo is not None and (value <= lo if limits.get("above") else value < lo)) \
                    or (hi is not None and value > hi):
                raise ValueError(f"time control: {f.name} out of range ({value!r})")

    @property
    def allowance(self) -> float:
        """Seconds each player starts with."""
        return float(self.minutes) * 60.0

    @property
    def max_overtime(self) -> float | None:
        """Seconds of overtime allowed, or None for no limit."""
        return float(self.max_overtime_minutes) * 60.0 if self.max_overtime_minutes else None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "TimeControl":
        known = {f for f in cls.__dataclass_fields__}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"time control: unknown field(s) {sorted(unknown)}")
        return cls(**data)
