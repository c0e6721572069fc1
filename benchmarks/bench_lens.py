"""A camera lens that bends straight lines, measured at calibration and undone at the table.

For each bend (a wide lens's barrel > 0, a long lens's pincushion < 0, as
:class:`board_pi.vision.lens.Lens` models them), rendered tables of several editions and poses,
the board filling 70-85% of the frame: the empty board and a board of tiles, both seen through
that lens. Each table is calibrated on its empty board with the lens measured
(``calibrate(..., lens=True)``, as ``board-pi calibrate`` does), and the board of tiles read as
the table reads it (:class:`board_pi.table.vision.VisionReader` with the calibration's tracker).
Prints per bend: the bends measured, the squares read right with the lens measured and with the
lines taken as straight (the calibration before the lens), the time to measure, and the time
to straighten a 1280x960 frame. A Pi 4 core is several times slower.

Usage: ``python benchmarks/bench_lens.py [--tables N]`` (about 3 minutes here for 6 tables).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from board_pi.table.vision import VisionReader  # noqa: E402
from board_pi.vision.calibration import Calibration, Tracker, calibrate  # noqa: E402
from board_pi.vision.evaluate import Tally  # noqa: E402
from board_pi.vision.lens import Lens  # noqa: E402
from board_pi.vision.locate import nearest_turn  # noqa: E402
from board_pi.vision.read import Reader  # noqa: E402
from board_pi.vision.render import random_style, render_board  # noqa: E402
from tests.vision.game_boards import boards_of_the_bundled_game  # noqa: E402
from tests.vision.lenses import through_a_lens  # noqa: E402

BENDS = (-0.15, -0.1, -0.05, 0.0, 0.05, 0.1, 0.2, 0.3)


def upright(cal: Calibration, corners: np.ndarray) -> Calibration:
    """``cal`` turned so that its corners lie nearest ``corners``."""
    k = nearest_turn(cal.corners, corners)
    return replace(cal, corners=cal.location.rotated(k).corners, rotation=(cal.rotation + 90 * k) % 360)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", type=int, default=6, help="rendered tables per bend")
    args = ap.parse_args(argv)
    reader = Reader()
    boards = boards_of_the_bundled_game()  # boards a game makes, as a table reads them
    print(f"{args.tables} rendered tables per bend, the board filling 70-85% of a 1280x960 frame, the bundled game's boards on it:")
    measure_t: list[float] = []
    for bend in BENDS:
        measured, with_lens, without, squares = [], 0, 0, 0
        per_table: list[str] = []
        for k in range(args.tables):
            seed = 50_000_000 + k
            style = random_style(np.random.default_rng(seed))
            rows = boards[(6 + 4 * k) % len(boards)]
            renders = [render_board(r, seed=seed + n, hand=False, style=style, pose_seed=seed, fill=(0.7, 0.85), tilt=12)
                       for n, r in ((0, ["." * 15] * 15), (1, rows))]
            empty, played = (through_a_lens(r.image, bend) for r in renders)
            # Which way up the board lies is not this benchmark's question (a table is told it, by
            # `--rotation` or markers): each calibration takes the turn of the true corners.
            truth = renders[0].corners
            t0 = time.perf_counter()
            try:
                cal = calibrate(empty, lens=True, use_markers=False)
                straight = calibrate(empty, use_markers=False)
            except Exception as e:  # a board not found is counted as every square wrong
                print(f"    table {seed}: {e}")
                squares += 225
                continue
            measure_t.append(time.perf_counter() - t0)
            measured.append(cal.bend)
            cal = upright(cal, cal.lens.straight(Lens(bend, cal.frame_size).seen(truth)))
            straight = upright(straight, Lens(bend, cal.frame_size).seen(truth))
            for c, add in ((cal, True), (straight, False)):
                reading = VisionReader(reader=reader, tracker=Tracker(c)).read(played)
                t = Tally()
                t.add(rows, reading.grid if reading is not None else ["." * 15] * 15, None)
                if add:
                    with_lens += t.squares_right
                    per_table.append(str(t.squares_right))
                else:
                    without += t.squares_right
                    per_table[-1] += f"/{t.squares_right}"
            squares += 225
        print(f"  bend {bend:+.2f}  measured {', '.join(f'{b:+.3f}' for b in measured) or 'none'}  "
              f"squares right {with_lens / squares:.2%} with the lens, {without / squares:.2%} taken as straight "
              f"(per table, of 225: {' '.join(per_table)})")
    print(f"measuring a lens (and calibrating twice, with and without): {statistics.median(measure_t):.1f} s median")
    frame = np.zeros((960, 1280, 3), np.uint8)
    lens = Lens(0.1, (1280, 960))
    lens.straighten(frame)  # the maps, once per calibration
    t0 = time.perf_counter()
    for _ in range(20):
        lens.straighten(frame)
    print(f"straightening a 1280x960 frame: {1000 * (time.perf_counter() - t0) / 20:.1f} ms (added to each frame's "
          "time at a table whose camera has a lens measured)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
