"""The controller: button events in, clock actions and outputs out."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from board_pi.clock import ClockController, GameClock, TimeControl


@dataclass(frozen=True)
class Ev:
    kind: str
    player: int | None
    timestamp: float | None = None


class Recorder:
    """A ClockOutputs that remembers what it was told."""

    def __init__(self):
        self.snaps, self.beeps, self.verdicts = [], [], []

    def show(self, snap):
        self.snaps.append(snap)

    def beep(self, pattern):
        self.beeps.append(pattern)

    def verdict(self, acceptable):
        self.verdicts.append(acceptable)


@pytest.fixture
def rig():
    t = [0.0]
    clock = GameClock(TimeControl(minutes=2, max_overtime_minutes=2, low_time_seconds=30),
                      time_source=lambda: t[0])
    out = Recorder()
    actions = []
    ctl = ClockController(clock, outputs=out, on_action=actions.append)
    return t, clock, ctl, out, actions


def results(actions):
    return [a.result for a in actions]


def test_button_events_drive_the_clock(rig):
    t, clock, ctl, out, actions = rig
    ctl.handle(Ev("pause", None))  # nothing to pause before the game
    ctl.handle(Ev("press", 1))     # player 1's side starts player 0's clock
    t[0] = 10
    ctl.handle(Ev("long_press", 0))  # player 0 made no play yet: not an exchange
    ctl.handle(Ev("press", 0))
    ctl.handle(Ev("long_press", 0))  # player 0 held the button: that turn was an exchange
    t[0] = 12
    ctl.handle(Ev("hold", None))
    ctl.handle(Ev("hold", None))
    ctl.handle(Ev("challenge", None))
    ctl.handle(Ev("challenge", None))
    ctl.handle(Ev("pause", None))
    ctl.handle(Ev("pause", None))
    assert results(actions) == ["ignored", "started", "ignored", "switched", "exchange", "hold",
                                "hold_released", "challenge", "ignored", "paused", "resumed"]
    assert clock.phase == "challenge"
    assert out.snaps[-1].phase == "challenge"


def test_event_timestamps_are_used(rig):
    t, clock, ctl, out, actions = rig
    ctl.handle(Ev("press", 1, 0.0))
    t[0] = 20
    ctl.handle(Ev("press", 0, 15.0))  # the button went down 5 s before we got to it
    assert clock.used(0) == pytest.approx(15)
    assert actions[-1].at == 15.0


def test_beeps_for_low_time_overtime_minutes_flag_and_draw(rig):
    t, clock, ctl, out, actions = rig
    ctl.handle(Ev("press", 1))
    for t[0] in (80, 95, 100, 125, 150, 185, 200, 250):
        ctl.tick()
    assert out.beeps == ["low_time", "overtime", "overtime_minute", "flag"]
    assert clock.flagged(0)


def test_draw_beep_after_fifteen_seconds_of_hold(rig):
    t, clock, ctl, out, actions = rig
    ctl.handle(Ev("press", 1))
    t[0] = 5
    ctl.handle(Ev("press", 0))
    ctl.handle(Ev("hold", None))
    t[0] = 19
    ctl.tick()
    assert "draw" not in out.beeps
    t[0] = 20.5
    ctl.tick()
    ctl.tick()
    assert out.beeps.count("draw") == 1 and out.snaps[-1].may_draw


def test_verdict_passes_to_the_outputs(rig):
    t, clock, ctl, out, actions = rig
    ctl.verdict(True)
    ctl.verdict(None)
    assert out.verdicts == [True, None]


def test_controller_without_outputs(rig):
    t, clock, _, _, _ = rig
    ctl = ClockController(clock)
    assert ctl.handle(Ev("press", 0)).result == "started"
    assert ctl.tick().running == 1
