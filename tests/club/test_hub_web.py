"""The hub's pages and API on a real broker, real tables and real Flask: /api/tables, one
table, results out (TSH, CSV, GCG archive), pairings in behind the director's PIN, feeds."""

from __future__ import annotations

import io
import json
import time
import zipfile
from typing import Any

import pytest

from board_pi.feeds import feed_fields
from board_pi.club.hub import Hub
from board_pi.club.hubweb import create_hub_app
from board_pi.club.settings import ClubSettings, parse_broker_url
from board_pi.serve.guard import PinGuard
from board_pi.serve.store import DirectorStore

from .conftest import HUB_PASSWORD
from .helpers import SimTable, publisher_for, wait_for


@pytest.fixture
def room(broker, tmp_path):
    """A hub with its page, and two tables on the broker (table 2 still playing)."""
    (tmp_path / "hub").mkdir()
    hub = Hub(ClubSettings(parse_broker_url(broker.url("hub", HUB_PASSWORD))), tmp_path / "hub").start()
    sims = {n: SimTable(tmp_path / f"t{n}", names=(f"Player {n}a", f"Player {n}b")) for n in (1, 2)}
    pubs = {n: publisher_for(sims[n], broker, n).start() for n in sims}
    sims[1].play()
    sims[2].play(9)
    for n, sim in sims.items():
        wait_for(lambda: hub.last_seq(n) == sim.table.journal.last_seq() and _state_seq(hub, n) ==
                 sim.table.journal.last_seq(), bus=hub.bus, what=f"table {n}")
    wait_for(lambda: hub.store.results(), bus=hub.bus, what="table 1's result")
    app = create_hub_app(hub, store=DirectorStore(tmp_path / "hub"), guard=PinGuard())
    yield hub, app, sims, pubs
    for p in pubs.values():
        p.stop()
    hub.stop()


def _state_seq(hub: Hub, n: int) -> int:
    for t in hub.store.tables():
        if t["table"] == n and t["state"]:
            return int(t["state"]["seq"])
    return -1


def test_api_tables_lists_every_table_with_the_issue_fields(room):
    hub, app, sims, _ = room
    tables = app.test_client().get("/api/tables").get_json()
    assert [t["table"] for t in tables] == [1, 2]
    for t in tables:
        assert {"table", "players", "scores", "turn", "online", "finished"} <= set(t)
    one, two = tables
    assert one["players"] == ["Player 1a", "Player 1b"] and one["finished"] is True and one["turn"] is None
    assert one["scores"] == sims[1].table.game.state.scores
    assert two["finished"] is False and two["online"] is True
    assert two["turn"] == sims[2].table.game.state.turn
    assert two["scores"] == sims[2].table.game.state.scores
    assert len(two["board"]) == 15 and two["board"] == sims[2].table.game.state.board.rows()


def test_an_offline_table_shows_as_offline(room):
    hub, app, sims, pubs = room
    pubs[2].stop()
    wait_for(lambda: not {t["table"]: t for t in app.test_client().get("/api/tables").get_json()}[2]["online"],
             bus=hub.bus, what="table 2 offline")
    page = app.test_client().get("/").get_data(as_text=True)
    assert "Tables" in page and "hub.js" in page


def test_one_tables_page_and_its_events(room):
    hub, app, sims, _ = room
    c = app.test_client()
    t = c.get("/api/tables/2").get_json()
    assert t["snapshot"]["moves"] == sims[2].table.snapshot()["moves"]
    events = c.get("/api/tables/2/events").get_json()
    assert [e["seq"] for e in events] == list(range(1, sims[2].table.journal.last_seq() + 1))
    assert c.get("/tables/2").status_code == 200
    r = c.get("/api/tables/7")
    assert r.status_code == 404 and "no table 7" in r.get_json()["error"]


