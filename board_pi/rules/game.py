"""The game as an append-only list of events, and the state derived from it.

Nothing here is stored twice: the board, the scores, whose turn it is, how many tiles each rack
and the bag hold, and which tiles are unseen all follow from the events. The device cannot see
the racks, but it knows their sizes and the unseen tiles (every tile not on the board), so once
the bag is empty it can settle the end-of-game rack points itself.

>>> g = Game(["Ann", "Bob"])
>>> g.play(0, "8D WINDY").score
32
>>> g.play(1, "7C GALE").score
16
>>> g.state.scores, g.state.turn, g.state.bag
([32, 16], 0, 77)
"""

from __future__ import annotations

import enum
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Callable, Iterable, Sequence

from .events import (ChallengeBonus, ChallengeJudged, EndRackPoints, Event, Exchanged,
                     GameEnded, Passed, PhonyWithdrawn, PlayMade, RackPenalty, ScoreAdjusted, TimePenalty,
                     TurnLost)
from .board import Board, Layout, STANDARD, write_cell
from .play import IllegalPlay, Placement, Play, play_notation
from .scoring import BINGO_BONUS, RACK_SIZE, ScoredPlay, score_play
from .tiles import BLANK, ENGLISH, BadTiles, TileSet


class IllegalEvent(ValueError):
    """An event the rules do not allow now (wrong turn, nothing to challenge, game over...)."""


class PlayRefused(IllegalEvent):
    """Under the void rule, a play whose words are not all acceptable is refused: play again."""


class ChallengeRule(enum.Enum):
    VOID = "void"            # every play is judged as it is made; a phony is refused
    SINGLE = "single"        # challenging is free
    DOUBLE = "double"        # an unsuccessful challenger loses their next turn
    FIVE_POINTS = "five_points"  # an unsuccessful challenge gives the player 5 points
    TEN_POINTS = "ten_points"    # ... or 10 points

    @property
    def bonus(self) -> int:
        return {"five_points": 5, "ten_points": 10}.get(self.value, 0)


@dataclass(frozen=True)
class GameRules:
    """What a game is played with and by. Tournament games are for 2 players."""

    challenge: ChallengeRule = ChallengeRule.SINGLE
    challenge_per_word: bool = False  # the 5/10-point bonus counts once per word formed
    tournament: bool = True
    tiles: TileSet = ENGLISH
    layout: Layout = STANDARD
    rack_size: int = RACK_SIZE
    bingo_bonus: int = BINGO_BONUS
    max_scoreless_turns: int = 6


# --- state ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class LastPlay:
    """What a challenge or a withdrawal needs to know about the most recent play."""

    player: int
    scored: ScoredPlay
    drawn: int
    scoreless_before: int
    event_index: int
    judged: bool = False  # a verdict has been given: the play stands or has gone, once

    @property
    def words(self) -> list[str]:
        """The words formed, in upper case (a blank reads as its letter; ``[CH]`` one tile)."""
        return [w.word for w in self.scored.words]


@dataclass(frozen=True)
class MoveLine:
    """One line of the score sheet: ``8D QUITE 48``, a pass, an exchange, a withdrawal..."""

    player: int
    text: str
    score: int
    total: int
    event_index: int


