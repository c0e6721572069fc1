"""The Pi and the Pico firmware over a pseudo-terminal pair, with the real pyserial.

Covers what a table meets: presses, a pulled cable, the Pi restarting (and resuming from its saved
state), and the Pico restarting. Both sides read one fake clock that only the test moves, so the
moments asserted are exact and a slow, loaded machine changes nothing but how long the test takes.
"""

from __future__ import annotations

import time

import pytest

from board_pi.clock import GameClock, TimeControl
from board_pi.hardware.serial_clock import SerialClock

from .harness import Cable, FakeTime, PicoThread, Table, wait_for

MS = 0.002  # the Pico counts whole milliseconds
HOLD = 0.06  # how long a press holds its button down (the harness's default)


def until(cond, ft: FakeTime, step: float = 0.3) -> bool:
    """Let the fake time run in steps (the Pico retransmits on its own clock) until ``cond``."""
    for _ in range(40):
        if wait_for(cond, timeout=0.2):
            return True
        ft.advance(step)
    return cond()


@pytest.fixture
def ft():
    return FakeTime(100.0)


@pytest.fixture
def cable(tmp_path):
    c = Cable(tmp_path / "ttyPICO")
    yield c
    c.close()


@pytest.fixture
def pico(cable, ft):
    p = PicoThread(cable.port, time=ft)
    yield p
    p.stop()


def start_table(cable, ft, clock=None, resume=None) -> Table:
    host = SerialClock(str(cable.path), reconnect_interval=0.05, resume=resume, time_source=ft)
    table = Table(host, clock or GameClock(TimeControl(), time_source=ft))
    host.start(on_tick=table.ctl.tick)
    assert wait_for(lambda: host.connected and host.pico_version is not None), host.last_error
    return table


def presses(table):
    return [(e.kind, e.player) for e in table.received]


def test_presses_reach_the_pi_and_the_pico_shows_its_state(cable, pico, ft):
    table = start_table(cable, ft)
    try:
        assert table.host.pico_version == "1.0"
        pico.press("player0")
        assert wait_for(lambda: table.clock.running == 1)
        ft.advance(5)  # player 1's own turn, well past the press guard
        pressed_at = ft.t
        pico.press("player1")
        assert wait_for(lambda: table.clock.running == 0)
        assert presses(table) == [("press", 0), ("press", 1)]
        # the press is charged at the Pico's own moment for it
        assert table.received[1].timestamp == pytest.approx(pressed_at, abs=MS)
        assert table.clock.used(1) == pytest.approx(HOLD + 5, abs=MS)
        table.clock.pause()
        table.ctl.refresh()
        assert wait_for(lambda: pico.pico.phase == "paused")
    finally:
        table.host.close()


def test_pulled_cable_reconnects_without_losing_a_press(cable, pico, ft):
    table = start_table(cable, ft)
    try:
        pico.press("player0")
        assert wait_for(lambda: table.clock.running == 1)
        cable.unplug()
        assert wait_for(lambda: table.host._serial is None)
        ft.advance(5)
        pressed_at = ft.t
        pico.press("player1")  # nobody listening: the Pico keeps it and switches on its own
        assert pico.pico.running == 0
        ft.advance(3)
        cable.replug()
        assert wait_for(lambda: table.clock.running == 0)
        assert presses(table) == [("press", 0), ("press", 1)]
        # charged at the moment it was made, not when the cable came back
        assert table.received[1].timestamp == pytest.approx(pressed_at, abs=MS)
        assert table.clock.used(1) == pytest.approx(HOLD + 5, abs=MS)
        assert table.clock.used(0) == pytest.approx(HOLD + 3, abs=MS)
        assert table.host.connects == 2
        time.sleep(0.3)  # time for a duplicate to arrive, if the link sent one
        assert presses(table) == [("press", 0), ("press", 1)]  # and only once
    finally:
        table.host.close()


def test_pi_restart_resumes_the_clock_and_takes_missed_presses_once(cable, pico, ft):
    wall = 1_700_000_000.0  # the Pi's wall clock, kept in step with the fake one
    table = start_table(cable, ft)
    pico.press("player0")
    assert wait_for(lambda: table.clock.running == 1)
    ft.advance(5)
    pico.press("player1")
    assert wait_for(lambda: table.clock.running == 0)
    ft.advance(2)
    saved, resume = table.clock.to_dict(wall_time=wall + ft.t), table.host.resume_point()
    used0, used1 = table.clock.used(0), table.clock.used(1)
    table.host.close()  # the Pi goes down

    ft.advance(15)
    pressed_at = ft.t
    pico.press("player0")  # made while the Pi is down, 15 s into it
    ft.advance(15)

    clock = GameClock.from_dict(saved, time_source=ft, wall_time=wall + ft.t)
    table2 = start_table(cable, ft, clock, resume=resume)
    try:
        assert until(lambda: clock.running == 1, ft)
        time.sleep(0.3)  # time for a duplicate to arrive, if the link sent one
        assert presses(table2) == [("press", 0)]
        assert table2.received[0].timestamp == pytest.approx(pressed_at, abs=MS)
        # player 0 is charged for the 15 s of their turn, once, not for the whole downtime too
        assert clock.used(0) == pytest.approx(used0 + 15, abs=MS)
        # player 1's clock has run since the press, not since the Pi came back
        assert clock.used(1) == pytest.approx(used1 + ft.t - pressed_at, abs=MS)
        assert wait_for(lambda: pico.pico.running == 1)
    finally:
        table2.host.close()


def test_pico_restart_is_told_the_clock(cable, pico, ft):
    table = start_table(cable, ft)
    try:
        pico.press("player0")
        assert wait_for(lambda: table.clock.running == 1)
        ft.advance(1.0)
        pico.stop()  # the Pico loses power and comes back with a new boot id
        pico2 = PicoThread(cable.port, boot="0000BEEF", time=ft)
        try:
            assert wait_for(lambda: pico2.pico.running == 1 and pico2.pico.phase == "running")
            now = pico2.pico.now()
            assert pico2.pico.remaining(1, now) == pytest.approx(table.clock.remaining(1) * 1000, abs=2)
            ft.advance(1.0)
            pico2.press("player1")
            assert wait_for(lambda: table.clock.running == 0)
            assert presses(table) == [("press", 0), ("press", 1)]
        finally:
            pico2.stop()
    finally:
        table.host.close()


def test_missing_port_keeps_trying_with_a_clear_error(tmp_path):
    host = SerialClock(str(tmp_path / "nothing-here"), reconnect_interval=0.05)
    host.start()
    try:
        assert wait_for(lambda: host.last_error is not None)
        assert "cannot open" in host.last_error and not host.connected
    finally:
        host.close()