def test_results_go_out_as_tsh_csv_and_a_gcg_archive(room):
    hub, app, sims, _ = room
    c = app.test_client()
    final = sims[1].table.game.state.scores
    csv_text = c.get("/results.csv").get_data(as_text=True)
    assert csv_text.splitlines()[0] == "Division,Round,Player1,Score1,Player2,Score2"
    assert csv_text.splitlines()[1] == f"A,,Player 1a,{final[0]},Player 1b,{final[1]}"
    tsh = c.get("/results.tsh").get_data(as_text=True).splitlines()
    assert tsh[0] == "a ? A" and tsh[1] == f"?Player_1a {final[0]} ?Player_1b {final[1]}"
    z = zipfile.ZipFile(io.BytesIO(c.get("/games.zip").get_data()))
    assert z.namelist() == ["round-none/table-01.gcg"]
    assert z.read("round-none/table-01.gcg").decode() == sims[1].finished[0][0]
    standings = c.get("/api/results").get_json()["standings"]
    assert standings[0]["player"] == ("Player 1a" if final[0] > final[1] else "Player 1b")
    assert standings[0]["wins"] == 1 and standings[0]["spread"] == abs(final[0] - final[1])


def director(app: Any, pin: str = "2468") -> Any:
    """A test client logged in as the director (the first PIN set from this machine)."""
    c = app.test_client()
    csrf = c.get("/api/session").get_json()["csrf"]
    r = c.post("/api/pin", json={"pin": pin}, headers={"X-CSRF-Token": csrf})
    assert r.status_code == 200, r.get_json()
    c.csrf = r.get_json()["csrf"]
    return c


def test_pairings_need_the_director_and_start_each_tables_next_game(room):
    hub, app, sims, _ = room
    anyone = app.test_client()
    csrf = anyone.get("/api/session").get_json()["csrf"]
    text = "1 #12 Chris Cree - #7 Dana Dee\n2 Erin Eve - Finn Fox\n"
    r = anyone.post("/api/pairings", json={"round": 2, "pairings": text}, headers={"X-CSRF-Token": csrf})
    assert r.status_code == 401
    assert anyone.post("/api/pairings", json={"round": 2, "pairings": text}).status_code == 403  # no CSRF
    d = director(app)
    bad = d.post("/api/pairings", json={"round": 2, "pairings": "1 Chris Cree\nx Erin - Finn"},
                 headers={"X-CSRF-Token": d.csrf})
    assert bad.status_code == 400 and "line 1" in bad.get_json()["error"] and "line 2" in bad.get_json()["error"]
    r = d.post("/api/pairings", json={"round": 2, "pairings": text}, headers={"X-CSRF-Token": d.csrf})
    assert r.status_code == 200 and all(s["sent"] for s in r.get_json()["sent"])
    # Table 1's game is over: its next game starts at once with the pairing's players.
    wait_for(lambda: sims[1].table.game.players == ["Chris Cree", "Dana Dee"], what="table 1's new game")
    # Table 2 is still playing: the pairing waits for the end of its game.
    wait_for(lambda: (_table(app, 2).get("next_pairing") or {}).get("players") == ["Erin Eve", "Finn Fox"],
             bus=hub.bus, what="table 2 to hold the pairing")
    assert sims[2].table.game.players == ["Player 2a", "Player 2b"]
    sims[2].play()
    wait_for(lambda: sims[2].table.game.players == ["Erin Eve", "Finn Fox"], what="table 2's next game")
    # Table 1 plays the paired game; its result carries the round and the TSH numbers.
    sims[1].play()
    wait_for(lambda: any(r["round"] == 2 for r in hub.store.results()), bus=hub.bus, what="round 2's result")
    final = sims[1].table.game.state.scores
    tsh = app.test_client().get("/results.tsh").get_data(as_text=True)
    assert f"a 2 A\n12 {final[0]} 7 {final[1]}" in tsh
    assert "round-2/table-01.gcg" in zipfile.ZipFile(io.BytesIO(app.test_client().get("/games.zip").data)).namelist()


def _table(app: Any, n: int) -> dict[str, Any]:
    return {t["table"]: t for t in app.test_client().get("/api/tables").get_json()}[n]


