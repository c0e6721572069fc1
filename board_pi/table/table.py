"""The table: a clock press becomes a read board, a scored play, and events in the journal.

One :class:`Table` runs one game at a time. It is driven by button events (from the GPIO or
Pico clock, or simulated by the demo), by the status page (confirmations, the director's
controls), and by a periodic :meth:`Table.tick`. Every change is appended to the journal before
it is published to the page.

The flow of a turn: the player lays tiles and presses their side of the clock. The table takes
frames until the board is still, reads it, and compares it with the committed board. New tiles in
one line make a play, scored by the rules engine; no new tiles make a pass (or an exchange if the
player marked one). A doubtful reading, an impossible shape, or a blank whose letter the lexicon
does not settle is put to the players to confirm on the page; nothing is guessed silently.
"""

from __future__ import annotations

import logging
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Protocol, Sequence

from ..clock import ClockController, ClockError, GameClock, TimeControl
from ..rules.board import BadCoordinate, Square
from ..rules.codec import event_from_dict, event_to_dict, rules_from_dict, rules_to_dict
from ..rules.game import ChallengeRule, Event, Game, GameRules, IllegalEvent, Passed
from ..rules.gcg import record_from_game, write_gcg
from ..rules.judge import NotAWord, Verdict, WordJudge
from ..rules.play import IllegalPlay, Placement, check_placements
from ..rules.tiles import BLANK
from .bus import EventBus
from .snapshot import Snapshot
from .reading import (DOUBT_BELOW, BoardChange, BoardReading, blank_options, compare,
                      placements_with_letters)
from .store import KEEP, Journal, JournalDamaged, JournalError, StoredGame

log = logging.getLogger("board_pi.table")


class TableError(ValueError):
    """An action the table cannot take now; the message says why (shown as a 4xx on the page)."""


class NotRecorded(TableError):
    """The journal could not record an action (disk full, file gone): the action was taken back
    whole, so the game is as it was; it can be done again once the journal can be written."""


@dataclass
class _Change:
    """One action in the making: what to put back if it cannot be recorded, and what to tell
    the page once it is."""

    events: list[Event]
    clock: dict[str, Any] | None
    pending: "Pending | None"
    removal: dict[str, str]
    verdict: dict[str, Any] | None
    published: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    after: list[Callable[[], None]] = field(default_factory=list)
    finished: bool = False


class Camera(Protocol):
    def read(self) -> Any | None:
        """The next frame (BGR array), or None when there is none."""


class BoardReader(Protocol):
    def read(self, frame: Any) -> BoardReading | None:
        """Read the 225 squares of a frame, or None when no board is in view."""


@dataclass
class Settings:
    """How the table behaves (the configuration file fills these)."""

    doubt_below: float = DOUBT_BELOW
    settle_frames: int = 2  # consecutive readings that must agree before the board counts as still
    settle_max_frames: int = 12  # give up after this many frames...
    settle_seconds: float = 6.0  # ...or this long
    lexicon: str = "default"


@dataclass
class Pending:
    """Something the players must confirm on the page before the game goes on."""

    kind: str  # "reading", "reread" (no still board), "blank" (its letter), "racks" (at the end)
    player: int
    message: str
    tiles: dict[str, str] = field(default_factory=dict)  # square name -> tile ('?' for a blank)
    doubtful: list[str] = field(default_factory=list)
    options: list[str] = field(default_factory=list)  # blank letters the lexicon allows (if few)
    exchange: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "player": self.player, "message": self.message, "tiles": self.tiles,
                "doubtful": self.doubtful, "options": self.options, "exchange": self.exchange}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "Pending":
        return cls(d["kind"], int(d["player"]), d["message"], dict(d.get("tiles", {})),
                   list(d.get("doubtful", [])), list(d.get("options", [])), bool(d.get("exchange", False)))


@dataclass(frozen=True)
class PressResult:
    """What a press did: ``play``, ``pass``, ``exchange``, ``pending``, ``ignored``..."""

    outcome: str
    message: str = ""
    score: int | None = None
    play: str = ""


