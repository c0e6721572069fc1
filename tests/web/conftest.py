"""Fixtures for the status page: a real table on a real journal, a real server on a free port,
and Debian's Chromium driven by Playwright (skipped, with the reason, when either is missing)."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path
from typing import Any, Iterator

import pytest

from board_pi.rules.judge import WordJudge
from board_pi.rules.lexicon import Lexicon
from board_pi.table.store import Journal
from board_pi.table.table import Table
from board_pi.pin import hash_pin

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts" / "web"
PIN = "2468"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@pytest.fixture(scope="session")
def lexicon() -> Lexicon:
    from board_pi.wordlists import load_lexicon

    return load_lexicon()


@pytest.fixture(scope="session")
def pin_hash() -> str:
    return hash_pin(PIN)


class SteppedTime:
    """The table's clock: real monotonic time plus whatever a test skips ahead, so a test gets
    past a guard (the clock's double-press guard) without sleeping, however loaded the machine."""

    def __init__(self) -> None:
        self.offset = 0.0

    def __call__(self) -> float:
        return time.monotonic() + self.offset

    def advance(self, seconds: float) -> None:
        self.offset += seconds


@pytest.fixture
def game_time() -> SteppedTime:
    return SteppedTime()


@pytest.fixture
def table(tmp_path: Path, lexicon: Lexicon, game_time: SteppedTime) -> Iterator[Table]:
    t = Table(Journal(tmp_path / "journal.db"), WordJudge(lexicon, clock=time.time), time_source=game_time)
    yield t
    t.journal.close()


@pytest.fixture
def server(table: Table, pin_hash: str) -> Iterator[Any]:
    from board_pi.web import serve

    handle = serve(table, host="127.0.0.1", port=0, pin_hash=pin_hash, heartbeat=2.0, threads=12)
    yield handle
    handle.stop()


def chromium_path() -> str | None:
    for cand in (os.environ.get("BOARD_PI_CHROMIUM"), "/usr/bin/chromium", shutil.which("chromium")):
        if cand and os.path.exists(cand):
            return cand
    return None


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    path = chromium_path()
    if path is None:
        pytest.skip("no chromium: install Debian's chromium package (.ci/run does) for the browser tests")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (the test extra)")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=path, headless=True, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def artifacts() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS
