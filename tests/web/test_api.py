"""The JSON API through Flask's test client, on a real table with a real SQLite journal."""

from __future__ import annotations

import json
from typing import Any

import pytest

from board_pi.table.table import Table
from board_pi.web import create_app
from board_pi.pin import check_pin
from board_pi.serve.guard import PinGuard

from .conftest import PIN


class Client:
    """A browser's view of the API: a cookie jar, the CSRF token, JSON in and out."""

    def __init__(self, app: Any) -> None:
        self.http = app.test_client()
        self.csrf = self.get("/api/session")[1]["csrf"]

    def get(self, path: str) -> tuple[int, Any]:
        r = self.http.get(path)
        return r.status_code, (r.get_json() if r.is_json else r.get_data(as_text=True))

    def post(self, path: str, body: Any = None, *, raw: str | None = None, csrf: str | None = "default",
             content_type: str = "application/json") -> tuple[int, Any]:
        headers = {}
        token = self.csrf if csrf == "default" else csrf
        if token is not None:
            headers["X-CSRF-Token"] = token
        data = raw if raw is not None else json.dumps(body if body is not None else {})
        r = self.http.post(path, data=data, headers=headers, content_type=content_type)
        out = r.get_json(silent=True)
        if isinstance(out, dict) and "csrf" in out:
            self.csrf = out["csrf"]
        return r.status_code, out

    def login(self, pin: str = PIN) -> tuple[int, Any]:
        return self.post("/api/login", {"pin": pin})


@pytest.fixture
def app(table: Table, pin_hash: str) -> Any:
    return create_app(table, pin_hash=pin_hash, secret_key="test-secret", heartbeat=0.2)


@pytest.fixture
def director(app: Any) -> Client:
    c = Client(app)
    assert c.login()[0] == 200
    return c


def test_state_without_a_game(app: Any) -> None:
    status, s = Client(app).get("/api/state")
    assert status == 200
    assert s["board"] == ["." * 15] * 15 and s["players"] == [] and s["game"] is None


def test_state_of_a_game(app: Any, table: Table) -> None:
    table.new_game(["Ann", "Bob"])
    table.enter_play(0, "8D WINDY")
    status, s = Client(app).get("/api/state")
    assert status == 200
    assert len(s["board"]) == 15 and all(len(r) == 15 for r in s["board"])
    assert s["board"][7] == "...WINDY......."
    assert [p["name"] for p in s["players"]] == ["Ann", "Bob"]
    assert s["players"][0]["score"] == 32
    assert set(s["players"][0]["clock"]) >= {"remaining_ms", "overtime_penalty"}
    assert s["moves"] == [{"player": 0, "text": "8D WINDY", "score": 32, "total": 32}]
    assert s["unseen"]["W"] == 1 and s["bag"] == 100 - 14 - 5
    assert s["seq"] >= 1
    assert s["last_play"] == ["D8", "E8", "F8", "G8", "H8"]


def test_viewing_is_open_but_changes_need_the_pin(app: Any, table: Table) -> None:
    table.new_game(["Ann", "Bob"])
    c = Client(app)
    for path in ("/", "/judge", "/director", "/api/state", "/api/openapi", "/api/gcg", "/api/games"):
        assert c.get(path)[0] == 200, path
    status, body = c.post("/api/pause")
    assert status == 401 and body["login"] is True
    assert c.get("/api/judge/log")[0] == 401
    assert table.snapshot()["clock"]["phase"] == "ready"


def test_csrf_token_is_required(app: Any, table: Table) -> None:
    table.new_game(["Ann", "Bob"])
    c = Client(app)
    assert c.post("/api/login", {"pin": PIN}, csrf=None)[0] == 403
    assert c.post("/api/login", {"pin": PIN}, csrf="forged")[0] == 403
    assert c.login()[0] == 200
    old = c.csrf
    # Another browser's token is no good in this session.
    other = Client(app)
    assert c.post("/api/undo", csrf=other.csrf)[0] == 403
    assert c.post("/api/end", {"reason": "test"}, csrf=None)[0] == 403
    assert not table.snapshot()["over"]
    assert c.post("/api/end", {"reason": "test"}, csrf=old)[0] == 200
    assert table.snapshot()["over"]


