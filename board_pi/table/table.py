"""The table: a clock press becomes a read board, a scored play, and events in the journal.

One :class:`Table` runs one game at a time. It is driven by button events (from the GPIO or
Pico clock, or simulated by the demo), by the status page (confirmations, the director's
controls), and by a periodic :meth:`Table.tick`. Every change is appended to the journal before
it is published to the page.

The flow of a turn: the player lays tiles and presses their side of the clock. The clock switches
at once; the table then takes frames until the board is still, reads it (with its lock released:
a hold, a pause or the page are answered meanwhile), and compares it with the committed board. New
tiles in one line make a play, scored by the rules engine; no new tiles make a pass (or an exchange
if the player marked one). A doubtful reading, an impossible shape, or a blank whose letter the
lexicon does not settle is put to the players to confirm on the page; nothing is guessed silently.

The table's collaborators, each with one job:

- :class:`~.turns.TurnReader` waits for a still board and reads it, holding no lock;
- :class:`~.recorder.Recorder` journals an action whole or takes it back whole;
- :class:`~.worker.Worker` serves the clock's button events on one thread, so a backend's
  callback returns at once;
- :class:`~.confirmations.Confirmations` decides a turn and takes the players' confirmations
  (the pending kinds are :class:`~.kinds.PendingKind`); :class:`~.director.DirectorActions`
  has the challenges and the director's controls; :func:`~.view.snapshot` is the page's view.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from ..clock import ClockController, ClockError, GameClock, TimeControl
from ..rules.board import Board
from ..rules.codec import event_from_dict, rules_from_dict, rules_to_dict
from ..rules.game import ChallengeRule, Game, GameRules
from ..rules.events import Event
from ..rules.gcg import record_from_game, write_gcg
from ..rules.judge import WordJudge
from .bus import EventBus
from .confirmations import Confirmations
from .director import DirectorActions
from .errors import NotRecorded, TableError
from .kinds import Outcome, Pending, PendingKind, PressResult
from .reading import BoardReading, compare
from .recorder import Recorder
from .snapshot import Snapshot
from .store import Journal, JournalDamaged, JournalError, StoredGame
from .turns import BoardReader, Camera, Settings, Settled, TurnReader
from .view import snapshot as _snapshot
from ..worker import Worker

# Kept importable from here, where the web and the CLI have always found them.
__all__ = ["BoardReader", "Camera", "NotRecorded", "Outcome", "Pending", "PendingKind", "PressResult",
           "Settings", "Table", "TableError", "Turn"]

log = logging.getLogger("board_pi.table")

UNREAD = ("the table stopped before this turn's board was read: confirm the play the camera shows, "
          "or enter it")


@dataclass
class Turn:
    """A press whose board is being read: the clock has switched, the play is not known yet."""

    player: int
    at: float
    game_id: int | None
    events: int  # how many events the game had at the press
    last: Event | None  # the last of them (the very object: an undo and a new event differ)
    board: Board  # the committed board at the press
    challenger: int | None = None  # who pressed challenge while the board was read
    done: bool = False


class Table(Confirmations, DirectorActions):
    def __init__(self, journal: Journal, judge: WordJudge, *, camera: Camera | None = None,
                 reader: BoardReader | None = None, settings: Settings | None = None,
                 time_source: Callable[[], float] = time.monotonic,
                 wall_time: Callable[[], float] = time.time,
                 camera_time: Callable[[], float] | None = None,
                 outputs: Any | None = None, on_finished: Callable[[str, dict[str, Any]], Any] | None = None,
                 bus: EventBus | None = None, archive: Any | None = None) -> None:
        self.journal = journal
        self.judge = judge
        # The still-board wait is timed by the camera's own time (a simulated camera's frames, not
        # how long a loaded machine takes to draw them); real time by default.
        self.turns = TurnReader(camera, reader, settings or Settings(), camera_time or wall_time)
        self.now = time_source
        self.wall = wall_time
        self.outputs = outputs  # lights, buzzer, displays: a ClockOutputs (show, beep, verdict)
        self._controller: ClockController | None = None
        self.on_finished = on_finished  # called with the GCG text and meta of each finished game
        self.bus = bus or EventBus()
        self.archive = archive  # finished games kept as GCG files (table.archive.GameArchive)
        self._lock = threading.RLock()
        self._recorder = Recorder(self)
        self._buttons = Worker(self._take_event, "board-pi clock events")
        self._reads = Worker(lambda job: job(), "board-pi turn reader")  # readings, in press order
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
        self._turn: Turn | None = None  # a press whose board is being read
        # That press as the journal keeps it until its board is read: a table that stops in
        # between finds the turn waiting on the page, not lost (see ``journaled_pending``).
        self.unread: Pending | None = None
        self._removal_checked = float("-inf")

    # The camera, the square reader and the settings belong to the reader of turns.
    camera = property(lambda self: self.turns.camera, lambda self, v: setattr(self.turns, "camera", v))
    reader = property(lambda self: self.turns.reader, lambda self, v: setattr(self.turns, "reader", v))
    settings = property(lambda self: self.turns.settings, lambda self, v: setattr(self.turns, "settings", v))
    timings = property(lambda self: self.turns.timings)  # read, settle, decide: seconds of the last press

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
            self.unread = None
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
        self.pending, self.unread = pending, None
        self.removal, self.verdict = {}, None

    # -- the plumbing of an action -------------------------------------------------------------

    def _require(self) -> tuple[Game, GameClock]:
        if self.game is None or self.clock is None:
            raise TableError("no game: start a new game first")
        return self.game, self.clock

    def _set_pending(self, pending: Pending | None) -> None:
        self.pending = pending  # recorded with the action (see Recorder)

    @property
    def journaled_pending(self) -> Pending | None:
        """What the journal keeps as waiting on the page: the pending confirmation, or else a
        turn whose clock has switched but whose board is not read yet."""
        return self.pending if self.pending is not None else self.unread

    def _publish(self, type: str, data: dict[str, Any] | None = None) -> None:
        if self._recorder.publish(type, data or {}):  # told once the action is recorded
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

    # -- a press -----------------------------------------------------------------------------

    def press(self, player: int, exchange: bool = False, exchange_count: int | None = None,
              at: float | None = None) -> PressResult:
        """``player`` presses their side of the clock: their turn ends and the board is read.

        The clock switches at once; the board is read with the table's lock released, and the
        turn is decided once it is read. Returns what the press did.
        """
        begun = self._begin_press(player, exchange, exchange_count, at)
        if isinstance(begun, Turn):
            return self._read_turn(begun)
        return begun

    def _begin_press(self, player: int, exchange: bool = False, exchange_count: int | None = None,
                     at: float | None = None) -> PressResult | Turn:
        """The part of a press that cannot wait: the checks and the clock's switch (recorded)."""
        with self._lock:
            begun = self._switch_for_press(player, exchange, exchange_count, at)
            if isinstance(begun, Turn):
                self._turn = begun  # once the switch is recorded
                try:
                    with self._recorder.action(quiet=True):
                        self.unread = Pending(PendingKind.REREAD, player, UNREAD)
                except NotRecorded:
                    pass  # a full disk took the switch in place but has no room for this note
            return begun

    def _switch_for_press(self, player: int, exchange: bool, exchange_count: int | None,
                          at: float | None) -> PressResult | Turn:
        with self._recorder.action():
            game, clock = self._require()
            at = self.now() if at is None else at
            s = game.state
            if s.over:
                return PressResult(Outcome.IGNORED, "the game is over")
            if self._turn is not None:
                return PressResult(Outcome.IGNORED, "the board is being read: wait for the play to show")
            if clock.phase == "ready":
                clock.start(s.turn, at=at)
                self._publish("clock", {"started": s.turn})
                return PressResult(Outcome.STARTED, f"{game.players[s.turn]}'s clock started")
            if clock.phase == "out_play" and player != s.going_out:
                return self.accept_out_play(player)
            if clock.running != player:
                return PressResult(Outcome.IGNORED, "that side's clock is not running")
            if self.pending is not None and self.pending.kind.awaits_play:
                return PressResult(Outcome.IGNORED, "confirm the last play on the page first")
            if s.going_out is not None or s.scoreless_ended:
                return PressResult(Outcome.IGNORED, "the game is at its end")
            if exchange:
                return self._exchange(player, exchange_count, at)
            if not self._switch(player, at):
                return PressResult(Outcome.IGNORED, "the clock did not switch: both sides pressed at once")
            self._publish("clock", {"switched": player})
            return Turn(player, at, self.game_id, len(game.events), game.events[-1] if game.events else None,
                        s.board)

    def _switch(self, player: int, at: float) -> bool:
        """Press the clock for ``player``; False when the clock does not switch (its press guard:
        both buttons hit at once switch once), in which case the turn is not taken either."""
        _, clock = self._require()
        return clock.press(player, at=at)

    def _read_turn(self, turn: Turn) -> PressResult:
        """Wait for a still board and read it (no lock held), then decide the turn."""
        t0 = time.perf_counter()
        try:
            settled = self.turns.settle(lambda reading: self._change_key(turn.board, reading))
        except Exception as e:  # a camera or reader fault: the turn is entered on the page instead
            log.exception("the board could not be read")
            settled = Settled(None, why=f"the board could not be read ({type(e).__name__}: {e}); "
                                        "press again or enter the play on the page")
        t1 = time.perf_counter()
        with self._lock:
            turn.done = True
            try:
                with self._recorder.action():
                    self.unread = None  # read now: the turn is decided, or waits on the page
                    result = self._decide_turn(turn, settled)
            except NotRecorded:
                # The switch was recorded at the press; the turn read since could not be.
                text = ("the clock switched, but the turn read was not recorded (the journal cannot be "
                        "written): once there is room, enter the turn on the page")
                self._tell(text)
                raise NotRecorded(text) from None
            finally:
                if self._turn is turn:
                    self._turn = None
            # From the board being still (the last frame read) to the score: read it, decide.
            self.timings.update(settle=t1 - t0, decide=time.perf_counter() - t1)
            return result

    def _decide_turn(self, turn: Turn, settled: Settled) -> PressResult:
        game = self.game
        if (game is None or self.game_id != turn.game_id or len(game.events) != turn.events
                or (game.events[-1] if game.events else None) is not turn.last or self.pending is not None):
            message = "the game changed while the board was read: nothing was taken from the reading"
            self._tell(message)
            return PressResult(Outcome.IGNORED, message)
        if settled.reading is None:
            if settled.why.startswith("the board could not be read"):
                self._tell(settled.why)
            self._set_pending(Pending(PendingKind.REREAD, turn.player, settled.why))
            self._publish("pending", self.pending.to_dict() if self.pending else {})
            result = PressResult(Outcome.PENDING, settled.why)
        else:
            self.last_frame, self.last_reading = settled.frame, settled.reading
            change = compare(game.state.board, settled.reading, self.settings.doubt_below)
            change = self._ignore_withdrawn(settled.reading, change)
            result = self._turn_from_change(turn.player, change)
        if turn.challenger is not None:
            self._judge_held_challenge(turn.challenger, result)
        return result

    def _change_key(self, board: Board, reading: BoardReading) -> tuple[Any, ...]:
        c = compare(board, reading, self.settings.doubt_below)
        return tuple(sorted(c.new.items())), c.missing, c.doubtful

    def _judge_held_challenge(self, challenger: int, result: PressResult) -> None:
        """A challenge pressed while the board was read stopped the clocks then; now the play is
        known, it is judged. Without a play there is nothing to judge: the clocks go on."""
        if result.outcome is Outcome.PLAY:
            try:
                self.challenge(challenger)
            except TableError as e:
                self._tell(f"the challenge was not judged: {e}")
            return
        clock = self.clock
        if clock is not None and clock.phase == "challenge":
            clock.resolve_challenge(False)  # the challenger's turn, as if nothing was challenged
        self._tell("the challenge was not judged: no play was read. Challenge again once the play "
                   "is confirmed")

    # -- the clock's buttons -------------------------------------------------------------------

    def handle(self, event: Any) -> None:
        """A button event from a clock backend (``kind``, ``player``, ``timestamp``).

        Queued and taken by the table's own worker thread: the backend's thread returns at once.
        A press switches the clock there and then, and its board is read on another thread, so a
        hold, a pause or a challenge pressed during a reading is taken at once.
        """
        self._buttons.put(event)

    def wait_idle(self, timeout: float = 30.0) -> bool:
        """Wait until every button event so far is taken and every board read (tests, shutdown)."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if not (self._buttons.join(max(left, 0)) and self._reads.join(max(deadline - time.monotonic(), 0))):
                return False
            if self._buttons.idle and self._reads.idle:
                return True

    def close(self) -> None:
        """Stop the table's threads (once what is queued is done), and wait a while for what
        the reader learnt of the tiles to reach the disk."""
        self._buttons.stop()
        self._reads.join(10.0)  # the last play's reading, and its learning queued behind it
        self._reads.stop()
        if not self.turns.flush(10.0):
            log.warning("the table's learnt tiles were not all written within 10 s")

    def _take_event(self, event: Any) -> None:
        kind, player, at = getattr(event, "kind", None), getattr(event, "player", None), \
            getattr(event, "timestamp", None)
        self._guarded(str(kind), lambda: self._dispatch(kind, player, at))

    def _guarded(self, kind: str, action: Callable[[], Any]) -> None:
        try:
            action()
        except TableError as e:
            with self._lock:
                self._tell(str(e))
        except Exception as e:  # a fault of ours must not end the clock's reader thread
            log.exception("the table could not take the clock's %s event", kind)
            with self._lock:
                self._tell(f"the {kind} was not taken ({type(e).__name__}: {e}); press again or "
                           "use the page")

    def _dispatch(self, kind: Any, player: Any, at: Any) -> None:
        if kind == "press" and player is not None:
            begun = self._begin_press(player, at=at)
            if isinstance(begun, Turn):
                turn = begun
                self._reads.put(lambda: self._guarded("press", lambda: self._read_turn(turn)))
        elif kind == "long_press" and player is not None:
            # It marks the turn its press ended: taken once that turn's board is read.
            self._reads.put(lambda: self._guarded("long press", lambda: self.mark_exchange(player)))
        elif kind == "pause" and self.clock is not None:
            self.resume_clock() if self.clock.phase == "paused" else self.pause()
        elif kind == "hold" and self.clock is not None and self.clock.running is not None:
            if self.clock.hold is not None:
                with self._lock, self._recorder.action():
                    self.clock.release_hold()
                    self._publish("hold_released")
            else:
                self.hold(self.clock.running)
        elif kind == "challenge" and self.game is not None:
            if not self._hold_challenge_while_reading():
                lp = self.game.state.last_play
                if lp is not None:
                    self.challenge((lp.player + 1) % len(self.game.players))

    def _hold_challenge_while_reading(self) -> bool:
        """A challenge pressed while a turn's board is read: the clocks stop now, and the play is
        judged once it is read. False when no board is being read."""
        with self._lock, self._recorder.action():
            turn = self._turn
            if turn is None or turn.done or self.game is None:
                return False
            _, clock = self._require()
            if self.game.rules.challenge is ChallengeRule.VOID:
                raise TableError("under the void rule every play was judged as it was made")
            try:
                clock.challenge()
            except ClockError as e:
                raise TableError(str(e)) from None
            turn.challenger = (turn.player + 1) % len(self.game.players)
            self._publish("challenge", {"player": turn.challenger, "judged": "once the play is read"})
            return True

    # -- time --------------------------------------------------------------------------------

    REMOVAL_CHECK_SECONDS = 2.0

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
            look = (bool(self.removal) and self.turns.can_read and self._turn is None
                    and self.wall() - self._removal_checked >= self.REMOVAL_CHECK_SECONDS)
            if look:
                self._removal_checked = self.wall()
            flagged = [p for p in range(len(self.game.players)) if self.clock.flagged(p)]
            if flagged:
                # Tried again at every tick until the journal takes it (a disk freed meanwhile).
                try:
                    with self._recorder.action():
                        self._end_game("overtime limit")
                except TableError as e:
                    self._tell(str(e))
                    return
                self._tell(f"{self.game.players[flagged[0]]} is over the overtime limit: the game ends")
                return
        if look:
            self._check_removal(self.turns.look())  # a frame read with the lock released

    def _check_removal(self, reading: BoardReading | None) -> None:
        """Are the withdrawn phony's tiles off the board yet? Say so until they are."""
        if reading is None:
            return
        with self._lock:
            if not self.removal:
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
            return _snapshot(self)