@dataclass
class GameState:
    """Everything that follows from the events so far."""

    players: list[str]
    rules: GameRules
    board: Board
    scores: list[int]
    racks: list[int]
    bag: int
    turn: int = 0
    scoreless: int = 0
    last_play: LastPlay | None = None
    going_out: int | None = None  # who played their last tile; the play may still be challenged
    over: bool = False
    end_reason: str = ""
    scores_before_racks: list[int] | None = None
    settled: set[int] = field(default_factory=set)  # players whose rack points are in
    skip: Counter[int] = field(default_factory=Counter)
    """Lost turns still to be taken, by player (casual games: a challenger who is not next to play
    loses their next turn; one who challenges again before it comes loses the one after too)."""
    moves: list[MoveLine] = field(default_factory=list)

    @property
    def unseen(self) -> Counter[str]:
        """Tiles not on the board (in the bag or on racks); blanks as ``?``."""
        bag = self.rules.tiles.full_bag()
        for _, t in self.board.tiles():
            bag[TileSet.rack_tile(t)] -= 1
        return +bag

    @property
    def scoreless_ended(self) -> bool:
        return self.scoreless >= self.rules.max_scoreless_turns

    def winners(self) -> list[int]:
        """The player(s) with the top score; casual ties go to the higher score before racks."""
        best = max(self.scores)
        top = [i for i, s in enumerate(self.scores) if s == best]
        if len(top) > 1 and not self.rules.tournament and self.scores_before_racks:
            pre = max(self.scores_before_racks[i] for i in top)
            top = [i for i in top if self.scores_before_racks[i] == pre]
        return top


