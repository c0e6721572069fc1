"""The Pi and the Pico firmware over a pseudo-terminal pair, with the real pyserial, in real time.

Covers what a table meets: presses, a pulled cable, the Pi restarting (and resuming from its saved
state), and the Pico restarting.
"""

from __future__ import annotations

import time

import pytest

from board_pi.clock import GameClock, TimeControl
from board_pi.hardware.serial_clock import SerialClock

from .harness import Cable, PicoThread, Table, wait_for


@pytest.fixture
def cable(tmp_path):
    c = Cable(tmp_path / "ttyPICO")
    yield c
    c.close()


@pytest.fixture
def pico(cable):
    p = PicoThread(cable.port)
    yield p
    p.stop()


def start_table(cable, clock=None, resume=None) -> Table:
    host = SerialClock(str(cable.path), reconnect_interval=0.05, resume=resume)
    table = Table(host, clock or GameClock(TimeControl()))
    host.start(on_tick=table.ctl.tick)
    assert wait_for(lambda: host.connected and host.pico_version is not None), host.last_error
    return table


def presses(table):
    return [(e.kind, e.player) for e in table.received]


def test_presses_reach_the_pi_and_the_pico_shows_its_state(cable, pico):
    table = start_table(cable)
    try:
        assert table.host.pico_version == "1.0"
        pico.press("player0")
        assert wait_for(lambda: table.clock.running == 1)
        time.sleep(0.4)  # past the press guard: this is player 1's own turn ending
        pico.press("player1")
        assert wait_for(lambda: table.clock.running == 0)
        assert presses(table) == [("press", 0), ("press", 1)]
        # the press is charged at the Pico's own moment for it
        ev = table.received[1]
        assert ev.timestamp <= time.monotonic()
        table.clock.pause()
        table.ctl.refresh()
        assert wait_for(lambda: pico.pico.phase == "paused")
    finally:
        table.host.close()


def test_pulled_cable_reconnects_without_losing_a_press(cable, pico):
    table = start_table(cable)
    try:
        pico.press("player0")
        assert wait_for(lambda: table.clock.running == 1)
        cable.unplug()
        assert wait_for(lambda: table.host._serial is None)
        time.sleep(0.5)  # past the press guard
        pressed_at = time.monotonic()
        pico.press("player1")  # nobody listening: the Pico keeps it and switches on its own
        assert pico.pico.running == 0
        time.sleep(0.3)
        cable.replug()
        assert wait_for(lambda: table.clock.running == 0)
        assert presses(table) == [("press", 0), ("press", 1)]
        # charged at the moment it was made, not when the cable came back
        assert table.received[1].timestamp == pytest.approx(pressed_at, abs=0.1)
        assert table.host.connects == 2
        time.sleep(0.5)
        assert presses(table) == [("press", 0), ("press", 1)]  # and only once
    finally:
        table.host.close()


def test_pi_restart_resumes_the_clock_and_takes_missed_presses_once(cable, pico):
    table = start_table(cable)
    pico.press("player0")
    assert wait_for(lambda: table.clock.running == 1)
    time.sleep(0.5)
    pico.press("player1")
    assert wait_for(lambda: table.clock.running == 0)
    saved, resume = table.clock.to_dict(), table.host.resume_point()
    used1 = table.clock.used(1)
    table.host.close()  # the Pi goes down

    time.sleep(0.5)
    pressed_at = time.monotonic()
    pico.press("player0")  # made while the Pi is down
    time.sleep(0.3)

    clock = GameClock.from_dict(saved)
    table2 = start_table(cable, clock, resume=resume)
    try:
        assert wait_for(lambda: clock.running == 1)
        time.sleep(0.5)
        assert presses(table2) == [("press", 0)]
        assert table2.received[0].timestamp == pytest.approx(pressed_at, abs=0.1)
        # player 1's clock has run since the press, not since the Pi came back
        assert clock.used(1) == pytest.approx(used1 + time.monotonic() - pressed_at, abs=0.1)
        assert wait_for(lambda: pico.pico.running == 1)
    finally:
        table2.host.close()


def test_pico_restart_is_told_the_clock(cable, pico):
    table = start_table(cable)
    try:
        pico.press("player0")
        assert wait_for(lambda: table.clock.running == 1)
        time.sleep(1.0)
        pico.stop()  # the Pico loses power and comes back with a new boot id
        pico2 = PicoThread(cable.port, boot="0000BEEF")
        try:
            assert wait_for(lambda: pico2.pico.running == 1 and pico2.pico.phase == "running")
            now = pico2.pico.now()
            assert pico2.pico.remaining(1, now) == pytest.approx(table.clock.remaining(1) * 1000, abs=150)
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
