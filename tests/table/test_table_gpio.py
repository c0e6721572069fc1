"""The table driven by the real GPIO clock on gpiozero's mock pins: buttons to plays and lights."""

from __future__ import annotations

from pathlib import Path

import pytest

gpiozero = pytest.importorskip("gpiozero")
from gpiozero import Device  # noqa: E402
from gpiozero.pins.mock import MockFactory  # noqa: E402

from board_pi.clock import TimeControl  # noqa: E402
from board_pi.hardware.gpio import GpioClock, GpioPins  # noqa: E402
from board_pi.rules.game import ChallengeRule, GameRules  # noqa: E402
from board_pi.rules.judge import WordJudge  # noqa: E402
from board_pi.table.store import Journal  # noqa: E402
from board_pi.table.table import Table  # noqa: E402
from board_pi.wordlists import load_lexicon  # noqa: E402

from .test_table import BoardCamera, Clock, RowsReader  # noqa: E402


@pytest.fixture
def rig(tmp_path: Path):  # type: ignore[no-untyped-def]
    Device.pin_factory = MockFactory()
    clock = Clock()
    gpio = GpioClock(GpioPins(), time_source=clock)
    cam = BoardCamera()
    table = Table(Journal(tmp_path / "j.db"), WordJudge(load_lexicon()), camera=cam, reader=RowsReader(cam),
                  time_source=clock, outputs=gpio)
    gpio.on_event = table.handle
    table.new_game(["Ann", "Bob"], GameRules(challenge=ChallengeRule.SINGLE), TimeControl(minutes=25))
    yield table, gpio, cam, clock, Device.pin_factory
    gpio.close()
    Device.pin_factory.reset()
    Device.pin_factory = None


def tap(table: Table, factory, n: int, clock: Clock, hold: float = 0.2) -> None:  # type: ignore[no-untyped-def]
    """Press and release button ``n``; then wait until the table has taken the press (it queues
    the clock's events and takes them on its own thread)."""
    p = factory.pin(n)
    p.drive_low()
    clock.t += hold
    p.drive_high()
    clock.t += 0.2
    assert table.wait_idle(30)


def test_buttons_drive_the_table_and_the_lights_follow(rig) -> None:  # type: ignore[no-untyped-def]
    table, gpio, cam, clock, pins = rig
    tap(table, pins, 27, clock)  # Bob's button starts Ann's clock
    assert table.clock.running == 0
    assert (gpio.light[0].is_lit, gpio.light[1].is_lit) == (True, False)
    clock.t += 30
    cam.lay("8D WINDY")
    tap(table, pins, 17, clock)  # Ann presses: the board is read and scored
    assert table.snapshot()["moves"][-1]["text"] == "8D WINDY"
    assert (gpio.light[0].is_lit, gpio.light[1].is_lit) == (False, True)
    clock.t += 30
    cam.lay("9E ZQX")
    tap(table, pins, 27, clock)
    tap(table, pins, 24, clock)  # Ann holds...
    assert table.snapshot()["clock"]["hold"] == {"by": 0, "of": 1}
    tap(table, pins, 23, clock)  # ...and challenges: red light, the phony comes off
    assert gpio.red.is_lit and not gpio.green.is_lit
    assert table.snapshot()["players"][1]["score"] == 0


def test_a_long_press_marks_an_exchange(rig) -> None:  # type: ignore[no-untyped-def]
    table, gpio, cam, clock, pins = rig
    tap(table, pins, 27, clock)
    clock.t += 20
    p = pins.pin(17)
    p.drive_low()  # Ann holds her button down: a press at once, then a long press
    clock.t += 2.0
    gpio.poll()
    p.drive_high()
    assert table.wait_idle(30)
    moves = table.snapshot()["moves"]
    assert [m["text"] for m in moves] == ["-7"]
    assert table.clock.running == 1


def test_a_press_from_the_idle_side_and_both_at_once(rig) -> None:  # type: ignore[no-untyped-def]
    table, gpio, cam, clock, pins = rig
    tap(table, pins, 27, clock)
    clock.t += 10
    tap(table, pins, 27, clock)  # Bob again: his clock is not running, nothing happens
    assert table.game.events == [] and table.clock.running == 0
    clock.t += 10
    pins.pin(17).drive_low()
    pins.pin(27).drive_low()  # both at once: one switch
    pins.pin(17).drive_high()
    pins.pin(27).drive_high()
    assert table.wait_idle(30)
    assert table.clock.running == 1
    assert [m["text"] for m in table.snapshot()["moves"]] == ["pass"]
