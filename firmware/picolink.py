# The Pico's side of the board-pi clock link (protocol version 1). See firmware/README.md.
#
# Written for MicroPython (no typing, no dataclasses, no f-string tricks) and runs unchanged under
# CPython in the tests. Pure: no machine, no utime; the caller passes the time in milliseconds.
#
# Frame:  $<ver>,<boot>,<seq>,<base>,<type>[,<arg>...]*<CRC16 hex>\n
#   ver   protocol version (1)
#   boot  the sender's boot id, 8 hex digits, new at every start
#   seq   1, 2, ... for frames that must be acknowledged; 0 for ACK, HELLO, TICK
#   base  the sender's oldest unacknowledged seq (its next seq when none is outstanding)
#   CRC   CRC-16/CCITT-FALSE of the bytes between '$' and '*', 4 upper-case hex digits

VERSION = 1
MAX_LINE = 160
RTO_MS = 250          # retransmit the outstanding frames when the oldest is unacknowledged this long
RTO_MAX_MS = 2000     # ... doubling each time nothing comes back, up to this
WINDOW = 8            # at most this many frames in flight at once
OUTBOX_LIMIT = 500    # frames kept while the other side is away; past this the oldest are dropped

_HEX = "0123456789ABCDEF"


def crc16(data, crc=0xFFFF):
    for b in data:
        crc ^= b << 8
        for _ in range(8):
            if crc & 0x8000:
                crc = ((crc << 1) ^ 0x1021) & 0xFFFF
            else:
                crc = (crc << 1) & 0xFFFF
    return crc


def _hex4(n):
    return _HEX[(n >> 12) & 15] + _HEX[(n >> 8) & 15] + _HEX[(n >> 4) & 15] + _HEX[n & 15]


def is_uint(s):
    if not s or len(s) > 12:
        return False
    for c in s:
        if c not in "0123456789":
            return False
    return True


def is_boot(s):
    if len(s) != 8:
        return False
    for c in s:
        if c not in _HEX:
            return False
    return True


def encode(boot, seq, base, kind, args=()):
    body = "%d,%s,%d,%d,%s" % (VERSION, boot, seq, base, kind)
    for a in args:
        body += "," + str(a)
    raw = body.encode()
    return b"$" + raw + b"*" + _hex4(crc16(raw)).encode() + b"\n"


def decode(line):
    """A complete line (bytes, without the newline) -> (ver, boot, seq, base, kind, args) or None."""
    if line.endswith(b"\r"):
        line = line[:-1]
    if len(line) < 8 or line[0] != 0x24 or line[-5] != 0x2A:  # '$' ... '*'
        return None
    raw = line[1:-5]
    try:
        text = raw.decode()
        want = int(line[-4:].decode(), 16)
    except (UnicodeError, ValueError):
        return None
    if _hex4(want) != line[-4:].decode() or crc16(raw) != want:
        return None
    for c in text:
        if c < " " or c > "~" or c in "$*":
            return None
    parts = text.split(",")
    if len(parts) < 5:
        return None
    ver, boot, seq, base, kind = parts[0], parts[1], parts[2], parts[3], parts[4]
    if not (is_uint(ver) and is_boot(boot) and is_uint(seq) and is_uint(base)) or not kind:
        return None
    return int(ver), boot, int(seq), int(base), kind, parts[5:]


class LineReader:
    """Splits a byte stream into candidate frames; junk between frames is skipped."""

    def __init__(self):
        self.buf = bytearray()
        self.inframe = False

    def feed(self, data):
        lines = []
        for b in data:
            if b == 0x24:  # '$' always starts a new frame, whatever came before
                self.buf = bytearray(b"$")
                self.inframe = True
            elif not self.inframe:
                continue
            elif b == 0x0A:
                lines.append(bytes(self.buf))
                self.buf = bytearray()
                self.inframe = False
            elif len(self.buf) >= MAX_LINE:
                self.buf = bytearray()
                self.inframe = False
            else:
                self.buf.append(b)
        return lines


