"""Real tables for the club tests: a Table with its SQLite journal, acting out the bundled demo
record move by move through the table's own actions (no camera: plays entered as on the page)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Callable

from board_pi.club.publisher import Pairing, TablePublisher
from board_pi.club.settings import ClubSettings, parse_broker_url
from board_pi.clock import TimeControl
from board_pi.rules.game import ChallengeRule, Exchanged, GameRules, Passed
from board_pi.rules.gcg import GcgMove, parse_gcg
from board_pi.rules.judge import WordJudge
from board_pi.table.store import Journal
from board_pi.table.table import Table
from board_pi.wordlists import load_lexicon

from .conftest import table_password

_LEXICON: Any = None


def lexicon() -> Any:
    global _LEXICON
    if _LEXICON is None:
        _LEXICON = load_lexicon()
    return _LEXICON


def demo_moves() -> list[GcgMove]:
    text = resources.files("board_pi.table").joinpath("data", "demo.gcg").read_text("utf-8")
    return parse_gcg(text).moves


NICKS = ("Ada", "Ben")


@dataclass
class SimTable:
    """One table: its journal in ``data``, its game acted out by :meth:`step`."""

    data: Path
    names: tuple[str, str] = ("Ada Lovelace", "Ben Franklin")
    table: Table = field(init=False)
    moves: list[GcgMove] = field(init=False)
    done: int = 0
    finished: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    on_finished: Callable[[str, dict[str, Any]], None] | None = None

    def __post_init__(self) -> None:
        self.data.mkdir(parents=True, exist_ok=True)
        self.table = Table(Journal(self.data / "journal.db"), WordJudge(lexicon()),
                           on_finished=self._finished)
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


def table_settings(broker_url: str, n: int, prefix: str = "board-pi") -> ClubSettings:
    return ClubSettings(parse_broker_url(broker_url), n, prefix)


def publisher_for(sim: SimTable, broker: Any, n: int, *, password: str | None = None) -> TablePublisher:
    url = broker.url(f"table-{n}", password or table_password(n))

    def start_game(p: Pairing) -> None:
        sim.new_game(list(p.players), {"round": p.round, "division": p.division, "pairing": p.id})

    pub = TablePublisher(table_settings(url, n), sim.table, sim.table.journal, sim.data, start_game=start_game)
    sim.on_finished = pub.game_finished
    return pub


def wait_for(predicate: Callable[[], Any], timeout: float = 15.0, what: str = "the condition",
             bus: Any = None) -> Any:
    """Wait until ``predicate()`` is true: woken by ``bus`` (the hub's event bus) when given, so
    nothing sleeps past the moment it happens."""
    deadline = time.monotonic() + timeout
    seen = bus.last_seq if bus is not None else 0
    while True:
        value = predicate()
        if value:
            return value
        left = deadline - time.monotonic()
        if left <= 0:
            raise AssertionError(f"timed out waiting for {what}")
        if bus is not None:
            events, _ = bus.wait(seen, timeout=min(left, 0.5))
            if events:
                seen = events[-1].seq
        else:
            time.sleep(min(left, 0.05))
