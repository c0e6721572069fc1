"""The clock model, driven by an injected time source."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from board_pi.clock import ClockError, GameClock, TimeControl


class FakeTime:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t

    def advance(self, seconds: float) -> None:
        self.t += seconds


def make(**control) -> tuple[GameClock, FakeTime]:
    ft = FakeTime()
    return GameClock(TimeControl(**control), players=2, time_source=ft), ft


def test_issue_example_two_minutes_five_over_costs_thirty():
    t = [0.0]
    c = GameClock(TimeControl(minutes=25, overtime_penalty=10, max_overtime_minutes=10), players=2,
                  time_source=lambda: t[0])
    c.start(0)
    t[0] += 27 * 60 + 5
    c.press(0)
    assert c.overtime_penalty(0) == 30 and c.running == 1 and not c.flagged(0)


def test_press_switches_and_charges_only_the_running_player():
    c, ft = make()
    assert c.running is None and c.phase == "ready"
    c.start(0)
    ft.advance(90)
    assert c.remaining(0) == pytest.approx(25 * 60 - 90)
    assert c.remaining(1) == 25 * 60
    assert c.press(0) is True
    assert c.running == 1
    ft.advance(30)
    assert c.remaining(0) == pytest.approx(25 * 60 - 90)
    assert c.remaining(1) == pytest.approx(25 * 60 - 30)
    assert c.turns(0) == 1 and c.turns(1) == 0


def test_press_from_the_player_not_running_changes_nothing():
    c, ft = make()
    c.start(0)
    ft.advance(5)
    assert c.press(1) is False
    assert c.running == 0
    assert c.remaining(1) == 25 * 60


def test_press_guard_makes_both_buttons_at_once_switch_once():
    c, ft = make(press_guard_seconds=0.3)
    c.start(0)
    ft.advance(10)
    assert c.press(0)
    ft.advance(0.01)  # the opponent's button went down at the same moment
    assert not c.press(1)
    assert c.running == 1
    ft.advance(0.5)
    assert c.press(1)
    assert c.running == 0


@pytest.mark.parametrize(
    "over, penalty",
    [(0, 0), (0.001, 10), (59.9, 10), (60, 10), (60.01, 20), (125, 30), (599, 100), (600, 100)],
)
def test_penalty_per_started_minute(over, penalty):
    c, ft = make(max_overtime_minutes=0)
    c.start(0)
    ft.advance(25 * 60 + over)
    assert c.overtime_penalty(0) == penalty
    assert c.remaining(0) == pytest.approx(-over)


def test_flag_after_max_overtime_stops_the_clock_at_the_exact_moment():
    c, ft = make(minutes=1, max_overtime_minutes=2)
    c.start(0)
    ft.advance(60 + 120)
    assert not c.flagged(0) and c.running == 0
    ft.advance(0.5)
    assert c.flagged(0)
    assert c.running is None and c.phase == "flagged"
    assert c.overtime(0) == pytest.approx(120)
    assert c.overtime_penalty(0) == 20
    ft.advance(100)
    assert c.overtime(0) == pytest.approx(120)  # nothing charged after the flag
    assert c.press(0) is False


def test_no_overtime_limit_never_flags():
    c, ft = make(minutes=1, max_overtime_minutes=0)
    c.start(0)
    ft.advance(3600)
    assert not c.flagged(0) and c.running == 0
    assert c.overtime_penalty(0) == 59 * 10


def test_pause_charges_no_one_and_resume_goes_back():
    c, ft = make()
    c.start(0)
    ft.advance(10)
    c.pause()
    assert c.running is None and c.paused
    ft.advance(300)
    assert c.press(0) is False  # no press counts while paused
    c.resume()
    assert c.running == 0
    ft.advance(5)
    assert c.used(0) == pytest.approx(15)
    assert c.used(1) == 0
    with pytest.raises(ClockError):
        c.resume()


def test_toggle_pause_and_pause_before_start_is_refused():
    c, ft = make()
    with pytest.raises(ClockError, match="cannot pause"):
        c.pause()
    c.start(1)
    assert c.toggle_pause() is True
    assert c.toggle_pause() is False
    assert c.running == 1


def test_hold_keeps_time_running_and_says_when_to_draw():
    c, ft = make(hold_draw_seconds=15)
    c.start(0)
    ft.advance(40)
    c.press(0)  # player 0 played
    ft.advance(2)
    h = c.hold_play()
    assert (h.by, h.of) == (1, 0)
    assert c.draw_allowed_at() == pytest.approx(ft.t + 15)
    ft.advance(14.9)
    assert not c.may_draw()
    ft.advance(0.2)
    assert c.may_draw()
    assert c.used(1) == pytest.approx(2 + 15.1)  # the holder's time ran throughout
    c.release_hold()
    assert c.hold is None and c.running == 1


def test_hold_is_refused_without_an_opponents_play():
    c, ft = make()
    c.start(0)
    with pytest.raises(ClockError):
        c.hold_play()


def test_pause_during_hold_does_not_run_the_fifteen_seconds():
    c, ft = make()
    c.start(0)
    ft.advance(10)
    c.press(0)
    c.hold_play()
    ft.advance(10)
    c.pause()
    ft.advance(100)
    c.resume()
    assert not c.may_draw()
    ft.advance(5)
    assert c.may_draw()


@pytest.mark.parametrize("loses_turn, acceptable, next_running", [
    (True, True, 0), (True, False, 1), (False, True, 1), (False, False, 1)])
def test_challenge_stops_both_clocks_and_resolution_picks_who_runs(loses_turn, acceptable, next_running):
    c, ft = make(challenge_loses_turn=loses_turn)
    c.start(0)
    ft.advance(30)
    c.press(0)
    ft.advance(5)
    c.challenge()
    assert c.running is None and c.phase == "challenge"
    ft.advance(60)  # adjudication charged to no one
    c.resolve_challenge(acceptable)
    assert c.running == next_running
    assert c.used(0) == pytest.approx(30) and c.used(1) == pytest.approx(5)


def test_cannot_challenge_own_play():
    c, ft = make()
    c.start(0)
    ft.advance(1)
    c.press(0)
    ft.advance(1)
    c.press(1)
    # player 1 just played; player 0 runs and may challenge; player 1 may not challenge themselves
    c.challenge()
    assert c.phase == "challenge"


def test_out_play_stops_both_clocks_until_the_opponent_decides():
    c, ft = make()
    c.start(0)
    ft.advance(20)
    assert c.press(0, out_play=True)
    assert c.running is None and c.phase == "out_play"
    ft.advance(30)
    assert c.used(1) == 0
    c.accept_out_play()
    assert c.phase == "ended"
    # a challenged out-play that is a phony: the game goes on with the challenger's clock
    c, ft = make()
    c.start(0)
    ft.advance(20)
    c.press(0, out_play=True)
    c.challenge()
    c.resolve_challenge(acceptable=False)
    assert c.running == 1
    ft.advance(1)
    c.press(1, out_play=True)
    c.challenge()
    c.resolve_challenge(acceptable=True, game_over=True)
    assert c.phase == "ended" and c.running is None


def test_out_play_rule_off_keeps_the_opponents_clock_running():
    c, ft = make(out_play_stops_clocks=False)
    c.start(0)
    ft.advance(20)
    c.press(0, out_play=True)
    assert c.running == 1


def test_increment_is_added_after_each_turn():
    c, ft = make(minutes=5, increment_seconds=3)
    c.start(0)
    ft.advance(10)
    c.press(0)
    assert c.remaining(0) == pytest.approx(300 - 10 + 3)


def test_delay_makes_the_first_seconds_of_each_turn_free():
    c, ft = make(minutes=5, delay_seconds=5)
    c.start(0)
    ft.advance(3)
    assert c.used(0) == 0
    ft.advance(4)
    assert c.used(0) == pytest.approx(2)
    c.press(0)
    ft.advance(12)
    c.press(1)
    assert c.used(1) == pytest.approx(7)
    # a pause mid-turn does not give the delay again
    ft.advance(3)
    c.pause()
    ft.advance(50)
    c.resume()
    ft.advance(4)
    assert c.used(0) == pytest.approx(2 + 2)


def test_timestamped_press_is_charged_to_its_own_moment():
    c, ft = make()
    c.start(0)
    ft.advance(10)
    c.press(0, at=ft.t - 0.25)  # the button went down 250 ms ago
    assert c.used(0) == pytest.approx(9.75)
    assert c.used(1) == pytest.approx(0.25)
    # a moment in the future is taken as now
    ft.advance(1)
    assert c.press(1, at=ft.t + 100)
    assert c.used(1) == pytest.approx(1.25)


def test_time_never_runs_backwards_for_late_timestamps():
    c, ft = make(press_guard_seconds=0)
    c.start(0)
    ft.advance(10)
    c.press(0)
    ft.advance(10)
    c.press(1, at=ft.t - 50)  # claims to be before player 0's press: taken as that moment
    assert c.used(1) == pytest.approx(0)
    assert c.running == 0
    assert c.used(0) == pytest.approx(20)  # player 0's clock runs again from that moment


def test_state_round_trip_charges_downtime_to_the_running_player():
    c, ft = make()
    c.start(0)
    ft.advance(100)
    c.press(0)
    ft.advance(50)
    state = json.loads(json.dumps(c.to_dict(wall_time=5000.0)))
    ft2 = FakeTime()
    ft2.t = 7.0  # the monotonic clock restarted with the machine
    r = GameClock.from_dict(state, time_source=ft2, wall_time=5000.0 + 120)
    assert r.running == 1
    assert r.used(0) == pytest.approx(100)
    assert r.used(1) == pytest.approx(50 + 120)
    ft2.advance(10)
    assert r.used(1) == pytest.approx(180)
    assert r.press(1)
    assert r.running == 0


def test_a_press_made_while_the_table_was_down_is_charged_once():
    # Ann's clock runs; the Pi goes down for 30 s; Ann pressed 15 s into that (the Pico kept the
    # press and replays it with its own timestamp once the Pi is back).
    c, ft = make()
    c.start(0)
    ft.advance(100)
    state = c.to_dict(wall_time=5000.0)
    ft2 = FakeTime()
    ft2.t = 7.0
    r = GameClock.from_dict(state, time_source=ft2, wall_time=5000.0 + 30)
    r.snapshot()  # the page reads the clock before the replayed press arrives
    assert r.press(0, at=ft2.t - 15)
    assert r.used(0) == pytest.approx(100 + 15)  # her 15 s turn, not 30
    assert r.used(1) == pytest.approx(15)  # Bob's clock has run since her press
    assert r.used(0) + r.used(1) == pytest.approx(100 + 30)  # every second charged exactly once


def test_a_press_heard_after_the_clock_was_saved_is_charged_at_its_own_moment():
    c, ft = make(delay_seconds=5)
    c.start(0)
    ft.advance(20)
    c.to_dict()  # saved (charged up to now) just before the press's event arrived
    assert c.press(0, at=ft.t - 2)
    assert c.used(0) == pytest.approx(18 - 5)  # the delay's first 5 s are free
    assert c.used(1) == 0
    ft.advance(10)
    assert c.used(1) == pytest.approx(12 - 5)
    assert c.used(0) + c.used(1) == pytest.approx(30 - 10)


def test_memento_puts_the_clock_back():
    c, ft = make()
    c.start(0)
    ft.advance(40)
    m = c.memento()
    assert c.press(0)
    ft.advance(5)
    c.pause()
    c.restore(m)
    assert c.running == 0 and c.phase == "running" and c.used(0) == pytest.approx(45)


def test_state_round_trip_can_charge_downtime_to_no_one():
    c, ft = make(charge_downtime=False)
    c.start(0)
    ft.advance(100)
    r = GameClock.from_dict(c.to_dict(wall_time=0.0), time_source=FakeTime(), wall_time=3600.0)
    assert r.used(0) == pytest.approx(100)
    assert r.running == 0


def test_downtime_can_flag_a_player():
    c, ft = make(minutes=1, max_overtime_minutes=1)
    c.start(0)
    ft.advance(30)
    r = GameClock.from_dict(c.to_dict(wall_time=0.0), time_source=FakeTime(), wall_time=500.0)
    assert r.flagged(0) and r.overtime(0) == pytest.approx(60)


def test_state_round_trip_paused_and_hold():
    c, ft = make()
    c.start(0)
    ft.advance(10)
    c.press(0)
    ft.advance(4)
    c.hold_play()
    ft.advance(6)
    r = GameClock.from_dict(c.to_dict(wall_time=0.0), time_source=FakeTime(), wall_time=2.0)
    assert r.hold is not None and (r.hold.by, r.hold.of) == (1, 0)
    assert r.draw_allowed_at() == pytest.approx(r._now() + 15 - 6 - 2)
    c.release_hold()
    c.pause()
    r = GameClock.from_dict(c.to_dict(wall_time=0.0), time_source=FakeTime(), wall_time=999.0)
    assert r.paused and r.running is None
    assert r.used(1) == pytest.approx(10)
    r.resume()
    assert r.running == 1


@pytest.mark.parametrize("bad", [
    {}, {"version": 99}, {"version": 1, "control": {"minutes": -1}},
    {"version": 1, "control": {"bogus": 1}},
])
def test_bad_state_gives_a_clear_error(bad):
    with pytest.raises(ValueError):
        GameClock.from_dict(bad)


@pytest.mark.parametrize("kw", [dict(minutes=0), dict(minutes=float("nan")), dict(overtime_penalty=-1),
                                dict(max_overtime_minutes=-1), dict(minutes="25")])
def test_bad_time_control_is_refused(kw):
    with pytest.raises(ValueError, match="time control"):
        TimeControl(**kw)


def test_bad_player_is_refused():
    c, ft = make()
    with pytest.raises(ValueError, match="no player 2"):
        c.start(2)
    with pytest.raises(ValueError):
        GameClock(players=1)


def test_three_player_clock_rotates():
    ft = FakeTime()
    c = GameClock(TimeControl(), players=3, time_source=ft)
    c.start(0)
    for expected in (1, 2, 0, 1):
        ft.advance(1)
        c.press(c.running)
        assert c.running == expected


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["press0", "press1", "pause", "advance"]),
                          st.floats(0, 120, allow_nan=False)), max_size=60))
def test_time_is_conserved(steps):
    """Every second between start and now is charged to exactly one player, or to a pause."""
    c, ft = make(max_overtime_minutes=0, press_guard_seconds=0)
    start = ft.t
    c.start(0)
    paused_for = 0.0
    for op, dt in steps:
        if c.paused:
            paused_for += dt
        ft.advance(dt)
        if op == "pause":
            c.toggle_pause()
        elif op.startswith("press"):
            c.press(int(op[-1]))
    total = c.used(0) + c.used(1)
    assert total + paused_for == pytest.approx(ft.t - start, abs=1e-6)


def test_out_play_declared_after_the_press_gives_the_opponent_their_seconds_back():
    c, ft = make()
    c.start(0)
    ft.advance(20)
    c.press(0)  # the table reads the board and sees the rack emptied with the bag empty
    ft.advance(1.5)
    c.declare_out_play()
    assert c.phase == "out_play" and c.running is None
    assert c.used(1) == 0 and c.used(0) == pytest.approx(20)
    c.challenge()
    c.resolve_challenge(acceptable=False)  # a phony: the game goes on
    assert c.running == 1
    with pytest.raises(ClockError):
        c.declare_out_play()  # player 1 made no play


_json = st.recursive(st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.floats(allow_nan=True) | st.text(max_size=5),
                     lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
                     max_leaves=6)


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(["used", "running", "phase", "turn_age", "turn_charged", "resume_to", "resume_phase",
                        "hold", "last_mover", "flagged", "turns", "saved_at", "players", "control"]), _json)
def test_damaged_state_loads_or_gives_a_value_error(key, value):
    c, ft = make()
    c.start(0)
    ft.advance(10)
    c.press(0)
    c.hold_play()
    state = c.to_dict(wall_time=0.0)
    state[key] = value
    try:
        r = GameClock.from_dict(state, time_source=FakeTime(), wall_time=1.0)
    except ValueError:
        return
    r.snapshot()  # a state that loads must be usable
