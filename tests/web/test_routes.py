"""The app's routes as a whole: who may use which, and the one shape of the table's state."""

from __future__ import annotations

import json
from importlib import resources
from typing import Any, get_type_hints

import pytest

from board_pi.table.snapshot import Snapshot
from board_pi.table.table import Table
from board_pi.web import create_app

from .test_api import Client

# Routes anyone may use; every other one is the director's. A new route is the director's
# unless it is added here on purpose.
OPEN = {"/", "/judge", "/director", "/favicon.ico", "/api/state", "/api/events", "/api/session",
        "/api/login", "/api/logout", "/api/pin", "/api/judge", "/api/openapi", "/api/games",
        "/api/archive/<game_id>.gcg", "/api/lexicons", "/api/gcg", "/api/last-play", "/static/<path:filename>",
        # the broadcasters' feeds (board_pi/feeds): what a spectator sees anyway
        "/overlay", "/overlay.js", "/overlay.css", "/feed.json", "/feed/<field>.txt", "/feed/events"}


@pytest.fixture
def app(table: Table, pin_hash: str) -> Any:
    return create_app(table, pin_hash=pin_hash, secret_key="test-secret", heartbeat=0.2)


def _director_routes(app: Any) -> list[tuple[str, str]]:
    out = []
    for rule in app.url_map.iter_rules():
        if rule.rule not in OPEN:
            for method in sorted(rule.methods - {"HEAD", "OPTIONS"}):
                out.append((method, rule.rule))
    return out


def test_every_other_route_refuses_a_visitor_and_opens_to_the_director(app: Any, table: Table) -> None:
    routes = _director_routes(app)
    assert len(routes) >= 17  # the director's actions, the judge's log, the calibration view
    table.new_game(["Ann", "Bob"])
    visitor, director = Client(app), Client(app)
    assert director.login()[0] == 200
    for method, path in routes:
        status, body = visitor.get(path) if method == "GET" else visitor.post(path, {})
        assert status == 401 and body["login"] is True, (method, path, status, body)
        # The director is let through: whatever the answer, it is not "log in first".
        status, body = director.get(path) if method == "GET" else director.post(path, {})
        assert status != 401, (method, path, status, body)


def _keys(hint: Any) -> tuple[set[str], set[str]]:
    hints = get_type_hints(hint)
    return set(hints), set(hint.__required_keys__)


def test_the_state_has_the_one_defined_shape(app: Any, table: Table) -> None:
    """/api/state, with no game and during one, has exactly the keys Snapshot defines (the game's
    keys only with a game), and the OpenAPI spec documents every one of them."""
    every, required = _keys(Snapshot)
    client = Client(app)
    _, empty = client.get("/api/state")
    assert set(empty) == required | {"seq"}
    table.new_game(["Ann", "Bob"])
    table.enter_play(0, "8D WINDY")
    _, s = client.get("/api/state")
    assert set(s) == every
    spec = json.loads(resources.files("board_pi.web").joinpath("openapi.json").read_text())
    documented = set(spec["components"]["schemas"]["State"]["properties"])
    assert every == documented, every ^ documented