def test_wrong_pins_lock_out(table: Table, pin_hash: str) -> None:
    now = [0.0]
    app = create_app(table, pin_hash=pin_hash, guard=PinGuard(free=3, base=30, time_source=lambda: now[0]))
    c = Client(app)
    for _ in range(3):
        assert c.login("0000")[0] == 401
    status, body = c.login("0000")
    assert status == 429 and body["wait"] == 30
    # Even the right PIN waits out the lockout...
    assert c.login(PIN)[0] == 429
    assert c.get("/api/session")[1]["wait"] > 0
    now[0] += 31
    assert c.login(PIN)[0] == 200  # ...and is taken afterwards


def test_first_pin_is_set_then_needed(table: Table) -> None:
    kept: list[str] = []
    app = create_app(table, on_pin_set=kept.append)
    c = Client(app)
    assert c.get("/api/session")[1]["pin_set"] is False
    assert c.post("/api/pause")[0] == 401
    assert c.login("1234")[0] == 409
    assert c.post("/api/pin", {"pin": "12"})[0] == 400
    assert c.post("/api/pin", {"pin": "97531"})[0] == 200
    assert len(kept) == 1 and check_pin("97531", kept[0]) and "97531" not in kept[0]
    assert c.get("/api/session")[1]["director"] is True
    # Once set, a stranger cannot set it again.
    stranger = Client(app)
    assert stranger.post("/api/pin", {"pin": "0000"})[0] == 401
    # The director changes it with the current PIN; other sessions are logged out.
    other = Client(app)
    assert other.login("97531")[0] == 200
    assert c.post("/api/pin", {"pin": "86420", "current": "wrong"})[0] == 401
    assert c.post("/api/pin", {"pin": "86420", "current": "97531"})[0] == 200
    table.new_game(["Ann", "Bob"])
    assert other.post("/api/pause")[0] == 401
    assert c.post("/api/pause")[0] == 400  # the director is still in; the clock has not started


def test_logout(director: Client, table: Table) -> None:
    table.new_game(["Ann", "Bob"])
    assert director.post("/api/logout")[0] == 200
    assert director.post("/api/undo")[0] == 401


@pytest.mark.parametrize("raw", ["{", "[1, 2]", "\"text\"", "nul", "{\"players\": 5}"])
def test_bad_json_is_a_400(director: Client, raw: str) -> None:
    status, body = director.post("/api/game", raw=raw)
    assert status == 400 and body["error"]


@pytest.mark.parametrize("path,body", [
    ("/api/game", {"players": ["Ann"]}),
    ("/api/game", {"players": ["Ann", "Ann"]}),
    ("/api/game", {"players": ["Ann", "Bob"], "challenge": "triple"}),
    ("/api/game", {"players": ["Ann", "Bob"], "minutes": -3}),
    ("/api/game", {"players": ["Ann", "Bob"], "minutes": "lots"}),
    ("/api/game", {"players": ["Ann", "Bob"], "overtime_penalty": 1.5}),
    ("/api/game", {"players": ["Ann", "Bob"], "lexicon": "no-such-lexicon"}),
    ("/api/game", {"players": ["Ann", {"x": 1}]}),
    ("/api/adjust", {"player": 0, "points": "many", "reason": "x"}),
    ("/api/adjust", {"player": 5, "points": 5, "reason": "x"}),
    ("/api/adjust", {"player": 0, "points": 5}),
    ("/api/adjust", {"player": True, "points": 5, "reason": "x"}),
    ("/api/play", {"player": 0, "play": "QUITE"}),
    ("/api/play", {"player": 0, "play": "Z99 AB"}),
    ("/api/play", {"player": 0}),
    ("/api/confirm", {"tiles": {"H8": "A"}}),
    ("/api/blanks", {"letters": "A"}),
    ("/api/racks", {"racks": ["ABC"]}),
    ("/api/press", {"player": 0, "exchange": "yes"}),
    ("/api/correct", {"play": "8D WINDY"}),
    ("/api/challenge", {"player": 1}),
    ("/api/accept", {}),
    ("/api/resume", {}),
])
def test_bad_values_are_a_400_with_a_message(director: Client, table: Table, path: str, body: Any) -> None:
    table.new_game(["Ann", "Bob"])
    status, out = director.post(path, body)
    assert status == 400, out
    assert isinstance(out["error"], str) and out["error"]


