"""Real tables for the club tests (board_pi.club.sim: a Table with its SQLite journal acting out
the bundled demo record), each with its publisher on the test's broker."""

from __future__ import annotations

import time
from typing import Any, Callable

from board_pi.club.publisher import Pairing, TablePublisher, table_control
from board_pi.club.settings import ClubSettings, parse_broker_url
from board_pi.club.sim import RecordedTable as SimTable

from .conftest import table_password


def table_settings(broker_url: str, n: int, prefix: str = "board-pi") -> ClubSettings:
    return ClubSettings(parse_broker_url(broker_url), n, prefix)


def publisher_for(sim: SimTable, broker: Any, n: int, *, password: str | None = None) -> TablePublisher:
    url = broker.url(f"table-{n}", password or table_password(n))

    def start_game(p: Pairing) -> None:
        sim.new_game(list(p.players), {"round": p.round, "division": p.division, "pairing": p.id})

    pub = TablePublisher(table_settings(url, n), sim.table, sim.table.journal, sim.data, start_game=start_game,
                         control=table_control(sim.table))
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
