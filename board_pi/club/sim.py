"""A table driven by a recorded game, with no camera or clock hardware: the plays are entered
through the table's own actions, as the players would on the page. For the club tests and
``benchmarks/bench_club.py``, which need many real tables (real journals, real events) at once.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Callable

from ..clock import TimeControl
from ..rules.game import ChallengeRule, GameRules
from ..rules.events import Exchanged, Passed
from ..rules.gcg import GcgMove, parse_gcg
from ..rules.judge import WordJudge
from ..table.store import Journal
from ..table.table import Table
from ..wordlists import load_lexicon

_LEXICON: Any = None


def lexicon() -> Any:
    global _LEXICON
    if _LEXICON is None:
        _LEXICON = load_lexicon()
    return _LEXICON


def demo_moves() -> list[GcgMove]:
    text = resources.files("board_pi.table").joinpath("data", "demo.gcg").read_text("utf-8")
    return parse_gcg(text).moves


NICKS = ("Ada", "Ben")  # the bundled record's players


@dataclass
class RecordedTable:
    """One table: its journal in ``data``, its game acted out by :meth:`step`."""

    data: Path
    names: tuple[str, str] = ("Ada Lovelace", "Ben Franklin")
    table: Table = field(init=False)
    moves: list[GcgMove] = field(init=False)
    done: int = 0
    finished: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    on_finished: Callable[[str, dict[str, Any]], None] | None = None
    clock: Callable[[], float] = time.monotonic  # the game clock's time (tests step it)

    def __post_init__(self) -> None:
        self.data.mkdir(parents=True, exist_ok=True)
        self.table = Table(Journal(self.data / "journal.db"), WordJudge(lexicon()),
                           on_finished=self._finished, time_source=self.clock)
        self.moves = demo_moves()
        if not self.table.resume():
            self.new_game(list(self.names))

    def new_game(self, players: list[str], meta: dict[str, Any] | None = None) -> None:
        self.table.new_game(players, GameRules(challenge=ChallengeRule.FIVE_POINTS), TimeControl(minutes=25),
                            meta=meta)
        self.done = 0

    def _finished(self, gcg: str, meta: dict[str, Any]) -> None:
        self.finished.append((gcg, meta))
        if self.on_finished is not None:
            self.on_finished(gcg, meta)

    @property
    def over(self) -> bool:
        return self.done >= len(self.moves)

    def step(self) -> None:
        """The next move of the record, as the players and the page would make it."""
        t = self.table
        m = self.moves[self.done]
        self.done += 1
        p = NICKS.index(m.nick)
        if m.kind == "play":
            t.enter_play(p, f"{m.position} {m.word}")
        elif m.kind == "pass":
            if t.game is not None and t.game.state.going_out is not None:
                t.accept_out_play(p)
            else:
                t.record(Passed(p))
        elif m.kind == "exchange":
            t.record(Exchanged(p, len(m.word), m.word))
        elif m.kind in ("phony", "challenge"):
            t.challenge((p + 1) % 2, acceptable=m.kind == "challenge")
        elif m.kind == "endrack":
            if t.game is not None and not t.game.state.over:
                t.accept_out_play()
        elif m.kind == "rackpenalty":
            pass

    def play(self, n: int | None = None) -> None:
        for _ in range(len(self.moves) if n is None else n):
            if self.over:
                return
            self.step()

    def journal_events(self) -> list[tuple[int, dict[str, Any]]]:
        return [(e.seq, e.event) for e in self.table.journal.events_after(0, 100000)]

    def close(self) -> None:
        self.table.journal.close()