def test_actions_without_a_game_are_a_400(director: Client) -> None:
    for path in ("/api/pause", "/api/undo", "/api/end"):
        status, out = director.post(path)
        assert status == 400 and "no game" in out["error"]
    assert director.get("/api/gcg")[0] == 404


def test_unknown_api_path_and_method_are_json(director: Client) -> None:
    status, out = director.get("/api/nothing")
    assert status == 404 and "error" in out
    status, out = director.post("/api/state")
    assert status == 405 and "error" in out


def test_body_too_large_is_refused(director: Client) -> None:
    status, out = director.post("/api/judge", {"words": ["A" * 100_000]})
    assert status == 413 and "error" in out


def test_director_runs_a_game(director: Client, table: Table) -> None:
    status, out = director.post("/api/game", {"players": ["Ann", "Bob"], "challenge": "double", "minutes": 20,
                                              "overtime_penalty": 5, "max_overtime_minutes": 5})
    assert status == 200 and out["game"] == table.game_id
    s = table.snapshot()
    assert s["rules"]["challenge"] == "double" and s["clock"]["control"]["minutes"] == 20
    assert director.post("/api/press", {"player": 0})[1]["outcome"] == "started"
    assert director.post("/api/pause")[0] == 200
    assert table.snapshot()["clock"]["phase"] == "paused"
    assert director.post("/api/resume")[0] == 200
    assert director.post("/api/play", {"player": 0, "play": "8D WINDY"})[1]["score"] == 32
    # The director corrects the last play: the W was a blank.
    status, out = director.post("/api/correct", {"play": "8D wINDY"})
    assert status == 200 and out["play"] == "8D wINDY"
    assert table.snapshot()["players"][0]["score"] == 16  # the blank W on the double letter scores 0
    assert director.post("/api/adjust", {"player": 1, "points": -10, "reason": "phony penalty"})[0] == 200
    assert table.snapshot()["players"][1]["score"] == -10
    assert director.post("/api/undo")[1]["undone"] == "score_adjusted"
    assert table.snapshot()["players"][1]["score"] == 0
    gcg = director.get("/api/gcg")[1]
    assert "#player1" in gcg and "wINDY" in gcg
    assert director.post("/api/end", {"reason": "time"})[0] == 200
    assert table.snapshot()["over"] is True
    assert director.post("/api/end")[0] == 400  # already over


def test_reread_is_confirmed_from_the_page(director: Client, table: Table, game_time: Any) -> None:
    table.new_game(["Ann", "Bob"])
    table.press(0)  # starts the clock
    game_time.advance(0.35)  # past the clock's guard against a double press
    out = director.post("/api/press", {"player": 0})[1]
    assert out["outcome"] == "pending"  # no camera: the play is entered on the page
    assert table.snapshot()["pending"]["kind"] == "reread"
    status, out = director.post("/api/confirm", {"tiles": {"H8": "Q", "H9": "I"}})
    assert status == 200 and out["outcome"] == "play"
    assert table.snapshot()["moves"][0]["text"] == "H8 QI"


def test_blank_letter_is_asked_and_given(director: Client, table: Table, game_time: Any) -> None:
    table.new_game(["Ann", "Bob"])
    table.press(0)
    game_time.advance(0.35)
    director.post("/api/press", {"player": 0})
    # A blank in Q?IT: only a few letters make a word, so the table asks.
    director.post("/api/confirm", {"tiles": {"H8": "?", "I8": "A"}})
    pending = table.snapshot()["pending"]
    assert pending["kind"] == "blank" and pending["doubtful"] == ["H8"]
    assert director.post("/api/blanks", {"letters": {"H8": "1"}})[0] == 400
    status, out = director.post("/api/blanks", {"letters": {"H8": "z"}})
    assert status == 200 and out["play"] == "8H zA"


