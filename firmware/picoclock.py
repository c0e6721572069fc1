# The Pico clock's logic (MicroPython; runs under CPython in the tests with stand-ins for utime).
#
# It keeps counting on its own, switches the moment a button is hit, and tells the Pi about every
# button event with its own timestamp (reliably: picolink). When the Pi is connected, the Pi's
# STATE is the truth: the Pico shows it (a play withdrawn, a paused game, a director's correction).

import utime

import picolink

FIRMWARE_VERSION = "1.0"
BOUNCE_MS = 30
LONG_PRESS_MS = 1500
PRESS_GUARD_MS = 300     # a press this soon after a player's clock started is the same press
TICK_MS = 1000           # heartbeat to the Pi
HOST_TIMEOUT_MS = 3000   # no frame from the Pi this long: standalone (the Pico beeps by itself)
LOW_TIME_MS = 60000
EVENTS_KEPT = 200

# Button name -> (event kind, player)
BUTTONS = {
    "player0": ("press", 0),
    "player1": ("press", 1),
    "pause": ("pause", None),
    "challenge": ("challenge", None),
    "hold": ("hold", None),
}

# Buzzer patterns: (on ms, off ms, count); the same names as the Pi's.
BEEPS = {
    "low_time": (80, 0, 1),
    "overtime": (150, 100, 2),
    "overtime_minute": (80, 0, 1),
    "flag": (1000, 0, 1),
    "draw": (50, 0, 1),
}

PHASES = ("ready", "running", "paused", "challenge", "out_play", "flagged", "ended")


