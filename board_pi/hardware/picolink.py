"""The Pi's side of the Pico clock link, protocol version 1 (see firmware/README.md), without I/O.

A frame is one ASCII line::

    $<ver>,<boot>,<seq>,<base>,<type>[,<arg>...]*<CRC>\\n

``boot`` is the sender's boot id (8 hex digits, new at every start), ``seq`` numbers the frames that
must be acknowledged (1, 2, ...; 0 for ACK, HELLO and TICK), ``base`` is the sender's oldest
unacknowledged ``seq``, and ``CRC`` is CRC-16/CCITT-FALSE of the bytes between ``$`` and ``*`` in
four upper-case hex digits. Reliable frames are delivered once and in order (go-back-N with
cumulative ``ACK,<boot>,<seq>``); a receiver that meets a new boot id, or a base beyond what it
expects, starts from that base, so either side can restart without the other being told.

This is the Pi's own implementation of the protocol; the Pico's (``firmware/picolink.py``) is
written for MicroPython. The tests run each against the other.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Callable

VERSION = 1
MAX_LINE = 160
RTO = 0.25
RTO_MAX = 2.0
WINDOW = 8
OUTBOX_LIMIT = 64  # the Pi's frames are state: when the Pico is away, old ones may go


def crc16(data: bytes, crc: int = 0xFFFF) -> int:
    """CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF). ``crc16(b"123456789") == 0x29B1``."""
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) & 0xFFFF if crc & 0x8000 else (crc << 1) & 0xFFFF
    return crc


def new_boot_id() -> str:
    return os.urandom(4).hex().upper()


@dataclass(frozen=True)
class Frame:
    version: int
    boot: str
    seq: int
    base: int
    kind: str
    args: tuple[str, ...] = ()

    def encode(self) -> bytes:
        body = ",".join([str(self.version), self.boot, str(self.seq), str(self.base), self.kind, *self.args])
        raw = body.encode("ascii")
        return b"$" + raw + b"*" + f"{crc16(raw):04X}".encode() + b"\n"


_UINT = frozenset("0123456789")
_HEX = frozenset("0123456789ABCDEF")


def _uint(s: str) -> int | None:
    return int(s) if s and len(s) <= 12 and set(s) <= _UINT else None


def parse_line(line: bytes) -> Frame | None:
    """One line (without its newline) -> a Frame, or None for anything damaged or malformed."""
    if line.endswith(b"\r"):
        line = line[:-1]
    if len(line) < 8 or line[:1] != b"$" or line[-5:-4] != b"*":
        return None
    raw, check = line[1:-5], line[-4:]
    if not set(check.decode("latin-1")) <= _HEX or crc16(raw) != int(check, 16):
        return None
    if any(b < 0x20 or b > 0x7E or b in b"$*" for b in raw):
        return None
    parts = raw.decode("ascii").split(",")
    if len(parts) < 5:
        return None
    ver, seq, base = _uint(parts[0]), _uint(parts[2]), _uint(parts[3])
    boot, kind = parts[1], parts[4]
    if ver is None or seq is None or base is None or len(boot) != 8 or not set(boot) <= _HEX or not kind:
        return None
    return Frame(ver, boot, seq, base, kind, tuple(parts[5:]))


class LineSplitter:
    """Bytes -> candidate frame lines. A ``$`` always starts a new frame; junk is skipped."""

    def __init__(self) -> None:
        self._buf = bytearray()
        self._in_frame = False

    def feed(self, data: bytes) -> list[bytes]:
        lines: list[bytes] = []
        for b in data:
            if b == 0x24:
                self._buf = bytearray(b"$")
                self._in_frame = True
            elif not self._in_frame:
                continue
            elif b == 0x0A:
                lines.append(bytes(self._buf))
                self._buf = bytearray()
                self._in_frame = False
            elif len(self._buf) >= MAX_LINE:
                self._buf = bytearray()
                self._in_frame = False
            else:
                self._buf.append(b)
        return lines


@dataclass
class LinkStats:
    bad_frames: int = 0
    version_mismatch: int = 0
    retransmits: int = 0
    dropped: int = 0
    duplicates: int = 0


@dataclass
class _Pending:
    seq: int
    kind: str
    args: tuple[str, ...]


@dataclass
class ReliableLink:
    """Sequence numbers, acknowledgements and retransmission; times in seconds."""

    boot: str = field(default_factory=new_boot_id)
    peer: str | None = None
    expected: int = 1
    stats: LinkStats = field(default_factory=LinkStats)

    def __post_init__(self) -> None:
        self._next = 1
        self._outbox: list[_Pending] = []
        self._sent_upto = 0
        self._oldest_sent_at: float | None = None
        self._rto = RTO
        self._out = bytearray()
        self._lines = LineSplitter()

    # -- sending ---------------------------------------------------------------------------

    @property
    def base(self) -> int:
        return self._outbox[0].seq if self._outbox else self._next

    @property
    def outstanding(self) -> int:
        return len(self._outbox)

    def send(self, kind: str, args: tuple[str, ...], now: float) -> int:
        seq = self._next
        self._next += 1
        self._outbox.append(_Pending(seq, kind, args))
        if len(self._outbox) > OUTBOX_LIMIT:
            self._outbox.pop(0)
            self.stats.dropped += 1
        self._pump(now)
        return seq

    def send_plain(self, kind: str, args: tuple[str, ...] = ()) -> None:
        self._out += Frame(VERSION, self.boot, 0, self.base, kind, args).encode()

    def forget_outbox(self) -> None:
        """Give up on everything outstanding; the next frame's base tells the peer."""
        self._outbox.clear()
        self._sent_upto = self._next - 1
        self._oldest_sent_at = None

    def kick(self, now: float) -> None:
        """Retransmit everything outstanding now."""
        if self._outbox:
            self.stats.retransmits += 1
        self._sent_upto = self._outbox[0].seq - 1 if self._outbox else self._next - 1
        self._oldest_sent_at = None
        self._pump(now)

    def due(self, now: float) -> bool:
        """Whether the oldest outstanding frame has waited past the retransmission timeout."""
        return bool(self._outbox) and self._oldest_sent_at is not None and now - self._oldest_sent_at >= self._rto

    def back_off(self) -> None:
        """Double the retransmission timeout (nothing has come back)."""
        self._rto = min(self._rto * 2, RTO_MAX)

    def poll(self, now: float) -> None:
        if not self._outbox:
            return
        if self._oldest_sent_at is None:
            self._pump(now)
        elif now - self._oldest_sent_at >= self._rto:
            self._rto = min(self._rto * 2, RTO_MAX)
            self.kick(now)

    def _pump(self, now: float) -> None:
        for p in self._outbox:
            if self._sent_upto < p.seq < self.base + WINDOW:
                self._out += Frame(VERSION, self.boot, p.seq, self.base, p.kind, p.args).encode()
                self._sent_upto = p.seq
                if self._oldest_sent_at is None:
                    self._oldest_sent_at = now

    def take_output(self) -> bytes:
        data, self._out = bytes(self._out), bytearray()
        return data

    # -- receiving -------------------------------------------------------------------------

    def receive(self, data: bytes, now: float, accept: Callable[[Frame], bool] | None = None) -> list[Frame]:
        """Frames to act on: plain ones as they come, reliable ones once each and in order.

        ``accept`` may refuse a reliable frame for now (it is then neither delivered nor
        acknowledged, and the peer sends it again).
        """
        out: list[Frame] = []
        for line in self._lines.feed(data):
            f = parse_line(line)
            if f is None:
                self.stats.bad_frames += 1
                continue
            if f.version != VERSION:
                self.stats.version_mismatch += 1
                continue
            if f.boot == self.boot:
                continue  # our own frame echoed back
            if f.kind == "ACK":
                self._on_ack(f.args, now)
                continue
            if f.seq == 0:
                out.append(f)
                continue
            if f.boot != self.peer:
                self.peer, self.expected = f.boot, f.base
            self.expected = max(self.expected, f.base)
            if f.seq == self.expected:
                if accept is not None and not accept(f):
                    continue
                self.expected += 1
                out.append(f)
            elif f.seq < self.expected:
                self.stats.duplicates += 1
            self.send_plain("ACK", (f.boot, str(self.expected - 1)))
        return out

    def _on_ack(self, args: tuple[str, ...], now: float) -> None:
        if len(args) != 2 or args[0] != self.boot:
            return
        upto = _uint(args[1])
        if upto is None or upto >= self._next:
            return
        n = 0
        while self._outbox and self._outbox[0].seq <= upto:
            self._outbox.pop(0)
            n += 1
        if n:
            self._rto = RTO
            self._oldest_sent_at = now if self._sent_upto >= self.base else None
            self._pump(now)
