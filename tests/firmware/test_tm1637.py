"""The TM1637 driver, checked by decoding the waveform it puts on the stand-in pins."""

from __future__ import annotations

import machine
import pytest

import tm1637

CLK, DIO = 10, 11


def decode(trace, clk_id=CLK, dio_id=DIO):
    """What a TM1637 would read: a list of transactions, each a list of bytes."""
    clk = dio = 1
    transactions, cur, bits = [], None, []
    for pid, lvl in trace:
        if pid == dio_id:
            if clk == 1 and dio == 1 and lvl == 0:
                cur, bits = [], []  # start
            elif clk == 1 and dio == 0 and lvl == 1 and cur is not None:
                # The stop's own rising clock edge is not a data bit.
                assert len(bits) <= 1, "stop in the middle of a byte"
                transactions.append(cur)  # stop
                cur = None
            dio = lvl
        elif pid == clk_id:
            if clk == 0 and lvl == 1 and cur is not None:
                bits.append(dio)
                if len(bits) == 9:  # 8 data bits, least significant first, then the ack clock
                    cur.append(sum(b << i for i, b in enumerate(bits[:8])))
                    bits = []
            clk = lvl
    return transactions


def test_draws_digits_and_colon_in_three_transactions():
    d = tm1637.TM1637(CLK, DIO, brightness=4)
    machine.Pin.trace.clear()
    d.show("1234", colon=True)
    assert decode(machine.Pin.trace) == [[0x40], [0xC0, 0x06, 0x5B | 0x80, 0x4F, 0x66], [0x8C]]


def test_unchanged_text_does_not_touch_the_bus():
    d = tm1637.TM1637(CLK, DIO)
    d.show("-205", colon=True)
    n = len(machine.Pin.trace)
    d.show("-205", colon=True)
    assert len(machine.Pin.trace) == n
    d.show("-206", colon=True)
    assert len(machine.Pin.trace) > n


def test_brightness_is_clamped_and_redraws():
    d = tm1637.TM1637(CLK, DIO, brightness=9)
    d.show("FLAG")
    machine.Pin.trace.clear()
    d.brightness(-3)
    assert decode(machine.Pin.trace) == [[0x40], [0xC0, 0x71, 0x38, 0x77, 0x3D], [0x88]]


@pytest.mark.parametrize("text, colon, segs", [
    ("8888", False, [0x7F] * 4),
    ("    ", True, [0, 0x80, 0, 0]),
    ("ab", False, [0, 0x7C, 0, 0]),  # unknown characters are blank, short text padded
])
def test_segments(text, colon, segs):
    assert tm1637.segments(text, colon) == segs


def test_dio_is_released_for_the_acknowledge():
    d = tm1637.TM1637(CLK, DIO)
    d.show("0000")
    # the driver switches DIO to an input for every ack clock and back to an output after
    assert d.dio.mode == machine.Pin.OUT
