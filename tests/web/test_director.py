"""The director's PIN and sessions under attack: where the PIN is kept, who may choose the first
one, guesses raced against the lockout, logout, bad numbers and bodies, the lexicon."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from board_pi.table.table import Table
from board_pi.web import create_app
from board_pi.pin import check_pin, hash_pin
from board_pi.serve.guard import PinGuard
from board_pi.pin import CODE_FILE, PIN_FILE, DirectorStoreError
from board_pi.serve.store import DirectorStore

from .conftest import PIN
from .test_api import Client

ROOT = Path(__file__).resolve().parents[2]
REMOTE = {"REMOTE_ADDR": "192.168.1.50"}  # a phone on the club's network


class Remote(Client):
    """A browser away from the Pi (or behind a proxy: extra headers on every request)."""

    def __init__(self, app: Any, addr: str = "192.168.1.50", headers: dict[str, str] | None = None) -> None:
        self.http = app.test_client()
        self.http.environ_base = {**self.http.environ_base, "REMOTE_ADDR": addr}
        for k, v in (headers or {}).items():
            self.http.environ_base["HTTP_" + k.upper().replace("-", "_")] = v
        self.csrf = self.get("/api/session")[1]["csrf"]


# -- the first PIN ---------------------------------------------------------------------------


def test_a_spectator_cannot_choose_the_first_pin(table: Table, tmp_path: Path) -> None:
    app = create_app(table, data_dir=tmp_path)
    spectator = Remote(app)
    session = spectator.get("/api/session")[1]
    assert session["pin_set"] is False and session["setup_code"] is True
    status, body = spectator.post("/api/pin", {"pin": "1111"})
    assert status == 403 and "one-time code" in body["error"]
    status, body = spectator.post("/api/pin", {"pin": "1111", "code": "AAAA-AAAA"})
    assert status == 403
    # A proxy on the Pi itself makes every visitor look local: its headers say otherwise.
    for header in ("X-Forwarded-For", "Forwarded", "X-Real-IP"):
        proxied = Remote(app, "127.0.0.1", {header: "192.168.1.50"})
        assert proxied.get("/api/session")[1]["setup_code"] is True
        assert proxied.post("/api/pin", {"pin": "1111"})[0] == 403
    assert not (tmp_path / PIN_FILE).exists()
    assert app.extensions["board_pi"].store.pin_hash() is None


@pytest.mark.parametrize("addr", ["127.0.0.1", "::1", "::ffff:127.0.0.1"])
def test_the_first_pin_is_chosen_on_the_pi_itself(table: Table, tmp_path: Path, addr: str) -> None:
    app = create_app(table, data_dir=tmp_path)
    local = Remote(app, addr)
    assert local.get("/api/session")[1]["setup_code"] is False
    assert local.post("/api/pin", {"pin": "97531"})[0] == 200
    assert check_pin("97531", (tmp_path / PIN_FILE).read_text().strip())


def test_the_one_time_code_lets_a_remote_page_choose_it_once(table: Table, tmp_path: Path) -> None:
    app = create_app(table, data_dir=tmp_path)
    code = app.extensions["board_pi"].store.setup_code()
    assert (tmp_path / CODE_FILE).read_text().strip() == code  # the same one run and doctor show
    assert (tmp_path / CODE_FILE).stat().st_mode & 0o777 == 0o600
    director = Remote(app)
    assert director.post("/api/pin", {"pin": "97531", "code": code.lower().replace("-", " ")})[0] == 200
    assert director.get("/api/session")[1]["director"] is True
    assert not (tmp_path / CODE_FILE).exists()  # used up
    # The code is spent: nobody else can use it to set the PIN again.
    other = Remote(app, "192.168.1.51")
    assert other.post("/api/pin", {"pin": "0000", "code": code})[0] == 401
    assert check_pin("97531", app.extensions["board_pi"].store.pin_hash())


def test_guessing_the_one_time_code_is_locked_out(table: Table) -> None:
    now = [0.0]
    app = create_app(table, guard=PinGuard(free=3, base=30, time_source=lambda: now[0]))
    code = app.extensions["board_pi"].store.setup_code()
    guesser = Remote(app)
    statuses = [guesser.post("/api/pin", {"pin": "1111", "code": f"AAAA-AAA{c}"})[0] for c in "23456"]
    assert statuses[:4] == [403] * 4 and statuses[4] == 429
    assert guesser.post("/api/pin", {"pin": "1111", "code": code})[0] == 429  # even the right one waits
    now[0] += 31
    assert guesser.post("/api/pin", {"pin": "1111", "code": code})[0] == 200


def test_first_pin_on_an_installed_table_with_a_read_only_configuration(tmp_path: Path) -> None:
    """`board-pi run` as installed: the configuration read-only (0440, in a read-only folder),
    the data directory writable. The PIN chosen on the page is kept there, the doctor shows the
    same one-time code as the service's log, and the PIN still works after a restart."""
    from board_pi.config import load_config
    from board_pi.cli.doctor import check_director

    etc, data = tmp_path / "etc", tmp_path / "data"
    etc.mkdir()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    cfg = etc / "board-pi.toml"
    cfg.write_text('[camera]\nsource = "none"\n[clock]\nbackend = "none"\n'
                   f'[web]\nhost = "127.0.0.1"\nport = {port}\n[data]\ndir = "{data}"\n')
    before = cfg.read_bytes()
    os.chmod(cfg, 0o440)
    os.chmod(etc, 0o555)
    try:
        out = _run_table(cfg, port, lambda base, c: c.post(base + "/api/pin", {"pin": "8642"}))
        assert out["status"] == 200, out
        code = out["code"]
        assert code and check_director(load_config(cfg)).status == "ok"
        assert cfg.read_bytes() == before
        stored = (data / PIN_FILE).read_text().strip()
        assert check_pin("8642", stored) and (data / PIN_FILE).stat().st_mode & 0o777 == 0o600
        assert not (data / CODE_FILE).exists()
        # A restart reads it back from the data directory.
        again = _run_table(cfg, port, lambda base, c: c.post(base + "/api/login", {"pin": "8642"}))
        assert again["status"] == 200 and again["code"] is None
    finally:
        os.chmod(etc, 0o755)


