"""One event the table cannot take never ends the thread that reads the clock's buttons.

The Pico clock over a real pseudo-terminal with the real pyserial and the firmware's own code,
and the GPIO clock on gpiozero's mock pins, both driving a real table on a real SQLite journal.
The journal refuses writes with the real SQLite's error (``PRAGMA query_only``), as a file
remounted read-only or a full disk does; the table cannot take the press, says so on the page,
and the next press after the journal is writable again is taken.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

import pytest

from board_pi.clock import TimeControl
from board_pi.hardware.events import ClockEvent, EventSource
from board_pi.hardware.serial_clock import SerialClock
from board_pi.rules.game import GameRules
from board_pi.rules.judge import WordJudge
from board_pi.rules.lexicon import Lexicon
from board_pi.cli.run import healthy
from board_pi.table.store import Journal
from board_pi.table.table import Table
from board_pi.watchdog import Heartbeat

from ..firmware.harness import Cable, PicoThread, wait_for
from ..table.test_journal_failures import refused


def new_table(tmp_path: Path, outputs: Any = None, time_source: Any = None, camera: Any = None,
              reader: Any = None) -> Table:
    kw = {"time_source": time_source} if time_source is not None else {}
    table = Table(Journal(tmp_path / "journal.db"), WordJudge(Lexicon.from_words(["AA"], "t")),
                  outputs=outputs, camera=camera, reader=reader, **kw)
    # No press guard: the presses here are far enough apart without sleeping past one.
    table.new_game(["Ann", "Bob"], GameRules(), TimeControl(press_guard_seconds=0))
    return table


def messages(table: Table) -> list[str]:
    return [e.data["text"] for e in table.bus.since(0)[0] if e.type == "message"]


@pytest.fixture
def cable(tmp_path):  # type: ignore[no-untyped-def]
    c = Cable(tmp_path / "ttyPICO")
    yield c
    c.close()


def test_a_press_the_journal_refuses_does_not_end_the_pico_reader(tmp_path: Path, cable) -> None:  # type: ignore[no-untyped-def]
    pico = PicoThread(cable.port)
    host = SerialClock(str(cable.path), reconnect_interval=0.05)
    table = new_table(tmp_path, outputs=host)
    host.on_event = table.handle
    host.start()
    try:
        assert wait_for(lambda: host.connected and host.pico_version is not None, 10), host.last_error
        with refused(table.journal):
            pico.press("player0")  # would start Bob's clock: the journal cannot take it
            assert wait_for(lambda: any("not recorded" in m for m in messages(table)), 10)
            assert table.clock is not None and table.clock.phase == "ready"  # not started
        assert host.reader_alive and host.consumer_errors == 0
        assert healthy(Heartbeat(), host)
        pico.press("player0")  # the disk was freed: the same press is taken now
        assert wait_for(lambda: table.clock is not None and table.clock.phase == "running", 10)
        assert table.clock.running == 0  # Ann, whose turn it is
        assert wait_for(lambda: pico.pico.running == 0, 10)  # and the Pico shows what the Pi decided
    finally:
        host.close()
        pico.stop()
        table.journal.close()


class FailingCamera:
    """The board seen from above, through a driver that fails when told to (an error the table
    does not know as one of its own)."""

    def __init__(self) -> None:
        from ..table.test_table import BoardCamera

        self.board = BoardCamera()
        self.fail = False

    def read(self) -> Any:
        if self.fail:
            self.fail = False
            raise OSError(5, "Input/output error")
        return self.board.read()


def test_a_fault_in_one_event_does_not_end_the_gpio_clock(tmp_path: Path) -> None:
    gpiozero = pytest.importorskip("gpiozero")
    from gpiozero.pins.mock import MockFactory

    from board_pi.hardware.gpio import GpioClock, GpioPins

    from ..table.test_table import Clock, RowsReader

    gpiozero.Device.pin_factory = MockFactory()
    clock = Clock()
    try:
        gpio = GpioClock(GpioPins(), time_source=clock)
        camera = FailingCamera()
        table = new_table(tmp_path, outputs=gpio, time_source=clock, camera=camera,
                          reader=RowsReader(camera.board))
        gpio.on_event = table.handle
        table.handle(ClockEvent("press", 1, clock.t, "gpio"))  # Bob starts Ann's clock
        assert table.wait_idle(30)  # the table takes the clock's events on its own thread
        pin = gpiozero.Device.pin_factory.pin(17)  # Ann's button
        clock.t += 10
        with refused(table.journal):
            pin.drive_low()  # the journal refuses the press: said, nothing raised, nothing changed
            clock.t += 0.2
            pin.drive_high()
            assert table.wait_idle(30)
        assert any("not recorded" in m for m in messages(table))
        assert table.clock is not None and table.clock.running == 0
        clock.t += 10
        camera.fail = True
        pin.drive_low()  # the camera fails under this one: said on the page, the buttons still work
        clock.t += 0.2
        pin.drive_high()
        assert table.wait_idle(30)
        assert any("OSError" in m for m in messages(table))
        # The press stands (the clock switched before the board was read): the play is asked for.
        assert table.clock.running == 1
        assert table.pending is not None and table.pending.kind == "reread"
        table.confirm({})  # the players say it was a pass
        clock.t += 10
        gpiozero.Device.pin_factory.pin(27).drive_low()  # Bob's button
        assert table.wait_idle(30)
        assert table.clock.running == 0  # the next press is taken
        gpio.close()
    finally:
        gpiozero.Device.pin_factory.reset()
        gpiozero.Device.pin_factory = None


def test_a_consumer_that_fails_does_not_end_the_reader(tmp_path: Path) -> None:
    # Whatever the consumer is (the table, a clock controller), its fault is not the buttons'.
    got: list[ClockEvent] = []

    def consumer(ev: ClockEvent) -> None:
        if not got:
            got.append(ev)
            raise RuntimeError("the consumer failed")
        got.append(ev)

    master, slave = os.openpty()
    host = SerialClock(os.ttyname(slave), reconnect_interval=0.05, on_event=consumer)
    try:
        host._emit(ClockEvent("press", 0, 1.0, "serial"))
        host._emit(ClockEvent("press", 1, 2.0, "serial"))
        assert [e.player for e in got] == [0, 1]
        assert host.consumer_errors == 1 and "the consumer failed" in (host.last_consumer_error or "")
    finally:
        host.close()
        os.close(master)
        os.close(slave)


@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")
def test_the_watchdog_notices_a_dead_reader_thread(tmp_path: Path) -> None:
    master, slave = os.openpty()
    host = SerialClock(os.ttyname(slave), reconnect_interval=0.05)
    stopped = threading.Event()

    def tick() -> None:
        if stopped.is_set():
            raise SystemExit  # something that ends a thread for good, whatever we catch
    beat = Heartbeat()
    try:
        host.start(on_tick=tick)
        assert healthy(beat, host)
        stopped.set()
        assert wait_for(lambda: not host.reader_alive, 10)
        assert not healthy(beat, host)  # the pings stop: systemd restarts the table
        assert healthy(beat, None) and healthy(beat, EventSource())  # no clock, or one without a thread
    finally:
        host.close()
        os.close(master)
        os.close(slave)
