"""Random bodies on every POST route of the app, as the public and as the director: never a 500.

The routes come from the app's own url_map, so a route added later is fuzzed too.
"""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from board_pi.table.table import Table
from board_pi.web import create_app
from board_pi.serve.guard import PinGuard

from .conftest import PIN

SETTINGS = settings(max_examples=120, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])

ODD_TEXT = st.sampled_from(["", " ", "²", "+-1", "--1", "1e999", "nan", "-0", "٣", "\x00", "\u202e", "\ud800",
                            "8D WINDY", "H8", "?", "A" * 300, "/etc/passwd", "../x", "{", "[]", "0x10", "1_0"])
NUMBERS = st.integers() | st.integers(min_value=10 ** 30, max_value=10 ** 60) | st.floats()
LEAVES = st.none() | st.booleans() | NUMBERS | st.text(max_size=20) | ODD_TEXT
JSON = st.recursive(LEAVES, lambda inner: st.lists(inner, max_size=4)
                    | st.dictionaries(st.text(max_size=8) | ODD_TEXT, inner, max_size=4), max_leaves=16)
FIELDS = ["players", "player", "play", "points", "reason", "tiles", "letters", "racks", "words", "pin", "current",
          "code", "minutes", "overtime_penalty", "max_overtime_minutes", "increment_seconds", "challenge",
          "lexicon", "exchange", "exchange_count", "event"]
OBJECTS = st.dictionaries(st.sampled_from(FIELDS), JSON, max_size=5)


def _nested(depth: int) -> str:
    return "[" * depth + "]" * depth


RAW = (OBJECTS.map(json.dumps) | JSON.map(lambda v: json.dumps(v, allow_nan=True))
       | st.integers(1, 5000).map(_nested) | st.binary(max_size=200).map(lambda b: b.decode("latin-1"))
       | st.just('{"points": ' + "9" * 5000 + "}"))
CONTENT_TYPES = st.sampled_from(["application/json", "text/plain", "application/x-www-form-urlencoded",
                                 "multipart/form-data", "application/json; charset=latin-1", ""])


class Browser:
    def __init__(self, app: Any, *, director: bool) -> None:
        self.app, self.director = app, director
        self.http = app.test_client()
        self.csrf = self.http.get("/api/session").get_json()["csrf"]
        if director:
            self.login()

    def login(self) -> None:
        r = self.http.post("/api/login", json={"pin": PIN}, headers={"X-CSRF-Token": self.csrf})
        assert r.status_code == 200, r.get_json()
        self.csrf = r.get_json()["csrf"]

    def post(self, path: str, raw: str | bytes, content_type: str) -> Any:
        r = self.http.post(path, data=raw, content_type=content_type or None, headers={"X-CSRF-Token": self.csrf})
        out = r.get_json(silent=True)
        if isinstance(out, dict) and "csrf" in out:
            self.csrf = out["csrf"]
        if self.director and not self.http.get("/api/session").get_json()["director"]:
            self.login()  # a fuzzed logout (or PIN change): back in, to keep fuzzing the actions
        return r, out


@pytest.fixture(scope="module")
def app(tmp_path_factory: Any, lexicon: Any, pin_hash: str) -> Any:
    from board_pi.rules.judge import WordJudge
    from board_pi.table.store import Journal

    table = Table(Journal(tmp_path_factory.mktemp("fuzz") / "j.db"), WordJudge(lexicon, clock=time.time))
    table.new_game(["Ann", "Bob"])
    table.enter_play(0, "8D WINDY")
    return create_app(table, pin_hash=pin_hash, guard=PinGuard(free=10 ** 9))


def post_routes(app: Any) -> list[str]:
    routes = sorted({rule.rule for rule in app.url_map.iter_rules() if "POST" in (rule.methods or ())})
    assert "/api/login" in routes and "/api/judge" in routes and len(routes) >= 15
    return routes


@pytest.mark.parametrize("director", [False, True], ids=["public", "director"])
def test_no_body_on_any_post_route_makes_a_500(app: Any, director: bool) -> None:
    browser = Browser(app, director=director)
    routes = post_routes(app)

    @SETTINGS
    @given(path=st.sampled_from(routes), raw=RAW, content_type=CONTENT_TYPES)
    def check(path: str, raw: str, content_type: str) -> None:
        r, out = browser.post(path, raw.encode("utf-8", "surrogatepass"), content_type)
        assert r.status_code < 500, (path, raw[:200], out)
        if r.status_code >= 400:
            assert isinstance(out, dict) and out.get("error"), (path, out)

    check()