def test_the_doctor_shows_the_code_the_service_printed(tmp_path: Path) -> None:
    from board_pi.config import parse_config
    from board_pi.cli.doctor import check_director

    cfg = parse_config(f'[data]\ndir = "{tmp_path}"\n')
    first = check_director(cfg)
    assert first.status == "warn"
    code = DirectorStore(tmp_path).setup_code()  # what `run` prints
    assert code is not None and code in first.detail and code in check_director(cfg).detail
    (tmp_path / PIN_FILE).write_text("scrypt$1099511627776$8$1$c2FsdHNhbHQ$" + "a" * 43 + "\n")
    bad = check_director(cfg)
    assert bad.status == "fail" and "out of range" in bad.detail and "set-pin" in bad.fix


class _Http:
    """urllib with cookies, JSON and the CSRF header: a browser on the Pi itself."""

    def __init__(self) -> None:
        import http.cookiejar
        import urllib.request

        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
        self.csrf = ""

    def get(self, url: str) -> Any:
        return json.load(self.opener.open(url, timeout=10))

    def post(self, url: str, body: Any) -> int:
        import urllib.error
        import urllib.request

        req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json", "X-CSRF-Token": self.csrf})
        try:
            return int(self.opener.open(req, timeout=30).status)
        except urllib.error.HTTPError as e:
            return int(e.code)


