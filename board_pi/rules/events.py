"""What can happen in a game, one frozen value per kind of event.

A game is the list of these in order (see :mod:`board_pi.rules.game`, which derives the board,
the scores and the turn from them); a journal stores them and a GCG record writes them.

>>> PlayMade(0, Play.parse("8D WINDY")).play.word
'WINDY'
>>> isinstance(Passed(1), TURN_EVENTS)
True
"""

from __future__ import annotations

from dataclasses import dataclass

from .play import Play


@dataclass(frozen=True)
class PlayMade:
    player: int
    play: Play


@dataclass(frozen=True)
class Passed:
    player: int


@dataclass(frozen=True)
class Exchanged:
    player: int
    count: int
    tiles: str = ""  # the tiles thrown in, when known (a record may give them), as text: "[CH]A?"


@dataclass(frozen=True)
class ChallengeJudged:
    """The word judge's verdict on the last play (for the record; its consequences follow)."""

    challenger: int
    acceptable: bool


@dataclass(frozen=True)
class PhonyWithdrawn:
    """The last play, by ``player``, is taken back after a successful challenge: it scores 0."""

    player: int


@dataclass(frozen=True)
class ChallengeBonus:
    """Points to ``player`` for an unsuccessful challenge of their play."""

    player: int
    points: int


@dataclass(frozen=True)
class TurnLost:
    """Under the double rule, an unsuccessful challenger loses their turn."""

    player: int


@dataclass(frozen=True)
class TimePenalty:
    player: int
    points: int


@dataclass(frozen=True)
class EndRackPoints:
    """Points for the tiles left on the others' racks, to the player who went out."""

    player: int
    rack: str
    points: int


@dataclass(frozen=True)
class RackPenalty:
    """A player loses the value of their own rack (six scoreless turns, or a casual game's end)."""

    player: int
    rack: str
    points: int


@dataclass(frozen=True)
class ScoreAdjusted:
    """A director's correction of a score, with the reason for the record."""

    player: int
    points: int
    reason: str


@dataclass(frozen=True)
class GameEnded:
    """The game stops here for a reason other than the tiles (director, overtime limit)."""

    reason: str


Event = (PlayMade | Passed | Exchanged | ChallengeJudged | PhonyWithdrawn | ChallengeBonus | TurnLost
         | TimePenalty | EndRackPoints | RackPenalty | ScoreAdjusted | GameEnded)

TURN_EVENTS = (PlayMade, Passed, Exchanged, TurnLost)
