"""Each setting defined once, on its domain type: the configuration file, the status page's form
and the command line refuse the same bad value with the same words (board_pi.settings)."""

from __future__ import annotations

import doctest
import json
import re
import subprocess
import sys
import time
from dataclasses import fields
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

import board_pi.settings
from board_pi.clock import TimeControl
from board_pi.config import ConfigError, parse_config
from board_pi.hardware.gpio import GpioPins
from board_pi.pin import hash_pin
from board_pi.rules.game import ChallengeRule
from board_pi.rules.judge import WordJudge
from board_pi.rules.lexicon import Lexicon
from board_pi.settings import check, choice, limits
from board_pi.table.store import Journal
from board_pi.table.table import Table
from board_pi.web import create_app

PIN = "2468"


@pytest.fixture
def director(tmp_path: Path) -> Any:
    table = Table(Journal(tmp_path / "journal.db"), WordJudge(Lexicon.from_words(["QI"], name="tiny"), clock=time.time))
    client = create_app(table, pin_hash=hash_pin(PIN), secret_key="test").test_client()
    csrf = client.get("/api/session").get_json()["csrf"]
    csrf = client.post("/api/login", json={"pin": PIN}, headers={"X-CSRF-Token": csrf}).get_json()["csrf"]

    def post(body: dict[str, Any]) -> tuple[int, str]:
        r = client.post("/api/game", json={"players": ["Ann", "Bob"], **body}, headers={"X-CSRF-Token": csrf})
        return r.status_code, (r.get_json() or {}).get("error", "")

    post.client = client  # type: ignore[attr-defined]
    return post


def config_problem(section: str, key: str, toml_value: str) -> str:
    with pytest.raises(ConfigError) as e:
        parse_config(f"[{section}]\n{key} = {toml_value}\n")
    (problem,) = [p for p in e.value.problems if p.startswith(f"{section}.{key}:")]
    return problem


def cli_clock(*args: str) -> subprocess.CompletedProcess[str]:
    code = "import sys; from board_pi.cli import main; sys.exit(main(sys.argv[1:]))"
    return subprocess.run([sys.executable, "-c", code, "clock", *args, "--seconds", "0.1"],
                          capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)


# The time control: key in [clock] and on the page, the command line's option, a bad value.
TIME_CASES = [("minutes", "--minutes", "700"), ("minutes", "--minutes", "0"),
              ("overtime_penalty", "--penalty", "1001"), ("max_overtime_minutes", "--max-overtime", "601"),
              ("increment_seconds", "--increment", "-1")]


@pytest.mark.parametrize("key, option, bad", TIME_CASES)
def test_a_bad_time_control_gets_the_same_message_everywhere(director: Any, key: str, option: str, bad: str) -> None:
    value = json.loads(bad)
    _, message = check(TimeControl, key, value)
    assert message and message.startswith("must be ") and bad in message
    assert config_problem("clock", key, bad) == f"clock.{key}: {message}"
    assert director({key: value}) == (400, f"{key}: {message}")
    assert director({key: bad}) == (400, f"{key}: {message}")  # as the form sends it, text
    r = cli_clock(option, bad)
    assert r.returncode == 2 and f"{option}: {message}" in r.stderr, r.stderr
    assert "Traceback" not in r.stderr


def test_a_good_time_control_is_taken_everywhere(director: Any) -> None:
    """Positive control: values at the limits pass the file, the page and the command line."""
    top = {key: limits(TimeControl, key).hi for key, _, _ in TIME_CASES}
    cfg = parse_config('[game]\nmode = "casual"\n[clock]\n' + "".join(f"{k} = {v:g}\n" for k, v in top.items()))
    assert cfg.clock.time_control() == TimeControl(**top)  # what `board-pi run` plays with
    assert director({k: v for k, v in top.items()})[0] == 200
    # The command takes the time control, then stops only for want of a keyboard to read.
    r = cli_clock("--minutes", "600", "--penalty", "1000", "--max-overtime", "600")
    assert "must be" not in r.stderr and "needs a terminal" in r.stderr, r.stderr


def test_text_that_is_no_number_gets_the_same_message_everywhere(director: Any) -> None:
    _, message = check(TimeControl, "minutes", "soon")
    assert message == "must be a number, not a string ('soon')"
    assert config_problem("clock", "minutes", '"soon"') == f"clock.minutes: {message}"
    assert director({"minutes": "soon"}) == (400, f"minutes: {message}")
    r = cli_clock("--minutes", "soon")
    assert r.returncode == 2 and f"--minutes: {message}" in r.stderr, r.stderr


def test_a_challenge_rule_is_one_of_the_enum_everywhere(director: Any) -> None:
    rules = tuple(r.value for r in ChallengeRule)
    _, message = choice(rules)("dubble")
    assert message and "did you mean 'double'?" in message and all(f'"{r}"' in message for r in rules)
    assert config_problem("game", "challenge_rule", '"dubble"') == f"game.challenge_rule: {message}"
    assert director({"challenge": "dubble"}) == (400, f"challenge: {message}")
    for rule in rules:  # every rule of the enum is taken by both
        assert parse_config(f'[game]\nchallenge_rule = "{rule}"\n').game.challenge_rule == rule
        assert director({"challenge": rule})[0] == 200


def test_a_bad_pin_gets_the_gpio_clocks_own_limits() -> None:
    """One definition of the pins: [gpio] is GpioPins, under its names, with its limits."""
    _, message = check(GpioPins, "buzzer", 40)
    assert message == "must be from 0 to 27, not 40"
    assert config_problem("gpio", "buzzer", "40") == f"gpio.buzzer: {message}"
    with pytest.raises(ValueError, match="buzzer"):
        GpioPins(buzzer=40)
    cfg = parse_config("[gpio]\nplayer0_button = 4\nbounce_ms = 10.0\n")
    assert cfg.gpio == GpioPins(player0_button=4, bounce_ms=10.0)
    assert {f.name for f in fields(GpioPins)} == set(parse_config("").gpio.__dataclass_fields__)


def test_the_page_form_and_the_spec_show_the_definitions_limits(director: Any) -> None:
    html = director.client.get("/director").get_data(as_text=True)
    spec = json.loads(resources.files("board_pi.web").joinpath("openapi.json").read_text())
    body = spec["paths"]["/api/game"]["post"]["requestBody"]["content"]["application/json"]["schema"]["properties"]
    for input_id, key in (("ng-minutes", "minutes"), ("ng-penalty", "overtime_penalty"),
                          ("ng-limit", "max_overtime_minutes")):
        bounds = limits(TimeControl, key)
        tag = re.search(rf'<input id="{input_id}"[^>]*>', html)
        assert tag, input_id
        assert f'min="{bounds.lo:g}"' in tag[0] and f'max="{bounds.hi:g}"' in tag[0], tag[0]
        assert f'value="{getattr(TimeControl, key):g}"' in tag[0]
        assert (body[key]["minimum"], body[key]["maximum"]) == (bounds.lo, bounds.hi)
        assert body[key].get("exclusiveMinimum", False) == bounds.above
        assert body[key]["type"] == ("integer" if bounds.whole else "number")
    options = re.findall(r'<option value="([a-z_]+)">', html.split('id="ng-challenge"')[1].split("</select>")[0])
    assert sorted(options) == sorted(r.value for r in ChallengeRule) == sorted(body["challenge"]["enum"])


def test_doctests() -> None:
    assert doctest.testmod(board_pi.settings).failed == 0