class Link:
    """Reliable, in-order delivery over a lossy line (go-back-N with cumulative ACKs).

    send(kind, args, now) queues a frame that must arrive; send_plain() sends one that need not.
    receive(data, now) returns the frames to act on, as (kind, args, boot) tuples, each reliable
    frame exactly once and in order. take_output() returns the bytes to write.
    """

    def __init__(self, boot):
        self.boot = boot
        self.next_seq = 1
        self.outbox = []          # [seq, frame bytes] oldest first
        self.sent_upto = 0        # highest seq transmitted since the last (re)transmission round
        self.oldest_sent_at = None
        self.rto = RTO_MS
        self.out = bytearray()
        self.reader = LineReader()
        self.peer = None          # the peer's boot id
        self.expected = 1         # the peer's next seq we will accept
        self.bad_frames = 0
        self.version_mismatch = 0
        self.retransmits = 0
        self.dropped = 0

    def base(self):
        return self.outbox[0][0] if self.outbox else self.next_seq

    def send(self, kind, args, now):
        seq = self.next_seq
        self.next_seq += 1
        self.outbox.append([seq, kind, args])
        if len(self.outbox) > OUTBOX_LIMIT:
            self.outbox.pop(0)
            self.dropped += 1
        self._pump(now)
        return seq

    def send_plain(self, kind, args=()):
        self.out += encode(self.boot, 0, self.base(), kind, args)

    def _pump(self, now):
        for item in self.outbox:
            if item[0] > self.sent_upto and item[0] < self.base() + WINDOW:
                # The base is computed when sent, so a frame retransmitted after others were
                # acknowledged still tells the peer where our window starts.
                self.out += encode(self.boot, item[0], self.base(), item[1], item[2])
                self.sent_upto = item[0]
                if self.oldest_sent_at is None:
                    self.oldest_sent_at = now

    def poll(self, now):
        """Retransmit when the oldest outstanding frame has waited too long."""
        if self.outbox and self.oldest_sent_at is not None and now - self.oldest_sent_at >= self.rto:
            self.rto = min(self.rto * 2, RTO_MAX_MS)
            self.kick(now)
        elif self.outbox and self.oldest_sent_at is None:
            self._pump(now)

    def kick(self, now):
        """Retransmit everything outstanding now (the peer has just said hello)."""
        if self.outbox:
            self.retransmits += 1
        self.sent_upto = self.outbox[0][0] - 1 if self.outbox else self.next_seq - 1
        self.oldest_sent_at = None
        self._pump(now)

    def forget_outbox(self):
        """Give up on everything outstanding (the peer's base tells it we did)."""
        self.outbox = []
        self.sent_upto = self.next_seq - 1
        self.oldest_sent_at = None

    def take_output(self):
        data = bytes(self.out)
        self.out = bytearray()
        return data

    def receive(self, data, now):
        got = []
        for line in self.reader.feed(data):
            frame = decode(line)
            if frame is None:
                self.bad_frames += 1
                continue
            ver, boot, seq, base, kind, args = frame
            if ver != VERSION:
                self.version_mismatch += 1
                continue
            if boot == self.boot:
                continue  # our own frame echoed back (a terminal still in cooked mode)
            if kind == "ACK":
                self._on_ack(args, now)
                continue
            if seq == 0:
                got.append((kind, args, boot))
                continue
            if boot != self.peer:
                self.peer = boot
                self.expected = base
            if base > self.expected:
                self.expected = base  # the peer gave up on frames before base
            if seq == self.expected:
                self.expected += 1
                got.append((kind, args, boot))
            self.send_plain("ACK", (boot, self.expected - 1))
        return got

    def _on_ack(self, args, now):
        if len(args) != 2 or args[0] != self.boot or not is_uint(args[1]):
            return
        upto = int(args[1])
        if upto >= self.next_seq:
            return  # acknowledges frames we never sent: a peer confused by an old session
        n = 0
        while self.outbox and self.outbox[0][0] <= upto:
            self.outbox.pop(0)
            n += 1
        if n:
            self.rto = RTO_MS
            self.oldest_sent_at = now if self.sent_upto >= self.base() else None
            self._pump(now)