def test_word_judge_without_a_word_list_says_so(app: Any, table: Table) -> None:
    from board_pi.rules.judge import WordJudge
    from board_pi.rules.tiles import TILE_SETS

    table.use_judge(WordJudge.without_list(TILE_SETS["polish"], "no word list is configured for the polish tile set"))
    status, out = Client(app).post("/api/judge", {"words": ["qi"]})
    assert status == 400 and "no word list" in out["error"] and "verdict" not in out


def test_word_judge(app: Any, table: Table) -> None:
    c = Client(app)
    status, out = c.post("/api/judge", {"words": ["qi", "za"]})
    assert status == 200 and out == {"verdict": "ACCEPTABLE", "acceptable": True, "words": 2}
    status, out = c.post("/api/judge", {"words": "QI ZZZQ"})
    assert status == 200 and out["verdict"] == "NOT ACCEPTABLE"
    assert set(out) == {"verdict", "acceptable", "words"}  # nothing says which word
    assert c.post("/api/judge", {"words": [f"QI{i}" for i in range(9)]})[0] == 400
    assert c.post("/api/judge", {"words": ["A" * 9] * 9})[0] == 400
    assert c.post("/api/judge", {"words": []})[0] == 400
    assert c.post("/api/judge", {"words": [1, 2]})[0] == 400
    assert c.post("/api/judge", {"words": ["QI"]}, csrf=None)[0] == 403
    c.login()
    log = c.get("/api/judge/log")[1]["log"]
    assert [e["words"] for e in log] == [["QI", "ZA"], ["QI", "ZZZQ"]]
    assert [e["acceptable"] for e in log] == [True, False]


def test_last_play_words(app: Any, table: Table) -> None:
    c = Client(app)
    assert c.get("/api/last-play")[1]["words"] == []
    table.new_game(["Ann", "Bob"])
    table.enter_play(0, "8D WINDY")
    table.enter_play(1, "E5 MoA")
    out = c.get("/api/last-play")[1]
    assert out["words"] == ["MOAI"] and out["play"] == "E5 MoA(I)"


def test_new_game_with_another_lexicon(director: Client, table: Table, tmp_path: Any, monkeypatch: Any) -> None:
    (tmp_path / "lexicons").mkdir()
    (tmp_path / "lexicons" / "tiny.txt").write_text("QI\nZA\n")
    monkeypatch.setenv("BOARD_PI_LEXICONS", str(tmp_path / "lexicons"))
    monkeypatch.setenv("BOARD_PI_CACHE", str(tmp_path / "cache"))
    assert "tiny" in director.get("/api/lexicons")[1]["lexicons"]
    status, out = director.post("/api/game", {"players": ["Ann", "Bob"], "lexicon": "tiny"})
    assert status == 200, out
    assert table.snapshot()["rules"]["lexicon"] == "tiny"
    assert director.post("/api/judge", {"words": ["QI"]})[1]["acceptable"] is True
    assert director.post("/api/judge", {"words": ["ZIZ"]})[1]["acceptable"] is False  # a word of the default list


def test_calibration_view_says_why_not(director: Client, table: Table) -> None:
    status, out = director.get("/api/calibration.png")
    assert status == 404
    assert "OpenCV" in out["error"] or "frame" in out["error"]


def test_calibration_view_draws_the_reading(director: Client, table: Table) -> None:
    np = pytest.importorskip("numpy")
    pytest.importorskip("cv2", reason="OpenCV is not installed")
    from board_pi.table.reading import BoardReading

    table.last_frame = np.full((300, 300, 3), 128, np.uint8)
    table.last_reading = BoardReading.certain(["." * 15] * 7 + ["...WINDY......."] + ["." * 15] * 7)
    status, png = director.http.get("/api/calibration.png").status_code, director.http.get("/api/calibration.png").data
    assert status == 200 and png[:8] == b"\x89PNG\r\n\x1a\n"


