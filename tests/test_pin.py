"""The director's PIN: hashing, checking, the rules of a good PIN (board_pi.pin)."""

from __future__ import annotations

import doctest

import pytest

import board_pi.pin

from board_pi.pin import BadPin, check_pin, hash_pin, validate_pin


def test_hash_is_salted_and_checks() -> None:
    a, b = hash_pin("2468"), hash_pin("2468")
    assert a != b  # a random salt each time
    assert "2468" not in a
    assert check_pin("2468", a) and check_pin("2468", b)
    assert not check_pin("2469", a)
    assert not check_pin("", a)


@pytest.mark.parametrize("stored", ["", "plain", "scrypt$1$2$3", "scrypt$x$8$1$AAAA$BBBB",
                                    "scrypt$16384$8$1$!!!$@@@", "pbkdf2$1$2$3$4$5"])
def test_damaged_hash_matches_nothing(stored: str) -> None:
    assert check_pin("2468", stored) is False


@pytest.mark.parametrize("pin", ["123", "x" * 65, " 1234", "1234 ", "12\n34", "12\x0034", "12\u200b34", 1234, None])
def test_bad_pins_refused(pin: object) -> None:
    with pytest.raises(BadPin):
        validate_pin(pin)


def test_doctests() -> None:
    assert doctest.testmod(board_pi.pin).failed == 0
