"""Whatever arrives on the serial line, the Pi's side of the Pico link takes it without an
exception, and the reader keeps working: a real press from the Pico firmware after the garbage
is still delivered, once. Arbitrary bytes, valid frames damaged byte by byte, well-formed frames
that say odd things, and floods; on the rig's fake clock, so nothing depends on the machine's speed.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from board_pi.hardware.picolink import VERSION, Frame

from .harness import FakeTime, MemoryRig

FAST = settings(max_examples=60, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

PICO_BOOT = "0000ABCD"  # the rig's Pico
HEX = "0123456789ABCDEF"
boots = st.text(HEX, min_size=8, max_size=8).filter(lambda b: b != PICO_BOOT)
field = st.one_of(st.sampled_from(["press", "long_press", "pause", "hold", "challenge", "0", "1", "-",
                                   "", "99999999999999", "1.0", "-5"]),
                  st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E, blacklist_characters="$*,"),
                          max_size=12))
frames = st.builds(
    lambda boot, seq, base, kind, args, version: Frame(version, boot, seq, base, kind, tuple(args)).encode(),
    boots, st.integers(0, 10**12), st.integers(0, 10**12),
    st.sampled_from(["EV", "HELLO", "TICK", "ACK", "STATE", "BEEP", "X"]),
    st.lists(field, max_size=6), st.sampled_from([VERSION, VERSION, 0, 2]))


@st.composite
def mutated(draw: st.DrawFn) -> bytes:
    """A frame like the Pico's, then bytes flipped, dropped, doubled or cut."""
    data = bytearray(draw(frames))
    for _ in range(draw(st.integers(1, 6))):
        i = draw(st.integers(0, len(data) - 1))
        op = draw(st.sampled_from(["flip", "drop", "double", "cut", "newline"]))
        if op == "flip":
            data[i] ^= 1 << draw(st.integers(0, 7))
        elif op == "drop":
            del data[i]
        elif op == "double":
            data.insert(i, data[i])
        elif op == "cut":
            data = data[:i]
        else:
            data.insert(i, 0x0A)
        if not data:
            break
    return bytes(data)


line_noise = st.one_of(st.binary(max_size=600), frames, mutated(),
                       st.builds(lambda f, n: f * n, frames, st.integers(50, 400)),  # a flood
                       st.builds(lambda b: b"$" + b * 300, st.binary(min_size=1, max_size=4)))  # no newline


def still_delivers(rig: MemoryRig) -> None:
    before = len(rig.table.received)
    real = [e for e in rig.pico.events]
    rig.press("player0")
    rig.run(600)
    new = [(e.kind, e.player, e.source) for e in rig.table.received[before:]]
    assert new.count(("press", 0, "serial")) >= 1, new
    assert len(rig.pico.events) == len(real) + 1  # the Pico made one press, and it got through


@FAST
@given(st.lists(line_noise, min_size=1, max_size=6))
def test_no_input_ends_the_reader(noise: list[bytes]) -> None:
    rig = MemoryRig(FakeTime())
    rig.run(100)
    for chunk in noise:
        rig.host.feed(chunk)  # raises nothing, whatever it is
        rig.run(10)
    still_delivers(rig)


@FAST
@given(st.binary(min_size=1, max_size=4000), st.integers(1, 64))
def test_bytes_in_any_split(data: bytes, size: int) -> None:
    rig = MemoryRig(FakeTime())
    rig.run(50)
    for i in range(0, len(data), size):
        rig.host.feed(data[i:i + size])
    rig.run(20)
    still_delivers(rig)
