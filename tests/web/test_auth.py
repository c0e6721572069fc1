"""The PIN helpers and the wrong-PIN guard."""

from __future__ import annotations

import pytest

from board_pi.web.auth import BadPin, PinGuard, check_pin, hash_pin, validate_pin


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


def test_guard_locks_out_with_backoff_and_forgives_a_right_pin() -> None:
    now = [1000.0]
    guard = PinGuard(free=3, base=30, longest=100, time_source=lambda: now[0])
    for _ in range(3):
        assert guard.failed("a").wait == 0
    assert guard.failed("a").wait == 30  # the fourth wrong PIN locks
    assert guard.status("b").wait == 0  # another client is not affected
    now[0] += 31
    assert guard.status("a").wait == 0
    assert guard.failed("a").wait == 60  # doubled
    now[0] += 61
    assert guard.failed("a").wait == 100  # capped
    now[0] += 101
    guard.succeeded("a")
    assert guard.status("a").failures == 0
    assert guard.failed("a").wait == 0
