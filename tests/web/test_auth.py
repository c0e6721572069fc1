"""The wrong-PIN guard."""

from __future__ import annotations

from board_pi.serve.guard import PinGuard


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