def format_clock(ms, flagged=False):
    """Remaining milliseconds -> (4 characters, colon) for a TM1637.

    Counting down, a display shows whole seconds rounded up (0:00 only once time is out):
    " 5:07", "25:00"; 100 minutes or more as hours and minutes. In overtime it counts up with a
    minus: "-2:05"; ten minutes or more over, "-10 " (minutes). A flagged player: "FLAG".
    """
    if flagged:
        return "FLAG", False
    if ms >= 0:
        secs = (ms + 999) // 1000
        mins, secs = secs // 60, secs % 60
        if mins >= 100:
            return "%2d%02d" % (min(mins // 60, 99), mins % 60), True
        return "%2d%02d" % (mins, secs), True
    over = (-ms) // 1000
    mins, secs = over // 60, over % 60
    if mins >= 10:
        return ("-%d" % min(mins, 999) + "   ")[:4], False
    return "-%d%02d" % (mins, secs), True


class Debounced:
    """Leading-edge debounce with a lockout, as on the Pi (see board_pi/hardware/gpio.py)."""

    def __init__(self, name, pin):
        self.name = name
        self.pin = pin
        self.pressed = False
        self.locked_until = None
        self.pressed_at = None

    def read(self, now):
        """-> list of ("press" | "long", now) for this poll."""
        down = self.pin.value() == 0  # buttons pull the pin to ground
        out = []
        if self.locked_until is not None and now < self.locked_until:
            return out
        if down != self.pressed:
            self.pressed = down
            self.locked_until = now + BOUNCE_MS
            self.pressed_at = now if down else None
            if down:
                out.append(("press", now))
        elif down and self.pressed_at is not None and now - self.pressed_at >= LONG_PRESS_MS:
            self.pressed_at = None
            out.append(("long", now))
        return out


class Buzzer:
    def __init__(self, pin):
        self.pin = pin
        self.queue = []   # [(on?, until ms)]
        self.pin.value(0)

    def play(self, pattern, now):
        on, off, n = BEEPS.get(pattern, (80, 0, 1))
        t = now
        if self.queue:
            t = self.queue[-1][1]
        for _ in range(n):
            self.queue.append((1, t + on))
            t += on
            if off:
                self.queue.append((0, t + off))
                t += off

    def update(self, now):
        while self.queue and now >= self.queue[0][1]:
            self.queue.pop(0)
        self.pin.value(self.queue[0][0] if self.queue else 0)


class PicoClock:
    """The whole clock: call step() in a loop (every millisecond or so)."""

    def __init__(self, port, buttons, displays, buzzer_pin, boot,
                 allowance_ms=25 * 60000, max_overtime_ms=10 * 60000,
                 ticks_ms=None, ticks_diff=None):
        self.port = port
        self.buttons = [Debounced(name, pin) for name, pin in buttons]
        self.displays = displays
        self.buzzer = Buzzer(buzzer_pin)
        self.ticks_ms = ticks_ms or utime.ticks_ms
        self.ticks_diff = ticks_diff or utime.ticks_diff
        self.boot = boot
        self.link = picolink.Link(boot)
        self._last_ticks = self.ticks_ms()
        self._uptime = 0
        self.allowance = allowance_ms
        self.max_overtime = max_overtime_ms
        self.rem = [allowance_ms, allowance_ms]
        self.phase = "ready"
        self.running = None
        self.resume_running = None
        self.resume_phase = "running"
        self.base_at = 0
        self.turn_started = 0
        self.flagged = [False, False]
        self.last_ev_seq = 0      # the seq of our latest EV frame
        self.host_seen_at = None
        self.host_version = None
        self.next_tick = 0
        self.events = []          # the latest events sent (kind, player, t): for a look from the REPL

        self.warned = [0, 0]      # standalone beeps: 1 low time, 2 overtime
        now = self.now()
        self.link.send_plain("HELLO", (FIRMWARE_VERSION, now))
        self.flush()

    # -- time ------------------------------------------------------------------------------

    def now(self):
        """Milliseconds since start-up; never wraps (utime's ticks do, every 2**30 ms)."""
        t = self.ticks_ms()
        self._uptime += max(0, self.ticks_diff(t, self._last_ticks))
        self._last_ticks = t
        return self._uptime

    def remaining(self, p, now):
        if self.phase == "running" and self.running == p:
            return self.rem[p] - (now - self.base_at)
        return self.rem[p]

    # -- the loop --------------------------------------------------------------------------

    def step(self):
        now = self.now()
        for b in self.buttons:
            for what, t in b.read(now):
                self.button(b.name, what, t)
        data = self.port.read()
        if data:
            for kind, args, boot in self.link.receive(data, now):
                self.host_seen_at = now
                self.message(kind, args, now)
        self.check_flag(now)
        if now >= self.next_tick:
            self.next_tick = now + TICK_MS
            self.link.send_plain("TICK", (now, self.phase, self._r(), self.remaining(0, now),
                                          self.remaining(1, now)))
        self.link.poll(now)
        self.flush()
        self.standalone_beeps(now)
        self.buzzer.update(now)
        self.draw(now)

    def flush(self):
        out = self.link.take_output()
        if out:
            self.port.write(out)

    def _r(self):
        return "-" if self.running is None else str(self.running)

    def connected(self, now):
        return self.host_seen_at is not None and now - self.host_seen_at < HOST_TIMEOUT_MS

    # -- buttons ---------------------------------------------------------------------------

    def button(self, name, what, t):
        kind, player = BUTTONS[name]
        if what == "long":
            if player is None:
                return
            kind = "long_press"
        else:
            self.local(kind, player, t)
        self.events.append((kind, player, t))
        if len(self.events) > EVENTS_KEPT:
            self.events.pop(0)
        self.last_ev_seq = self.link.send(
            "EV", (kind, "-" if player is None else player, t, self.now()), self.now())

    def local(self, kind, player, t):
        """Act at once, as the Pi would, so the displays never wait for the Pi."""
        if kind == "press":
            if self.phase == "ready":
                self.start_turn(1 - player, t)
                self.phase = "running"
            elif self.phase == "running" and self.running == player and t - self.turn_started >= PRESS_GUARD_MS:
                self.rem[player] = self.remaining(player, t)
                self.start_turn(1 - player, t)
        elif kind == "pause":
            if self.phase == "paused":
                self.phase = self.resume_phase
                self.running = self.resume_running
                self.base_at = t
            elif self.phase in ("running", "challenge", "out_play"):
                if self.running is not None:
                    self.rem[self.running] = self.remaining(self.running, t)
                self.resume_phase, self.resume_running = self.phase, self.running
                self.phase, self.running = "paused", None
        elif kind == "challenge" and self.phase == "running":
            if self.running is not None:
                self.rem[self.running] = self.remaining(self.running, t)
            self.phase, self.running = "challenge", None

    def start_turn(self, p, t):
        self.running = p
        self.base_at = t
        self.turn_started = t

    def check_flag(self, now):
        p = self.running
        if self.phase == "running" and p is not None and self.max_overtime:
            if self.remaining(p, now) < -self.max_overtime:
                self.rem[p] = -self.max_overtime
                self.flagged[p] = True
                self.phase, self.running = "flagged", None
                if not self.connected(now):
                    self.buzzer.play("flag", now)

    def standalone_beeps(self, now):
        if self.connected(now) or self.running is None:
            return
        p = self.running
        r = self.remaining(p, now)
        level = 2 if r < 0 else (1 if r <= LOW_TIME_MS else 0)
        if level > self.warned[p]:
            self.buzzer.play("overtime" if level == 2 else "low_time", now)
        self.warned[p] = level

    # -- the Pi's messages -----------------------------------------------------------------

    def message(self, kind, args, now):
        if kind == "HELLO":
            self.host_version = args[0] if args else "?"
            self.link.send_plain("HELLO", (FIRMWARE_VERSION, now))
            self.link.kick(now)
        elif kind == "STATE":
            self.adopt(args, now)
        elif kind == "BEEP" and args:
            self.buzzer.play(args[0], now)

    def adopt(self, args, now):
        # STATE,<pico boot>,<last EV seq applied>,<phase>,<running>,<rem0>,<rem1>,<max overtime>,<flags>
        if len(args) != 8 or args[3] not in ("-", "0", "1") or args[2] not in PHASES:
            return
        boot, seen, phase, running = args[0], args[1], args[2], args[3]
        nums = (args[4], args[5], args[6])
        for i, s in enumerate(nums):
            if not picolink.is_uint(s.lstrip("-")) or (i == 2 and s.startswith("-")):
                return
        if not picolink.is_uint(seen) or args[7] not in ("00", "01", "10", "11"):
            return
        applied = int(seen) if boot == self.boot else 0
        if applied < self.last_ev_seq:
            return  # the Pi has not yet seen our latest press: our own view is newer
        self.phase = phase
        self.running = None if running == "-" else int(running)
        self.rem = [int(nums[0]), int(nums[1])]
        self.max_overtime = int(nums[2])
        self.flagged = [args[7][0] == "1", args[7][1] == "1"]
        self.base_at = now
        if self.running is not None:
            self.turn_started = now - PRESS_GUARD_MS  # the Pi's press guard already applied

    # -- displays --------------------------------------------------------------------------

    def draw(self, now):
        blink_off = (now // 500) % 2 == 1
        for p, disp in enumerate(self.displays):
            text, colon = format_clock(self.remaining(p, now), self.flagged[p])
            if self.phase == "paused" and blink_off:
                text, colon = "    ", False
            elif self.running == p and blink_off:
                colon = False  # the running side's colon blinks
            disp.show(text, colon)
