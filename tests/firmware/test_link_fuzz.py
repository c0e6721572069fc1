"""The Pico and the Pi's serial side over a cable that loses, cuts, repeats and garbles bytes.

Whatever the cable does, neither side crashes, and once the cable is clean again the Pi has every
press exactly once, in order, at the moment it was made, and the Pico shows the Pi's clock.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import picolink as fw_link
from board_pi.hardware import picolink as host_link

from .harness import FakeTime, MemoryRig, make_pico, MemoryPort

BUTTONS = ["player0", "player1", "pause", "hold", "challenge"]


def check_agreement(rig: MemoryRig) -> None:
    sent = rig.pico.events
    got = rig.table.received
    assert [(e.kind, e.player) for e in got] == [(k, p) for k, p, t in sent]
    for e, (_, _, t_ms) in zip(got, sent):
        # within one step of the rig (the cable's delay), whatever the damage
        assert e.timestamp == pytest.approx(rig.pico_time(t_ms), abs=0.011)
    clock, pico = rig.table.clock, rig.pico
    assert pico.phase == clock.phase
    assert pico.running == clock.running
    now = pico.now()
    for p in (0, 1):
        assert pico.remaining(p, now) == pytest.approx(clock.remaining(p) * 1000, abs=30)


def test_clean_cable_presses_switch_both_clocks():
    rig = MemoryRig(FakeTime())
    rig.run(100)
    assert rig.host.pico_version == "1.0" and rig.host.connected
    rig.press("player0")
    assert rig.table.clock.running == 1
    rig.run(5000)
    rig.press("player1")
    rig.run(200)
    assert rig.table.clock.running == 0
    check_agreement(rig)
    assert [a.result for a in rig.table.actions] == ["started", "switched"]


def test_the_pis_decisions_reach_the_pico():
    rig = MemoryRig(FakeTime())
    rig.press("player0")
    rig.run(3000)
    rig.press("player1")  # player 1 played
    rig.run(500)
    rig.press("challenge")
    rig.table.clock.resolve_challenge(acceptable=False)  # a phony: the play is withdrawn
    rig.table.clock.adjust(0, 60)  # and the director gives player 0 a minute
    rig.table.ctl.refresh()
    rig.run(200)
    check_agreement(rig)
    assert rig.pico.running == 0
    rig.table.clock.pause()
    rig.table.ctl.refresh()
    rig.run(200)
    assert rig.pico.phase == "paused"


def test_beeps_are_sent_to_the_pico_buzzer():
    rig = MemoryRig(FakeTime())
    rig.press("player1")
    rig.table.clock.adjust(0, -(25 * 60 - 61))
    rig.run(2000)
    rig.table.ctl.tick()
    rig.run(20)
    assert rig.pico.buzzer.queue, "the low-time beep is playing"


def damage(data, op, n, junk):
    if not data:
        return data
    if op == "drop":
        return b""
    if op == "truncate":
        return data[: n % len(data)]
    if op == "repeat":
        return data + data
    if op == "noise":
        i = n % (len(data) + 1)
        return data[:i] + junk + data[i:]
    if op == "flip":
        i = n % len(data)
        return data[:i] + bytes([data[i] ^ (1 << (n % 8))]) + data[i + 1:]
    return data


@settings(max_examples=int(__import__("os").environ.get("FUZZ_EXAMPLES", "40")), deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data())
def test_a_damaged_cable_never_loses_or_doubles_a_press(data):
    rig = MemoryRig(FakeTime())
    presses = data.draw(st.lists(st.sampled_from(BUTTONS), min_size=1, max_size=8), label="presses")
    ops = data.draw(st.lists(st.tuples(st.sampled_from(["pass", "drop", "truncate", "repeat", "noise", "flip"]),
                                       st.integers(0, 10_000), st.binary(max_size=12)),
                             min_size=1, max_size=40), label="damage")
    count = [0]

    def channel(chunk: bytes, direction: str) -> bytes:
        if not chunk:
            return chunk
        op, n, junk = ops[count[0] % len(ops)]
        count[0] += 1
        return damage(chunk, op, n, junk)

    for name in presses:
        rig.press(name, channel)
        rig.run(data.draw(st.integers(0, 1500), label="gap"), channel)
    rig.run(8000)  # the cable is clean again: retransmission catches up
    check_agreement(rig)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=300))
def test_random_bytes_never_crash_the_pico(data):
    pico = make_pico(MemoryPort())
    pico.port.incoming += data
    pico.step()
    pico.port.incoming += b"$" + data + b"\n"
    pico.step()


def test_both_implementations_frame_alike():
    """The Pico's MicroPython framing and the Pi's are byte for byte the same."""
    args = ("press", "0", "123", "456")
    assert fw_link.encode("0A1B2C3D", 3, 2, "EV", args) == host_link.Frame(1, "0A1B2C3D", 3, 2, "EV", args).encode()
    assert fw_link.crc16(b"123456789") == host_link.crc16(b"123456789") == 0x29B1
    line = host_link.Frame(1, "0A1B2C3D", 0, 9, "TICK", ("5",)).encode()[:-1]
    assert fw_link.decode(line) == (1, "0A1B2C3D", 0, 9, "TICK", ["5"])


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=120))
def test_both_parsers_agree_on_any_line(line):
    fw = fw_link.decode(line)
    host = host_link.parse_line(line)
    assert (fw is None) == (host is None)
    if host is not None:
        assert fw == (host.version, host.boot, host.seq, host.base, host.kind, list(host.args))
