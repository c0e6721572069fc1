"""Clock benchmarks: press-to-switch latency (GPIO and serial paths) and drift over a game.

Run: .venv/bin/python benchmarks/bench_clock.py [--quick]

Targets (issue 3): GPIO path <= 5 ms, serial path <= 20 ms, no drift beyond float rounding.
The GPIO path runs on gpiozero's MockFactory (pin callbacks are synchronous there; on a Pi, lgpio
delivers them from its own thread, which adds its wake-up time). The serial path runs the Pico
firmware (under CPython, a step every millisecond as on the Pico) and the Pi's side with real
pyserial over a pseudo-terminal pair.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import threading
import time
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from board_pi.clock import ClockController, GameClock, TimeControl  # noqa: E402


def summary(ms: list[float]) -> str:
    ms = sorted(ms)
    p99 = ms[min(len(ms) - 1, int(len(ms) * 0.99))]
    return f"median {statistics.median(ms):.3f} ms, p99 {p99:.3f} ms, max {ms[-1]:.3f} ms (n={len(ms)})"


def bench_gpio(n: int) -> tuple[list[float], list[float]]:
    from gpiozero import Device
    from gpiozero.pins.mock import MockFactory

    from board_pi.hardware import GpioClock, GpioPins

    Device.pin_factory = MockFactory()
    fake = [1000.0]
    clock = GameClock(TimeControl(), time_source=lambda: fake[0])
    gpio = GpioClock(GpioPins(), time_source=lambda: fake[0])
    ctl = ClockController(clock, outputs=gpio)
    gpio.on_event = ctl.handle
    pins = [Device.pin_factory.pin(gpio.pins.player0_button), Device.pin_factory.pin(gpio.pins.player1_button)]
    pins[1].drive_low()  # start: player 0 runs
    pins[1].drive_high()
    out, cpu = [], []
    for i in range(n):
        p = i % 2
        fake[0] += 1.0  # a second of thinking (time injected: the press guard is real)
        c0 = time.thread_time()
        t0 = time.perf_counter()
        pins[p].drive_low()  # the pin edge: callback, debounce, event, clock, lights
        t1 = time.perf_counter()
        c1 = time.thread_time()
        assert clock.running == 1 - p and gpio.light[1 - p].is_lit and not gpio.light[p].is_lit
        out.append((t1 - t0) * 1000)
        cpu.append((c1 - c0) * 1000)
        fake[0] += 0.1
        pins[p].drive_high()
    gpio.close()
    Device.pin_factory.reset()
    return out, cpu


def bench_serial(n: int) -> list[float]:
    sys.path.insert(0, str(ROOT / "tests" / "firmware"))
    from tests.firmware.harness import Cable, PicoThread, Table, wait_for  # noqa: E402
    import machine  # the stand-in  # noqa: E402

    from board_pi.hardware.serial_clock import SerialClock

    tmp = Path(tempfile.mkdtemp())
    cable = Cable(tmp / "ttyPICO")
    pico = PicoThread(cable.port)
    host = SerialClock(str(cable.path), reconnect_interval=0.05)
    table = Table(host, GameClock(TimeControl()))
    switched = threading.Event()
    when: list[float] = []

    def on_action(a):
        if a.result in ("switched", "started"):
            when.append(time.perf_counter())
            switched.set()

    table.ctl.on_action = on_action
    host.start()
    if not wait_for(lambda: host.connected):
        raise SystemExit(f"serial bench: the Pi side never connected ({host.last_error})")
    from tests.firmware.harness import PINS

    out = []
    names = ["player1", "player0"]  # player 1's side starts player 0's clock
    for i in range(n + 1):
        name = names[i % 2]
        switched.clear()
        when.clear()
        t0 = time.perf_counter()
        machine.Pin.drive(PINS[name], 0)
        if not switched.wait(2):
            raise SystemExit("serial bench: a press never reached the clock")
        if i:
            out.append((when[0] - t0) * 1000)
        time.sleep(0.05)
        machine.Pin.drive(PINS[name], 1)
        time.sleep(0.3)  # past the press guard
    host.close()
    pico.stop()
    cable.close()
    return out


def bench_drift() -> tuple[float, float, int]:
    """A 25-minute game of random turns; the model against exact rational arithmetic."""
    rng = random.Random(25)
    t = [5000.123456789]
    clock = GameClock(TimeControl(minutes=25, max_overtime_minutes=0), time_source=lambda: t[0])
    ctl = ClockController(clock)
    exact = [Fraction(0), Fraction(0)]
    clock.start(0)
    player, presses = 0, 0
    while max(exact) < 25 * 60:
        turn = rng.uniform(5, 90)
        steps = int(turn / 0.05)
        # the table ticks the controller 20 times a second, as the GPIO ticker does
        for _ in range(steps):
            before = t[0]
            t[0] += 0.05
            exact[player] += Fraction(t[0]) - Fraction(before)
            ctl.tick()
        clock.press(player)
        presses += 1
        player = 1 - player
    model_err = max(abs(Fraction(clock.used(p)) - exact[p]) for p in (0, 1))
    # The Pico counts whole milliseconds from its own ticks: no drift at all.
    sys.path.insert(0, str(ROOT / "tests" / "firmware"))
    from tests.firmware.harness import FakeTime, MemoryPort, make_pico  # noqa: E402
    import utime  # noqa: E402

    ft = FakeTime(0.0)
    utime.now_fn = ft
    utime.offset_ms = (1 << 30) - 300_000  # the Pico's ticks wrap during the game
    pico = make_pico(MemoryPort())
    pico.phase, pico.running = "running", 0
    pico.start_turn(0, pico.now())
    for _ in range(25 * 60 * 100):
        ft.t += 0.01
        pico.step()
    pico_err = abs(pico.remaining(0, pico.now()) - 0)
    utime.offset_ms = 0
    return float(model_err), float(pico_err), presses


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer presses (CI smoke run)")
    args = ap.parse_args()
    n_gpio, n_serial = (100, 8) if args.quick else (1000, 30)

    gpio, cpu = bench_gpio(n_gpio)
    print(f"GPIO press-to-switch (pin edge -> clock switched, lights changed): {summary(gpio)}; target <= 5 ms")
    print(f"  of which CPU time in that thread: {summary(cpu)} (the rest of any outlier is waiting for a core)")
    serial = bench_serial(n_serial)
    print(f"serial press-to-switch (Pico button -> Pi clock switched, real pyserial on a pty): {summary(serial)}; "
          f"target <= 20 ms")
    model_err, pico_err, presses = bench_drift()
    print(f"drift over a simulated 25-minute game ({presses} presses, 20 ticks/s): model {model_err:.3g} s "
          f"against exact arithmetic; Pico firmware {pico_err:.0f} ms over 25 min of 10 ms steps; "
          f"target: none beyond float rounding")
    ok = statistics.median(gpio) <= 5 and statistics.median(serial) <= 20 and model_err < 1e-6 and pico_err == 0
    print("all targets met" if ok else "TARGET MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