class Game:
    """A game: players, rules, and the events so far. Methods append events; ``state`` follows.

    ``judge`` is the word judge (``words -> acceptable``) used for challenges and the void rule.
    """

    def __init__(self, players: Sequence[str], rules: GameRules = GameRules(),
                 judge: Callable[[list[str]], bool] | None = None,
                 events: Iterable[Event] = ()) -> None:
        if not 2 <= len(players) <= 4:
            raise ValueError("a game needs 2 to 4 players")
        if rules.tournament and len(players) != 2:
            raise ValueError("tournament games are for 2 players; use casual rules for 3 or 4")
        self.players = list(players)
        self.rules = rules
        self.judge = judge
        self.events: list[Event] = []
        self.state = self._initial_state()
        for e in events:
            self.append(e)

    def _initial_state(self) -> GameState:
        n = len(self.players)
        total = self.rules.tiles.total
        racks = [min(self.rules.rack_size, max(0, total - i * self.rules.rack_size)) for i in range(n)]
        return GameState(list(self.players), self.rules, Board(self.rules.layout), [0] * n, racks,
                         total - sum(racks))

    # -- appending events ----------------------------------------------------------------

    def append(self, event: Event) -> None:
        """Apply one event (checked against the rules first); raises IllegalEvent."""
        _apply(self.state, event, len(self.events))
        self.events.append(event)

    def rebuild(self) -> GameState:
        """The state derived afresh from the events (equals ``state``; used by tests and undo)."""
        s = self._initial_state()
        for i, e in enumerate(self.events):
            _apply(s, e, i)
        return s

    def reset(self, events: Sequence[Event]) -> None:
        """Go back to exactly ``events`` (a change that could not be kept is taken back whole)."""
        self.events = list(events)
        self.state = self.rebuild()

    def truncate(self, n: int) -> None:
        """Keep the first ``n`` events only (an action that could not be recorded is cut off).

        >>> g = Game(["Ann", "Bob"])
        >>> g.pass_turn(0); g.pass_turn(1); g.truncate(1)
        >>> len(g.events), g.state.turn
        (1, 1)
        """
        if not 0 <= n <= len(self.events):
            raise IllegalEvent(f"cannot keep {n} of {len(self.events)} events")
        if n < len(self.events):
            del self.events[n:]
            self.state = self.rebuild()

    def undo(self) -> Event:
        """Take the last event back (a director's correction)."""
        if not self.events:
            raise IllegalEvent("there is nothing to undo")
        e = self.events.pop()
        self.state = self.rebuild()
        return e

    # -- the moves a table makes ---------------------------------------------------------

    def preview(self, play: Play | str) -> ScoredPlay:
        """Score a play without making it (raises IllegalPlay)."""
        play = Play.parse(play) if isinstance(play, str) else play
        b = self.state.board
        return score_play(b, play.placements(b, self.rules.tiles), self.rules.tiles,
                          self.rules.bingo_bonus, self.rules.rack_size)

    def play(self, player: int, play: Play | str) -> ScoredPlay:
        """Make a play; under the void rule it is judged first and refused if not acceptable."""
        play = Play.parse(play) if isinstance(play, str) else play
        if self.rules.challenge is ChallengeRule.VOID:
            scored = self.preview(play)
            if self.judge is None:
                raise IllegalEvent("the void rule needs a word judge")
            if not self.judge([w.word for w in scored.words]):
                raise PlayRefused("the play is not acceptable: take it back and play again")
        self.append(PlayMade(player, play))
        assert self.state.last_play is not None
        return self.state.last_play.scored

    def play_tiles(self, player: int, placements: Sequence[Placement]) -> ScoredPlay:
        """Make a play given as new tiles on squares (as the camera sees them)."""
        return self.play(player, play_notation(self.state.board, placements, self.rules.tiles))

    def pass_turn(self, player: int) -> None:
        self.append(Passed(player))

    def exchange(self, player: int, count: int, tiles: str = "") -> None:
        self.append(Exchanged(player, count, tiles))

    def challenge(self, challenger: int, acceptable: bool | None = None) -> bool:
        """Challenge the last play; the judge decides unless ``acceptable`` is given.

        Appends the verdict and what the challenge rule makes of it; returns the verdict.
        """
        s = self.state
        lp = s.last_play
        if lp is None:
            raise IllegalEvent("there is no play to challenge")
        if challenger == lp.player:
            raise IllegalEvent("a player cannot challenge their own play")
        if self.rules.challenge is ChallengeRule.VOID:
            raise IllegalEvent("under the void rule plays are judged as they are made")
        if lp.judged:  # checked before asking the judge, so the log holds one adjudication
            raise IllegalEvent("the last play has already been judged")
        if acceptable is None:
            if self.judge is None:
                raise IllegalEvent("no word judge is set up")
            acceptable = self.judge(lp.words)
        self.append(ChallengeJudged(challenger, acceptable))
        if not acceptable:
            self.append(PhonyWithdrawn(lp.player))
        elif self.rules.challenge is ChallengeRule.DOUBLE:
            # An event either way, so rebuild() and undo() see it (a casual game's third player
            # loses their next turn when it comes).
            self.append(TurnLost(challenger))
        elif self.rules.challenge.bonus:
            n = len(lp.words) if self.rules.challenge_per_word else 1
            self.append(ChallengeBonus(lp.player, self.rules.challenge.bonus * n))
        return acceptable

    def time_penalty(self, player: int, points: int) -> None:
        if points > 0:
            self.append(TimePenalty(player, points))

    def finish(self, racks: dict[int, str] | None = None) -> list[Event]:
        """Settle the end of the game: rack points after going out, or the six-scoreless rule.

        In a two-player game the racks follow from the unseen tiles; with more players, or after
        six scoreless turns with tiles in the bag, the players' racks must be given.
        """
        s = self.state
        if s.over:
            raise IllegalEvent("the game is already over")
        tiles = self.rules.tiles
        unseen = s.unseen
        added: list[Event] = []
        if s.going_out is not None:
            out = s.going_out
            others = [i for i in range(len(self.players)) if i != out]
            if racks is None:
                if len(others) != 1:
                    raise IllegalEvent("with more than two players, the racks left must be given")
                racks = {others[0]: tiles.write(tiles.sort(unseen.elements()))}
            _check_racks(tiles, racks, others, unseen, exact=True)
            if self.rules.tournament:
                rack = racks[others[0]]
                added.append(EndRackPoints(out, rack, 2 * tiles.rack_value(rack)))
            else:
                # Joined as tiles, not text: Spanish "AC" + "HE" is not A CH E.
                every = tiles.write(t for o in others for t in rack_tiles(tiles, racks[o]))
                added.append(EndRackPoints(out, every, tiles.rack_value(every)))
                added += [RackPenalty(o, racks[o], tiles.rack_value(racks[o])) for o in others]
        elif s.scoreless_ended:
            everyone = list(range(len(self.players)))
            if racks is None:
                raise IllegalEvent("six scoreless turns: each player's rack must be given")
            _check_racks(tiles, racks, everyone, unseen, exact=s.bag == 0)
            added += [RackPenalty(p, racks[p], tiles.rack_value(racks[p])) for p in everyone]
        else:
            raise IllegalEvent("the game is not at its end: nobody has gone out and there were "
                               f"{s.scoreless} scoreless turns, not {self.rules.max_scoreless_turns}")
        for e in added:
            self.append(e)
        return added

    def adjust(self, player: int, points: int, reason: str) -> None:
        """A director's score correction (kept in the record with its reason)."""
        self.append(ScoreAdjusted(player, points, reason))

    def end(self, reason: str) -> None:
        """End the game now (director's decision, overtime limit)."""
        self.append(GameEnded(reason))


