"""Reading every tile set (issue 12): per-set accuracy on rendered boards of that set, read through
their true corners with the reader restricted to the set's own tiles, and the time per frame.

Prints per set: squares (target 99.9%) and their 95% interval over the boards, letters, empty
squares read as tiles, blanks missed, and the median time to read all 225 squares of a 1280x960
frame (the vision issue's budget: 250 ms; a Pi 4 core is several times slower than this machine).
The boards are held out of training (seeds from 20,000,000 on; training uses seed x 100,000 + i).

Usage: ``python benchmarks/bench_sets.py [--boards 200] [--model FILE] [--tuning] [--workers 2]``
(200 boards, about 43,000 squares a set: a set's misses gather on its few hard boards, small in
the frame and blurred, so with 40 boards its 95% interval is still about 0.3% wide and cannot
tell 99.85% from 99.9%; with 200, about 0.1%. The sets are read side by side in ``--workers``
processes, about 20 minutes here with 2; the time per frame is measured afterwards, on each
set's first 10 boards with nothing running beside them). ``--tuning`` reads the tuning boards
instead (seeds from 25,000,000 on), the ones models and settings are chosen on, so that the
held-out figures stay out of every choice.

For each set with faces beyond A-Z (accented letters, multi-letter tiles), it also prints how
often each of them is read right, on as many boards again that hold every one of them (seeds
21,000,000 on; 26,000,000 with ``--tuning``): a set holds one Ä, one Ź, so the squares figure
hardly sees them, and a misread one costs a play's score (Ź is worth 9, Z 1).
"""

from __future__ import annotations

import argparse
import multiprocessing
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


TIMED = 10
"""Boards of each set timed (a few suffice for a median; the accuracy is read on all of them)."""


def frame_ms(name: str, first: int, model: str, frames: int = TIMED) -> float:
    """The median time to read a whole 1280x960 frame of the set, over its first boards: read
    again once the workers are done, with nothing else running beside them."""
    tiles = TILE_SETS[name]
    reader = Reader(model, tiles=tiles)
    shots = [render_board(game_like_rows(np.random.default_rng(first + i), tiles), seed=first + i, tiles=tiles)
             for i in range(frames)]
    reader.read(shots[0].image, shots[0].corners)  # the first read loads the networks
    times = []
    for r in shots:
        t0 = time.perf_counter()
        reader.read(r.image, r.corners)
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def read_set(k: int, name: str, model: str, boards: int, first: int) -> tuple[dict, int, tuple[float, float], str]:
    """One set's figures (:meth:`Tally.figures`), its squares read wrong, their 95% interval, and
    the line on its own faces (empty for a set with none)."""
    tiles = TILE_SETS[name]
    reader = Reader(model, tiles=tiles)
    t = Tally()
    per_board = []  # (squares, right) of each board: misses gather on a few hard boards
    for i in range(boards):
        seed = first + 1000 * k + i
        rows = game_like_rows(np.random.default_rng(seed), tiles)
        r = render_board(rows, seed=seed, tiles=tiles)
        grid = reader.read(r.image, r.corners).grid
        before = (t.squares, t.squares_right)
        t.add(rows, grid, r.occluded, tag=f"#{seed} ")
        per_board.append((t.squares - before[0], t.squares_right - before[1]))
    faces = ""
    if own_faces(tiles):
        # A bag holds one or two of each of these (one Ä, one Ź), so the boards above show a
        # few dozen: boards that hold every one of them say how often each is read right.
        rec = face_recall(reader, range(first + 1_000_000 + 1000 * k, first + 1_000_000 + 1000 * k + boards), tiles)
        right, seen = (sum(v[i] for v in rec["faces"].values()) for i in (0, 1))
        faces = (f"{'':9s} its own faces on {boards} boards holding each: {right}/{seen} read right "
                 f"({right / max(seen, 1):.2%}): " + ", ".join(f"{face} {r}/{n}" for face, (r, n) in rec["faces"].items())
                 + f"; misread {list(rec['misread'].items())[:6]}")
    return t.figures(), t.squares - t.squares_right, board_interval(per_board), faces


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--boards", type=int, default=200, help="rendered boards per set")
    ap.add_argument("--model", default=str(MODEL_PATH))
    ap.add_argument("--tuning", action="store_true", help="the tuning boards (seeds 25,000,000 on), not the held-out ones")
    ap.add_argument("--workers", type=int, default=2, help="sets read side by side")
    args = ap.parse_args()
    if args.boards < 1 or args.workers < 1:
        ap.error("--boards and --workers: at least 1")
    first = 25_000_000 if args.tuning else 20_000_000
    print(f"model {args.model}: {len(Reader(args.model).classes)} classes; {args.boards} "
          f"{'tuning' if args.tuning else 'held-out'} boards per set", flush=True)
    jobs = [(k, name, args.model, args.boards, first) for k, name in enumerate(TILE_SETS)]
    with multiprocessing.Pool(min(args.workers, len(jobs))) as pool:
        results = pool.starmap(read_set, jobs, chunksize=1)
    wrong = 0
    worst = 1.0
    for (k, name, *_), (f, w, (lo, hi), faces) in zip(jobs, results):
        ms = frame_ms(name, first + 1000 * k, args.model, min(TIMED, args.boards))
        print(f"{name:9s} squares {f['square_accuracy']:.3%} of {f['squares']}, letters {f['letter_accuracy']:.3%} "
              f"of {f['tiles']}, empty read as tile {f['empty_read_as_tile']}, blanks missed {f['blanks_missed']}/{f['blanks']}, "
              f"{ms:.0f} ms a frame; {f['errors'][:4]}")
        print(f"{'':9s} squares 95% interval {lo:.3%}-{hi:.3%} (the boards drawn again with replacement)")
        if faces:
            print(faces)
        wrong += w
        worst = min(worst, f["square_accuracy"])
    print(f"worst set: {worst:.3%} of squares (target 99.9% for every set); {wrong} squares wrong in all")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