def test_calibration_view_shows_the_frame_straightened_by_the_lens(director: Client, table: Table) -> None:
    # A camera whose lens the calibration measured: the grid's corners are the straightened
    # frame's, so the director sees the frame straightened, the grid drawn where it was found.
    np = pytest.importorskip("numpy")
    pytest.importorskip("cv2", reason="OpenCV is not installed")
    from board_pi.table.reading import BoardReading
    from board_pi.table.vision import VisionReader
    from board_pi.vision.calibration import Calibration, Tracker
    from board_pi.web.calibration import render

    frame = np.random.default_rng(0).integers(0, 255, (300, 400, 3)).astype(np.uint8)
    cal = Calibration(np.float32([[50, 40], [350, 40], [350, 260], [50, 260]]), 0, (400, 300), bend=0.2)
    table.reader = VisionReader(reader=object(), tracker=Tracker(cal))
    table.last_frame = frame
    table.last_reading = BoardReading.certain(["." * 15] * 7 + ["...WINDY......."] + ["." * 15] * 7)
    png = director.http.get("/api/calibration.png").data
    doubt = table.settings.doubt_below
    assert png == render(cal.lens.straighten(frame), table.last_reading, doubt) != render(frame, table.last_reading, doubt)


def test_openapi_documents_every_api_route(app: Any) -> None:
    status, spec = Client(app).get("/api/openapi")
    assert status == 200 and spec["openapi"].startswith("3.")
    import re

    def templated(rule: str) -> str:  # Flask's <name> is OpenAPI's {name}
        return re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", rule)

    routes = {templated(r.rule) for r in app.url_map.iter_rules() if r.rule.startswith("/api/")}
    assert routes == set(spec["paths"])
    for path, ops in spec["paths"].items():
        for method in ops:
            rule = next(r for r in app.url_map.iter_rules() if templated(r.rule) == path)
            assert method.upper() in rule.methods, (path, method)


def test_security_headers(app: Any) -> None:
    r = app.test_client().get("/")
    csp = r.headers["Content-Security-Policy"]
    assert "default-src 'self'" in csp and "script-src 'self'" in csp
    assert r.headers["X-Frame-Options"] == "DENY"
    cookie = r.headers.get("Set-Cookie", "")
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
    html = r.get_data(as_text=True)
    assert "http://" not in html and "https://" not in html  # no external fonts, scripts or CDNs


def test_word_judge_may_be_kept_for_the_director(table: Table, pin_hash: str) -> None:
    c = Client(create_app(table, pin_hash=pin_hash, judge_needs_pin=True))
    assert c.post("/api/judge", {"words": ["QI"]})[0] == 401
    c.login()
    assert c.post("/api/judge", {"words": ["QI"]})[1]["acceptable"] is True


# -- whatever a client sends, the answer is never a 500 -------------------------------------

from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402

JSON = st.recursive(st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.floats(allow_nan=True)
                    | st.text(max_size=12),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
                    max_leaves=12)
FIELDS = ["players", "player", "play", "points", "reason", "tiles", "letters", "racks", "words", "pin", "current",
          "minutes", "overtime_penalty", "challenge", "lexicon", "exchange", "exchange_count"]
BODIES = st.dictionaries(st.sampled_from(FIELDS), JSON, max_size=4) | JSON


@pytest.fixture(scope="module")
def fuzz_client(tmp_path_factory: Any, lexicon: Any, pin_hash: str) -> Client:
    import time

    from board_pi.rules.judge import WordJudge
    from board_pi.table.store import Journal

    table = Table(Journal(tmp_path_factory.mktemp("fuzz") / "j.db"), WordJudge(lexicon, clock=time.time))
    table.new_game(["Ann", "Bob"])
    table.enter_play(0, "8D WINDY")
    c = Client(create_app(table, pin_hash=pin_hash, guard=PinGuard(free=10**9)))
    assert c.login()[0] == 200
    return c


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(path=st.sampled_from(["/api/game", "/api/adjust", "/api/end", "/api/correct", "/api/play", "/api/press",
                             "/api/confirm", "/api/blanks", "/api/racks", "/api/hold", "/api/challenge",
                             "/api/judge", "/api/pin", "/api/undo", "/api/pause", "/api/accept"]),
       body=BODIES)
