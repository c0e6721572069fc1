"""The club's command line on a real broker: ``board-pi hub``, ``--broker`` and ``--table`` on
``demo`` (its synthetic table, the real reading, journal and rules), bad input answered with a
message and exit 2."""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.request
from typing import Any

import pytest

from board_pi.club.hub import Hub
from board_pi.club.settings import ClubSettings, parse_broker_url

from .conftest import HUB_PASSWORD, table_password
from .helpers import wait_for


def board_pi(*args: str, timeout: float = 60, **kw: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "board_pi.cli", *args], capture_output=True, text=True,
                          timeout=timeout, **kw)


def test_hub_help_and_the_club_options_of_demo_and_run():
    r = board_pi("hub", "--help")
    assert r.returncode == 0 and "--config" in r.stdout
    for command in ("demo", "run"):
        r = board_pi(command, "--help")
        assert r.returncode == 0 and "--broker" in r.stdout and "--table" in r.stdout


@pytest.mark.parametrize("args, says", [
    (["--broker", "http://127.0.0.1:1883", "--table", "1"], "not an MQTT address"),
    (["--broker", "mqtt://127.0.0.1:1883", "--table", "1000"], "from 1 to 999"),
    (["--broker", "mqtt://127.0.0.1:1883"], "needs its number"),
    (["--table", "4"], "--table needs a broker"),
])
def test_bad_club_options_are_a_message_and_exit_2(args, says, tmp_path):
    r = board_pi("demo", "--speed", "max", "--no-web", "--data", str(tmp_path / "d"), *args)
    assert r.returncode == 2, r.stderr
    assert says in r.stderr and "Traceback" not in r.stderr


def test_a_broker_that_refuses_the_password_stops_the_table_and_the_hub_with_exit_2(broker, tmp_path):
    r = board_pi("demo", "--speed", "max", "--no-web", "--data", str(tmp_path / "d"),
                 "--broker", broker.url("table-1", "wrong"), "--table", "1")
    assert r.returncode == 2 and "refused" in r.stderr and "Traceback" not in r.stderr
    r = board_pi("hub", "--broker", broker.url("hub", "wrong"), "--port", "0", "--data", str(tmp_path / "h"))
    assert r.returncode == 2 and "refused" in r.stderr and "Traceback" not in r.stderr


def test_the_demo_table_publishes_its_whole_game_to_the_hub(broker, tmp_path):
    (tmp_path / "hub").mkdir()
    hub = Hub(ClubSettings(parse_broker_url(broker.url("hub", HUB_PASSWORD))), tmp_path / "hub").start()
    try:
        r = board_pi("demo", "--speed", "max", "--no-web", "--json", "--data", str(tmp_path / "table"),
                     "--broker", broker.url("table-3", table_password(3)), "--table", "3", timeout=900)
        assert r.returncode == 0, r.stderr[-2000:]
        final = json.loads(r.stdout.strip().splitlines()[-1])["final"]
        wait_for(lambda: hub.store.results(), bus=hub.bus, what="the demo's result")
        result = hub.store.results()[0]
        assert result["table"] == 3 and result["scores"] == final
        events = hub.store.events(3)
        assert [e["seq"] for e in events] == list(range(1, len(events) + 1)) and len(events) > 30
        assert result["gcg"].startswith("#character-encoding UTF-8")
    finally:
        hub.stop()


def test_board_pi_hub_serves_the_tables(broker, tmp_path):
    proc = subprocess.Popen([sys.executable, "-m", "board_pi.cli", "hub", "--broker", broker.url("hub", HUB_PASSWORD),
                             "--port", "0", "--data", str(tmp_path / "hub"), "--stop-after", "120"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()  # type: ignore[union-attr]
        assert line.startswith("board-pi hub: http://"), line + proc.stderr.read()  # type: ignore[union-attr]
        url = line.split()[2]
        from .helpers import SimTable, publisher_for

        sim = SimTable(tmp_path / "t2")
        pub = publisher_for(sim, broker, 2).start()
        sim.play(5)

        def tables() -> list[dict[str, Any]]:
            with urllib.request.urlopen(url + "api/tables", timeout=10) as resp:
                return json.load(resp)

        # The events and the table's state are two messages: wait for both (the events alone
        # could be in while the state, and so the players, is still on its way).
        wait_for(lambda: [t for t in tables() if t["table"] == 2 and t["seq"] == sim.table.journal.last_seq()
                          and t["players"]],
                 what="table 2 on the hub's page")
        t = tables()[0]
        assert t["players"] == sim.table.game.players and t["online"] is True
        pub.stop()
    finally:
        proc.terminate()
        assert proc.wait(30) == 0


def test_board_pi_run_with_club_in_its_configuration_takes_the_hubs_pairing(broker, tmp_path):
    from board_pi.club.broker import free_port
    from board_pi.club.results import TablePairing

    cfg = tmp_path / "board-pi.toml"
    cfg.write_text('[camera]\nsource = "none"\n[clock]\nbackend = "none"\n'
                   f'[web]\nport = {free_port()}\n[data]\ndir = "{tmp_path / "data"}"\n'
                   '[game]\nplayers = ["Ann", "Bob"]\n'
                   f'[club]\nbroker = "{broker.url("table-4", table_password(4))}"\ntable = 4\n')
    (tmp_path / "hub").mkdir()
    hub = Hub(ClubSettings(parse_broker_url(broker.url("hub", HUB_PASSWORD))), tmp_path / "hub").start()
    proc = subprocess.Popen([sys.executable, "-m", "board_pi.cli", "run", "--config", str(cfg), "--stop-after", "120"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        said = ""
        while "status page on" not in said:  # by then it stops cleanly on SIGTERM
            line = proc.stdout.readline()  # type: ignore[union-attr]
            assert line, proc.stderr.read()  # type: ignore[union-attr]
            said += line
        assert "club: table 4 publishing to mqtt://table-4@127.0.0.1" in said

        def snapshot() -> dict[str, Any]:
            rows = [t for t in hub.store.tables() if t["table"] == 4 and t["state"]]
            return rows[0]["state"]["snapshot"] if rows else {}

        wait_for(lambda: [p["name"] for p in snapshot().get("players", [])] == ["Ann", "Bob"], bus=hub.bus,
                 timeout=60, what="the table's first state")
        hub.send_pairings(1, [TablePairing(4, ("Cy Cole", "Di Dunn"), (None, None))], now=True)
        wait_for(lambda: [p["name"] for p in snapshot().get("players", [])] == ["Cy Cole", "Di Dunn"],
                 bus=hub.bus, timeout=60, what="the paired game at the table")
        proc.terminate()
        assert proc.wait(60) == 0, proc.stderr.read()  # type: ignore[union-attr]
        wait_for(lambda: not [t for t in hub.store.tables() if t["table"] == 4][0]["online"], bus=hub.bus,
                 what="the table offline")
    finally:
        if proc.poll() is None:
            proc.kill()
        hub.stop()
