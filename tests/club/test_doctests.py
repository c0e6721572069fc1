"""The club modules' examples hold."""

from __future__ import annotations

import doctest
import importlib

import pytest


@pytest.mark.parametrize("name", ["club.settings", "club.topics", "club.broker", "club.results", "feeds"])
def test_doctests(name: str) -> None:
    module = importlib.import_module(f"board_pi.{name}")
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0