def rack_tiles(tiles: TileSet, text: str) -> list[str]:
    """A rack given as text, as tiles (IllegalEvent naming what is not a tile of the set)."""
    try:
        return list(tiles.rack(text))
    except BadTiles as e:
        raise IllegalEvent(f"rack {e}") from None


def _check_racks(tiles: TileSet, racks: dict[int, str], who: list[int], unseen: Counter[str],
                 exact: bool) -> None:
    missing = [p for p in who if p not in racks]
    if missing:
        raise IllegalEvent(f"the rack of player {missing[0] + 1} is needed")
    held = Counter(t for p in who for t in rack_tiles(tiles, racks[p]))
    if exact and held != unseen:
        raise IllegalEvent("the racks given do not match the unseen tiles "
                           f"({tiles.write(tiles.sort(unseen.elements()))})")
    if not exact and held - unseen:
        raise IllegalEvent("the racks given hold tiles that are not unseen: "
                           f"{tiles.write(tiles.sort((held - unseen).elements()))}")


# --- the state machine ----------------------------------------------------------------------


def _next_turn(s: GameState, player: int) -> None:
    n = len(s.players)
    t = (player + 1) % n
    while s.skip[t] > 0:  # a casual game's lost turn, taken when it comes round
        s.skip[t] -= 1
        if not s.skip[t]:
            del s.skip[t]
        s.scoreless += 1
        t = (t + 1) % n
    s.turn = t


def _require_turn(s: GameState, player: int, what: str) -> None:
    if s.over:
        raise IllegalEvent(f"the game is over: no {what}")
    if s.going_out is not None:
        raise IllegalEvent(f"{s.players[s.going_out]} has gone out: no {what} (only a challenge "
                           "or the end of the game)")
    if s.scoreless_ended:
        raise IllegalEvent(f"six scoreless turns have ended the game: no {what}")
    if player != s.turn:
        raise IllegalEvent(f"it is {s.players[s.turn]}'s turn, not {_name(s, player)}'s")


def _name(s: GameState, p: int) -> str:
    return s.players[p] if 0 <= p < len(s.players) else f"player {p + 1}"


