"""The broadcasters' feeds from the table itself (not only from the hub): the fields as plain text,
as JSON, as server-sent events, and the overlay page for a streaming program's browser source."""

from __future__ import annotations

import json
import threading
import urllib.request
from typing import Any

from board_pi.rules.game import GameRules
from board_pi.rules.tiles import SPANISH
from board_pi.table.table import Table
from board_pi.web import create_app


def test_the_fields_as_text_and_json(table: Table) -> None:
    app = create_app(table)
    c = app.test_client()
    assert c.get("/feed/score.txt").get_data(as_text=True) == "\n"  # no game yet: empty, not an error
    table.new_game(["Ada", "Ben"])
    table.enter_play(0, "8D WINDY")
    table.enter_play(1, "E5 MoA")  # a blank played as O
    fields = c.get("/feed.json").get_json()
    assert fields["score"] == "Ada 32 - Ben 10" and fields["turn"] == "Ada"
    assert fields["last_play"] == "Ben: E5 MoA(I) 10" and fields["blanks"] == "E6 o"  # through the I of WINDY
    assert fields["unseen_count"] == str(100 - 8) and fields["unseen"].endswith("?")  # one blank left
    assert c.get("/feed/score1.txt").get_data(as_text=True) == "32\n"
    assert c.get("/feed/nonsense.txt").status_code == 404
    overlay = c.get("/overlay")
    assert overlay.status_code == 200 and "Ada" in overlay.get_data(as_text=True)
    assert "X-Frame-Options" not in overlay.headers  # a browser source may frame it
    assert c.get("/overlay.js").status_code == 200 and c.get("/overlay.css").status_code == 200
    assert c.get("/").headers["X-Frame-Options"] == "DENY"  # the page itself still may not be framed


def test_unseen_tiles_of_the_set_in_its_own_order(table: Table) -> None:
    c = create_app(table).test_client()
    table.new_game(["Ana", "Bea"], GameRules(tiles=SPANISH))
    table.enter_play(0, "8G [CH]A[RR]O")
    unseen = c.get("/feed.json").get_json()["unseen"]
    assert "[CH]" not in unseen and "[LL]" in unseen and "Ñ" in unseen
    assert unseen.index("[LL]") < unseen.index("M") and unseen.index("N") < unseen.index("Ñ") < unseen.index("O")


def test_the_fields_as_server_sent_events_on_a_real_port(server: Any, table: Table) -> None:
    table.new_game(["Ada", "Ben"])
    got: list[dict[str, str]] = []
    done = threading.Event()

    def listen() -> None:
        with urllib.request.urlopen(server.url + "/feed/events", timeout=20) as resp:
            for raw in resp:
                line = raw.decode().strip()
                if line.startswith("data:") and line != "data: {}":
                    got.append(json.loads(line[5:]))
                    if len(got) == 2:
                        done.set()
                        return

    t = threading.Thread(target=listen, daemon=True)
    t.start()
    import time

    deadline = time.monotonic() + 10
    while not got and time.monotonic() < deadline:
        time.sleep(0.05)
    table.enter_play(0, "8D WINDY")
    assert done.wait(15), got
    assert got[0]["score"] == "Ada 0 - Ben 0" and got[1]["score"] == "Ada 32 - Ben 0"
    assert got[1]["last_play"] == "Ada: 8D WINDY 32"
