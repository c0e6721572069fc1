"""`board-pi run` as the service runs it: from a configuration file, resuming the journal's game."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "board_pi.cli", *args], capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT)


def config(tmp_path: Path, extra: str = "") -> Path:
    p = tmp_path / "board-pi.toml"
    p.write_text('[camera]\nsource = "none"\n[clock]\nbackend = "none"\n'
                 f'[web]\nport = 18931\n[data]\ndir = "{tmp_path / "data"}"\n'
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
    from board_pi.table.run import _tile_reader
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
