"""The tournament clock model: pure, time injected, serialisable.

A game clock for two (or more) players. Each player has a time allowance; the running player's
time counts down; when it runs out the player counts up into overtime, paying
``overtime_penalty`` points for every started minute over, and a player more than
``max_overtime_minutes`` over is flagged and the clocks stop.

>>> t = [0.0]
>>> clock = GameClock(TimeControl(minutes=25), players=2, time_source=lambda: t[0])
>>> clock.start(0)
>>> t[0] += 27 * 60 + 5
>>> clock.press(0)
True
>>> clock.running, clock.overtime_penalty(0)
(1, 30)

Every method that changes the clock takes an optional ``at``: the moment the thing happened on the
``time_source`` timeline (a button's own timestamp), so a press that reached us a few
milliseconds late is still charged to the right moment. A moment before the clock's last event is
taken as that event's moment (time never runs backwards) and a moment in the future as now.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any, Callable, Literal

from .control import ClockError, TimeControl

Phase = Literal["ready", "running", "paused", "challenge", "out_play", "flagged", "ended"]

STATE_VERSION = 1

# A started overtime minute is counted from the first moment over; this guard keeps float rounding
# (60.000000000001 s) from charging a minute nobody started.
_ROUNDING = 1e-6


@dataclass(frozen=True)
class Hold:
    """A hold in progress: ``by`` holds the play ``of`` made, since ``since``."""

    by: int
    of: int
    since: float


class GameClock:
    """The clock for one game. See the module docstring for the conventions.

    Not thread-safe: use it from one thread, or through a ``ClockController``, which locks.
    """

    def __init__(
        self,
        control: TimeControl | None = None,
        players: int = 2,
        time_source: Callable[[], float] = time.monotonic,
    ) -> None:
        if not isinstance(players, int) or isinstance(players, bool) or players < 2:
            raise ValueError(f"a clock needs at least 2 players, not {players!r}")
        self.control = control or TimeControl()
        self.players = players
        self._now = time_source
        # Seconds used by each player, charged up to self._since for the running player.
        self._used = [0.0] * players
        self._running: int | None = None
        self._phase: Phase = "ready"
        self._since = 0.0  # moment up to which the running player's time has been charged
        self._turn_started = 0.0  # moment the running player's turn began (delay, press guard)
        self._turn_charged = 0.0  # seconds of the current turn already counted (for the delay)
        self._turn_used = 0.0  # seconds charged to the running player in the current turn
        self._last_event = -math.inf
        self._resume_to: int | None = None  # who runs after a pause or a challenge
        self._resume_phase: Phase = "running"
        self._hold: Hold | None = None
        self._last_mover: int | None = None  # the player whose press ended the last turn
        self._flagged: set[int] = set()
        self._turns = [0] * players

    # -- reading the clock -------------------------------------------------------------------

    @property
    def running(self) -> int | None:
        """Index of the player whose time runs, or None (not started, paused, stopped)."""
        self._check_flag(self._now())
        return self._running

    @property
    def phase(self) -> Phase:
        """ready, running, paused, challenge, out_play, flagged or ended."""
        self._check_flag(self._now())
        return self._phase

    @property
    def paused(self) -> bool:
        return self.phase == "paused"

    @property
    def hold(self) -> Hold | None:
        """The hold in progress, if any."""
        return self._hold

    @property
    def last_mover(self) -> int | None:
        """The player whose press ended the last turn (the one whose play may be held)."""
        return self._last_mover

    def turns(self, player: int) -> int:
        """How many turns ``player`` has ended with a press."""
        return self._turns[self._player(player)]

    def used(self, player: int, at: float | None = None) -> float:
        """Seconds ``player`` has used so far."""
        p = self._player(player)
        now = self._at(at, clamp_past=False)
        self._check_flag(now)
        return self._used[p] + (self._pending(now) if p == self._running else 0.0)

    def remaining(self, player: int, at: float | None = None) -> float:
        """Seconds left for ``player``; negative in overtime."""
        return self.control.allowance - self.used(player, at)

    def overtime(self, player: int, at: float | None = None) -> float:
        """Seconds ``player`` is over their allowance (0 when not in overtime)."""
        return max(0.0, -self.remaining(player, at))

    def overtime_penalty(self, player: int, at: float | None = None) -> int:
        """Points ``player`` loses: ``overtime_penalty`` per started minute over."""
        over = self.overtime(player, at)
        if over <= _ROUNDING:
            return 0
        return math.ceil((over - _ROUNDING) / 60.0) * self.control.overtime_penalty

    def flagged(self, player: int) -> bool:
        """True once ``player``'s overtime exceeds ``max_overtime_minutes`` (the game is over)."""
        p = self._player(player)
        self._check_flag(self._now())
        return p in self._flagged

    def low_time(self, player: int, at: float | None = None) -> bool:
        """True when ``player`` is within ``low_time_seconds`` of overtime (the clock warns)."""
        return 0.0 < self.remaining(player, at) <= self.control.low_time_seconds

    def draw_allowed_at(self) -> float | None:
        """When the player whose play is held may draw provisional tiles (None: no hold)."""
        if self._hold is None:
            return None
        return self._hold.since + self.control.hold_draw_seconds

    def may_draw(self, at: float | None = None) -> bool:
        """True when a hold has lasted long enough for the player who made the play to draw."""
        when = self.draw_allowed_at()
        return when is not None and self._at(at, clamp_past=False) >= when

    # -- running the clock -------------------------------------------------------------------

    def start(self, player: int = 0, at: float | None = None) -> None:
        """Start the game with ``player``'s time running."""
        p = self._player(player)
        if self._phase != "ready":
            raise ClockError(f"the clock has already started (it is {self._phase})")
        now = self._at(at)
        self._begin_turn(p, now)
        self._phase = "running"

    def press(self, player: int, at: float | None = None, out_play: bool = False) -> bool:
        """``player`` ends their turn: the next player's time runs. Returns whether it switched.

        A press from a player whose time is not running changes nothing (False), as does a press
        within ``press_guard_seconds`` of the player's clock starting (both buttons at once), or
        any press while paused, during a challenge, or once the game is over. With
        ``out_play=True`` (the last tile was played) and the out-play rule on, both clocks stop
        while the opponent decides whether to challenge.
        """
        p = self._player(player)
        now = self._at(at)
        self._check_flag(now)
        if self._phase != "running" or self._running != p:
            return False
        if now - self._turn_started < self.control.press_guard_seconds:
            return False
        self._charge(now)
        self._used[p] -= self.control.increment_seconds
        self._turns[p] += 1
        self._last_mover = p
        self._hold = None
        nxt = (p + 1) % self.players
        if out_play and self.control.out_play_stops_clocks:
            self._running = None
            self._phase = "out_play"
            self._resume_to = nxt
            self._since = now
        else:
            self._begin_turn(nxt, now)
        self._last_event = now
        return True

    def declare_out_play(self, at: float | None = None) -> None:
        """The press just made was an out-play (the table saw the rack emptied with the bag empty):
        stop both clocks as :meth:`press` with ``out_play=True`` would have, giving the opponent
        back the seconds charged since that press."""
        now = self._at(at)
        self._check_flag(now)
        if not self.control.out_play_stops_clocks:
            return
        if self._phase != "running" or self._last_mover is None or self._running == self._last_mover:
            raise ClockError("an out-play follows the press that ended the playing turn")
        self._charge(now)
        r = self._running
        assert r is not None
        self._used[r] -= self._turn_used
        self._turn_used = 0.0
        self._running = None
        self._phase = "out_play"
        self._resume_to = r
        self._hold = None
        self._last_event = now

    def pause(self, at: float | None = None) -> None:
        """The director's pause: no one's time runs until :meth:`resume`."""
        now = self._at(at)
        self._check_flag(now)
        if self._phase in ("paused", "flagged", "ended", "ready"):
            raise ClockError(f"cannot pause: the clock is {self._phase}")
        self._charge(now)
        self._resume_phase = self._phase
        if self._phase == "running":
            self._resume_to = self._running
        self._running = None
        self._phase = "paused"
        self._last_event = now

    def resume(self, at: float | None = None) -> None:
        """End the director's pause; the clock goes back to what it was doing."""
        now = self._at(at)
        if self._phase != "paused":
            raise ClockError(f"cannot resume: the clock is {self._phase}, not paused")
        self._phase = self._resume_phase
        if self._phase == "running":
            self._running = self._resume_to
            self._since = now
            if self._hold is not None:
                # The hold's 15 s do not run during a pause either.
                paused_for = now - self._last_event
                self._hold = Hold(self._hold.by, self._hold.of, self._hold.since + paused_for)
            self._turn_started += now - self._last_event
        self._last_event = now

    def toggle_pause(self, at: float | None = None) -> bool:
        """Pause if running, resume if paused (one button for the director). Returns paused."""
        if self._phase == "paused":
            self.resume(at)
            return False
        self.pause(at)
        return True

    def hold_play(self, at: float | None = None) -> Hold:
        """The running player holds the play just made by the last mover; their time runs on."""
        now = self._at(at)
        self._check_flag(now)
        if self._phase != "running" or self._last_mover is None or self._running == self._last_mover:
            raise ClockError("nothing to hold: a hold follows the opponent's play")
        if self._hold is None:
            self._hold = Hold(by=self._running, of=self._last_mover, since=now)  # type: ignore[arg-type]
            self._last_event = now
        return self._hold

    def release_hold(self, at: float | None = None) -> None:
        """The holder accepts the play; their turn goes on."""
        self._at(at)
        self._hold = None

    def challenge(self, at: float | None = None) -> None:
        """The play is challenged: both clocks stop while it is adjudicated."""
        now = self._at(at)
        self._check_flag(now)
        if self._last_mover is None or self._phase not in ("running", "out_play"):
            raise ClockError(f"nothing to challenge (the clock is {self._phase})")
        if self._phase == "running" and self._running == self._last_mover:
            raise ClockError("a player cannot challenge their own play")
        self._charge(now)
        self._resume_to = (self._last_mover + 1) % self.players
        self._running = None
        self._phase = "challenge"
        self._hold = None
        self._last_event = now

    def resolve_challenge(self, acceptable: bool, at: float | None = None, game_over: bool = False) -> None:
        """The word judge has ruled. A phony comes off and the challenger's turn begins.

        An acceptable play: under double challenge the challenger loses their turn (the player who
        made the play runs again); under single challenge the challenger's turn goes on. After an
        out-play that stands (``game_over=True`` or the out-play rule), the game ends.
        """
        now = self._at(at)
        if self._phase != "challenge":
            raise ClockError(f"no challenge to resolve (the clock is {self._phase})")
        assert self._resume_to is not None and self._last_mover is not None
        challenger = self._resume_to
        if acceptable and game_over:
            self._end(now)
            return
        if acceptable and self.control.challenge_loses_turn:
            nxt = self._last_mover
        else:
            nxt = challenger
        # The play has been ruled on (or taken back): there is nothing left to hold or challenge.
        self._last_mover = None
        self._begin_turn(nxt, now)
        self._phase = "running"
        self._last_event = now

    def accept_out_play(self, at: float | None = None) -> None:
        """The opponent does not challenge the out-play: the game ends."""
        now = self._at(at)
        if self._phase != "out_play":
            raise ClockError(f"no out-play to accept (the clock is {self._phase})")
        self._end(now)

    def end(self, at: float | None = None) -> None:
        """Stop both clocks for good (the game is over)."""
        now = self._at(at)
        self._check_flag(now)
        if self._phase in ("flagged", "ended"):
            return
        self._charge(now)
        self._end(now)

    def adjust(self, player: int, seconds: float, at: float | None = None) -> None:
        """A director's correction: give ``player`` ``seconds`` more (negative: less)."""
        p = self._player(player)
        if not math.isfinite(seconds):
            raise ValueError(f"adjustment must be a finite number of seconds, not {seconds!r}")
        now = self._at(at)
        self._charge(now)
        self._used[p] -= seconds

    def snapshot(self, at: float | None = None) -> "ClockSnapshot":
        """Everything a display needs, read at one moment."""
        return snapshot(self, at)

    # -- serialisation -----------------------------------------------------------------------

    def to_dict(self, wall_time: float | None = None) -> dict[str, Any]:
        """The clock's state as plain JSON-able data, charged up to now.

        ``wall_time`` (default ``time.time()``) is stamped so that :meth:`from_dict` can tell how
        long the table was down; the monotonic time source does not survive a restart.
        """
        now = self._now()
        self._check_flag(now)
        self._charge(now)
        hold = None
        if self._hold is not None:
            hold = {"by": self._hold.by, "of": self._hold.of, "age": now - self._hold.since}
        return {
            "version": STATE_VERSION,
            "control": self.control.to_dict(),
            "players": self.players,
            "used": list(self._used),
            "running": self._running,
            "phase": self._phase,
            "turn_age": now - self._turn_started,
            "turn_charged": self._turn_charged,
            "resume_to": self._resume_to,
            "resume_phase": self._resume_phase,
            "hold": hold,
            "last_mover": self._last_mover,
            "flagged": sorted(self._flagged),
            "turns": list(self._turns),
            "saved_at": time.time() if wall_time is None else wall_time,
        }

    @classmethod
    def from_dict(
        cls,
        data: dict[str, Any],
        time_source: Callable[[], float] = time.monotonic,
        wall_time: float | None = None,
    ) -> "GameClock":
        """A clock resumed from :meth:`to_dict`, with the downtime charged as the control says.

        Raises ValueError with a clear message for state that is not a clock's.
        """
        def num(x: Any, what: str) -> float:
            if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x):
                raise ValueError(f"{what} must be a finite number, not {x!r}")
            return float(x)

        def player(x: Any) -> int | None:
            return None if x is None else clock._player(x)

        try:
            if not isinstance(data, dict) or data.get("version") != STATE_VERSION:
                raise ValueError(f"unsupported clock state version {data.get('version') if isinstance(data, dict) else data!r}")
            clock = cls(TimeControl.from_dict(dict(data["control"])), data["players"], time_source)
            used = [num(u, "used") for u in data["used"]]
            turns = [int(num(n, "turns")) for n in data["turns"]]
            if len(used) != clock.players or len(turns) != clock.players:
                raise ValueError("one 'used' and one 'turns' entry per player are needed")
            clock._used, clock._turns = used, turns
            clock._running = player(data["running"])
            phase = data["phase"]
            if phase not in Phase.__args__:  # type: ignore[attr-defined]
                raise ValueError(f"unknown phase {phase!r}")
            clock._phase = phase
            clock._resume_to = player(data["resume_to"])
            clock._resume_phase = data["resume_phase"]
            if clock._resume_phase not in Phase.__args__:  # type: ignore[attr-defined]
                raise ValueError(f"unknown phase {clock._resume_phase!r}")
            clock._last_mover = player(data["last_mover"])
            clock._flagged = {clock._player(p) for p in data["flagged"]}
            clock._turn_charged = num(data["turn_charged"], "turn_charged")
            saved_at = num(data["saved_at"], "saved_at")
            turn_age = num(data["turn_age"], "turn_age")
            hold = data["hold"]
            if hold is not None:
                hold = (clock._player(hold["by"]), clock._player(hold["of"]), num(hold["age"], "hold age"))
        except (KeyError, TypeError, IndexError, AttributeError) as e:
            raise ValueError(f"not a clock state: {e!r}") from None
        if phase == "running" and clock._running is None:
            raise ValueError("a running clock state needs a running player")
        now = time_source()
        wall_now = time.time() if wall_time is None else wall_time
        # A wall clock set backwards must not give anyone time back.
        down = max(0.0, wall_now - saved_at)
        charged = clock._running is not None and clock.control.charge_downtime
        clock._since = now - (down if charged else 0.0)
        clock._turn_started = now - turn_age - (down if charged else 0.0)
        clock._last_event = clock._since
        if hold is not None:
            shift = down if charged else 0.0
            clock._hold = Hold(hold[0], hold[1], now - hold[2] - shift)
        # The downtime is left uncharged until something happens: a press made while the table
        # was down (the Pico keeps it, with its own timestamp) then ends the turn at its own
        # moment, and the player is charged up to it, not for the whole downtime as well.
        clock._check_flag(now)
        return clock

    def memento(self) -> dict[str, Any]:
        """Everything that changes as the clock runs, to put back with :meth:`restore` (an action
        whose record could not be written is taken back)."""
        return {k: (v.copy() if isinstance(v, (list, set)) else v) for k, v in vars(self).items()
                if k not in ("control", "players", "_now")}

    def restore(self, memento: dict[str, Any]) -> None:
        for k, v in memento.items():
            setattr(self, k, v.copy() if isinstance(v, (list, set)) else v)

    # -- internals ---------------------------------------------------------------------------

    def _player(self, player: int) -> int:
        if isinstance(player, bool) or not isinstance(player, int) or not 0 <= player < self.players:
            raise ValueError(f"no player {player!r} (players are 0..{self.players - 1})")
        return player

    def _at(self, at: float | None, clamp_past: bool = True) -> float:
        now = self._now()
        if at is None:
            return max(now, self._last_event) if clamp_past else now
        if not math.isfinite(at):
            raise ValueError(f"a moment must be a finite number, not {at!r}")
        at = min(at, now)
        return max(at, self._last_event) if clamp_past else at

    def _pending(self, now: float) -> float:
        """Seconds to charge the running player for the time since ``self._since``."""
        if self._running is None or self._phase != "running":
            return 0.0
        elapsed = max(0.0, now - self._since)
        delay = self.control.delay_seconds
        if delay:
            before = self._turn_charged
            return max(0.0, before + elapsed - delay) - max(0.0, before - delay)
        return elapsed

    def _charge(self, now: float) -> None:
        if self._running is not None and self._phase == "running" and now < self._since:
            self._charge_back(now)
        if self._running is not None and self._phase == "running" and now > self._since:
            pending = self._pending(now)
            self._used[self._running] += pending
            self._turn_used += pending
            self._turn_charged += now - self._since
            self._since = now

    def _charge_back(self, now: float) -> None:
        """Give back what was charged after ``now``: the clock was saved or read after a press
        it had not heard of yet (a button's own timestamp, a press made while the Pi was down)."""
        r = self._running
        assert r is not None
        after = self._turn_charged
        before = max(0.0, after - (self._since - now))
        delay = self.control.delay_seconds
        back = max(0.0, after - delay) - max(0.0, before - delay) if delay else after - before
        self._used[r] -= back
        self._turn_used -= back
        self._turn_charged = before
        self._since = now

    def _begin_turn(self, player: int, now: float) -> None:
        self._running = player
        self._since = now
        self._turn_started = now
        self._turn_charged = 0.0
        self._turn_used = 0.0
        self._last_event = max(self._last_event, now)

    def _end(self, now: float) -> None:
        self._running = None
        self._phase = "ended"
        self._hold = None
        self._last_event = now

    def _check_flag(self, now: float) -> None:
        """Flag the running player at the exact moment their overtime passed the limit."""
        limit = self.control.max_overtime
        p = self._running
        if limit is None or p is None or self._phase != "running":
            return
        budget = self.control.allowance + limit - self._used[p]  # seconds of used time left
        if self._pending(now) <= budget:
            return
        # Find the moment the budget ran out (the delay's free seconds come first).
        free = max(0.0, self.control.delay_seconds - self._turn_charged) if self.control.delay_seconds else 0.0
        flag_at = self._since + free + max(0.0, budget)
        self._used[p] = self.control.allowance + limit
        self._since = flag_at
        self._running = None
        self._phase = "flagged"
        self._flagged.add(p)
        self._hold = None
        self._last_event = max(self._last_event, flag_at)


@dataclass(frozen=True)
class ClockSnapshot:
    """What a display shows at one moment: plain values, safe to hand to another thread."""

    at: float
    phase: Phase
    running: int | None
    remaining: tuple[float, ...]
    penalties: tuple[int, ...]
    flagged: tuple[bool, ...]
    low_time: tuple[bool, ...]
    hold: Hold | None
    may_draw: bool
    max_overtime: float | None = None


def snapshot(clock: GameClock, at: float | None = None) -> ClockSnapshot:
    """Read everything a display needs from ``clock`` at one moment."""
    now = clock._at(at, clamp_past=False)
    ps = range(clock.players)
    return ClockSnapshot(
        at=now,
        phase=clock.phase,
        running=clock.running,
        remaining=tuple(clock.remaining(p, now) for p in ps),
        penalties=tuple(clock.overtime_penalty(p, now) for p in ps),
        flagged=tuple(clock.flagged(p) for p in ps),
        low_time=tuple(clock.low_time(p, now) for p in ps),
        hold=clock.hold,
        may_draw=clock.may_draw(now),
        max_overtime=clock.control.max_overtime,
    )
