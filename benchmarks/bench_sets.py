"""Reading every tile set (issue 12): per-set accuracy on rendered boards of that set, read through
their true corners with the reader restricted to the set's own tiles, and the time per frame.

Prints per set: squares (target 99.9%) and their 95% interval over the boards, letters, empty
squares read as tiles, blanks missed, and the median time to read all 225 squares of a 1280x960
frame (the vision issue's budget: 250 ms; a Pi 4 core is several times slower than this machine).
The boards are held out of training (seeds from 20,000,000 on; training uses seed x 100,000 + i).

Usage: ``python benchmarks/bench_sets.py [--boards 40] [--model FILE] [--tuning]`` (40 boards, about 8,600
squares a set: with fewer, one hard board (small in the frame and blurred) moves a set's figure by
0.3%; with 40 its 95% interval is still about 0.3% wide, with 200, about 40 minutes here, about
0.1%). ``--tuning`` reads the tuning boards instead (seeds from 25,000,000 on), the ones models
and settings are chosen on, so that the held-out figures stay out of every choice.

For each set with faces beyond A-Z (accented letters, multi-letter tiles), it also prints how
often each of them is read right, on as many boards again that hold every one of them (seeds
21,000,000 on; 26,000,000 with ``--tuning``): a set holds one Ä, one Ź, so the squares figure
hardly sees them, and a misread one costs a play's score (Ź is worth 9, Z 1).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from board_pi.rules.tiles import TILE_SETS  # noqa: E402
from board_pi.vision.evaluate import Tally, face_recall, game_like_rows, own_faces  # noqa: E402
from board_pi.vision.read import MODEL_PATH, Reader  # noqa: E402
from board_pi.vision.render import render_board  # noqa: E402


def board_interval(per_board: list[tuple[int, int]], draws: int = 2000) -> tuple[float, float]:
    """The 95% interval of the share of squares read right, by drawing the boards again with
    replacement: a set's misses gather on its few hardest boards (small in the frame, blurred),
    so the squares are not independent and a binomial interval would be too narrow.

    >>> board_interval([(225, 225)] * 10)
    (1.0, 1.0)
    """
    counts = np.array(per_board, np.float64).reshape(-1, 2)
    pick = np.random.default_rng(0).integers(0, len(counts), (draws, len(counts)))
    shares = counts[pick, 1].sum(axis=1) / counts[pick, 0].sum(axis=1)
    return float(np.quantile(shares, 0.025)), float(np.quantile(shares, 0.975))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--boards", type=int, default=40, help="rendered boards per set")
    ap.add_argument("--model", default=str(MODEL_PATH))
    ap.add_argument("--tuning", action="store_true", help="the tuning boards (seeds 25,000,000 on), not the held-out ones")
    args = ap.parse_args()
    first = 25_000_000 if args.tuning else 20_000_000
    print(f"model {args.model}: {len(Reader(args.model).classes)} classes; {args.boards} "
          f"{'tuning' if args.tuning else 'held-out'} boards per set")
    wrong = 0
    worst = 1.0
    for k, (name, tiles) in enumerate(TILE_SETS.items()):
        reader = Reader(args.model, tiles=tiles)
        t = Tally()
        times = []
        per_board = []  # (squares, right) of each board: misses gather on a few hard boards
        for i in range(args.boards):
            seed = first + 1000 * k + i
            rows = game_like_rows(np.random.default_rng(seed), tiles)
            r = render_board(rows, seed=seed, tiles=tiles)
            t0 = time.perf_counter()
            grid = reader.read(r.image, r.corners).grid
            times.append((time.perf_counter() - t0) * 1000)
            before = (t.squares, t.squares_right)
            t.add(rows, grid, r.occluded, tag=f"#{seed} ")
            per_board.append((t.squares - before[0], t.squares_right - before[1]))
        f = t.figures()
        worst = min(worst, f["square_accuracy"])
        wrong += f["squares"] - t.squares_right
        print(f"{name:9s} squares {f['square_accuracy']:.3%} of {f['squares']}, letters {f['letter_accuracy']:.3%} "
              f"of {f['tiles']}, empty read as tile {f['empty_read_as_tile']}, blanks missed {f['blanks_missed']}/{f['blanks']}, "
              f"{statistics.median(times):.0f} ms a frame; {f['errors'][:4]}")
        lo, hi = board_interval(per_board)
        print(f"{'':9s} squares 95% interval {lo:.3%}-{hi:.3%} (the boards drawn again with replacement)")
        if own_faces(tiles):
            # A bag holds one or two of each of these (one Ä, one Ź), so the boards above show a
            # few dozen: boards that hold every one of them say how often each is read right.
            rec = face_recall(reader, range(first + 1_000_000 + 1000 * k, first + 1_000_000 + 1000 * k + args.boards), tiles)
            right, seen = (sum(v[i] for v in rec["faces"].values()) for i in (0, 1))
            print(f"{'':9s} its own faces on {args.boards} boards holding each: {right}/{seen} read right "
                  f"({right / max(seen, 1):.2%}): " + ", ".join(f"{face} {r}/{n}" for face, (r, n) in rec["faces"].items())
                  + f"; misread {list(rec['misread'].items())[:6]}")
    print(f"worst set: {worst:.3%} of squares (target 99.9% for every set); {wrong} squares wrong in all")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