def test_a_pairing_delivered_twice_starts_one_game(room):
    hub, app, sims, pubs = room
    body = {"type": "pairing", "id": "same-id", "round": 3, "players": ["Gus Gray", "Hal Hunt"]}
    games_before = len(sims[1].table.journal.games())
    hub.command(1, body)
    hub.command(1, body)
    wait_for(lambda: sims[1].table.game.players == ["Gus Gray", "Hal Hunt"], what="the paired game")
    hub.command(1, {"type": "pairing", "id": "control", "round": 3, "players": ["Ivy Ives", "Jo Jay"],
                    "now": True})
    wait_for(lambda: sims[1].table.game.players == ["Ivy Ives", "Jo Jay"], what="the control pairing")
    assert len(sims[1].table.journal.games()) == games_before + 2


def test_feeds_for_broadcasters_as_text_json_sse_and_overlay(room):
    hub, app, sims, _ = room
    c = app.test_client()
    snap = sims[2].table.snapshot()
    fields = c.get("/tables/2/feed.json").get_json()
    assert fields["score1"] == str(snap["players"][0]["score"])
    assert fields["unseen_count"] == str(sum(snap["unseen"].values()))
    assert c.get("/tables/2/feed/score.txt").get_data(as_text=True) == fields["score"] + "\n"
    assert c.get("/tables/2/feed/last_play.txt").get_data(as_text=True).startswith("Player 2")
    assert c.get("/tables/2/feed/nothing.txt").status_code == 404
    assert c.get("/tables/9/feed.json").status_code == 404
    overlay = c.get("/tables/2/overlay")
    assert overlay.status_code == 200 and fields["player1"] in overlay.get_data(as_text=True)
    assert "X-Frame-Options" not in overlay.headers  # a browser source may frame it
    # The live fields: the first message is the fields now; a move sends the new ones.
    resp = c.get("/tables/2/feed/events", buffered=False)
    chunks = iter(resp.response)
    first = read_until(chunks, lambda text: "event: fields" in text)
    assert json.loads(first.split("data: ")[1].split("\n")[0]) == fields
    sims[2].step()
    wanted = feed_fields(sims[2].table.snapshot())
    assert wanted != fields
    read_until(chunks, lambda text: json.dumps(wanted) in text)
    resp.close()


def read_until(chunks: Any, done: Any, timeout: float = 20.0) -> str:
    """Read an event stream until ``done(text)``; the stream's heartbeats keep this loop going,
    the deadline ends it."""
    deadline = time.monotonic() + timeout
    text = ""
    while not done(text):
        assert time.monotonic() < deadline, f"the stream never said it: {text[-300:]!r}"
        text += next(chunks).decode()
    return text


def test_the_director_pauses_resumes_and_ends_one_tables_game_from_the_hub(room):
    hub, app, sims, _ = room
    url = "/api/tables/2/control"
    anyone = app.test_client()
    csrf = anyone.get("/api/session").get_json()["csrf"]
    assert anyone.post(url, json={"action": "pause"}, headers={"X-CSRF-Token": csrf}).status_code == 401
    d = director(app)
    post = lambda path, body: d.post(path, json=body, headers={"X-CSRF-Token": d.csrf})  # noqa: E731
    assert post(url, {"action": "explode"}).status_code == 400
    assert post("/api/tables/9/control", {"action": "pause"}).status_code == 404
    table = sims[2].table
    table.press(table.game.state.turn)  # table 2's clock runs (its game is still going on)
    wait_for(lambda: table.clock.phase == "running", what="table 2's clock to run")
    r = post(url, {"action": "pause"})
    assert r.status_code == 200 and r.get_json()["sent"] is True
    wait_for(lambda: table.clock.phase == "paused", what="table 2 paused from the hub")
    hub.command(2, {"type": "pause", "id": r.get_json()["id"]})  # delivered again: done once only
    assert post(url, {"action": "resume"}).status_code == 200
    wait_for(lambda: table.clock.phase == "running", what="table 2 running again")
    assert post(url, {"action": "end", "reason": "the hall closes"}).status_code == 200
    wait_for(lambda: table.game.state.over, what="table 2's game ended from the hub")
    assert "the hall closes" in table.game.state.end_reason
    wait_for(lambda: _table(app, 2)["finished"], bus=hub.bus, what="the hub to see table 2 finished")
