"""The finished-games archive: GCG files that are never overwritten, and an index that survives."""

from __future__ import annotations

import doctest
import json
import multiprocessing
import os
import sqlite3
from pathlib import Path

import pytest

import board_pi.table.archive as archive_module
from board_pi.table.archive import GameArchive, GameNotFound

GCG = "#character-encoding UTF-8\n#player1 ann Ann Smith\n#player2 bob Bob Jones\n>ann: AEINRST 8D RETAINS +74 74\n"


def test_save_list_get(tmp_path: Path) -> None:
    a = GameArchive(tmp_path)
    path = a.save(GCG, {"players": ["Ann Smith", "Bob Jones"], "scores": [412, 380], "lexicon": "default"})
    assert path.parent == tmp_path / "games" and path.suffix == ".gcg"
    assert path.read_text(encoding="utf-8") == GCG
    (game,) = a.list()
    assert game["id"] == path.stem and game["file"] == path.name
    assert game["players"] == ["Ann Smith", "Bob Jones"] and game["scores"] == [412, 380]
    assert "ann-smith-vs-bob-jones" in game["id"]
    assert a.get(game["id"]) == GCG
    assert a.path(game["id"]) == path


def test_old_games_are_never_overwritten(tmp_path: Path) -> None:
    a = GameArchive(tmp_path)
    meta = {"players": ["Ann", "Bob"]}
    first = a.save(GCG, meta)
    second = a.save(GCG.replace("+74 74", "+76 76"), meta)  # same players, same minute
    assert first != second
    assert a.get(first.stem) == GCG and "+76" in a.get(second.stem)
    assert len(a.list()) == 2
    # A file already there under the name the next game would get is left alone too.
    third_name = second.with_name(second.stem.rsplit("-", 1)[0] + "-3.gcg")
    third_name.write_text("someone else's game\n")
    third = a.save(GCG, meta)
    assert third_name.read_text() == "someone else's game\n" and third != third_name


def test_list_is_newest_first_and_persists(tmp_path: Path) -> None:
    a = GameArchive(tmp_path)
    ids = [a.save(GCG, {"players": ["Ann", f"P{9 - i}"], "round": i}).stem for i in range(3)]  # names sort backwards
    again = GameArchive(tmp_path).list()
    assert [g["round"] for g in again] == [2, 1, 0]
    assert sorted(g["id"] for g in again) == sorted(ids)


def test_unknown_and_malicious_ids(tmp_path: Path) -> None:
    a = GameArchive(tmp_path)
    (tmp_path / "secret.gcg").write_text("not in the archive")
    for bad in ("nope", "../secret", "/etc/passwd", "", "A" * 300, None):
        with pytest.raises(GameNotFound):
            a.get(bad)  # type: ignore[arg-type]
    assert issubclass(GameNotFound, KeyError)


def test_bad_input_is_refused(tmp_path: Path) -> None:
    a = GameArchive(tmp_path)
    with pytest.raises(ValueError, match="empty"):
        a.save("  \n", {})
    with pytest.raises(ValueError, match="sets them"):
        a.save(GCG, {"id": "x"})
    with pytest.raises(ValueError, match="JSON"):
        a.save(GCG, {"when": object()})
    with pytest.raises(ValueError, match="dict"):
        a.save(GCG, ["Ann", "Bob"])  # type: ignore[arg-type]
    assert a.list() == [] and list((tmp_path / "games").glob("*.gcg")) == []


def test_names_become_safe_file_names(tmp_path: Path) -> None:
    a = GameArchive(tmp_path)
    p = a.save(GCG, {"players": ["Zoë Ćwik", "../../etc"]})
    assert p.parent == tmp_path / "games"
    assert p.stem.endswith("zoe-cwik-vs-etc")
    p2 = a.save(GCG, {"players": ["***", "Bob"]})  # nothing usable in a name: date only
    assert p2.stem.count("-") == 1


def test_file_without_index_entry_is_recovered(tmp_path: Path) -> None:
    """A power cut between writing the file and the index, or a file copied in by hand."""
    a = GameArchive(tmp_path)
    a.save(GCG, {"players": ["Ann", "Bob"]})
    (tmp_path / "games" / "20240101-1200-club-night.gcg").write_text(GCG)
    (tmp_path / "games" / "Not A Game Name.gcg").write_text(GCG)  # not an id: left out
    games = GameArchive(tmp_path).list()
    recovered = [g for g in games if g["id"] == "20240101-1200-club-night"]
    assert len(games) == 2 and recovered[0]["players"] == ["Ann Smith", "Bob Jones"]
    assert recovered[0]["recovered"] is True


def test_damaged_index_is_rebuilt_from_the_files(tmp_path: Path) -> None:
    a = GameArchive(tmp_path)
    ids = {a.save(GCG, {"players": ["Ann", "Bob"]}).stem for _ in range(2)}
    index = tmp_path / "games" / "index.sqlite3"
    for suffix in ("-wal", "-shm"):
        Path(str(index) + suffix).unlink(missing_ok=True)
    index.write_bytes(b"this is not a database" * 100)
    b = GameArchive(tmp_path)
    assert {g["id"] for g in b.list()} == ids
    assert list((tmp_path / "games").glob("index.sqlite3.damaged-*"))
    with sqlite3.connect(index) as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def _save_many(data_dir: str, n: int, tag: str) -> None:
    a = GameArchive(data_dir)
    for i in range(n):
        a.save(GCG + f"#note {tag} {i}\n", {"players": ["Ann", "Bob"], "tag": tag})


def test_two_processes_saving_at_once(tmp_path: Path) -> None:
    ctx = multiprocessing.get_context("fork")
    procs = [ctx.Process(target=_save_many, args=(str(tmp_path), 10, t)) for t in ("x", "y")]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    a = GameArchive(tmp_path)
    games = a.list()
    assert len(games) == 20 and len({g["id"] for g in games}) == 20
    # each with the details its saver gave, even where the other process indexed it first
    assert sorted(g["tag"] for g in games) == ["x"] * 10 + ["y"] * 10
    assert not any(g.get("recovered") for g in games)
    texts = {a.get(g["id"]) for g in games}
    assert len(texts) == 20  # every game kept, none overwritten


def test_real_records_round_trip(shared_data: Path, tmp_path: Path) -> None:
    a = GameArchive(tmp_path)
    records = sorted((shared_data / "gcg" / "macondo").glob("*.gcg"))
    assert records
    saved = {}
    for f in records:
        text = f.read_text(encoding="utf-8", errors="replace")
        if not text.strip():
            continue
        saved[a.save(text, {"source": f.name}).stem] = text if text.endswith("\n") else text + "\n"
    for gid, text in saved.items():
        assert a.get(gid) == text
    assert json.dumps(a.list())  # the index is ready for the status page as JSON


def test_no_temporary_files_left(tmp_path: Path) -> None:
    a = GameArchive(tmp_path)
    a.save(GCG, {})
    assert [p.name for p in (tmp_path / "games").iterdir() if p.name.startswith(".")] == []
    assert os.access(tmp_path / "games", os.W_OK)


def test_doctests() -> None:
    assert doctest.testmod(archive_module).failed == 0