def test_no_request_body_makes_a_500(fuzz_client: Client, path: str, body: Any) -> None:
    if path == "/api/pin":
        body = {**body, "current": "not the PIN"} if isinstance(body, dict) else body  # never change it
    status, out = fuzz_client.post(path, raw=json.dumps(body))
    assert status < 500, (path, body, out)
    assert status != 401 or path == "/api/pin", out  # still the director throughout
    if status >= 400:
        assert isinstance(out, dict) and out.get("error")


def test_director_stays_logged_in_across_a_restart(table: Table, pin_hash: str, tmp_path: Any) -> None:
    first = create_app(table, pin_hash=pin_hash, secret_key="kept", data_dir=tmp_path)
    c = Client(first)
    c.login()
    cookie = c.http.get_cookie("board_pi_session")
    assert cookie is not None
    table.new_game(["Ann", "Bob"])
    # The sessions the server knows are kept in the data directory with the key.
    second = Client(create_app(table, pin_hash=pin_hash, secret_key="kept", data_dir=tmp_path))
    second.http.set_cookie("board_pi_session", cookie.value)
    second.csrf = second.get("/api/session")[1]["csrf"]
    assert second.get("/api/session")[1]["director"] is True
    assert second.post("/api/end", {"reason": "restart test"})[0] == 200


def test_finished_games_are_listed_and_downloaded_from_the_archive(tmp_path: Any, lexicon: Any,
                                                                     pin_hash: str) -> None:
    import time

    from board_pi.rules.judge import WordJudge
    from board_pi.table.archive import GameArchive
    from board_pi.table.store import Journal

    archive = GameArchive(tmp_path / "games")
    table = Table(Journal(tmp_path / "j.db"), WordJudge(lexicon, clock=time.time), archive=archive,
                  on_finished=lambda gcg, meta: archive.save(gcg, meta))
    table.new_game(["Ann", "Bob"])
    table.enter_play(0, "8D WINDY")
    table.end_game()
    c = Client(create_app(table, pin_hash=pin_hash, secret_key="s"))
    status, body = c.get("/api/games")
    assert status == 200 and len(body["archive"]) == 1
    entry = body["archive"][0]
    assert entry["players"] == ["Ann", "Bob"] and entry["scores"] == [32, 0]
    status, text = c.get(f"/api/archive/{entry['id']}.gcg")
    assert status == 200 and ">Ann: DINWY 8D WINDY +32 32" in text
    status, body = c.get("/api/archive/nope.gcg")
    assert status == 404 and "nope" in body["error"]


def test_a_new_game_takes_its_tile_set_and_keeps_the_one_played_by_default(director: Client, table: Table) -> None:
    status, body = director.post("/api/game", {"players": ["Anna", "Ben"], "tiles": "german", "lexicon": "german-demo"})
    assert status == 200, body
    state = director.get("/api/state")[1]
    assert state["tile_set"]["name"] == "german" and "Ä" in state["tile_set"]["letters"]
    assert state["values"]["Ä"] == 6 and state["unseen"]["Ä"] == 1
    assert list(state["unseen"])[:3] == ["A", "Ä", "B"]  # the set's own order
    status, _ = director.post("/api/game", {"players": ["Cora", "Dirk"]})
    assert status == 200 and director.get("/api/state")[1]["tile_set"]["name"] == "german"  # a German club stays German
    status, body = director.post("/api/game", {"players": ["Ann", "Bob"], "tiles": "klingon"})
    assert status == 400 and "tiles" in body["error"]


def test_a_set_with_no_word_list_is_refused_by_name_not_judged_in_english(director: Client, table: Table) -> None:
    status, body = director.post("/api/game", {"players": ["Ana", "Bea"], "tiles": "spanish", "lexicon": "default"})
    assert status == 400 and "spanish" in body["error"] and "lexicon" in body["error"]


def test_the_board_comes_square_by_square_with_two_letter_tiles(director: Client, table: Table) -> None:
    from board_pi.rules.game import GameRules
    from board_pi.rules.tiles import SPANISH

    table.new_game(["Ana", "Bea"], GameRules(tiles=SPANISH))
    table.enter_play(0, "8G [CH]A[RR]O")
    state = director.get("/api/state")[1]
    assert state["squares"][7][6:10] == ["CH", "A", "RR", "O"]
    assert state["board"][7] == "......[CH]A[RR]O....."
