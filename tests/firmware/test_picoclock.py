"""The Pico clock's logic under CPython: buttons, counting, displays, buzzer, the Pi's state."""

from __future__ import annotations

import machine
import pytest
import utime

import picoclock
import picolink
from picoclock import PicoClock, format_clock

PINS = {"player0": 2, "player1": 3, "pause": 4, "challenge": 5, "hold": 6}
BUZZER = 15


class FakeTime:
    def __init__(self, t=100.0):
        self.t = t

    def __call__(self):
        return self.t


class Port:
    """The USB serial stand-in: what the Pico wrote, and what the Pi will send it."""

    def __init__(self):
        self.written = bytearray()
        self.incoming = bytearray()

    def read(self):
        data, self.incoming = bytes(self.incoming), bytearray()
        return data

    def write(self, data):
        self.written += data

    def frames(self):
        lines = picolink.LineReader().feed(bytes(self.written))
        return [picolink.decode(line) for line in lines]


class Display:
    def __init__(self):
        self.text, self.colon = None, None

    def show(self, text, colon=False):
        self.text, self.colon = text, colon


@pytest.fixture
def ft():
    f = FakeTime()
    utime.now_fn = f
    return f


@pytest.fixture
def pico(ft):
    buttons = [(name, machine.Pin(n, machine.Pin.IN, machine.Pin.PULL_UP)) for name, n in PINS.items()]
    buzzer = machine.Pin(BUZZER, machine.Pin.OUT, value=0)
    return PicoClock(Port(), buttons, [Display(), Display()], buzzer, "0000ABCD",
                     allowance_ms=25 * 60000, max_overtime_ms=10 * 60000)


def run(pico, ft, ms, step_ms=5):
    for _ in range(ms // step_ms):
        ft.t += step_ms / 1000
        pico.step()


def press(pico, ft, name, hold_ms=100):
    machine.Pin.drive(PINS[name], 0)
    run(pico, ft, hold_ms)
    machine.Pin.drive(PINS[name], 1)
    run(pico, ft, 100)


@pytest.mark.parametrize("ms, shown", [
    (25 * 60000, ("2500", True)), (307000, (" 507", True)), (306001, (" 507", True)),
    (1, (" 001", True)), (0, (" 000", True)), (-1, ("-000", True)), (-125000, ("-205", True)),
    (-600000, ("-10 ", False)), (100 * 60000, (" 140", True)),
])
def test_format_clock(ms, shown):
    assert format_clock(ms) == shown


def test_format_clock_flagged():
    assert format_clock(-600001, flagged=True) == ("FLAG", False)


def test_uptime_survives_the_ticks_wrapping(ft):
    utime.offset_ms = (1 << 30) - 500 - int(ft.t * 1000)
    p = PicoClock(Port(), [], [], machine.Pin(BUZZER, machine.Pin.OUT), "00000001")
    start = p.now()
    for _ in range(20):
        ft.t += 0.1
        p.now()
    assert p.now() - start == 2000


def test_says_hello_at_start_up(pico):
    kinds = [f[4] for f in pico.port.frames()]
    assert kinds[0] == "HELLO"


def test_counts_on_its_own_and_switches_on_a_press(pico, ft):
    press(pico, ft, "player0")  # before the game: pressing your side starts the opponent's clock
    assert pico.phase == "running" and pico.running == 1
    run(pico, ft, 10000)
    now = pico.now()
    pressed_at = pico.events[0][2]
    assert pico.remaining(1, now) == 25 * 60000 - (now - pressed_at)
    press(pico, ft, "player1")
    assert pico.running == 0
    press(pico, ft, "player1")  # not running: no switch
    assert pico.running == 0
    # no Pi acknowledges them here, so the Pico repeats its frames: one each by sequence number
    evs = [args for seq, args in sorted({f[2]: f[5] for f in pico.port.frames() if f[4] == "EV"}.items())]
    assert [(e[0], e[1]) for e in evs] == [("press", "0"), ("press", "1"), ("press", "1")]
    assert pico.displays[1].text == "2450"


def test_bouncing_button_reports_one_press(pico, ft):
    for _ in range(4):  # 12 ms of chatter, inside the 30 ms bounce window
        machine.Pin.drive(PINS["player0"], 0)
        run(pico, ft, 2, step_ms=1)
        machine.Pin.drive(PINS["player0"], 1)
        run(pico, ft, 1, step_ms=1)
    machine.Pin.drive(PINS["player0"], 0)
    run(pico, ft, 200)
    machine.Pin.drive(PINS["player0"], 1)
    run(pico, ft, 200)
    assert [e[0] for e in pico.events] == ["press"]


def test_long_press_is_reported_once(pico, ft):
    machine.Pin.drive(PINS["player1"], 0)
    run(pico, ft, 4000)
    machine.Pin.drive(PINS["player1"], 1)
    run(pico, ft, 100)
    assert [(e[0], e[1]) for e in pico.events] == [("press", 1), ("long_press", 1)]


def test_pause_freezes_and_blinks(pico, ft):
    press(pico, ft, "player0")
    run(pico, ft, 5000)
    press(pico, ft, "pause")
    assert pico.phase == "paused"
    frozen = pico.remaining(1, pico.now())
    run(pico, ft, 3000)
    assert pico.remaining(1, pico.now()) == frozen
    texts = set()
    for _ in range(4):
        run(pico, ft, 250)
        texts.add(pico.displays[1].text)
    assert "    " in texts and len(texts) == 2
    press(pico, ft, "pause")
    assert pico.phase == "running" and pico.running == 1


def test_standalone_overtime_beeps_and_flags(pico, ft):
    pico.rem = [70000, 70000]
    press(pico, ft, "player1")  # player 0 runs
    buzzer_on = []
    for _ in range(12 * 60 * 10):
        ft.t += 0.1
        pico.step()
        buzzer_on.append(machine.Pin.levels[BUZZER])
    assert pico.flagged[0] and pico.phase == "flagged"
    assert pico.displays[0].text == "FLAG"
    assert sum(1 for a, b in zip(buzzer_on, buzzer_on[1:]) if b and not a) >= 3  # low, overtime x2, flag


def test_adopts_the_pis_state_once_the_pi_has_seen_its_presses(pico, ft):
    press(pico, ft, "player0")  # EV seq 1; player 1 runs locally
    host = picolink.Link("11111111")

    def state(applied, running, rem0, rem1):
        host.send("STATE", ("0000ABCD", applied, "running", running, rem0, rem1, 600000, "00"), 0)
        pico.port.incoming += host.take_output()
        run(pico, ft, 10)

    state(0, "0", 1000000, 1500000)  # sent before the Pi had the press: the Pico's view is newer
    assert pico.running == 1
    state(1, "0", 1000000, 1400000)  # the Pi ruled otherwise (e.g. a play withdrawn)
    assert pico.running == 0 and pico.rem[1] == 1400000
    assert 990000 <= pico.remaining(0, pico.now()) <= 1000000


def test_garbage_from_the_pi_is_ignored(pico, ft):
    pico.port.incoming += b"\x00\xff$garbage*0000\n$1,ZZ*12\nhello\r\n" + bytes(range(256))
    run(pico, ft, 50)
    bad = picolink.Link("22222222")
    bad.send("STATE", ("0000ABCD", "x", "bogus", "7", "a", "b", "c", "d"), 0)
    bad.send("STATE", ("0000ABCD", "0", "running"), 0)
    pico.port.incoming += bad.take_output()
    run(pico, ft, 50)
    assert pico.phase == "ready"