def _run_table(cfg: Path, port: int, action: Any) -> dict[str, Any]:
    """Start `board-pi run`, wait for its page, do ``action``, stop it; what happened."""
    proc = subprocess.Popen([sys.executable, "-m", "board_pi.cli", "run", "--config", str(cfg), "--stop-after", "60"],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(proc.stdout), daemon=True)  # type: ignore[arg-type]
    reader.start()
    base = f"http://127.0.0.1:{port}"
    client = _Http()
    try:
        for _ in range(300):
            try:
                client.csrf = client.get(base + "/api/session")["csrf"]
                break
            except OSError:
                if proc.poll() is not None:
                    raise AssertionError(proc.stderr.read() if proc.stderr else "run ended") from None
                time.sleep(0.1)
        status = action(base, client)
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        reader.join(10)
    code_lines = [line for line in lines if "one-time code" in line]
    return {"status": status, "code": code_lines[0].split()[-1] if code_lines else None,
            "stderr": proc.stderr.read() if proc.stderr else ""}


# -- a stored PIN that cannot be used --------------------------------------------------------


def test_a_stored_hash_with_impossible_costs_is_refused(tmp_path: Path, table: Table) -> None:
    salt_key = hash_pin("2468").split("$", 4)[4]
    for n in ("1099511627776", "3", "99999999999999999999999"):
        bad = f"scrypt${n}$8$1${salt_key}"
        (tmp_path / PIN_FILE).write_text(bad + "\n")
        with pytest.raises(DirectorStoreError, match="set-pin"):
            DirectorStore(tmp_path)
        with pytest.raises(DirectorStoreError, match="set-pin"):
            DirectorStore(None, legacy_hash=bad)
        with pytest.raises(ValueError):
            create_app(table, pin_hash=bad)


