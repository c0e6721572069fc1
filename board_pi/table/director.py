"""Challenges and the director's controls: a hold, a challenge judged, the game's end, the
clock paused and resumed, a play undone or corrected, points adjusted, penalties given.
"""

from __future__ import annotations

import logging
from typing import Sequence

from ..clock import ClockError
from ..rules.board import BadCoordinate
from ..rules.codec import event_to_dict
from ..rules.game import ChallengeRule, IllegalEvent
from ..rules.events import PlayMade
from ..rules.judge import CannotRule, NotAWord, Verdict, WordJudge
from ..rules.play import IllegalPlay, Play
from .errors import TableError
from .kinds import Outcome, Pending, PendingKind, PressResult

log = logging.getLogger("board_pi.table")


class DirectorActions:
    """The part of :class:`~board_pi.table.table.Table` for challenges and the director (a mixin:
    it works on the table's game, clock and pending state)."""

    def hold(self, player: int) -> None:
        with self._lock, self._recorder.action():
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
        with self._lock, self._recorder.action():
            game, clock = self._require()
            lp = game.state.last_play
            if self._turn is not None and not self._turn.done:
                raise TableError("the board is being read: challenge once the play is shown")
            if lp is None:
                raise TableError("there is no play to challenge")
            if self.pending is not None and self.pending.kind.awaits_play:
                raise TableError("confirm the play waiting on the page first")
            if game.rules.challenge is ChallengeRule.VOID:
                raise TableError("under the void rule every play was judged as it was made")
            if player == lp.player:
                raise TableError("a player cannot challenge their own play")
            try:
                judged: bool | None = self.judge.judge(lp.words).acceptable
            except (NotAWord, CannotRule) as e:  # no word list, or none with this set's letters
                if acceptable is None:
                    raise TableError(f"the word judge cannot rule on this play: {e}") from None
                judged = None
            try:
                clock.challenge()
            except ClockError:
                pass  # the clock may already be stopped (out-play); the challenge goes on
            verdict = judged if acceptable is None else acceptable
            assert verdict is not None
            if judged is not None and verdict != judged:
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
        with self._lock, self._recorder.action():
            game, clock = self._require()
            if game.state.going_out is None:
                raise TableError("nobody has gone out")
            try:
                clock.accept_out_play()
            except ClockError:
                clock.end()
            self._finish_out_play()
            return PressResult(Outcome.END, "the game is over")

    def _finish_out_play(self) -> None:
        game, _ = self._require()
        try:
            game.finish()
        except IllegalEvent as e:  # 3-4 players: the racks must be given
            self._set_pending(Pending(PendingKind.RACKS, game.state.turn, str(e)))
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
        self._recorder.game_finished(self._archive)
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

    def pause(self) -> None:
        with self._lock, self._recorder.action():
            _, clock = self._require()
            try:
                clock.pause()
            except ClockError as e:
                raise TableError(str(e)) from None
            self._publish("paused")

    def resume_clock(self) -> None:
        with self._lock, self._recorder.action():
            _, clock = self._require()
            try:
                clock.resume()
            except ClockError as e:
                raise TableError(str(e)) from None
            self._publish("resumed")

    def undo(self) -> str:
        with self._lock, self._recorder.action():
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
        with self._lock, self._recorder.action():
            game, _ = self._require()
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
            return PressResult(Outcome.PLAY, move.text, move.score, move.text)

    def use_judge(self, judge: WordJudge) -> None:
        """Judge with another lexicon from now on (the director chose one for a new game)."""
        with self._lock:
            self.judge = judge
            self.settings.lexicon = judge.lexicon.name

    def adjust(self, player: int, points: int, reason: str) -> None:
        with self._lock, self._recorder.action():
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
        with self._lock, self._recorder.action():
            game, _ = self._require()
            if not 0 <= player < len(game.players) or points < 0:
                raise TableError("a time penalty needs a player and a number of points")
            try:
                game.time_penalty(player, points)
            except IllegalEvent as e:
                raise TableError(str(e)) from None
            self._publish("time_penalty", {"player": player, "points": points})

    def end_game(self, reason: str = "ended by the director") -> None:
        with self._lock, self._recorder.action():
            game, _ = self._require()
            if game.state.over:
                raise TableError("the game is already over")
            self._end_game(reason)

    def judge_words(self, words: Sequence[str]) -> Verdict:
        """The word judge screen: the play as a whole, never which word."""
        try:
            return self.judge.judge(list(words))
        except (NotAWord, CannotRule) as e:
            raise TableError(str(e)) from None
