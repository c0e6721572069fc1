"""`board-pi replay`, `judge` and `lexicon` with other languages' tiles, run as a user runs them
(the console script in a subprocess)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(sys.executable).parent / "board-pi"
COMMAND = [str(SCRIPT)] if SCRIPT.exists() else [sys.executable, "-m", "board_pi.cli"]

GERMAN = """#character-encoding UTF-8
#tile-distribution german
#player1 A Anja
#player2 B Jörg
>A: BELÜ 8E ÜBEL +24 24
"""


@pytest.fixture
def run(tmp_path: Path):  # type: ignore[no-untyped-def]
    env = {**os.environ, "BOARD_PI_CACHE": str(tmp_path / "cache"), "BOARD_PI_LEXICONS": str(tmp_path)}

    def go(*args: str) -> subprocess.CompletedProcess[str]:
        p = subprocess.run(COMMAND + list(args), capture_output=True, text=True, env=env, cwd=tmp_path,
                           timeout=120)
        assert "Traceback" not in p.stdout + p.stderr, p.stderr
        return p

    go.tmp = tmp_path  # type: ignore[attr-defined]
    return go


def test_replay_of_a_german_record(run) -> None:  # type: ignore[no-untyped-def]
    path = run.tmp / "de.gcg"
    path.write_text(GERMAN, encoding="utf-8")
    p = run("replay", "--json", str(path))
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert (out["moves"], out["agree"], out["tiles"], out["events"][0]["kind"]) == (1, 1, "german", "play")


def test_replay_tiles_where_the_record_does_not_name_them(run) -> None:  # type: ignore[no-untyped-def]
    path = run.tmp / "es.gcg"
    # Plain CHARRO: in English it is six tiles (and no English CH scoring); in Spanish four.
    path.write_text("#player1 a a\n#player2 b b\n>a: ACHORR 8G CHARRO +30 30\n", encoding="utf-8")
    assert json.loads(run("replay", "--json", "--tiles", "spanish", str(path)).stdout)["agree"] == 1
    p = run("replay", "--json", "--tiles", "english", str(path))
    assert p.returncode == 1 and json.loads(p.stdout)["agree"] == 0


def test_replay_refuses_a_tile_not_in_the_set_with_the_line(run) -> None:  # type: ignore[no-untyped-def]
    path = run.tmp / "bad.gcg"
    path.write_text(GERMAN.replace("BELÜ 8E ÜBEL", "BELÑ 8E ÑBEL"), encoding="utf-8")
    p = run("replay", str(path))
    assert p.returncode == 2 and "line 5" in p.stderr and "'Ñ'" in p.stderr and "german" in p.stderr
    path.write_text(GERMAN.replace("german", "klingon"), encoding="utf-8")
    p = run("replay", str(path))
    assert p.returncode == 2 and "line 2" in p.stderr and "unknown tile set 'klingon'" in p.stderr


def test_judge_with_a_set_that_has_no_word_list_says_which_setting(run) -> None:  # type: ignore[no-untyped-def]
    p = run("judge", "--tiles", "german", "ÜBEL")
    assert p.returncode == 2 and "NOT ACCEPTABLE" not in p.stdout
    assert "no word list is configured for the german tile set" in p.stderr
    assert "game.lexicon" in p.stderr and "--lexicon" in p.stderr


def test_judge_in_spanish_and_german(run) -> None:  # type: ignore[no-untyped-def]
    (run.tmp / "es.txt").write_text("chico\ncalle\nperro\n", encoding="utf-8")
    assert run("judge", "--tiles", "spanish", "--lexicon", "es", "CHICO", "PERRO").stdout.strip() == "ACCEPTABLE"
    p = run("judge", "--tiles", "spanish", "--lexicon", "es", "CHICA")
    assert (p.returncode, p.stdout.strip()) == (1, "NOT ACCEPTABLE")
    p = run("judge", "--tiles", "german", "--lexicon", "german-demo", "ÜBEL", "ÖL")
    assert (p.returncode, p.stdout.strip()) == (0, "ACCEPTABLE")


def test_lexicon_reports_the_words_the_set_cannot_spell(run) -> None:  # type: ignore[no-untyped-def]
    (run.tmp / "de.txt").write_text("übel\nöl\nfaçade\nstraße\n", encoding="utf-8")
    p = run("lexicon", "--tiles", "german", "de")
    assert p.returncode == 0, p.stderr
    assert "de: 3 words" in p.stdout and "read as german tiles" in p.stdout
    assert "1 words cannot be spelt with the german tiles" in p.stdout and "FAÇADE" in p.stdout


def test_config_check_refuses_a_set_with_no_word_list_as_run_does(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import board_pi.config as config

    monkeypatch.setenv("BOARD_PI_CACHE", str(tmp_path / "cache"))
    base = f'[camera]\nsource = "none"\n[clock]\nbackend = "none"\n[data]\ndir = "{tmp_path / "data"}"\n'
    errors = config.check_ready(config.parse_config(base + '[game]\ntile_set = "german"\n')).errors
    assert any(e.startswith("game.lexicon: no word list is configured for the german tile set") for e in errors)
    ok = config.check_ready(config.parse_config(base + '[game]\ntile_set = "german"\nlexicon = "german-demo"\n'))
    assert not [e for e in ok.errors if e.startswith("game.lexicon")]
