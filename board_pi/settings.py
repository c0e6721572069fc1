"""Checking a setting against its one definition: the limits written on the domain type's field.

Each setting is defined once, on the type it configures (the time control on
:class:`~board_pi.clock.TimeControl`, the pins on :class:`~board_pi.hardware.gpio.GpioPins`), as
its dataclass field's metadata: ``min``, ``max``, ``above`` (the minimum itself excluded) and
``what`` (how a message names a value of it); whole numbers are the fields typed ``int``. Those
modules import nothing of ours, so the checking is here, and the configuration file, the status
page's forms and the command line all check through it, with the same words:

>>> from board_pi.clock import TimeControl
>>> check(TimeControl, "minutes", 700)
(700, 'must be greater than 0 and at most 600, not 700')
>>> check(TimeControl, "overtime_penalty", 10.5)
(10.5, 'must be a whole number, not a number (10.5)')
>>> check(TimeControl, "minutes", from_text("25"))
(25, None)
>>> check(TimeControl, "minutes", from_text("soon"))
('soon', "must be a number, not a string ('soon')")
>>> limits(TimeControl, "max_overtime_minutes").describe()
'at least 0 and at most 600'
"""

from __future__ import annotations

import difflib
import math
import re
from dataclasses import dataclass, fields
from typing import Any, Callable

Check = Callable[[Any], "tuple[Any, str | None]"]
"""A check: the value as given -> (the value to use, None) or (the value, what is wrong with it)."""

_NUMBER = re.compile(r"[+-]?(?:[0-9]{1,12}(?:\.[0-9]{0,12})?|\.[0-9]{1,12})")


@dataclass(frozen=True)
class Limits:
    """What a numeric setting may be: from ``lo`` (excluded when ``above``) to ``hi``."""

    lo: float | None = None
    hi: float | None = None
    above: bool = False
    whole: bool = False
    what: str = ""

    @property
    def noun(self) -> str:
        return self.what or ("a whole number" if self.whole else "a number")

    def describe(self) -> str:
        """``from 0 to 27``, ``at least 0 and at most 600``, ``greater than 0 and at most 600``."""
        if self.whole and not self.above and self.lo is not None and self.hi is not None:
            return f"from {self.lo:g} to {self.hi:g}"
        low = "" if self.lo is None else f"greater than {self.lo:g}" if self.above else f"at least {self.lo:g}"
        high = "" if self.hi is None else f"at most {self.hi:g}"
        return " and ".join(p for p in (low, high) if p)

    def check(self, v: Any) -> tuple[Any, str | None]:
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            return v, f"must be {self.noun}, not {type_name(v)}"
        if isinstance(v, float) and not math.isfinite(v):  # TOML has nan and inf; 1e400 reads as inf
            return v, f"must be {self.noun}, not {v}"
        if self.whole and not isinstance(v, int):
            return v, f"must be {self.noun}, not {type_name(v)}"
        too_low = self.lo is not None and (v <= self.lo if self.above else v < self.lo)
        if too_low or (self.hi is not None and v > self.hi):
            return v, f"must be {self.describe()}, not {show(v)}"
        return v, None


def limits(owner: type, name: str) -> Limits:
    """The limits ``owner`` declares for its field ``name``."""
    for f in fields(owner):  # type: ignore[arg-type]
        if f.name == name:
            m = f.metadata
            return Limits(m.get("min"), m.get("max"), bool(m.get("above")), f.type in (int, "int"),
                          m.get("what", ""))
    raise KeyError(f"{owner.__name__} has no setting {name!r}")


def boolean(v: Any) -> tuple[Any, str | None]:
    if not isinstance(v, bool):
        return v, f"must be true or false, not {type_name(v)}"
    return v, None


def check(owner: type, name: str, value: Any) -> tuple[Any, str | None]:
    """``value`` for ``owner``'s setting ``name``: (value to use, None) or (value, the problem)."""
    return checker(owner, name)(value)


def checker(owner: type, name: str) -> Check:
    """:func:`check` for one setting, as the configuration's table of checks wants it."""
    for f in fields(owner):  # type: ignore[arg-type]
        if f.name == name and f.type in (bool, "bool"):
            return boolean
    return limits(owner, name).check


def choice(options: tuple[str, ...]) -> Check:
    """One of ``options`` (an enum's values), with a suggestion for a near miss."""

    def check_choice(v: Any) -> tuple[Any, str | None]:
        if not isinstance(v, str):
            return v, f"must be one of {quoted(options)}, not {type_name(v)}"
        if v not in options:
            near = difflib.get_close_matches(v.lower(), options, n=1)
            hint = f"; did you mean {near[0]!r}?" if near else ""
            return v, f"must be one of {quoted(options)}, not {show(v)}{hint}"
        return v, None

    return check_choice


def from_text(value: Any) -> Any:
    """A number typed into a form or on the command line as the number it is; anything else as
    it came (for the check to name). Not ``float()``: it also takes "nan", "1e999", "1_0" and
    other scripts' digits."""
    if isinstance(value, str) and _NUMBER.fullmatch(value.strip()):
        text = value.strip()
        return float(text) if "." in text else int(text)
    return value


# -- how messages show values ----------------------------------------------------------------


def show(v: Any, limit: int = 40) -> str:
    """A value as a message shows it: long ones cut short (a 4,000-digit number is one line)."""
    text = repr(v) if isinstance(v, str) else str(v)
    return text if len(text) <= limit else text[:limit - 10] + f"... ({len(text)} characters)"


def type_name(v: Any) -> str:
    if isinstance(v, bool):
        return f"a boolean ({str(v).lower()})"
    if isinstance(v, int):
        return f"an integer ({show(v)})"
    if isinstance(v, float):
        return f"a number ({v})"
    if isinstance(v, str):
        return f"a string ({show(v)})"
    if isinstance(v, list):
        return "a list"
    if isinstance(v, dict):
        return "a table"
    if v is None:
        return "nothing"
    return type(v).__name__


def quoted(options: tuple[str, ...]) -> str:
    return ", ".join(f'"{o}"' for o in options)
