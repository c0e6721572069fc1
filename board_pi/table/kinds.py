"""What waits on the page, and what a press did: the table's kinds as enums, not bare strings.

Both are ``StrEnum``: a value is its own name in JSON (``"reading"``, ``"play"``) and compares
equal to it, so the page and the journal read them as before.

>>> PendingKind("blank").awaits_play, PendingKind.RACKS.awaits_play
(True, False)
>>> PressResult(Outcome.PLAY, "8D WINDY", 40).outcome == "play"
True
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class PendingKind(StrEnum):
    """What the players are asked to settle on the page before the game goes on."""

    READING = "reading"  # a doubtful reading or an impossible shape: is this the play?
    REREAD = "reread"  # no still board was seen: confirm the play, or enter it
    BLANK = "blank"  # which letter a blank stands for
    RACKS = "racks"  # the racks left at the end (six scoreless turns, 3-4 players)

    @property
    def awaits_play(self) -> bool:
        """A turn's play is waiting: no press, no challenge until it is settled."""
        return self is not PendingKind.RACKS


class Outcome(StrEnum):
    """What a press (or a confirmation) did."""

    STARTED = "started"  # the first press started the clock
    PLAY = "play"
    PASS = "pass"
    EXCHANGE = "exchange"
    PENDING = "pending"  # the players must confirm something on the page
    IGNORED = "ignored"  # nothing happened (the message says why)
    END = "end"  # the game is over


@dataclass
class Pending:
    """Something the players must confirm on the page before the game goes on."""

    kind: PendingKind
    player: int
    message: str
    tiles: dict[str, str] = field(default_factory=dict)  # square name -> tile ('?' for a blank)
    doubtful: list[str] = field(default_factory=list)
    options: list[str] = field(default_factory=list)  # blank letters the lexicon allows (if few)
    exchange: bool = False

    def __post_init__(self) -> None:
        self.kind = PendingKind(self.kind)  # ValueError for a kind this table never writes

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind.value, "player": self.player, "message": self.message, "tiles": self.tiles,
                "doubtful": self.doubtful, "options": self.options, "exchange": self.exchange}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "Pending":
        return cls(PendingKind(d["kind"]), int(d["player"]), d["message"], dict(d.get("tiles", {})),
                   list(d.get("doubtful", [])), list(d.get("options", [])), bool(d.get("exchange", False)))


@dataclass(frozen=True)
class PressResult:
    """What a press did, and the message for the players."""

    outcome: Outcome
    message: str = ""
    score: int | None = None
    play: str = ""
