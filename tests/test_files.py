"""Files written whole or not at all (board_pi.files), on a real file system."""

from __future__ import annotations

import doctest
import json
import stat
from pathlib import Path

import pytest

from board_pi import files
from board_pi.files import replacing, write_bytes, write_json, write_text


def test_doctests() -> None:
    assert doctest.testmod(files).failed == 0


def test_a_file_is_replaced_whole_and_a_failed_write_leaves_the_old_one(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "er" / "state.json"  # the folders are made
    write_json(path, {"ö": [1, 2]})
    assert json.loads(path.read_text(encoding="utf-8")) == {"ö": [1, 2]} and "ö" in path.read_text(encoding="utf-8")
    with pytest.raises(ZeroDivisionError):
        with replacing(path, binary=True) as f:
            f.write(b"half a state")
            1 / 0
    assert json.loads(path.read_text(encoding="utf-8")) == {"ö": [1, 2]}
    assert [p.name for p in path.parent.iterdir()] == ["state.json"]  # no temporary file left
    write_bytes(path, b"\x00\x01")
    assert path.read_bytes() == b"\x00\x01"


def test_permissions_are_the_owners_unless_told(tmp_path: Path) -> None:
    a = write_text(tmp_path / "a.txt", "x")
    b = write_text(tmp_path / "b.toml", "y", mode=0o644)  # a configuration the service's user reads
    assert stat.S_IMODE(a.stat().st_mode) == 0o600 and stat.S_IMODE(b.stat().st_mode) == 0o644


def test_a_folder_in_the_way_is_an_oserror_and_nothing_is_left(tmp_path: Path) -> None:
    (tmp_path / "taken").mkdir()
    with pytest.raises(OSError):
        write_text(tmp_path / "taken", "x")
    assert [p.name for p in tmp_path.iterdir()] == ["taken"]