def test_run_refuses_a_stored_hash_with_impossible_costs(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / PIN_FILE).write_text("scrypt$1099511627776$8$1$c2FsdHNhbHQ$" + "a" * 43 + "\n")
    cfg = tmp_path / "board-pi.toml"
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    cfg.write_text(f'[camera]\nsource = "none"\n[clock]\nbackend = "none"\n[web]\nport = {port}\n[data]\ndir = "{data}"\n')
    r = subprocess.run([sys.executable, "-m", "board_pi.cli", "run", "--config", str(cfg), "--stop-after", "0.1"],
                       cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "out of range" in r.stderr and "set-pin" in r.stderr, r.stderr
    assert "Traceback" not in r.stderr


# -- guesses raced against the lockout -------------------------------------------------------


def test_simultaneous_wrong_pins_are_counted_before_the_hash(table: Table, pin_hash: str) -> None:
    app = create_app(table, pin_hash=pin_hash, guard=PinGuard(free=3, base=30, time_source=lambda: 0.0))
    clients = [Client(app) for _ in range(50)]  # one address: the test client's 127.0.0.1
    start = threading.Barrier(len(clients))
    answers: list[tuple[int, str]] = []
    lock = threading.Lock()

    def guess(c: Client) -> None:
        start.wait()
        status, body = c.login("0000")
        with lock:
            answers.append((status, body["error"]))

    threads = [threading.Thread(target=guess, args=(c,)) for c in clients]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    checked = [a for a in answers if a[1].startswith("wrong PIN")]  # hashed, then found wrong
    refused = [a for a in answers if a[1].startswith("too many wrong PINs")]  # never hashed
    assert len(answers) == 50 and len(checked) + len(refused) == 50
    assert len(checked) == 4  # the three free guesses and the one that starts the lockout
    assert all(s == 429 for s, _ in refused)


def test_pin_checks_at_once_are_bounded(table: Table, pin_hash: str) -> None:
    app = create_app(table, pin_hash=pin_hash)
    state = app.extensions["board_pi"]
    state.hash_wait = 0.2
    held = [state.hashing.acquire(timeout=1) for _ in range(2)]  # every slot busy
    try:
        assert all(held)
        status, body = Client(app).login()
        assert status == 503 and "busy" in body["error"]
    finally:
        for _ in held:
            state.hashing.release()
    assert Client(app).login()[0] == 200


# -- sessions --------------------------------------------------------------------------------


def test_logout_ends_the_session_on_the_server(table: Table, pin_hash: str) -> None:
    app = create_app(table, pin_hash=pin_hash, secret_key="s")
    table.new_game(["Ann", "Bob"])
    c = Client(app)
    assert c.login()[0] == 200
    cookie = c.http.get_cookie("board_pi_session")
    assert cookie is not None
    old_csrf = c.csrf
    assert c.post("/api/logout")[0] == 200
    # The cookie kept from before the logout (a shared laptop, a copied cookie) is worth nothing.
    thief = Client(app)
    thief.http.set_cookie("board_pi_session", cookie.value)
    thief.csrf = old_csrf
    assert thief.get("/api/session")[1]["director"] is False
    assert thief.post("/api/pause")[0] == 401


def test_sessions_end_after_twelve_hours_by_the_servers_clock(table: Table, pin_hash: str) -> None:
    now = [1_000_000.0]
    app = create_app(table, store=DirectorStore(None, pin_hash, clock=lambda: now[0]))
    c = Client(app)
    assert c.login()[0] == 200
    now[0] += 11.9 * 3600
    assert c.get("/api/session")[1]["director"] is True
    now[0] += 0.2 * 3600
    assert c.get("/api/session")[1]["director"] is False


def test_a_new_pin_ends_every_session_even_after_a_restart(table: Table, pin_hash: str, tmp_path: Path) -> None:
    first = create_app(table, pin_hash=pin_hash, secret_key="kept", data_dir=tmp_path)
    a, b = Client(first), Client(first)
    assert a.login()[0] == 200 and b.login()[0] == 200
    cookie = b.http.get_cookie("board_pi_session")
    assert a.post("/api/pin", {"pin": "86420", "current": PIN})[0] == 200
    assert b.get("/api/session")[1]["director"] is False
    second = create_app(table, secret_key="kept", data_dir=tmp_path)
    back = Client(second)
    back.http.set_cookie("board_pi_session", cookie.value)
    assert back.get("/api/session")[1]["director"] is False


# -- bodies and numbers ----------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/api/login", "/api/judge", "/api/pin", "/api/game", "/api/adjust"])
@pytest.mark.parametrize("depth", [17, 1000, 10000])
def test_deeply_nested_json_is_a_400(table: Table, pin_hash: str, path: str, depth: int) -> None:
    app = create_app(table, pin_hash=pin_hash, guard=PinGuard(free=10 ** 9))
    c = Client(app)
    assert c.login()[0] == 200
    for raw in ("[" * depth + "]" * depth, '{"a":' * depth + "1" + "}" * depth,
                '{"words": ' + "[" * depth + "]" * depth + "}"):
        status, body = c.post(path, raw=raw)
        assert status == 400 and "deep" in body["error"], (path, depth, body)


def test_brackets_inside_text_are_not_nesting(director_app: tuple[Any, Client], table: Table) -> None:
    _, c = director_app
    table.new_game(["Ann", "Bob"])
    status, body = c.post("/api/adjust", {"player": 1, "points": 5, "reason": "[" * 40 + "{" * 40})
    assert status == 200, body


@pytest.fixture
def director_app(table: Table, pin_hash: str) -> tuple[Any, Client]:
    app = create_app(table, pin_hash=pin_hash)
    c = Client(app)
    assert c.login()[0] == 200
    return app, c


@pytest.mark.parametrize("value", ["+-1", "--1", "-+1", "²", "٣", "1²", "¹⁰", "1_0", " ", "", "0x10", "1e3", "10" * 40])
def test_odd_numbers_in_director_actions_are_a_400(director_app: tuple[Any, Client], table: Table, value: str) -> None:
    _, c = director_app
    table.new_game(["Ann", "Bob"])
    for body in ({"player": 0, "points": value, "reason": "x"}, {"player": value, "points": 1, "reason": "x"}):
        status, out = c.post("/api/adjust", body)
        assert status == 400 and ("whole number" in out["error"] or "between" in out["error"]), (body, out)
    status, out = c.post("/api/game", {"players": ["Ann", "Bob"], "minutes": value})
    assert status == 400 and ("number" in out["error"] or "between" in out["error"]), out
    assert table.snapshot()["players"][0]["score"] == 0


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "1e999", "NaN", "Infinity", "²5", "2.5.1"])
def test_odd_decimals_in_the_time_control_are_a_400(director_app: tuple[Any, Client], value: str) -> None:
    _, c = director_app
    status, out = c.post("/api/game", {"players": ["Ann", "Bob"], "minutes": value})
    assert status == 400 and "minutes" in out["error"], out


