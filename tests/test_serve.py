"""What the table's page and the hub serve alike (board_pi.serve) that is not tested through either app."""

from __future__ import annotations

import doctest

from board_pi.serve import streams


def test_doctests() -> None:
    assert doctest.testmod(streams).failed == 0
