"""`board-pi run` as the service runs it: from a configuration file, resuming the journal's game."""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def run(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "board_pi.cli", *args], capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT)


def free_port() -> int:
    """A port nobody listens on now, so that tests running side by side do not collide."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def config(tmp_path: Path, extra: str = "") -> Path:
    p = tmp_path / "board-pi.toml"
    p.write_text('[camera]\nsource = "none"\n[clock]\nbackend = "none"\n'
                 f'[web]\nport = {free_port()}\n[data]\ndir = "{tmp_path / "data"}"\n'
                 '[game]\nplayers = ["Ann", "Bob"]\nchallenge_rule = "double"\n' + extra)
    return p


def test_run_starts_a_game_and_a_restart_resumes_it(tmp_path: Path) -> None:
    cfg = config(tmp_path)
    first = run("run", "--config", str(cfg), "--stop-after", "0.5")
    assert first.returncode == 0, first.stderr
    db = tmp_path / "data" / "journal.db"
    con = sqlite3.connect(db)
    games = con.execute("SELECT id, players, rules FROM games").fetchall()
    assert len(games) == 1
    assert json.loads(games[0][1]) == ["Ann", "Bob"] and json.loads(games[0][2])["challenge"] == "double"
    con.close()
    second = run("run", "--config", str(cfg), "--stop-after", "0.5")
    assert second.returncode == 0, second.stderr
    con = sqlite3.connect(db)
    assert con.execute("SELECT count(*) FROM games").fetchone()[0] == 1  # resumed, not a new game
    con.close()


def test_run_refuses_a_bad_configuration_without_a_traceback(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("[camera]\nsourse = 1\n")
    r = run("run", "--config", str(bad), "--stop-after", "0.1")
    assert r.returncode != 0 and "Traceback" not in r.stderr and "sourse" in r.stderr


def test_run_with_the_pico_clock_keeps_the_link_resume_point(tmp_path: Path) -> None:
    import os

    master, slave = os.openpty()  # the Pico's end stays silent: the table must start anyway
    try:
        cfg = config(tmp_path).read_text().replace('backend = "none"', 'backend = "serial"')
        cfg += f'[serial]\nport = "{os.ttyname(slave)}"\n'
        path = tmp_path / "serial.toml"
        path.write_text(cfg)
        r = run("run", "--config", str(path), "--stop-after", "1")
        assert r.returncode == 0, r.stderr
        point = json.loads((tmp_path / "data" / "pico-resume.json").read_text())
        assert set(point) == {"pico_boot", "delivered"}
    finally:
        os.close(master)
        os.close(slave)


# The first PIN chosen on the page: tests/web/test_director.py (kept in the data directory).


def test_the_table_reads_with_the_enrolled_tiles(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    import numpy as np

    from board_pi.config import load_config
    from board_pi.cli.run import _tile_reader
    from board_pi.vision.read import Profile

    # a profile in the data directory is used without being configured
    data = tmp_path / "data"
    rng = np.random.default_rng(0)
    emb = rng.normal(size=(40, 96)).astype(np.float32)
    Profile(emb / np.linalg.norm(emb, axis=1, keepdims=True), rng.integers(0, 28, 40)).save(data / "tiles.npz")
    reader = _tile_reader(load_config(config(tmp_path)))
    assert reader.profile is not None and len(reader.profile.labels) == 40

    # a configured one that is damaged: said so, and the model reads alone
    (tmp_path / "broken.npz").write_bytes(b"not a profile")
    reader = _tile_reader(load_config(_with_tiles(tmp_path, "broken.npz")))
    assert reader.profile is None
    assert "tile profile not used" in capsys.readouterr().out


def _with_tiles(tmp_path: Path, tiles: str) -> Path:
    p = config(tmp_path)
    p.write_text(p.read_text().replace('source = "none"\n', f'source = "none"\ntiles = "{tiles}"\n'))
    return p


# -- a damaged or unwritable journal at the start ----------------------------------------------


def _first_run(tmp_path: Path) -> tuple[Path, Path]:
    cfg = config(tmp_path)
    r = run("run", "--config", str(cfg), "--stop-after", "0.3")
    assert r.returncode == 0, r.stderr
    return cfg, tmp_path / "data" / "journal.db"


def _damage(kind: str, db: Path) -> None:
    if kind == "truncated":
        with open(db, "r+b") as f:
            f.truncate(db.stat().st_size // 2 + 100)
    elif kind == "garbage":
        db.write_bytes(bytes(range(256)) * 64)
    elif kind == "not a database":
        db.write_text("board-pi journal, typed by hand\n" * 100)
    elif kind == "a bad event":
        con = sqlite3.connect(db)
        con.execute("INSERT INTO events (game_id, data, wall) VALUES (1, ?, 0)",
                    (json.dumps({"type": "play", "player": 7, "play": "8D WINDY"}),))
        con.commit()
        con.close()
    elif kind == "an event that is not JSON":
        con = sqlite3.connect(db)
        con.execute("INSERT INTO events (game_id, data, wall) VALUES (1, '{not json', 0)")
        con.commit()
        con.close()


@pytest.mark.parametrize("kind", ["truncated", "garbage", "not a database", "a bad event",
                                  "an event that is not JSON"])
def test_a_damaged_journal_is_set_aside_and_the_table_starts_clean(tmp_path: Path, kind: str) -> None:
    cfg, db = _first_run(tmp_path)
    _damage(kind, db)
    damaged = db.read_bytes()
    r = run("run", "--config", str(cfg), "--stop-after", "0.3")
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stdout + r.stderr
    aside = sorted(db.parent.glob("journal.damaged-*.db"))
    assert len(aside) == 1 and aside[0].read_bytes() == damaged  # kept as it was, for inspection
    assert f"kept as {aside[0]}" in r.stdout  # the log says where
    con = sqlite3.connect(db)
    assert con.execute("SELECT count(*) FROM games").fetchone()[0] == 1  # a clean journal, a new game
    con.close()
    again = run("run", "--config", str(cfg), "--stop-after", "0.3")  # and it starts again: no loop
    assert again.returncode == 0 and "damaged" not in again.stdout, again.stdout + again.stderr


def test_a_journal_that_is_a_directory_is_a_clear_error(tmp_path: Path) -> None:
    cfg = config(tmp_path)
    (tmp_path / "data" / "journal.db").mkdir(parents=True)
    r = run("run", "--config", str(cfg), "--stop-after", "0.3")
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "journal" in r.stderr and "directory" in r.stderr


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes a read-only file all the same")
def test_a_read_only_journal_is_a_clear_error(tmp_path: Path) -> None:
    cfg, db = _first_run(tmp_path)
    db.chmod(0o444)
    db.parent.chmod(0o555)  # nor can the -wal file be made beside it
    try:
        r = run("run", "--config", str(cfg), "--stop-after", "0.3")
    finally:
        db.parent.chmod(0o755)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "journal" in r.stderr and "readonly" in r.stderr.replace("read-only", "readonly")
    assert not list(db.parent.glob("journal.damaged-*"))  # not damaged: nothing set aside


def test_finished_games_are_kept_where_the_setup_guide_says(tmp_path: Path) -> None:
    from board_pi.config import load_config
    from board_pi.table.archive import GameArchive
    from board_pi.cli.run import build

    data = tmp_path / "data"
    # A game an older board-pi kept one folder too deep is found, and moved, with its details.
    GameArchive(data / "games").save("#player1 ann Ann\n#player2 bob Bob\n",
                                     {"players": ["Ann", "Bob"], "scores": [400, 300]})
    assert len(list((data / "games" / "games").glob("*.gcg"))) == 1
    table, closers = build(load_config(config(tmp_path)), data)
    try:
        table.end_game()
        files = sorted(p.name for p in (data / "games").glob("*.gcg"))
        assert len(files) == 2  # the old one and the one just finished, in <data>/games
        assert not (data / "games" / "games").exists()
        listed = table.archive.list()
        assert {g["file"] for g in listed} == set(files)
        assert [400, 300] in [g.get("scores") for g in listed]
    finally:
        table.journal.close()


def test_the_table_learns_its_tiles_beside_its_data_unless_told_not_to(tmp_path: Path) -> None:
    from board_pi.config import load_config
    from board_pi.cli.run import _memory, _tile_reader

    cfg = load_config(config(tmp_path))
    reader = _tile_reader(cfg)
    memory = _memory(cfg, reader)
    assert memory is not None and memory.path == tmp_path / "data" / "learned-tiles.npz"
    off = tmp_path / "off.toml"
    off.write_text(config(tmp_path).read_text().replace('source = "none"\n', 'source = "none"\nlearn = false\n'))
    assert _memory(load_config(off), reader) is None
