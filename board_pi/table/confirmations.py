"""A turn decided from what the camera saw, and what the players confirm on the page.

The table reads the board when a player presses (see :mod:`.table`); what changed on it becomes a
pass, a play, or something the players must confirm: a doubtful reading, an impossible shape, a
blank whose letter the lexicon does not settle. The confirmations are a small state machine over
:class:`~board_pi.table.kinds.PendingKind`: a press or a challenge waits while a play is pending
(:attr:`PendingKind.awaits_play`), ``confirm`` settles a reading, ``set_blanks`` a blank,
``give_racks`` the racks at the end, and ``discard_pending`` drops what waits.
"""

from __future__ import annotations

from typing import Any

from ..clock import ClockError
from ..rules.board import BadCoordinate, Square
from ..rules.codec import event_to_dict
from ..rules.game import IllegalEvent
from ..rules.events import Passed
from ..rules.play import IllegalPlay, Placement, Play, check_placements
from ..rules.tiles import BLANK
from .errors import TableError
from .kinds import Outcome, Pending, PendingKind, PressResult
from .reading import BoardChange, BoardReading, blank_options, placements_with_letters


class Confirmations:
    """The part of :class:`~board_pi.table.table.Table` that decides a turn and takes the players'
    confirmations (a mixin: it works on the table's game, clock and pending state)."""

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

    def _turn_from_change(self, player: int, change: BoardChange) -> PressResult:
        """The turn ``player`` ended (their clock already switched), from what changed on the board."""
        game, _ = self._require()
        s = game.state
        if change.missing:
            names = ", ".join(str(q) for q in change.missing)
            self._say(f"tiles already played are missing from {names}: put them back")
        if not change.new:
            game.pass_turn(player)
            self._reader_commit()
            self._after_turn()
            self._publish("pass", {"player": player})
            return PressResult(Outcome.PASS, f"{game.players[player]} passed")
        tiles = {str(sq): t for sq, t in change.new.items()}
        doubtful = [str(q) for q in change.doubtful]
        try:
            check_placements(s.board, placements_with_letters(change.new, {q: "a" for q in change.new}),
                             game.rules.tiles)
        except IllegalPlay as e:
            doubtful_why: str | None = str(e)
        else:
            doubtful_why = "check the squares marked" if doubtful else None
        # A tile already played that looks gone is reported (above) but does not hold the play
        # up: old tiles stay as committed, and a tile moved elsewhere shows as a new tile anyway.
        if doubtful_why is not None:
            self._set_pending(Pending(PendingKind.READING, player, f"is this the play? {doubtful_why}",
                                      tiles, doubtful))
            self._publish("pending", self.pending.to_dict() if self.pending else {})
            return PressResult(Outcome.PENDING, doubtful_why)
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
                self._set_pending(Pending(PendingKind.BLANK, player, msg, tiles, [str(q) for q in choice.squares],
                                          list(choice.options)))
                self._publish("pending", self.pending.to_dict() if self.pending else {})
                return PressResult(Outcome.PENDING, msg)
            letters = dict(zip(choice.squares, choice.unique))
            self._say(f"blank read as {', '.join(f'{l} on {q}' for q, l in letters.items())}")
        return self._commit(player, placements_with_letters(new, letters))

    def _commit(self, player: int, placements: list[Placement]) -> PressResult:
        game, clock = self._require()
        try:
            scored = game.play_tiles(player, placements)
        except (IllegalEvent, IllegalPlay) as e:
            tiles = {str(p.square): (BLANK if p.is_blank else p.tile) for p in placements}
            self._set_pending(Pending(PendingKind.READING, player, f"this cannot be played: {e}", tiles))
            self._publish("pending", self.pending.to_dict() if self.pending else {})
            return PressResult(Outcome.PENDING, str(e))
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
        return PressResult(Outcome.PLAY, move.text, scored.score, move.text)

    def _reader_commit(self) -> None:
        if self.game is not None:
            self.turns.commit(self.game.state.board.rows())
            # Learning the tiles takes as long as a read: it waits until the score is shown,
            # and runs where the readings run, one at a time.
            self._recorder.after(lambda: self._reads.put(self.turns.learn))

    def _exchange(self, player: int, count: int | None, at: float) -> PressResult:
        game, _ = self._require()
        s = game.state
        n = count if count is not None else s.racks[player]
        if s.bag < game.rules.rack_size:
            return PressResult(Outcome.IGNORED, f"no exchange with {s.bag} tiles in the bag")
        if not self._switch(player, at):
            return PressResult(Outcome.IGNORED, "the clock did not switch: both sides pressed at once")
        try:
            game.exchange(player, n)
        except IllegalEvent as e:
            return PressResult(Outcome.IGNORED, str(e))
        self._after_turn()
        self._publish("exchange", {"player": player, "count": n})
        return PressResult(Outcome.EXCHANGE, f"{game.players[player]} exchanged {n}")

    def _after_turn(self) -> None:
        game, clock = self._require()
        if game.state.scoreless_ended and not game.state.over:
            try:
                clock.end()
            except ClockError:
                pass
            self._set_pending(Pending(PendingKind.RACKS, game.state.turn,
                                      "six scoreless turns: the game is over; enter each rack"))

    def mark_exchange(self, player: int) -> PressResult:
        """A long press: the turn just ended was an exchange, not a pass.

        The count is the player's whole rack unless they correct it on the page.
        """
        with self._lock, self._recorder.action():
            game, _ = self._require()
            if not game.events or not isinstance(game.events[-1], Passed) or game.events[-1].player != player:
                return PressResult(Outcome.IGNORED, "a long press marks an exchange right after a pass")
            n = game.state.racks[player]
            last = game.undo()
            try:
                game.exchange(player, n)
            except IllegalEvent as e:
                game.append(last)  # the pass stands, as it was
                return PressResult(Outcome.PASS, str(e))
            self._say(f"{game.players[player]} exchanged: {n} tiles recorded (correct the count on the page)")
            self._publish("exchange", {"player": player, "count": n})
            return PressResult(Outcome.EXCHANGE, f"{game.players[player]} exchanged {n}")

    def confirm(self, tiles: dict[str, str] | None = None) -> PressResult:
        """Confirm (or correct) the pending reading: ``tiles`` maps squares to letters ('?' blank)."""
        with self._lock, self._recorder.action():
            p = self.pending
            if p is None or not p.kind.awaits_play:
                raise TableError("there is no reading to confirm")
            chosen = dict(p.tiles if tiles is None else tiles)
            game, _ = self._require()
            for k, v in chosen.items():
                # A tile of the game's set ("Ä", "CH"), lower case for a blank played as it, or '?'.
                if not isinstance(v, str) or not (v == BLANK or game.rules.tiles.is_letter(v.upper())):
                    raise TableError(f"square {k}: give a tile of the game's set, or '?' for a blank")
            chosen = {k.upper(): (v if v == BLANK or v.islower() else v.upper()) for k, v in chosen.items()}
            if not chosen:
                try:
                    game.pass_turn(p.player)
                except IllegalEvent as e:
                    raise TableError(str(e)) from None
                self._set_pending(None)
                self._after_turn()
                self._publish("pass", {"player": p.player})
                return PressResult(Outcome.PASS)
            # Lower case means the player already said which letter a blank is.
            return self._place(p.player, chosen)

    def discard_pending(self) -> None:
        """Drop the reading waiting for confirmation (the players will enter the play instead)."""
        with self._lock, self._recorder.action():
            if self.pending is None:
                raise TableError("nothing is waiting for confirmation")
            self._set_pending(None)
            self._publish("pending", {})

    def set_blanks(self, letters: dict[str, str]) -> PressResult:
        """The players say which letter each blank of the pending play stands for."""
        with self._lock, self._recorder.action():
            p = self.pending
            if p is None or p.kind is not PendingKind.BLANK:
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
        with self._lock, self._recorder.action():
            game, _ = self._require()
            try:
                placements = Play.parse(play).placements(game.state.board, game.rules.tiles)
            except (IllegalPlay, BadCoordinate) as e:
                raise TableError(str(e)) from None
            return self._commit(player, placements)

    def record(self, event: Any) -> None:
        """Append a game event entered by hand (a score sheet typed in, a correction)."""
        with self._lock, self._recorder.action():
            game, _ = self._require()
            try:
                game.append(event)
            except IllegalEvent as e:
                raise TableError(str(e)) from None
            self._publish("recorded", event_to_dict(event))

    def give_racks(self, racks: dict[int, str]) -> None:
        """The racks left at the end (needed after six scoreless turns, or with 3-4 players)."""
        with self._lock, self._recorder.action():
            game, _ = self._require()
            try:
                game.finish({int(k): str(v).upper() for k, v in racks.items()})
            except IllegalEvent as e:
                raise TableError(str(e)) from None
            self._set_pending(None)
            self._end_game()