def test_plain_numbers_as_text_still_work(director_app: tuple[Any, Client], table: Table) -> None:
    _, c = director_app
    assert c.post("/api/game", {"players": ["Ann", "Bob"], "minutes": " 20.5 ", "overtime_penalty": "+10"})[0] == 200
    assert c.post("/api/adjust", {"player": "1", "points": "-7", "reason": "x"})[0] == 200
    assert table.snapshot()["players"][1]["score"] == -7


# -- the archive -----------------------------------------------------------------------------


def test_a_latin1_record_in_the_archive_is_listed_and_downloaded(tmp_path: Path, lexicon: Any, pin_hash: str) -> None:
    from board_pi.rules.judge import WordJudge
    from board_pi.table.archive import GameArchive
    from board_pi.table.store import Journal

    games = tmp_path / "games" / "games"
    games.mkdir(parents=True)
    raw = "#character-encoding ISO-8859-1\n#player1 jose José\n#player2 zoe Zoë\n>José: AEINST 8D ETAINS +72 72\n"
    (games / "20240101-1200-jose-vs-zoe.gcg").write_bytes(raw.encode("latin-1"))
    archive = GameArchive(tmp_path / "games")
    table = Table(Journal(tmp_path / "j.db"), WordJudge(lexicon, clock=time.time), archive=archive)
    c = Client(create_app(table, pin_hash=pin_hash))
    status, body = c.get("/api/games")
    assert status == 200 and [g["id"] for g in body["archive"]] == ["20240101-1200-jose-vs-zoe"]
    r = c.http.get("/api/archive/20240101-1200-jose-vs-zoe.gcg")
    assert r.status_code == 200 and r.get_data() == raw.encode("latin-1")
    assert "iso-8859-1" in r.headers["Content-Type"]
    assert r.get_data().decode(r.mimetype_params["charset"]) == raw
    table.journal.close()


# -- the lexicon -----------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["/etc/passwd", "../../etc/passwd", "/etc/hostname", "~/.bashrc", "passwd",
                                  "lexicons/../../etc/passwd", "."])
def test_the_lexicon_is_chosen_by_name_only(director_app: tuple[Any, Client], table: Table, name: str) -> None:
    _, c = director_app
    before = table.judge.lexicon.name
    status, out = c.post("/api/game", {"players": ["Ann", "Bob"], "lexicon": name})
    assert status == 400 and "no lexicon named" in out["error"], out
    assert table.judge.lexicon.name == before and table.game is None


def test_the_configured_lexicon_may_be_a_path(table: Table, pin_hash: str, tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setenv("BOARD_PI_CACHE", str(tmp_path / "cache"))
    club = tmp_path / "club.txt"
    club.write_text("QI\nZA\n")
    app = create_app(table, pin_hash=pin_hash, lexicons=(str(club),))
    c = Client(app)
    assert c.login()[0] == 200
    status, out = c.post("/api/game", {"players": ["Ann", "Bob"], "lexicon": "club"})
    assert status == 200, out
    assert table.judge.lexicon.name == "club"
    assert c.post("/api/game", {"players": ["Ann", "Bob"], "lexicon": str(club)})[0] == 400  # by name only
