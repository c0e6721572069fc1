"""Shared fixtures: where ../shared/data is, and skipping cleanly when it is absent."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def shared_data_dir() -> Path | None:
    """``../shared/data`` beside the project, or $BOARD_PI_SHARED_DATA; None when absent."""
    env = os.environ.get("BOARD_PI_SHARED_DATA")
    for cand in ([Path(env)] if env else []) + [ROOT.parent / "shared" / "data"]:
        if cand.is_dir():
            return cand
    return None


@pytest.fixture(scope="session")
def shared_data() -> Path:
    d = shared_data_dir()
    if d is None:
        pytest.skip("../shared/data is not present (it is only on the developers' machines)")
    return d


def _skip_when_a_font_is_missing(error: BaseException) -> None:
    """A test drawing a board in a catalogue font this machine lacks skips, naming the Debian
    package (.ci/run installs them all); it never runs on a stand-in font's other picture."""
    fonts = sys.modules.get("board_pi.vision.fonts")
    if fonts is not None and isinstance(error, fonts.FontMissing):
        pytest.skip(f"needs the renderer's fonts: {error}")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item):
    try:
        return (yield)
    except Exception as e:
        _skip_when_a_font_is_missing(e)
        raise


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item):
    try:
        return (yield)
    except Exception as e:
        _skip_when_a_font_is_missing(e)
        raise
