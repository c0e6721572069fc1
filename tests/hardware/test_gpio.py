"""The GPIO clock on gpiozero's own mock pin factory: drive pins, check the clock and the lights."""

from __future__ import annotations

import queue
import time

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory

from board_pi.clock import ClockController, GameClock, TimeControl
from board_pi.hardware import ClockEvent, GpioClock, GpioPins


class FakeTime:
    def __init__(self) -> None:
        self.t = 500.0

    def __call__(self) -> float:
        return self.t

    def advance(self, s: float) -> None:
        self.t += s


@pytest.fixture
def factory():
    Device.pin_factory = MockFactory()
    yield Device.pin_factory
    Device.pin_factory.reset()
    Device.pin_factory = None


@pytest.fixture
def ft():
    return FakeTime()


@pytest.fixture
def gpio(factory, ft):
    g = GpioClock(GpioPins(), time_source=ft)
    yield g
    g.close()


@pytest.fixture
def table(gpio, ft):
    """A clock, its controller and the GPIO backend wired the way the table wires them."""
    clock = GameClock(TimeControl(minutes=25), time_source=ft)
    actions = []
    ctl = ClockController(clock, outputs=gpio, on_action=actions.append)
    gpio.on_event = ctl.handle
    return clock, ctl, actions


def pin(factory, n):
    return factory.pin(n)


def tap(factory, n, ft, hold=0.2):
    p = pin(factory, n)
    p.drive_low()
    ft.advance(hold)
    p.drive_high()
    ft.advance(0.2)


def lights(gpio):
    return (gpio.light[0].is_lit, gpio.light[1].is_lit)


def drain(q):
    out = []
    while True:
        try:
            out.append(q.get_nowait())
        except queue.Empty:
            return out


def test_press_becomes_an_event_with_its_timestamp(factory, gpio, ft):
    pin(factory, 17).drive_low()
    assert drain(gpio.events) == [ClockEvent("press", 0, 500.0, "gpio")]
    ft.advance(1)
    pin(factory, 17).drive_high()  # a release is not an event
    for n, kind in ((22, "pause"), (23, "challenge"), (24, "hold"), (27, "press")):
        ft.advance(1)
        pin(factory, n).drive_low()
        ft.advance(0.1)
        pin(factory, n).drive_high()
    assert [(e.kind, e.player) for e in drain(gpio.events)] == [
        ("pause", None), ("challenge", None), ("hold", None), ("press", 1)]


def test_presses_switch_the_clock_and_the_lights(factory, gpio, ft, table):
    clock, ctl, actions = table
    assert lights(gpio) == (False, False)
    tap(factory, 17, ft)  # before the game, pressing your side starts the opponent's clock
    assert clock.running == 1 and lights(gpio) == (False, True)
    ft.advance(30)
    tap(factory, 27, ft)
    assert clock.running == 0 and lights(gpio) == (True, False)
    assert clock.used(1) == pytest.approx(30.4)
    assert [a.result for a in actions] == ["started", "switched"]


def test_press_from_the_side_not_running_is_ignored(factory, gpio, ft, table):
    clock, ctl, actions = table
    tap(factory, 17, ft)  # player 1 runs
    ft.advance(5)
    tap(factory, 17, ft)
    assert clock.running == 1 and lights(gpio) == (False, True)
    assert actions[-1].result == "ignored"


def test_bouncing_contacts_give_one_press(factory, gpio, ft):
    p = pin(factory, 17)
    for _ in range(5):  # 5 ms of chatter on the way down
        p.drive_low()
        ft.advance(0.001)
        p.drive_high()
        ft.advance(0.001)
    p.drive_low()
    ft.advance(0.5)
    for _ in range(4):  # and on the way up
        p.drive_high()
        ft.advance(0.002)
        p.drive_low()
        ft.advance(0.002)
    p.drive_high()
    ft.advance(0.5)
    assert [e.kind for e in drain(gpio.events)] == ["press"]
    assert not gpio.is_pressed("player0")


def test_bounce_window_is_configurable(factory, ft):
    with GpioClock(GpioPins(bounce_ms=0), time_source=ft) as g:
        p = pin(factory, 17)
        for _ in range(3):
            p.drive_low()
            ft.advance(0.001)
            p.drive_high()
            ft.advance(0.001)
        assert len(drain(g.events)) == 3


def test_a_tap_shorter_than_the_bounce_window_does_not_eat_the_next_press(factory, gpio, ft):
    p = pin(factory, 17)
    p.drive_low()
    ft.advance(0.005)
    p.drive_high()  # released inside the bounce window: ignored as bounce
    ft.advance(1.0)
    gpio.poll()  # no long press for a button that is up
    p.drive_low()  # the next real press still counts
    assert [e.kind for e in drain(gpio.events)] == ["press", "press"]


def test_both_buttons_at_once_switch_the_clock_once(factory, gpio, ft, table):
    clock, ctl, actions = table
    tap(factory, 27, ft)  # player 0 runs
    ft.advance(20)
    pin(factory, 17).drive_low()
    pin(factory, 27).drive_low()  # the same instant
    ft.advance(0.1)
    pin(factory, 17).drive_high()
    pin(factory, 27).drive_high()
    assert clock.running == 1 and lights(gpio) == (False, True)
    assert [a.result for a in actions] == ["started", "switched", "ignored"]
    # and in the other order: the side not running first, then the running side
    ft.advance(20)
    pin(factory, 17).drive_low()
    pin(factory, 27).drive_low()
    assert clock.running == 0


def test_held_button_gives_one_press_then_one_long_press(factory, gpio, ft, table):
    clock, ctl, actions = table
    tap(factory, 27, ft)
    ft.advance(10)
    pin(factory, 17).drive_low()  # player 0 ends the turn and keeps the button down
    for _ in range(10):
        ft.advance(0.5)
        gpio.poll()
    pin(factory, 17).drive_high()
    assert [a.result for a in actions] == ["started", "switched", "exchange"]
    assert clock.running == 1
    # while player 0's button is held down, player 1's presses work as usual
    pin(factory, 17).drive_low()
    ft.advance(5)
    tap(factory, 27, ft)
    assert clock.running == 0


def test_long_press_on_a_non_player_button_is_not_an_event(factory, gpio, ft):
    pin(factory, 22).drive_low()
    ft.advance(3)
    gpio.poll()
    assert [e.kind for e in drain(gpio.events)] == ["pause"]


def test_pause_button_pauses_and_resumes_with_both_lights_on(factory, gpio, ft, table):
    clock, ctl, actions = table
    tap(factory, 17, ft)
    ft.advance(10)
    tap(factory, 22, ft)
    assert clock.paused and lights(gpio) == (True, True)
    ft.advance(100)
    tap(factory, 27, ft)  # presses do nothing while paused
    tap(factory, 22, ft)
    assert clock.running == 1 and lights(gpio) == (False, True)
    assert clock.used(1) == pytest.approx(10.4 + 0.4)  # 0.4 s since the resume


def test_hold_and_challenge_buttons(factory, gpio, ft, table):
    clock, ctl, actions = table
    tap(factory, 27, ft)  # player 0 runs
    ft.advance(60)
    tap(factory, 17, ft)  # player 0 plays; player 1 runs
    tap(factory, 24, ft)  # player 1 holds
    assert clock.hold is not None and clock.hold.by == 1
    ft.advance(16)
    ctl.tick()
    assert clock.may_draw()
    tap(factory, 23, ft)  # and challenges: both clocks stop
    assert clock.phase == "challenge" and lights(gpio) == (True, True)
    clock.resolve_challenge(acceptable=False)
    ctl.refresh()
    ctl.verdict(False)
    assert clock.running == 1 and lights(gpio) == (False, True)
    assert (gpio.green.is_lit, gpio.red.is_lit) == (False, True)
    ctl.verdict(True)
    assert (gpio.green.is_lit, gpio.red.is_lit) == (True, False)
    ctl.verdict(None)
    assert (gpio.green.is_lit, gpio.red.is_lit) == (False, False)


def test_buzzer_sounds_for_low_time_and_overtime(factory, gpio, ft, table):
    clock, ctl, actions = table
    beeps = []
    real_beep = gpio.beep
    gpio.beep = lambda pattern: (beeps.append(pattern), real_beep(pattern))
    tap(factory, 27, ft)
    ft.advance(25 * 60 - 30)
    ctl.tick()
    ft.advance(40)
    ctl.tick()
    ft.advance(60)
    ctl.tick()
    assert beeps == ["low_time", "overtime", "overtime_minute"]
    buzzer_pin = pin(factory, 26)
    deadline = time.monotonic() + 2
    while not any(s.state for s in buzzer_pin.states) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert any(s.state for s in buzzer_pin.states)


def test_configured_pins_are_used(factory, ft):
    pins = GpioPins(player0_button=4, player1_button=12, pause_button=16, challenge_button=20,
                    hold_button=21, player0_light=7, player1_light=8, green_light=9, red_light=10, buzzer=11)
    with GpioClock(pins, time_source=ft) as g:
        pin(factory, 12).drive_low()
        assert drain(g.events)[0].player == 1
        g.verdict(True)
        assert pin(factory, 9).state


@pytest.mark.parametrize("kw, msg", [
    (dict(player0_button=27), "both on GPIO27"),
    (dict(buzzer=40), "GPIO number 0-27"),
    (dict(player0_light="5"), "GPIO number"),
    (dict(bounce_ms=-1), "bounce_ms"),
])
def test_bad_pins_are_refused_clearly(kw, msg):
    with pytest.raises(ValueError, match=msg):
        GpioPins(**kw)


def test_pins_from_a_config_section():
    assert GpioPins.from_dict({"player0_button": 4}).player0_button == 4
    with pytest.raises(ValueError, match="unknown key"):
        GpioPins.from_dict({"plyer0": 4})


def test_ticker_reports_long_presses_in_real_time(factory):
    with GpioClock(GpioPins(long_press_s=0.05, poll_interval=0.01)) as g:
        ticks = []
        g.start(on_tick=lambda: ticks.append(1))
        pin(factory, 27).drive_low()
        assert g.events.get(timeout=2).kind == "press"
        ev = g.events.get(timeout=2)
        assert (ev.kind, ev.player) == ("long_press", 1)
        assert ticks
