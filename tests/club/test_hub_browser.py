"""The hub's dashboard in Debian's Chromium: every table at a glance, the offline one in red,
the play waiting for the players, one table's full page from its card."""

from __future__ import annotations

from typing import Any, Iterator

import pytest

from board_pi.club.hub import Hub
from board_pi.club.hubweb import create_hub_app
from board_pi.club.settings import ClubSettings, parse_broker_url
from board_pi.serve.guard import PinGuard
from board_pi.serve.store import DirectorStore

from ..web.conftest import CHROMIUM_ARGS, chromium_path
from .conftest import HUB_PASSWORD
from .helpers import SimTable, publisher_for, wait_for


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    path = chromium_path()
    if path is None:
        pytest.skip("no chromium: install Debian's chromium package (.ci/run does) for the browser tests")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (the test extra)")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=path, headless=True, args=CHROMIUM_ARGS)
        yield b
        b.close()


def test_the_dashboard_shows_every_table_offline_in_red_and_a_play_to_confirm(broker, tmp_path, chromium):
    from board_pi.web.server import serve

    (tmp_path / "hub").mkdir()
    hub = Hub(ClubSettings(parse_broker_url(broker.url("hub", HUB_PASSWORD))), tmp_path / "hub").start()
    server = serve(None, "127.0.0.1", 0, app=create_hub_app(hub, store=DirectorStore(tmp_path / "hub"), guard=PinGuard(),
                                                         heartbeat=2.0),
                   threads=8)
    now = [1000.0]  # table 3's game clock, stepped by the test
    sims = {n: SimTable(tmp_path / f"t{n}", names=(f"Ann {n}", f"Bob {n}"), clock=lambda: now[0]) for n in (1, 2, 3)}
    pubs = {n: publisher_for(sims[n], broker, n).start() for n in sims}
    try:
        sims[1].play(6)
        sims[2].play(3)
        # Table 3: a press with no still board to read puts the turn to the players to confirm.
        assert sims[3].table.press(1).outcome == "started"
        now[0] += 30.0  # Ann thinks for half a minute, plays and presses
        assert sims[3].table.press(0).outcome == "pending"
        for n, sim in sims.items():
            wait_for(lambda: hub.last_seq(n) == sim.table.journal.last_seq(), bus=hub.bus, what=f"table {n}")
        page = chromium.new_page()
        page.goto(f"http://127.0.0.1:{server.port}/")
        page.wait_for_selector(".tcard[data-table='3'] .pending")
        assert page.locator(".tcard").count() == 3
        assert "to confirm" in page.inner_text(".tcard[data-table='3'] .pending")
        card1 = page.inner_text(".tcard[data-table='1']")
        score = str(sims[1].table.game.state.scores[0])
        assert "Ann 1" in card1 and score in card1
        assert page.locator(".tcard.offline").count() == 0
        pubs[2].stop()  # table 2 goes away: its card turns red by itself
        page.wait_for_selector(".tcard.offline[data-table='2']")
        assert "offline" in page.inner_text(".tcard[data-table='2'] .state")
        # A move at table 1 reaches the open page without a reload.
        sims[1].step()
        new = sims[1].table.snapshot()["moves"][-1]
        total = str(new["total"])
        page.wait_for_function("([sel, text]) => document.querySelector(sel).innerText.includes(text)",
                               arg=[".tcard[data-table='1']", total])
        page.click(".tcard[data-table='1']")
        page.wait_for_selector("#moves li")
        assert page.locator("#moves li").count() == len(sims[1].table.snapshot()["moves"])
        assert page.locator("canvas#board").count() == 1
        page.close()
    finally:
        for p in pubs.values():
            p.stop()
        server.stop()
        hub.stop()