def _apply(s: GameState, e: Event, index: int) -> None:
    """Apply one event to the state in place, or raise IllegalEvent leaving it unchanged."""
    tiles = s.rules.tiles
    n = len(s.players)
    player = getattr(e, "player", getattr(e, "challenger", 0))
    if not 0 <= player < n:
        raise IllegalEvent(f"there is no player {player + 1}")

    if isinstance(e, PlayMade):
        _require_turn(s, e.player, "play")
        try:
            placements = e.play.placements(s.board, tiles)
            scored = score_play(s.board, placements, tiles, s.rules.bingo_bonus, s.rules.rack_size)
        except IllegalPlay as err:
            raise IllegalEvent(str(err)) from None
        if len(placements) > s.racks[e.player]:
            raise IllegalEvent(f"{e.play} places {len(placements)} tiles but "
                               f"{_name(s, e.player)} holds only {s.racks[e.player]}")
        unseen = s.unseen
        used = Counter(TileSet.rack_tile(p.tile) for p in placements)
        short = used - unseen
        if short:
            t = next(iter(short))
            what = "blanks" if t == BLANK else f"{t} tiles"
            raise IllegalEvent(f"{e.play} would put more {what} on the board than the set has "
                               f"({tiles.count(t)})")
        for p in placements:
            s.board[p.square] = p.tile
        k = len(placements)
        draw = min(k, s.bag)
        s.racks[e.player] += draw - k
        s.bag -= draw
        s.scores[e.player] += scored.score
        s.last_play = LastPlay(e.player, scored, draw, s.scoreless, index)
        s.scoreless = 0 if scored.score else s.scoreless + 1
        s.moves.append(MoveLine(e.player, f"{scored.line.coordinate} {_sheet_word(s.board, scored)}",
                                scored.score, s.scores[e.player], index))
        if s.racks[e.player] == 0 and s.bag == 0:
            s.going_out = e.player
        _next_turn(s, e.player)

    elif isinstance(e, TurnLost) and e.player != s.turn and not s.over:
        # A challenger who is not next to play (casual games): their next turn is skipped.
        if s.last_play is None or e.player == s.last_play.player:
            raise IllegalEvent(f"{_name(s, e.player)} has not challenged the last play")
        s.skip[e.player] += 1

    elif isinstance(e, (Passed, TurnLost)):
        if s.going_out is not None and e.player == s.turn and not s.over:
            # After an out-play the other player's pass (or lost turn) accepts the play.
            s.scoreless += 1
            s.last_play = None  # accepted: it can no longer be challenged
            s.moves.append(MoveLine(e.player, "lost turn" if isinstance(e, TurnLost) else "pass",
                                    0, s.scores[e.player], index))
            _next_turn(s, e.player)
            return
        _require_turn(s, e.player, "pass")
        s.scoreless += 1
        s.last_play = None
        s.moves.append(MoveLine(e.player, "lost turn" if isinstance(e, TurnLost) else "pass", 0,
                                s.scores[e.player], index))
        _next_turn(s, e.player)

    elif isinstance(e, Exchanged):
        _require_turn(s, e.player, "exchange")
        if s.bag < s.rules.rack_size:
            raise IllegalEvent(f"no exchange with {s.bag} tiles in the bag (at least "
                               f"{s.rules.rack_size} are needed)")
        if not 1 <= e.count <= s.racks[e.player]:
            raise IllegalEvent(f"cannot exchange {e.count} tiles from a rack of {s.racks[e.player]}")
        thrown = rack_tiles(tiles, e.tiles)
        if e.tiles and len(thrown) != e.count:
            raise IllegalEvent(f"exchange of {e.count} tiles lists {len(thrown)}: {e.tiles}")
        # The tiles thrown in come from a rack, so they are among the unseen tiles.
        extra = Counter(t if t == BLANK else t.upper() for t in thrown) - s.unseen
        if extra:
            raise IllegalEvent(f"exchange of tiles that are not unseen: {tiles.write(tiles.sort(extra.elements()))}")
        s.scoreless += 1
        s.last_play = None
        s.moves.append(MoveLine(e.player, f"-{e.tiles or e.count}", 0, s.scores[e.player], index))
        _next_turn(s, e.player)

    elif isinstance(e, ChallengeJudged):
        if s.last_play is None:
            raise IllegalEvent("there is no play to challenge")
        if e.challenger == s.last_play.player:
            raise IllegalEvent("a player cannot challenge their own play")
        if s.last_play.judged:
            raise IllegalEvent("the last play has already been judged")
        s.last_play = replace(s.last_play, judged=True)

    elif isinstance(e, PhonyWithdrawn):
        lp = s.last_play
        if lp is None or lp.player != e.player:
            raise IllegalEvent(f"{_name(s, e.player)} has no play on the board to withdraw")
        for p in lp.scored.placements:
            s.board[p.square] = "."
        k = len(lp.scored.placements)
        s.bag += lp.drawn
        s.racks[e.player] += k - lp.drawn
        s.scores[e.player] -= lp.scored.score
        if lp.scored.score:  # it reset the count; a withdrawn play is a scoreless turn
            s.scoreless += lp.scoreless_before + 1  # (+=: keeps a lost turn taken since)
        s.going_out = None
        s.last_play = None
        s.moves.append(MoveLine(e.player, "phony withdrawn", -lp.scored.score, s.scores[e.player], index))

    elif isinstance(e, ChallengeBonus):
        lp = s.last_play
        if lp is None or lp.player != e.player:
            raise IllegalEvent(f"a challenge bonus goes to the player of the last play, not "
                               f"{_name(s, e.player)}")
        if e.points < 0:
            raise IllegalEvent("a challenge bonus cannot be negative")
        s.scores[e.player] += e.points
        s.moves.append(MoveLine(e.player, "challenge bonus", e.points, s.scores[e.player], index))

    elif isinstance(e, TimePenalty):
        if e.points < 0:
            raise IllegalEvent("a time penalty is a number of points to take off, not negative")
        s.scores[e.player] -= e.points
        s.moves.append(MoveLine(e.player, "time penalty", -e.points, s.scores[e.player], index))

    elif isinstance(e, (EndRackPoints, RackPenalty)):
        if s.over and s.end_reason not in ("went out", "six scoreless turns"):
            raise IllegalEvent("the game is already over")
        at_end = s.going_out is not None or s.scoreless_ended or s.over
        if not at_end:
            raise IllegalEvent("rack points come only at the end of the game")
        # Each player's rack counts once; after going out, the points go to the player who went
        # out, and the others lose their racks only in a casual game.
        if e.player in s.settled:
            raise IllegalEvent(f"{_name(s, e.player)}'s rack points are already settled")
        if isinstance(e, EndRackPoints) and e.player != s.going_out:
            raise IllegalEvent(f"{_name(s, e.player)} did not go out: no end-of-game rack points")
        if isinstance(e, RackPenalty) and s.going_out is not None:
            if e.player == s.going_out:
                raise IllegalEvent(f"{_name(s, e.player)} went out: there is no rack to lose")
            if s.rules.tournament:
                raise IllegalEvent("in a tournament game the player who did not go out keeps their score")
        s.settled.add(e.player)
        if s.scores_before_racks is None:
            s.scores_before_racks = list(s.scores)
        sign = 1 if isinstance(e, EndRackPoints) else -1
        s.scores[e.player] += sign * e.points
        s.moves.append(MoveLine(e.player, f"({e.rack})", sign * e.points, s.scores[e.player], index))
        s.over = True
        s.end_reason = "went out" if s.going_out is not None else (s.end_reason or "six scoreless turns")
        s.last_play = None

    elif isinstance(e, ScoreAdjusted):
        if not e.reason.strip():
            raise IllegalEvent("a score adjustment needs a reason")
        s.scores[e.player] += e.points
        s.moves.append(MoveLine(e.player, f"adjusted: {e.reason}", e.points, s.scores[e.player], index))

    elif isinstance(e, GameEnded):
        if s.over:
            raise IllegalEvent("the game is already over")
        s.over = True
        s.end_reason = e.reason
        s.last_play = None
    else:  # pragma: no cover - the union above is closed
        raise IllegalEvent(f"unknown event {e!r}")


def _sheet_word(board: Board, scored: ScoredPlay) -> str:
    """The main word as a score sheet shows it, played-through tiles in parentheses."""
    new = {p.square for p in scored.placements}
    out, inside = [], False
    for sq in scored.line.squares():
        old = sq not in new
        if old and not inside:
            out.append("(")
        if not old and inside:
            out.append(")")
        inside = old
        out.append(write_cell(board[sq]))
    if inside:
        out.append(")")
    return "".join(out)