class Table:
    def __init__(self, journal: Journal, judge: WordJudge, *, camera: Camera | None = None,
                 reader: BoardReader | None = None, settings: Settings | None = None,
                 time_source: Callable[[], float] = time.monotonic,
                 wall_time: Callable[[], float] = time.time,
                 camera_time: Callable[[], float] | None = None,
                 outputs: Any | None = None, on_finished: Callable[[str, dict[str, Any]], Any] | None = None,
                 bus: EventBus | None = None, archive: Any | None = None) -> None:
        self.journal = journal
        self.judge = judge
        self.camera = camera
        self.reader = reader
        self.settings = settings or Settings()
        self.now = time_source
        self.wall = wall_time
        # What the still-board wait is timed by: the camera's own time (a simulated camera's
        # frames, not how long a loaded machine takes to draw them); real time by default.
        self.camera_time = camera_time or wall_time
        self.outputs = outputs  # lights, buzzer, displays: a ClockOutputs (show, beep, verdict)
        self._controller: ClockController | None = None
        self.on_finished = on_finished  # called with the GCG text and meta of each finished game
        self.bus = bus or EventBus()
        self.archive = archive  # finished games kept as GCG files (table.archive.GameArchive)
        self._lock = threading.RLock()
        self.game: Game | None = None
        self.clock: GameClock | None = None
        self.game_id: int | None = None
        self.meta: dict[str, Any] = {}
        self.pending: Pending | None = None
        self.removal: dict[str, str] = {}  # squares of a withdrawn phony still to be cleared
        self.verdict: dict[str, Any] | None = None
        self.messages: list[str] = []
        self.last_reading: BoardReading | None = None
        self.last_frame: Any | None = None
        self.timings: dict[str, float] = {}
        self._removal_checked = float("-inf")
        self._change: _Change | None = None

    # -- games -----------------------------------------------------------------------------

    def new_game(self, players: Sequence[str], rules: GameRules = GameRules(),
                 control: TimeControl | None = None, meta: dict[str, Any] | None = None) -> int:
        """Start a new game (an unfinished one is left in the journal, not lost)."""
        with self._lock:
            control = control or TimeControl()
            if (rules.challenge is ChallengeRule.DOUBLE) != control.challenge_loses_turn:
                control = TimeControl(**{**control.to_dict(),
                                         "challenge_loses_turn": rules.challenge is ChallengeRule.DOUBLE})
            game = Game(list(players), rules, judge=self.judge)
            clock = GameClock(control, players=len(players), time_source=self.now)
            meta = dict(meta or {})
            meta.setdefault("lexicon", self.settings.lexicon)
            # The journal first: a game it could not record is not started.
            try:
                game_id = self.journal.new_game(list(players), rules_to_dict(rules), meta,
                                                clock=clock.to_dict(wall_time=self.wall()))
            except JournalError as e:
                raise NotRecorded(f"the new game was not started: {e}") from None
            self.game, self.game_id, self.meta = game, game_id, meta
            self._attach_clock(clock)
            self.pending, self.removal, self.verdict, self.messages = None, {}, None, []
            self._publish("new_game", {"players": list(players)})
            return game_id

    def resume(self) -> bool:
        """Pick up the journal's unfinished game, if there is one. Returns whether one was found."""
        with self._lock:
            stored = self.journal.unfinished()
            if stored is None:
                return False
            self._load(stored)
            self._publish("resumed", {"game_id": stored.id})
            return True

    def _load(self, stored: StoredGame) -> None:
        """Replay a stored game; JournalDamaged when it cannot be (what is stored is not what
        this table wrote), so that the caller can set the journal aside."""
        where = "its rules"
        try:
            rules = rules_from_dict(stored.rules)
            where = "its players"
            game = Game(stored.players, rules, judge=self.judge)
            for i, d in enumerate(stored.events, 1):
                where = f"event {i}"
                if d.get("type") == "undo":
                    game.undo()
                else:
                    game.append(event_from_dict(d))
            where = "its clock"
            if stored.clock is not None:
                clock = GameClock.from_dict(stored.clock, time_source=self.now, wall_time=self.wall())
            else:
                clock = GameClock(TimeControl(), players=len(stored.players), time_source=self.now)
            where = "what waits on the page"
            pending = Pending.from_dict(stored.pending) if stored.pending else None
        except (KeyError, ValueError, TypeError, IndexError, AttributeError, RecursionError) as e:
            raise JournalDamaged(f"game {stored.id} in the journal {self.journal.path} cannot be "
                                 f"replayed: {where}: {e}") from None
        self.game, self.game_id, self.meta = game, stored.id, dict(stored.meta)
        self._attach_clock(clock)
        self.pending = pending
        self.removal, self.verdict = {}, None

    # -- recording ---------------------------------------------------------------------------

    def _require(self) -> tuple[Game, GameClock]:
        if self.game is None or self.clock is None:
            raise TableError("no game: start a new game first")
        return self.game, self.clock

    @contextmanager
    def _recording(self) -> Iterator[None]:
        """One action of the table, recorded whole or not at all.

        The action changes the game, the clock and what waits on the page in memory; at the end
        everything it changed goes to the journal in one transaction, and only then is the page
        told. If the action fails, or the journal cannot take it (a full disk), the game, the
        clock and the page's state are put back as they were: memory never differs from the
        journal. Actions that call one another record once, at the outermost.
        """
        if self._change is not None:
            yield
            return
        ch = _Change(list(self.game.events) if self.game is not None else [],
                     self.clock.memento() if self.clock is not None else None,
                     self.pending, dict(self.removal), self.verdict)
        self._change = ch
        try:
            yield
            self._write(ch)
        except BaseException as e:
            self._change = None
            self._take_back(ch)
            if isinstance(e, JournalError):
                text = (f"not recorded, nothing changed: {e}. Free some space on the table's disk "
                        "(`board-pi doctor` says how full it is) and do it again")
                self._tell(text)
                raise NotRecorded(text) from None
            raise
        self._change = None
        for type_, data in ch.published:
            self.bus.publish(type_, data)
        if ch.published:
            self._published()
        for f in ch.after:
            f()

    def _write(self, ch: _Change) -> None:
        """Write what the action changed (undos of events taken back, then new events)."""
        if self.game is None or self.clock is None or self.game_id is None:
            return
        events = self.game.events
        kept = 0
        while kept < min(len(ch.events), len(events)) and ch.events[kept] is events[kept]:
            kept += 1
        records = [{"type": "undo"}] * (len(ch.events) - kept) + [event_to_dict(e) for e in events[kept:]]
        pending_changed = self.pending is not ch.pending
        clock_changed = self.clock.memento() != ch.clock
        if not (records or pending_changed or clock_changed or ch.finished):
            return
        pending: Any = KEEP
        if pending_changed:
            pending = self.pending.to_dict() if self.pending is not None else None
        self.journal.commit(self.game_id, records, clock=self.clock.to_dict(wall_time=self.wall()),
                            pending=pending, finished=ch.finished)

    def _take_back(self, ch: _Change) -> None:
        if self.game is not None and (len(self.game.events) != len(ch.events) or
                                      any(a is not b for a, b in zip(self.game.events, ch.events))):
            self.game.reset(ch.events)
        if self.clock is not None and ch.clock is not None:
            self.clock.restore(ch.clock)
        self.pending, self.removal, self.verdict = ch.pending, ch.removal, ch.verdict

    def _set_pending(self, pending: Pending | None) -> None:
        self.pending = pending  # recorded with the action (see _recording)

    def _publish(self, type: str, data: dict[str, Any] | None = None) -> None:
        if self._change is not None:  # told once the action is recorded
            self._change.published.append((type, data or {}))
            return
        self.bus.publish(type, data or {})
        self._published()

    def _published(self) -> None:
        self.bus.publish("state", self.snapshot())
        if self._controller is not None:
            try:
                self._controller.refresh()
            except Exception:  # a display fault must not stop the game
                log.exception("the clock's display failed")

    def tell(self, text: str) -> None:
        """Show a message on the page (from another thread: the main loop, a backend)."""
        with self._lock:
            self._tell(text)

    def _tell(self, text: str) -> None:
        """A message for the page, once (a fault met again and again is said once)."""
        if self.messages and self.messages[-1] == text:
            return
        self._say(text)
        self.bus.publish("message", {"text": text})
        self.bus.publish("state", self.snapshot())

    def _attach_clock(self, clock: GameClock) -> None:
        self.clock = clock
        self._controller = ClockController(clock, self.outputs) if self.outputs is not None else None

    def _show_verdict(self, acceptable: bool | None) -> None:
        if self._controller is not None:
            try:
                self._controller.verdict(acceptable)
            except Exception:  # a broken light must not stop the game
                pass

    def _say(self, message: str) -> None:
        self.messages = (self.messages + [message])[-8:]

    # -- reading the board -------------------------------------------------------------------

    def settle(self) -> tuple[BoardReading | None, str]:
        """Take frames until consecutive readings agree; (reading, '') or (None, why not).

        Readings are compared where they matter: the tiles that differ from the committed board
        (new ones, and old ones gone). A hand over the board, or a tile still moving, changes
        that from frame to frame; flicker on squares already committed does not count, since
        those squares keep their committed tiles anyway.
        """
        if self.camera is None or self.reader is None:
            return None, "no camera: enter the play on the page"
        s = self.settings
        deadline = self.camera_time() + s.settle_seconds
        previous: tuple[Any, ...] | None = None
        agree = 1
        why = "the board did not keep still"
        for _ in range(s.settle_max_frames):
            frame = self.camera.read()
            if frame is None:
                why = "the camera gave no picture"
                break
            t = time.perf_counter()
            reading = self.reader.read(frame)
            self.timings["read"] = time.perf_counter() - t
            if reading is None:
                why = "the board is not in view (a hand or arm over it?)"
                previous, agree = None, 1
            else:
                key = self._change_key(reading)
                if key == previous:
                    agree += 1
                    if agree >= s.settle_frames:
                        self.last_frame, self.last_reading = frame, reading
                        return reading, ""
                else:
                    previous, agree = key, 1
            if self.camera_time() > deadline:
                break
        return None, why + ": waited and gave up; press again or enter the play on the page"

    def _change_key(self, reading: BoardReading) -> tuple[Any, ...]:
        assert self.game is not None
        c = compare(self.game.state.board, reading, self.settings.doubt_below)
        return tuple(sorted(c.new.items())), c.missing, c.doubtful

    # -- a press -----------------------------------------------------------------------------

    def press(self, player: int, exchange: bool = False, exchange_count: int | None = None,
              at: float | None = None) -> PressResult:
        """``player`` presses their side of the clock: their turn ends and the board is read."""
        with self._lock, self._recording():
            game, clock = self._require()
            at = self.now() if at is None else at
            s = game.state
            if s.over:
                return PressResult("ignored", "the game is over")
            if clock.phase == "ready":
                clock.start(s.turn, at=at)
                self._publish("clock", {"started": s.turn})
                return PressResult("started", f"{game.players[s.turn]}'s clock started")
            if clock.phase == "out_play" and player != s.going_out:
                return self.accept_out_play(player)
            if clock.running != player:
                return PressResult("ignored", "that side's clock is not running")
            if self.pending is not None and self.pending.kind in ("reading", "blank", "reread"):
                return PressResult("ignored", "confirm the last play on the page first")
            if s.going_out is not None or s.scoreless_ended:
                return PressResult("ignored", "the game is at its end")
            t0 = time.perf_counter()
            if exchange:
                return self._exchange(player, exchange_count, at)
            reading, why = self.settle()
            t1 = time.perf_counter()
            if reading is None:
                if not self._switch(player, at, out_play=False):
                    return PressResult("ignored", "the clock did not switch: both sides pressed at once")
                self._set_pending(Pending("reread", player, why))
                self._publish("pending", self.pending.to_dict() if self.pending else {})
                return PressResult("pending", why)
            change = compare(s.board, reading, self.settings.doubt_below)
            change = self._ignore_withdrawn(reading, change)
            result = self._turn_from_change(player, change, at)
            # From the board being still (the last frame read) to the score: read it, decide.
            self.timings.update(settle=t1 - t0, decide=time.perf_counter() - t1)
            return result

    def _switch(self, player: int, at: float, out_play: bool) -> bool:
        """Press the clock for ``player``; False when the clock does not switch (its press guard:
        both buttons hit at once switch once), in which case the turn is not taken either."""
        _, clock = self._require()
        return clock.press(player, at=at, out_play=out_play)

    def _withdrawn_still_there(self, reading: BoardReading) -> list[Square]:
        """The squares where the camera still sees a withdrawn phony's own tiles."""
        return [Square.parse(k) for k, v in sorted(self.removal.items())
                if reading.at(Square.parse(k))[0] == (BLANK if v.islower() else v)]

    def _ignore_withdrawn(self, reading: BoardReading, change: BoardChange) -> BoardChange:
        """A withdrawn phony's tiles all still on the board are not a new play: keep asking.

        Once any of them has gone, the tiles were taken back, and a tile now on one of those
        squares is a new tile like any other.
        """
        if not self.removal:
            return change
        still = set(self._withdrawn_still_there(reading))
        if len(still) < len(self.removal):
            self.removal = {}
            self._say("the withdrawn tiles were taken back")
            return change
        self._say("take the withdrawn tiles back: " + ", ".join(sorted(self.removal)))
        new = {sq: t for sq, t in change.new.items() if sq not in still}
        return BoardChange(new, change.missing, tuple(d for d in change.doubtful if d not in still))

    def _turn_from_change(self, player: int, change: BoardChange, at: float) -> PressResult:
        game, _ = self._require()
        s = game.state
        if change.missing:
            names = ", ".join(str(q) for q in change.missing)
            self._say(f"tiles already played are missing from {names}: put them back")
        if not change.new:
            if not self._switch(player, at, out_play=False):
                return PressResult("ignored", "the clock did not switch: both sides pressed at once")
            game.pass_turn(player)
            self._reader_commit()
            self._after_turn()
            self._publish("pass", {"player": player})
            return PressResult("pass", f"{game.players[player]} passed")
        tiles = {str(sq): t for sq, t in change.new.items()}
        doubtful = [str(q) for q in change.doubtful]
        shape_ok = True
        try:
            check_placements(s.board, placements_with_letters(change.new, {q: "a" for q in change.new}),
                             game.rules.tiles)
        except IllegalPlay as e:
            shape_ok = False
            why = str(e)
        out = s.bag == 0 and len(change.new) == s.racks[player]
        if not self._switch(player, at, out_play=out and shape_ok and not doubtful):
            return PressResult("ignored", "the clock did not switch: both sides pressed at once")
        # A tile already played that looks gone is reported (above) but does not hold the play
        # up: old tiles stay as committed, and a tile moved elsewhere shows as a new tile anyway.
        if not shape_ok or doubtful:
            msg = why if not shape_ok else "check the squares marked"
            self._set_pending(Pending("reading", player, f"is this the play? {msg}", tiles, doubtful))
            self._publish("pending", self.pending.to_dict() if self.pending else {})
            return PressResult("pending", msg)
        return self._place(player, tiles)

    def _place(self, player: int, tiles: dict[str, str]) -> PressResult:
        """Commit new tiles as ``player``'s play, settling blanks first."""
        game, _ = self._require()
        try:
            new = {Square.parse(k): v for k, v in tiles.items()}
        except BadCoordinate as e:
            raise TableError(str(e)) from None
        blank_squares = [sq for sq, t in new.items() if t == BLANK]
        letters: dict[Square, str] = {}
        if blank_squares:
            choice = blank_options(game.state.board, new, game.rules.tiles,
                                   lambda words: self.judge.lexicon is not None and
                                   all(w in self.judge.lexicon for w in words), limit=4)
            if choice.unique is None:
                names = ", ".join(str(q) for q in choice.squares)
                msg = (f"which letter is the blank on {names}?" if choice.options else
                       f"which letter is the blank on {names}? (no letter makes every word valid)")
                self._set_pending(Pending("blank", player, msg, tiles, [str(q) for q in choice.squares],
                                          list(choice.options)))
                self._publish("pending", self.pending.to_dict() if self.pending else {})
                return PressResult("pending", msg)
            letters = dict(zip(choice.squares, choice.unique))
            self._say(f"blank read as {', '.join(f'{l} on {q}' for q, l in letters.items())}")
        return self._commit(player, placements_with_letters(new, letters))

    def _commit(self, player: int, placements: list[Placement]) -> PressResult:
        game, clock = self._require()
        try:
            scored = game.play_tiles(player, placements)
        except (IllegalEvent, IllegalPlay) as e:
            tiles = {str(p.square): (BLANK if p.is_blank else p.tile) for p in placements}
            self._set_pending(Pending("reading", player, f"this cannot be played: {e}", tiles))
            self._publish("pending", self.pending.to_dict() if self.pending else {})
            return PressResult("pending", str(e))
        self._set_pending(None)
        self._reader_commit()
        self.verdict = None
        self._show_verdict(None)
        move = game.state.moves[-1]
        if game.state.going_out is not None:
            if clock.phase == "running":
                # Confirmed after the press: the out-play rule stops both clocks now, giving the
                # opponent back the seconds since the press.
                try:
                    clock.declare_out_play()
                except ClockError:
                    pass
            self._say(f"{game.players[player]} went out: challenge or accept")
        self._publish("play", {"player": player, "play": move.text, "score": scored.score})
        return PressResult("play", move.text, scored.score, move.text)

    def _reader_commit(self) -> None:
        commit = getattr(self.reader, "commit", None)
        if commit is not None and self.game is not None:
            commit(self.game.state.board.rows())

    def _exchange(self, player: int, count: int | None, at: float) -> PressResult:
        game, _ = self._require()
        s = game.state
        n = count if count is not None else s.racks[player]
        if s.bag < game.rules.rack_size:
            return PressResult("ignored", f"no exchange with {s.bag} tiles in the bag")
        if not self._switch(player, at, out_play=False):
            return PressResult("ignored", "the clock did not switch: both sides pressed at once")
        try:
            game.exchange(player, n)
        except IllegalEvent as e:
            return PressResult("ignored", str(e))
        self._after_turn()
        self._publish("exchange", {"player": player, "count": n})
        return PressResult("exchange", f"{game.players[player]} exchanged {n}")

    def _after_turn(self) -> None:
        game, clock = self._require()
        if game.state.scoreless_ended and not game.state.over:
            try:
                clock.end()
            except ClockError:
                pass
            self._set_pending(Pending("racks", game.state.turn,
                                      "six scoreless turns: the game is over; enter each rack"))

    def handle(self, event: Any) -> Any:
        """A button event from a clock backend (``kind``, ``player``, ``timestamp``)."""
        kind, player, at = getattr(event, "kind", None), getattr(event, "player", None), \
            getattr(event, "timestamp", None)
        try:
            if kind == "press" and player is not None:
                return self.press(player, at=at)
            if kind == "long_press" and player is not None:
                return self.mark_exchange(player)
            if kind == "pause" and self.clock is not None:
                return self.resume_clock() if self.clock.phase == "paused" else self.pause()
            if kind == "hold" and self.clock is not None and self.clock.running is not None:
                if self.clock.hold is not None:
                    with self._lock, self._recording():
                        self.clock.release_hold()
                        self._publish("hold_released")
                    return None
                return self.hold(self.clock.running)
            if kind == "challenge" and self.game is not None:
                lp = self.game.state.last_play
                if lp is not None:
                    return self.challenge((lp.player + 1) % len(self.game.players))
        except TableError as e:
            with self._lock:
                self._tell(str(e))
        except Exception as e:  # a fault of ours must not end the clock's reader thread
            log.exception("the table could not take the clock's %s event", kind)
            with self._lock:
                self._tell(f"the {kind} was not taken ({type(e).__name__}: {e}); press again or "
                           "use the page")
        return None

    def mark_exchange(self, player: int) -> PressResult:
        """A long press: the turn just ended was an exchange, not a pass.

        The count is the player's whole rack unless they correct it on the page.
        """
        with self._lock, self._recording():
            game, _ = self._require()
            if not game.events or not isinstance(game.events[-1], Passed) or game.events[-1].player != player:
                return PressResult("ignored", "a long press marks an exchange right after a pass")
            n = game.state.racks[player]
            last = game.undo()
            try:
                game.exchange(player, n)
            except IllegalEvent as e:
                game.append(last)  # the pass stands, as it was
                return PressResult("pass", str(e))
            self._say(f"{game.players[player]} exchanged: {n} tiles recorded (correct the count on the page)")
            self._publish("exchange", {"player": player, "count": n})
            return PressResult("exchange", f"{game.players[player]} exchanged {n}")

    # -- confirmations from the page ---------------------------------------------------------

    def confirm(self, tiles: dict[str, str] | None = None) -> PressResult:
        """Confirm (or correct) the pending reading: ``tiles`` maps squares to letters ('?' blank)."""
        with self._lock, self._recording():
            p = self.pending
            if p is None or p.kind not in ("reading", "reread", "blank"):
                raise TableError("there is no reading to confirm")
            chosen = dict(p.tiles if tiles is None else tiles)
            for k, v in chosen.items():
                if not isinstance(v, str) or len(v) != 1:
                    raise TableError(f"square {k}: give one letter or '?' for a blank")
            chosen = {k.upper(): (v if v == BLANK or v.islower() else v.upper()) for k, v in chosen.items()}
            if not chosen:
                game, _ = self._require()
                try:
                    game.pass_turn(p.player)
                except IllegalEvent as e:
                    raise TableError(str(e)) from None
                self._set_pending(None)
                self._after_turn()
                self._publish("pass", {"player": p.player})
                return PressResult("pass")
            # Lower case means the player already said which letter a blank is.
            return self._place(p.player, chosen)

    def discard_pending(self) -> None:
        """Drop the reading waiting for confirmation (the players will enter the play instead)."""
        with self._lock, self._recording():
            if self.pending is None:
                raise TableError("nothing is waiting for confirmation")
            self._set_pending(None)
            self._publish("pending", {})

    def set_blanks(self, letters: dict[str, str]) -> PressResult:
        """The players say which letter each blank of the pending play stands for."""
        with self._lock, self._recording():
            p = self.pending
            if p is None or p.kind != "blank":
                raise TableError("no blank is waiting for its letter")
            game, _ = self._require()
            tiles = dict(p.tiles)
            for sq in p.doubtful:
                letter = str(letters.get(sq, "")).upper()
                if not game.rules.tiles.is_letter(letter):
                    raise TableError(f"give the letter of the blank on {sq}")
                tiles[sq] = letter.lower()
            placements = [Placement(Square.parse(k), v) for k, v in sorted(tiles.items())]
            return self._commit(p.player, placements)

    def enter_play(self, player: int, play: str) -> PressResult:
        """Enter a play by hand in score-sheet notation (no camera, or a correction)."""
        with self._lock, self._recording():
            game, _ = self._require()
            from ..rules.play import Play
            try:
                placements = Play.parse(play).placements(game.state.board, game.rules.tiles)
            except (IllegalPlay, BadCoordinate) as e:
                raise TableError(str(e)) from None
            return self._commit(player, placements)

    def record(self, event: Any) -> None:
        """Append a game event entered by hand (a score sheet typed in, a correction)."""
        with self._lock, self._recording():
            game, _ = self._require()
            try:
                game.append(event)
            except IllegalEvent as e:
                raise TableError(str(e)) from None
            self._publish("recorded", event_to_dict(event))

    def give_racks(self, racks: dict[int, str]) -> None:
        """The racks left at the end (needed after six scoreless turns, or with 3-4 players)."""
        with self._lock, self._recording():
            game, _ = self._require()
            try:
                game.finish({int(k): str(v).upper() for k, v in racks.items()})
            except IllegalEvent as e:
                raise TableError(str(e)) from None
            self._set_pending(None)
            self._end_game()

    # -- challenges ---------------------------------------------------------------------------

    def hold(self, player: int) -> None:
        with self._lock, self._recording():
            _, clock = self._require()
            try:
                clock.hold_play()
            except ClockError as e:
                raise TableError(str(e)) from None
            self._publish("hold", {"player": player})

    def challenge(self, player: int, acceptable: bool | None = None) -> Verdict:
        """``player`` challenges the last play; the word judge rules on it as a whole.

        ``acceptable`` overrides the judge (the demo follows a record made with another lexicon).
        """
        with self._lock, self._recording():
            game, clock = self._require()
            lp = game.state.last_play
            if lp is None:
                raise TableError("there is no play to challenge")
            if self.pending is not None and self.pending.kind in ("reading", "blank", "reread"):
                raise TableError("confirm the play waiting on the page first")
            if game.rules.challenge is ChallengeRule.VOID:
                raise TableError("under the void rule every play was judged as it was made")
            if player == lp.player:
                raise TableError("a player cannot challenge their own play")
            try:
                clock.challenge()
            except ClockError:
                pass  # the clock may already be stopped (out-play); the challenge goes on
            judged = self.judge.judge(lp.words).acceptable
            verdict = judged if acceptable is None else acceptable
            if verdict != judged:
                self._say("the record's verdict differs from this lexicon's: following the record")
            try:
                game.challenge(player, verdict)
            except IllegalEvent as e:
                raise TableError(str(e)) from None
            self.verdict = {"acceptable": verdict, "time": self.wall()}
            self._show_verdict(verdict)
            out = game.state.going_out is not None
            try:
                clock.resolve_challenge(verdict, game_over=verdict and out)
            except ClockError:
                pass
            if not verdict:
                self.removal = {str(p.square): p.tile for p in lp.scored.placements}
                self._say("not acceptable: take the tiles back")
            self._publish("verdict", {"acceptable": verdict})
            if verdict and out:
                self._finish_out_play()
            return Verdict(verdict, len(lp.words))

    def accept_out_play(self, player: int | None = None) -> PressResult:
        """The opponent does not challenge the last play, which went out: the game ends."""
        with self._lock, self._recording():
            game, clock = self._require()
            if game.state.going_out is None:
                raise TableError("nobody has gone out")
            try:
                clock.accept_out_play()
            except ClockError:
                clock.end()
            self._finish_out_play()
            return PressResult("end", "the game is over")

    def _finish_out_play(self) -> None:
        game, _ = self._require()
        try:
            game.finish()
        except IllegalEvent as e:  # 3-4 players: the racks must be given
            self._set_pending(Pending("racks", game.state.turn, str(e)))
            self._publish("pending", self.pending.to_dict() if self.pending else {})
            return
        self._end_game()

    def _end_game(self, reason: str = "") -> None:
        game, clock = self._require()
        try:
            clock.end()
        except ClockError:
            pass
        for p in range(len(game.players)):
            game.time_penalty(p, clock.overtime_penalty(p))
        if not game.state.over:
            game.end(reason or "ended")
        assert self._change is not None, "a game ends inside a recorded action"
        self._change.finished = True
        self._change.after.append(self._archive)
        self._publish("game_over", {"scores": game.state.scores, "winners": game.state.winners()})

    def _archive(self) -> None:
        """Keep the finished game (once the journal has it as finished)."""
        if self.on_finished is None or self.game is None:
            return
        game = self.game
        try:
            self.on_finished(self.gcg(), {"players": game.players, "scores": game.state.scores,
                                          "game_id": self.game_id, **self.meta})
        except Exception as e:  # the archive failing must not lose the journal's copy
            log.exception("could not archive game %s", self.game_id)
            self._tell(f"could not archive the game: {e}")

    # -- the director ------------------------------------------------------------------------

    def pause(self) -> None:
        with self._lock, self._recording():
            _, clock = self._require()
            try:
                clock.pause()
            except ClockError as e:
                raise TableError(str(e)) from None
            self._publish("paused")

    def resume_clock(self) -> None:
        with self._lock, self._recording():
            _, clock = self._require()
            try:
                clock.resume()
            except ClockError as e:
                raise TableError(str(e)) from None
            self._publish("resumed")

    def undo(self) -> str:
        with self._lock, self._recording():
            game, _ = self._require()
            try:
                e = game.undo()
            except IllegalEvent as err:
                raise TableError(str(err)) from None
            self._set_pending(None)
            self._publish("undo", {"event": event_to_dict(e)})
            return event_to_dict(e)["type"]

    def correct_last_play(self, play: str) -> PressResult:
        """The director corrects the last play (a misread square, a blank's letter): it is taken
        back and ``play`` (score-sheet notation, lower case for a blank) is made in its place by
        the same player. A correction that cannot be played leaves the game as it was."""
        with self._lock, self._recording():
            game, _ = self._require()
            from ..rules.game import PlayMade
            from ..rules.play import Play
            last = game.events[-1] if game.events else None
            if not isinstance(last, PlayMade):
                raise TableError("the last event is not a play: there is no play to correct")
            player = last.player
            game.undo()
            try:
                game.play_tiles(player, Play.parse(play).placements(game.state.board, game.rules.tiles))
            except (IllegalEvent, IllegalPlay, BadCoordinate) as e:
                raise TableError(f"cannot correct the play to {play!r}: {e}") from None
            self._set_pending(None)
            move = game.state.moves[-1]
            self._say(f"the director corrected the last play to {move.text}")
            self._publish("corrected", {"player": player, "play": move.text, "score": move.score})
            return PressResult("play", move.text, move.score, move.text)

    def use_judge(self, judge: WordJudge) -> None:
        """Judge with another lexicon from now on (the director chose one for a new game)."""
        with self._lock:
            self.judge = judge
            self.settings.lexicon = judge.lexicon.name

    def adjust(self, player: int, points: int, reason: str) -> None:
        with self._lock, self._recording():
            game, _ = self._require()
            if not 0 <= player < len(game.players):
                raise TableError(f"there is no player {player + 1}")
            try:
                game.adjust(player, points, reason)
            except IllegalEvent as e:
                raise TableError(str(e)) from None
            self._publish("adjusted", {"player": player, "points": points, "reason": reason})

    def time_penalty(self, player: int, points: int) -> None:
        """A time penalty decided by the director (the clock's own are applied at the end)."""
        with self._lock, self._recording():
            game, _ = self._require()
            if not 0 <= player < len(game.players) or points < 0:
                raise TableError("a time penalty needs a player and a number of points")
            try:
                game.time_penalty(player, points)
            except IllegalEvent as e:
                raise TableError(str(e)) from None
            self._publish("time_penalty", {"player": player, "points": points})

    def end_game(self, reason: str = "ended by the director") -> None:
        with self._lock, self._recording():
            game, _ = self._require()
            if game.state.over:
                raise TableError("the game is already over")
            self._end_game(reason)

    def judge_words(self, words: Sequence[str]) -> Verdict:
        """The word judge screen: the play as a whole, never which word."""
        try:
            return self.judge.judge(list(words))
        except NotAWord as e:
            raise TableError(str(e)) from None

    # -- time --------------------------------------------------------------------------------

    def tick(self) -> None:
        """Call a few times a second: flags, the hold's 15 seconds, tiles still to be taken back."""
        with self._lock:
            if self.game is None or self.clock is None or self.game.state.over:
                return
            if self._controller is not None:
                try:
                    self._controller.tick()
                except Exception:
                    pass
            if self.removal and self.camera is not None and self.reader is not None \
                    and self.wall() - self._removal_checked >= self.REMOVAL_CHECK_SECONDS:
                self._check_removal()
            flagged = [p for p in range(len(self.game.players)) if self.clock.flagged(p)]
            if flagged:
                # Tried again at every tick until the journal takes it (a disk freed meanwhile).
                try:
                    with self._recording():
                        self._end_game("overtime limit")
                except TableError as e:
                    self._tell(str(e))
                    return
                self._tell(f"{self.game.players[flagged[0]]} is over the overtime limit: the game ends")

    REMOVAL_CHECK_SECONDS = 2.0

    def _check_removal(self) -> None:
        """Look at the board: are the withdrawn phony's tiles off it yet? Say so until they are."""
        assert self.camera is not None and self.reader is not None
        self._removal_checked = self.wall()
        frame = self.camera.read()
        reading = self.reader.read(frame) if frame is not None else None
        if reading is None:
            return
        left = [str(sq) for sq in self._withdrawn_still_there(reading)]
        if not left:
            self.removal = {}
            self._say("the withdrawn tiles were taken back")
            self._publish("removal", {"squares": []})
        else:
            message = "take the withdrawn tiles back: " + ", ".join(sorted(left))
            if not self.messages or self.messages[-1] != message:
                self._say(message)
                self._publish("removal", {"squares": sorted(left)})

    # -- what the page shows -----------------------------------------------------------------

    def gcg(self) -> str:
        game, _ = self._require()
        return write_gcg(record_from_game(game, lexicon=str(self.meta.get("lexicon", ""))))

    def last_play_words(self) -> tuple[list[str], str | None]:
        """The words the last play formed and its notation (([], None) before any play), read
        consistently while the table's thread may be changing the game."""
        with self._lock:
            game = self.game
            lp = game.state.last_play if game is not None else None
            if game is None or lp is None:
                return [], None
            moves = game.state.moves
            return list(lp.words), (moves[-1].text if moves else None)

    def snapshot(self) -> Snapshot:
        """The state as the JSON API gives it (its shape: :class:`~board_pi.table.snapshot.Snapshot`)."""
        with self._lock:
            if self.game is None or self.clock is None:
                return {"game": None, "board": ["." * 15] * 15, "players": [], "turn": None, "moves": [],
                        "unseen": {}, "bag": 0, "over": False, "pending": None, "messages": self.messages}
            g, c = self.game, self.clock
            s = g.state
            snap = c.snapshot()
            last = s.last_play
            players = []
            for i, name in enumerate(g.players):
                players.append({
                    "name": name, "score": s.scores[i], "rack": s.racks[i],
                    "clock": {"remaining_ms": int(round(snap.remaining[i] * 1000)),
                              "overtime_penalty": snap.penalties[i], "running": snap.running == i,
                              "flagged": snap.flagged[i]},
                })
            unseen = s.unseen
            return {
                "game": self.game_id,
                "board": s.board.rows(),
                "premiums": list(g.rules.layout.rows),
                "values": {t: g.rules.tiles.value(t) for t in g.rules.tiles.letters},
                "players": players,
                "turn": None if s.over else s.turn,
                "moves": [{"player": m.player, "text": m.text, "score": m.score, "total": m.total}
                          for m in s.moves],
                "last_play": [str(p.square) for p in last.scored.placements] if last else [],
                "unseen": {t: unseen[t] for t in sorted(unseen)},
                "bag": s.bag,
                "clock": {"phase": snap.phase, "running": snap.running,
                          "hold": None if snap.hold is None else {"by": snap.hold.by, "of": snap.hold.of},
                          "may_draw": snap.may_draw,
                          # The page counts the clocks down by itself between events.
                          "control": {"minutes": c.control.minutes,
                                      "overtime_penalty": c.control.overtime_penalty,
                                      "max_overtime_minutes": c.control.max_overtime_minutes,
                                      "low_time_seconds": c.control.low_time_seconds}},
                "rules": {"challenge": g.rules.challenge.value, "tournament": g.rules.tournament,
                          "lexicon": self.meta.get("lexicon", "")},
                "verdict": self.verdict,
                "pending": self.pending.to_dict() if self.pending else None,
                "removal": sorted(self.removal),
                "messages": list(self.messages),
                "over": s.over,
                "winners": s.winners() if s.over else [],
            }
