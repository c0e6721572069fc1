"""The `board-pi judge`, `board-pi replay` and `board-pi lexicon` commands, run as a user runs
them: the installed console script in a subprocess."""

from __future__ import annotations

import json
import os
import re
import resource
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(sys.executable).parent / "board-pi"
COMMAND = [str(SCRIPT)] if SCRIPT.exists() else [sys.executable, "-m", "board_pi.cli"]

HEAD = "#player1 ann Ann\n#player2 bob Bob\n"
GOOD = HEAD + """\
>ann: DINNVWY 8D WINDY +32 32
>bob: AEGLOPR 7C GALE +16 16
>ann: ?EIRSTU H8 .Es +5 37
>bob: ABCEIOU -ABC +0 16
"""


@pytest.fixture(scope="session")
def cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One lexicon cache for the session, so the default list is compiled once."""
    return tmp_path_factory.mktemp("cache")


class Run:
    def __init__(self, cache: Path, tmp: Path) -> None:
        self.env = {**os.environ, "BOARD_PI_CACHE": str(cache), "BOARD_PI_LEXICONS": str(tmp / "lexicons")}
        self.tmp = tmp

    def __call__(self, *args: str, memory: int | None = None) -> subprocess.CompletedProcess[str]:
        """Run the command; ``memory`` caps its address space (bytes), so that an input read
        without bound fails fast instead of filling the machine."""
        def cap() -> None:
            if memory is not None:
                resource.setrlimit(resource.RLIMIT_AS, (memory, memory))

        p = subprocess.run(COMMAND + list(args), capture_output=True, text=True, env=self.env,
                           cwd=self.tmp, timeout=60, preexec_fn=cap)
        assert "Traceback" not in p.stdout + p.stderr, p.stderr
        return p


@pytest.fixture
def run(cache_dir: Path, tmp_path: Path) -> Run:
    (tmp_path / "lexicons").mkdir()
    return Run(cache_dir, tmp_path)


def gcg(tmp: Path, text: str, name: str = "game.gcg") -> str:
    path = tmp / name
    path.write_text(text, encoding="utf-8")
    return str(path)


# --- judge --------------------------------------------------------------------------------------


def test_judge_acceptable(run: Run) -> None:
    p = run("judge", "QI", "ZA")
    assert (p.returncode, p.stdout) == (0, "ACCEPTABLE\n")


def test_judge_not_acceptable_never_names_the_word(run: Run) -> None:
    p = run("judge", "QI", "ZZZQ")
    assert (p.returncode, p.stdout) == (1, "NOT ACCEPTABLE\n")
    assert "ZZZQ" not in p.stdout + p.stderr
    assert "QI" not in p.stdout + p.stderr


def test_judge_lower_case_blanks(run: Run) -> None:
    assert run("judge", "qi", "Za").returncode == 0


@pytest.mark.parametrize("words,message", [
    (["Q1"], "not a word"),
    (["QI", "ZA!"], "not a word"),
    (["A"], "one letter"),
    (["QI"] * 9, "at most 8 words"),
    (["ÇA"], "letters this lexicon does not use"),
    (["QI", "A" * 10_000], "word 2 has 10000 characters: a word on the 15x15 board has at most 15 letters"),
    (["ABCDEFGHIJKLMNOP"], "word 1 has 16 characters: a word on the 15x15 board has at most 15 letters"),
])
def test_judge_input_that_is_not_a_word(run: Run, words: list[str], message: str) -> None:
    p = run("judge", *words)
    assert p.returncode == 2 and p.stdout == ""
    assert p.stderr.startswith("board-pi judge: ") and message in p.stderr


def test_judge_a_word_as_long_as_the_board(run: Run) -> None:
    p = run("judge", "ABCDEFGHIJKLMNO")
    assert (p.returncode, p.stdout) == (1, "NOT ACCEPTABLE\n")


def test_judge_with_a_club_list_by_path_and_by_name(run: Run) -> None:
    club = run.tmp / "club.txt"
    club.write_text("# our club's list\nqi\nZA\nxu\n")
    assert run("judge", "XU", "--lexicon", str(club)).returncode == 0
    assert run("judge", "QUIZ", "--lexicon", str(club)).returncode == 1
    (run.tmp / "lexicons" / "CLUB2.txt").write_text("xu\n")
    assert run("judge", "XU", "--lexicon", "CLUB2").returncode == 0


def test_judge_unknown_lexicon(run: Run) -> None:
    p = run("judge", "QI", "--lexicon", "NOSUCH")
    assert p.returncode == 2 and "no lexicon named 'NOSUCH'" in p.stderr


def test_judge_log(run: Run) -> None:
    log = run.tmp / "adjudications.jsonl"
    run("judge", "QI", "ZA", "--log", str(log))
    run("judge", "ZZZQ", "--log", str(log))
    entries = [json.loads(line) for line in log.read_text().splitlines()]
    assert [(e["words"], e["acceptable"], e["lexicon"]) for e in entries] == [
        (["QI", "ZA"], True, "default"), (["ZZZQ"], False, "default")]
    # Local time, to the second (the clock is the machine's: only the form is checked).
    assert all(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d", e["time"]) for e in entries)


def test_judge_log_that_cannot_be_written(run: Run) -> None:
    p = run("judge", "QI", "--log", str(run.tmp))  # a folder
    assert p.returncode == 0 and p.stdout == "ACCEPTABLE\n"
    assert "cannot write the log" in p.stderr


# --- replay -------------------------------------------------------------------------------------


def test_replay_good_record(run: Run) -> None:
    p = run("replay", gcg(run.tmp, GOOD))
    assert p.returncode == 0, p.stdout + p.stderr
    lines = p.stdout.splitlines()
    assert len(lines) == 5 and all(" ok" in line for line in lines[:4])
    assert lines[-1].startswith("4/4 events agree; final Ann 37, Bob 16 (recorded 37, 16)")


def test_replay_json(run: Run) -> None:
    p = run("replay", gcg(run.tmp, GOOD), "--json")
    assert p.returncode == 0
    out = json.loads(p.stdout)
    assert out["moves"] == 4 and out["agree"] == 4 and out["error"] is None
    assert [e["kind"] for e in out["events"]] == ["play", "play", "play", "exchange"]
    assert out["events"][0] == {"line": 3, "player": "Ann", "kind": "play", "text": ">ann: DINNVWY 8D WINDY +32 32",
                                "score": 32, "recorded_score": 32, "total": 32, "recorded_total": 32,
                                "agree": True}
    assert out["final"] == out["recorded"] == [37, 16]


def test_replay_shared_record(run: Run, shared_data: Path) -> None:
    p = run("replay", str(shared_data / "gcg" / "macondo" / "vs_frentz.gcg"), "--json")
    out = json.loads(p.stdout)
    assert p.returncode == 0 and out["moves"] == out["agree"] == 25 and out["complete"]


def test_replay_wrong_score(run: Run) -> None:
    path = gcg(run.tmp, GOOD.replace("7C GALE +16 16", "7C GALE +18 18"))
    p = run("replay", path)
    assert p.returncode == 1
    assert "DIFFERS: computed +16 total 16, recorded +18 total 18" in p.stdout
    assert f"{path}: line 4: recorded +18 (total 18), the rules give +16 (total 16)" in p.stderr
    j = run("replay", path, "--json")
    assert j.returncode == 1 and json.loads(j.stdout)["agree"] == 3


@pytest.mark.parametrize("events,line,message", [
    (">ann: DINNVWY 8D WINDY +32\n", 3, "ends with a score"),                      # bad syntax
    (">ann: DINNVWY 8D WINDY +32 32\nnonsense\n", 4, "not a GCG line"),           # bad syntax
    (">ann: DINNVWY 16D WINDY +32 32\n", 3, "off the 15x15 board"),               # off the board
    (">ann: DINNVWY 8L WINDY +32 32\n", 3, "runs off the board"),                 # off the board
    (">ann: DINNVWY 8D WINDY +32 32\n>bob: AX 8D XI +10 10\n", 4, "already holds W"),  # occupied
    (">ann: AZ 8G ZA +22 22\n>bob: ? G7 z. +1 1\n>ann: ZO 9H ZO +0 0\n", 5, "cannot have come from the bag"),
])
def test_replay_impossible_or_malformed(run: Run, events: str, line: int, message: str) -> None:
    path = gcg(run.tmp, HEAD + events)
    p = run("replay", path)
    assert p.returncode == 2
    out = p.stdout + p.stderr
    assert f"line {line}: " in out and message in out
    j = run("replay", path, "--json")
    assert j.returncode == 2 and f"line {line}: " in j.stderr and message in j.stderr


@pytest.mark.parametrize("text,line,message", [
    (HEAD + ">ann: DIN#VWY 8D WINDY +32 32\n", 3, "rack DIN#VWY is malformed"),
    (HEAD + ">ann: DINNVWY 8D WINDY +32 32\n>bob: AEGLWWR 7C GALE +16 16\n", 4,
     "rack AEGLWWR cannot have come from the bag: it holds 2 W, but the set has 2, 1 on the board"),
    (HEAD + ">ann: DINNVWA 8D WINDY +32 32\n", 3, "tiles played are not on the rack DINNVWA: Y"),
    (HEAD + ">ann: ABCDEFG -ABX +0 0\n", 3, "tiles exchanged are not on the rack ABCDEFG: X"),
    (HEAD + ">ann: DINNVWY 8D WINDY +32 32\n>ann: DINNVWA -- -32 0\n", 4,
     "the tiles taken back (DINNVWA) are not the rack of the play they withdraw (DINNVWY, line 3)"),
    ("#player1 ann Ann\n>ann: DINNVWY 8D WINDY +32 32\n", 2, "an event before the players are declared"),
    ("#character-encoding UTF-8 please\n" + GOOD, 1, "#character-encoding takes one encoding name"),
    (HEAD + ">ann: DINNVWY 8D WINDY +" + "3" * 5000 + " 32\n", 3, "is not a Scrabble score (at most 4 digits)"),
    (HEAD + ">ann: DINNVWY 8D WINDY +32 " + "3" * 5000 + "\n", 3, "is not a Scrabble score (at most 5 digits)"),
    (HEAD + ">ann: DINNVWY 8D " + "W" * 10_000 + " +32 32\n", 3, "a word on the 15x15 board has at most 15"),
])
def test_replay_refuses_a_record_that_cannot_be(run: Run, text: str, line: int, message: str) -> None:
    path = gcg(run.tmp, text)
    for args in ([], ["--json"]):
        p = run("replay", path, *args)
        assert p.returncode == 2, p.stdout + p.stderr
        assert f"{path}: line {line}: " in p.stderr and message in p.stderr


def test_replay_file_declared_utf8_that_is_not(run: Run) -> None:
    path = run.tmp / "names.gcg"
    path.write_bytes(("#character-encoding UTF-8\n#player1 césar César\n#player2 bob Bob\n").encode("latin-1"))
    p = run("replay", str(path))
    assert p.returncode == 2 and f"{path}: line 2: not valid UTF-8, as line 1 declares" in p.stderr


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero")
def test_replay_endless_file(run: Run) -> None:
    # Read without a bound, /dev/zero filled the memory until the process was killed.
    p = run("replay", "/dev/zero", memory=2**31)
    assert p.returncode == 2 and "board-pi replay: /dev/zero: larger than 1 MB: not a GCG record" in p.stderr


def test_replay_huge_file(run: Run) -> None:
    path = run.tmp / "disk.img"
    with open(path, "wb") as f:
        f.truncate(5 * 2**30)  # sparse: 5 GB of nothing, on no disk
    p = run("replay", str(path), memory=2**31)
    assert p.returncode == 2 and "larger than 1 MB: not a GCG record" in p.stderr


def test_replay_nonexistent_file(run: Run) -> None:
    p = run("replay", str(run.tmp / "missing.gcg"))
    assert p.returncode == 2 and "cannot read" in p.stderr and "missing.gcg" in p.stderr


def test_replay_a_folder(run: Run) -> None:
    p = run("replay", str(run.tmp))
    assert p.returncode == 2 and "cannot read" in p.stderr


@pytest.mark.parametrize("data", [bytes(range(256)) * 8, b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(64),
                                  b"\x7fELF\x02\x01\x01" + bytes(100)])
def test_replay_binary_file(run: Run, data: bytes) -> None:
    path = run.tmp / "photo.gcg"
    path.write_bytes(data)
    p = run("replay", str(path))
    assert p.returncode == 2 and "line 1: " in p.stderr and "not a GCG line" in p.stderr


def test_replay_empty_file(run: Run) -> None:
    p = run("replay", gcg(run.tmp, ""))
    assert p.returncode == 2 and "players" in p.stdout + p.stderr


def test_replay_unknown_tile_set(run: Run) -> None:
    p = run("replay", gcg(run.tmp, GOOD), "--tiles", "klingon")
    assert p.returncode == 2 and "unknown tile set 'klingon'" in p.stderr


def test_replay_with_named_tile_set(run: Run) -> None:
    assert run("replay", gcg(run.tmp, GOOD), "--tiles", "english").returncode == 0


# --- lexicon and usage --------------------------------------------------------------------------


def test_lexicon_command(run: Run) -> None:
    club = run.tmp / "club.txt"
    club.write_text("qi\nza\n")
    p = run("lexicon", str(club))
    assert p.returncode == 0 and p.stdout.startswith("club: 2 words, letters AIQZ; loaded in ")
    p = run("lexicon", "NOSUCH")
    assert p.returncode == 2 and "no lexicon named" in p.stderr


def test_lexicon_too_large(run: Run) -> None:
    path = run.tmp / "huge.txt"
    with open(path, "wb") as f:
        f.truncate(5 * 2**30)  # sparse: 5 GB of nothing, on no disk
    for args in (["lexicon", str(path)], ["judge", "QI", "--lexicon", str(path)]):
        p = run(*args, memory=2**31)
        assert p.returncode == 2 and "lexicon huge is larger than 100 MB: not a word list" in p.stderr


def test_no_command_is_a_usage_error(run: Run) -> None:
    p = run()
    assert p.returncode == 2 and "usage:" in p.stderr


def test_module_entry_point(run: Run) -> None:
    p = subprocess.run([sys.executable, "-m", "board_pi.cli", "judge", "QI"], capture_output=True, text=True,
                       env=run.env, timeout=60)
    assert (p.returncode, p.stdout) == (0, "ACCEPTABLE\n")


@pytest.mark.parametrize("args", [["judge"], ["replay"], ["judge", "QI", "--lexicon"], ["nosuchcommand"]])
def test_missing_arguments_are_usage_errors(run: Run, args: list[str]) -> None:
    p = run(*args)
    assert p.returncode == 2 and "usage:" in p.stderr
