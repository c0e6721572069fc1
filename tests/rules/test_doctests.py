"""The examples in the rules modules' docstrings are true."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = ["board_pi.rules.tiles", "board_pi.rules.board", "board_pi.rules.play", "board_pi.rules.scoring",
           "board_pi.rules.events", "board_pi.rules.game", "board_pi.rules.lexicon", "board_pi.rules.judge", "board_pi.rules.gcg", "board_pi.rules.replay"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
    assert result.attempted > 0
