"""Run the Pico firmware under CPython: the firmware folder and the machine/utime stand-ins on the path."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
for p in (ROOT / "firmware", Path(__file__).resolve().parent / "standins"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

import machine  # noqa: E402  (the stand-in)
import utime  # noqa: E402


@pytest.fixture(autouse=True)
def fresh_pins():
    machine.Pin.reset()
    saved = utime.now_fn, utime.offset_ms
    yield machine.Pin
    utime.now_fn, utime.offset_ms = saved
