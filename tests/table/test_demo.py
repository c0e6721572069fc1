"""`board-pi demo`: a whole game at a simulated table, with the real renderer and recognition."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def demo(*args: str, timeout: float = 900) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "board_pi.cli", "demo", *args], capture_output=True,
                          text=True, timeout=timeout, cwd=ROOT)


def test_the_bundled_game_ends_with_the_recorded_scores() -> None:
    pytest.importorskip("cv2")
    r = demo("--speed", "max", "--no-web", "--json")
    assert r.returncode == 0, r.stderr[-2000:]
    last = json.loads(r.stdout.strip().splitlines()[-1])
    assert last["final"] == last["recorded"] == [272, 361]
    assert last["plays"] == 32
    # Plays are read from the rendered frames, hands over the board and all. The target is every
    # play (benchmarks/bench_table.py reports it over every shared game).
    assert last["plays_read_correctly"] == 32, r.stderr[-3000:]


def test_a_table_that_learns_its_tiles_reads_the_game_and_keeps_what_it_learnt(tmp_path: Path) -> None:
    """As `board-pi run` does by default: every play that stands is learnt once its score is
    shown, on the readings' thread, and kept beside the journal."""
    pytest.importorskip("cv2")
    from board_pi.cli.demo import load_record, play_record
    from board_pi.vision.learn import TableMemory, model_fingerprint
    from board_pi.vision.read import Reader

    r = play_record(load_record(None), None, web=False, say=lambda *a: None, data_dir=str(tmp_path), learn=True)
    assert r.final == r.recorded == [272, 361]
    assert r.plays_read_correctly == r.plays == 32
    kept = TableMemory.open(tmp_path / "learned-tiles.npz", model_fingerprint(Reader().model_path))
    assert kept.size >= 40 and len(set(kept.labels.tolist())) >= 10  # tiles of many letters, and empty


def test_a_table_calibrated_a_quarter_turn_out_under_a_camera_that_flips_its_picture_reads_the_game() -> None:
    # The director took another corner for A1, and the camera flips its picture: the first
    # play's tiles say both, and every play is read right (before they were asked: 0 of 32).
    pytest.importorskip("cv2")
    from board_pi.cli.demo import load_record, play_record

    r = play_record(load_record(None), None, web=False, say=lambda *a: None, mirror=True, calibrated_turned=1)
    assert r.final == r.recorded == [272, 361]
    assert r.plays_read_correctly == r.plays == 32


def test_bad_games_are_refused_with_a_message(tmp_path: Path, shared_data: Path) -> None:
    r = demo("--game", str(tmp_path / "missing.gcg"), "--no-web")
    assert r.returncode == 2 and "cannot read" in r.stderr and "Traceback" not in r.stderr
    r = demo("--tiles", "klingon", "--no-web")
    assert r.returncode == 2 and "--tiles" in r.stderr and "Traceback" not in r.stderr
    r = demo("--tiles", "spanish", "--no-web")  # no Spanish word list to compose a game with
    assert r.returncode == 2 and "no demo game for the spanish tile set" in r.stderr and "--game" in r.stderr
    bad = tmp_path / "bad.gcg"
    bad.write_text("#player1 a a\n#player2 b b\n>a: ABC 8H ABC +99 99\n>b: this is not gcg\n")
    r = demo("--game", str(bad), "--no-web")
    assert r.returncode == 2 and "line 4" in r.stderr and "Traceback" not in r.stderr
    r = demo("--speed", "fast", "--no-web")
    assert r.returncode == 2 and "--speed" in r.stderr
    r = demo("--edition", "pink", "--no-web")
    assert r.returncode == 2 and "--edition" in r.stderr and "green" in r.stderr and "Traceback" not in r.stderr


def test_the_bundled_game_on_the_modern_green_board() -> None:
    """The table a club sets up most: the modern board's dark green squares, its tiles standing
    proud on them, their sides showing and their shadows cast one way (issue 11's club camera);
    every play read through the camera."""
    pytest.importorskip("cv2")
    r = demo("--edition", "green", "--speed", "max", "--no-web", "--json")
    assert r.returncode == 0, r.stderr[-2000:]
    last = json.loads(r.stdout.strip().splitlines()[-1])
    assert last["final"] == last["recorded"] == [272, 361]
    assert last["plays_read_correctly"] == last["plays"] == 32, r.stderr[-3000:]



def test_a_german_game_is_acted_out_and_read_through_the_camera() -> None:
    """The demo's German game, composed by the project's own move generator with its own word
    list, rendered with German tiles (Ä, Ö, Ü and their values) and read by the camera path."""
    pytest.importorskip("cv2")
    from board_pi.cli.demo import load_record
    from board_pi.rules.tiles import GERMAN

    rec = load_record(None, GERMAN)
    assert rec.tile_distribution == "german" and rec.lexicon == "german-demo"
    umlaut_plays = [m for m in rec.moves if m.kind == "play" and set(m.word.upper()) & set("ÄÖÜ")]
    assert len(umlaut_plays) >= 3
    r = demo("--tiles", "german", "--speed", "max", "--no-web", "--json")
    assert r.returncode == 0, r.stderr[-2000:]
    last = json.loads(r.stdout.strip().splitlines()[-1])
    assert last["final"] == last["recorded"]
    assert last["plays"] == sum(m.kind == "play" for m in rec.moves)
    assert last["plays_read_correctly"] == last["plays"], r.stderr[-3000:]


def test_a_record_of_a_set_with_no_word_list_follows_its_challenges(tmp_path: Path) -> None:
    """A Polish record (board-pi has no Polish word list): its phony, withdrawn after a challenge,
    is followed from the record instead of judged, and the game is read through the camera."""
    pytest.importorskip("cv2")
    rec = tmp_path / "polish.gcg"
    rec.write_text("#character-encoding UTF-8\n#tile-distribution polish\n#player1 a Ala\n#player2 b Bartek\n"
                   ">a: AHIJOUY 8F HUJA +20 20\n>a: AHIJOUY -- -20 0\n>b: ĆĘIKPST 8G STĘPIĆ +46 46\n",
                   encoding="utf-8")
    r = demo("--game", str(rec), "--speed", "max", "--no-web", "--json")
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr[-2000:]
    last = json.loads(r.stdout.strip().splitlines()[-1])
    assert last["final"] == last["recorded"] == [0, 46]
    assert last["plays_read_correctly"] == last["plays"] == 2, r.stdout[-3000:]
