"""The Pi's implementation of the Pico link protocol: framing, checksums, delivery."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from board_pi.hardware.picolink import Frame, LineSplitter, ReliableLink, crc16, parse_line


def test_crc_check_value():
    assert crc16(b"123456789") == 0x29B1  # CRC-16/CCITT-FALSE's published check value


def test_frame_round_trip():
    f = Frame(1, "0A1B2C3D", 7, 5, "EV", ("press", "0", "123456", "123460"))
    line = f.encode()
    assert line.startswith(b"$1,0A1B2C3D,7,5,EV,press,0,123456,123460*") and line.endswith(b"\n")
    assert parse_line(line[:-1]) == f
    assert parse_line(line[:-1] + b"\r") == f  # a CR before the newline is allowed


@pytest.mark.parametrize("damage", [
    lambda b: b.replace(b"press", b"prEss"),      # a flipped bit: checksum mismatch
    lambda b: b[:-3],                              # truncated
    lambda b: b.replace(b"*", b"#"),               # no checksum marker
    lambda b: b[:-4] + b"zzzz",                    # checksum not hex
    lambda b: b[:-4] + b[-4:].lower(),             # checksum must be upper-case hex
])
def test_damaged_frames_are_refused(damage):
    line = Frame(1, "0A1B2C3D", 7, 5, "EV", ("press", "0", "1", "2")).encode()[:-1]
    assert parse_line(damage(line)) is None


def test_malformed_but_checksummed_frames_are_refused():
    def framed(body: bytes) -> bytes:
        return b"$" + body + b"*" + f"{crc16(body):04X}".encode()

    assert parse_line(framed(b"1,0A1B2C3D,1,1,EV")) is not None
    for body in (b"1,0a1b2c3d,1,1,EV", b"1,0A1B2C3,1,1,EV", b"1,0A1B2C3D,-1,1,EV", b"x,0A1B2C3D,1,1,EV",
                 b"1,0A1B2C3D,1,1,", b"1,0A1B2C3D,1,1", b"1,0A1B2C3D,1,1,E\x01V", b"1,0A1B2C3D,1_0,1,EV"):
        assert parse_line(framed(body)) is None, body


def test_splitter_resyncs_on_dollar_and_drops_overlong_lines():
    s = LineSplitter()
    assert s.feed(b"noise$abc") == []
    assert s.feed(b"def\n$xyz\n") == [b"$abcdef", b"$xyz"]
    assert s.feed(b"$" + b"a" * 500 + b"\n$ok\n") == [b"$ok"]
    assert s.feed(b"$half$whole\n") == [b"$whole"]


def test_in_order_exactly_once_with_loss():
    a, b = ReliableLink(boot="AAAAAAAA"), ReliableLink(boot="BBBBBBBB")
    now = 0.0
    for i in range(5):
        a.send("EV", (str(i),), now)
    first = a.take_output().split(b"\n")
    # frames 1 and 3 are lost on the way
    got = b.receive(b"\n".join(first[i] for i in (0, 2, 4, 5)) + b"\n", now)
    assert [f.args for f in got] == [("0",)]
    a.receive(b.take_output(), now)
    assert a.outstanding == 4
    for _ in range(20):
        now += 0.3
        a.poll(now)
        got += b.receive(a.take_output(), now)
        a.receive(b.take_output(), now)
    assert [f.args[0] for f in got] == ["0", "1", "2", "3", "4"]
    assert a.outstanding == 0 and a.stats.retransmits >= 1


def test_receiver_restart_starts_from_the_senders_base():
    a = ReliableLink(boot="AAAAAAAA")
    b = ReliableLink(boot="BBBBBBBB")
    for i in range(3):
        a.send("EV", (str(i),), 0)
    b.receive(a.take_output(), 0)
    a.receive(b.take_output(), 0)
    a.send("EV", ("3",), 0)
    a.send("EV", ("4",), 0)
    a.take_output()  # lost: then the receiver restarts
    b2 = ReliableLink(boot="CCCCCCCC")
    a.kick(1.0)
    got = b2.receive(a.take_output(), 1.0)
    assert [f.args[0] for f in got] == ["3", "4"]
    # one that resumes with what it had delivered (seq 1-4) does not take anything twice
    b3 = ReliableLink(boot="DDDDDDDD", peer="AAAAAAAA", expected=5)
    a.kick(2.0)
    assert [f.args[0] for f in b3.receive(a.take_output(), 2.0)] == ["4"]
    b4 = ReliableLink(boot="EEEEEEEE", peer="AAAAAAAA", expected=6)
    a.kick(3.0)
    assert b4.receive(a.take_output(), 3.0) == []
    assert b4.stats.duplicates == 2


def test_own_echo_and_foreign_acks_are_ignored():
    a = ReliableLink(boot="AAAAAAAA")
    a.send("EV", ("x",), 0)
    out = a.take_output()
    assert a.receive(out, 0) == []  # our own frame echoed back
    a.receive(Frame(1, "BBBBBBBB", 0, 1, "ACK", ("FFFFFFFF", "1")).encode(), 0)
    a.receive(Frame(1, "BBBBBBBB", 0, 1, "ACK", ("AAAAAAAA", "99")).encode(), 0)
    assert a.outstanding == 1
    a.receive(Frame(1, "BBBBBBBB", 0, 1, "ACK", ("AAAAAAAA", "1")).encode(), 0)
    assert a.outstanding == 0


def test_version_mismatch_is_counted_not_delivered():
    b = ReliableLink(boot="BBBBBBBB")
    assert b.receive(Frame(2, "AAAAAAAA", 1, 1, "EV", ()).encode(), 0) == []
    assert b.stats.version_mismatch == 1


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=400))
def test_random_bytes_never_crash_the_receiver(data):
    b = ReliableLink(boot="BBBBBBBB")
    b.receive(data, 0.0)
    b.receive(b"$" + data + b"\n", 0.0)
    assert parse_line(data) is None or isinstance(parse_line(data), Frame)


def test_serial_clock_says_clearly_when_the_pico_speaks_another_version():
    from board_pi.hardware.serial_clock import SerialClock

    class Sink:
        def write(self, data):
            pass

    host = SerialClock("memory")
    host.attach(Sink())
    host.feed(Frame(2, "AAAAAAAA", 0, 1, "HELLO", ("2.0", "5")).encode())
    assert host.last_error and "another protocol version" in host.last_error
    assert host.pico_version is None and not host.connected
