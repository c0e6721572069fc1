"""The table end to end: every shared game acted out through the demo pipeline.

For each game in ../shared/data/gcg/macondo/ (and the bundled game, and the German demo game
the project's own move generator composes), the synthetic renderer draws the board after each
play in the game's own tile set, and the real recognition (restricted to that set's tiles),
rules engine and journal take it from the press. A record of a set board-pi has no word list for
(the Polish endgame) follows the record's challenges. Prints the share of plays read right
without correction (target 100%), the share of games whose final score equals the record
(target 100%), and the time from a press to the score, after the board is still (target: at most
300 ms on this machine; a Pi 4 core is several times slower), with the journal's writes to its
log in it shown apart, and the still frame's reading (the board checked where the calibration
has it, and its changed squares read: issue 11's "board found plus changed squares", target 60 ms)
shown apart too, and the longest sync of the log to the disk, which runs behind the press
(a Pi's SD card syncs more slowly than this machine's disk). Last, the disk alone: the same
journal written at a press's pace with nothing else running (``--disk`` seconds), each commit and
the time until it is on the disk, so that a slow disk can be told from a slow table. ``--edition``
plays the same games on a club edition's board (green, sage, lavender, wooden) instead of the
demo's cream one;
``--seed`` draws another board of it (its colours, the light and the camera over it; 1 by default), for
a table the choices were not made on. ``--learn``: the table learns its tiles as it plays, as
``board-pi run`` and ``board-pi demo`` do (each game from nothing). ``--light 0.7``: the game's
frames in 0.7 of the light the table was calibrated in (a table started again, its camera settled
on the evening's light), so that what the calibration frame says of each empty square must be
carried over to the light of the game. ``--mirror``: the camera flips its picture (a webcam's
mirror setting); ``--calibrated-turned K``: the table was calibrated K quarter turns out (a camera
over the table's side, the director taking another corner for A1): the first play's tiles must
settle both.

    .venv/bin/python benchmarks/bench_table.py [--games N] [--edition NAME] [--seed N] [--disk S] [--learn] [--light X]
        [--mirror] [--calibrated-turned K]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from board_pi.rules.gcg import GcgError, read_gcg  # noqa: E402
from board_pi.rules.replay import replay  # noqa: E402
from board_pi.rules.tiles import GERMAN  # noqa: E402
from board_pi.cli.demo import load_record, play_record  # noqa: E402
from board_pi.table.store import Journal  # noqa: E402
from board_pi.vision.editions import EDITIONS  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=0, help="only the first N games (0: all)")
    ap.add_argument("--edition", choices=list(EDITIONS),
                    help="the club board the camera sees (default: the demo's cream board)")
    ap.add_argument("--seed", type=int, default=1, help="which board of the edition, and the camera over it")
    ap.add_argument("--disk", type=float, default=30.0, help="seconds of the disk alone (0: not measured)")
    ap.add_argument("--learn", action="store_true",
                    help="the table learns its tiles as it plays, as `board-pi run` and `board-pi demo` do")
    ap.add_argument("--light", type=float, default=1.0,
                    help="the light in the game's frames as a share of the calibration frame's (a camera that "
                         "settled again on other light: 0.7 darker, 1.4 brighter; 1: the same)")
    ap.add_argument("--mirror", action="store_true", help="the camera flips its picture (a mirror image)")
    ap.add_argument("--calibrated-turned", type=int, choices=(0, 1, 2, 3), default=0,
                    help="the table calibrated this many quarter turns out")
    args = ap.parse_args()
    if not 0.2 <= args.light <= 3.0:
        ap.error("--light must be from 0.2 to 3")
    shared = ROOT.parent / "shared" / "data" / "gcg" / "macondo"
    records = [("bundled demo game", load_record(None)), ("German demo game", load_record(None, GERMAN))]
    if shared.is_dir():
        for p in sorted(shared.glob("*.gcg")):
            try:
                records.append((p.name, read_gcg(str(p))))
            except GcgError as e:  # a record the reader refuses is not a game the table can play
                print(f"{p.name:40s} skipped: {e}")
    else:
        print(f"note: {shared} is absent; only the bundled game is played")
    if args.games:
        records = records[:args.games]
    plays = correct = games = same = 0
    times: list[float] = []
    written: list[float] = []  # of each press's time, the journal's writes
    frames: list[float] = []  # of each press's time, the still frame's reading
    synced = 0.0  # the longest the journal took to sync its log to the disk, behind the presses
    t0 = time.perf_counter()
    for name, rec in records:
        r = play_record(rec, None, web=False, say=lambda *a: None, seed=args.seed, edition=args.edition,
                        learn=args.learn, light=args.light, mirror=args.mirror,
                        calibrated_turned=args.calibrated_turned)
        games += 1
        same += r.final == r.recorded
        plays += r.plays
        correct += r.plays_read_correctly
        times += r.press_to_score
        written += r.journal_seconds
        frames += r.frame_read
        synced = max(synced, r.longest_sync)
        print(f"{name:40s} {replay(rec).tiles.name:8s} plays read right {r.plays_read_correctly:3d}/{r.plays:<3d} "
              f"final {r.final} recorded {r.recorded} {'=' if r.final == r.recorded else 'DIFFERENT'}",
              flush=True)
    print()
    print(f"plays read right without correction: {correct}/{plays} = {100 * correct / max(plays, 1):.1f}% "
          "(target 100%)")
    print(f"games with the recorded final score: {same}/{games} = {100 * same / max(games, 1):.1f}% "
          "(target 100%)")
    if times:
        # The journal's writes are part of the press: each waits until its transaction is in the
        # log. The sync to the disk, which this machine's disk stalls now and then for up to a
        # second, is not: it runs behind the press (board_pi.table.store), and its longest is
        # shown, the most a power cut could have taken back of what was already shown.
        rest = sorted(t - w for t, w in zip(times, written))
        print(f"press to score shown, board still: {_spread(times)} (target <= 300 ms on this machine)")
        print(f"  of which the journal's writes to its log: {_spread(written)}")
        print(f"  reading and deciding, the rest: {_spread(rest)}")
        # Issue 11's "board found plus changed squares" (60 ms) as the table meets it: a fixed
        # camera's board is checked where its calibration has it, not searched for in each frame
        # (benchmarks/bench_read.py times that search, as a board moved would need).
        print(f"  of which the still frame's reading, the board checked where calibrated and its changed "
              f"squares read: {_spread(frames)} (target <= 60 ms per 1280x960 frame)")
        print(f"  the journal's syncs to the disk, behind the presses: longest {synced * 1000:.0f} ms")
    if args.disk > 0:
        print(_disk_alone(args.disk))
    print(f"total {time.perf_counter() - t0:.0f} s")
    return 0


def _disk_alone(seconds: float) -> str:
    """The journal written as a table writes it (a press's action: an event, the clock, what
    waits on the page), one commit every 30 ms, in the folder the games above used: how long a
    commit takes (what a press waits for), and how long until it is on the disk."""
    times: list[float] = []
    durable: list[float] = []
    with tempfile.TemporaryDirectory(prefix="board-pi-disk-") as d:
        journal = Journal(Path(d) / "journal.db")
        game = journal.new_game(["Ann", "Bob"], {})
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            t = time.perf_counter()
            journal.commit(game, [{"type": "pass", "player": len(times) % 2}], clock={"running": len(times) % 2},
                           pending=None)
            times.append(time.perf_counter() - t)
            journal.sync()
            durable.append(time.perf_counter() - t)
            time.sleep(0.03)
        journal.close()
    slow = sum(t > 0.1 for t in durable)
    return (f"the disk alone, {len(times)} commits of the journal over {seconds:.0f} s: {_spread(times)}; "
            f"until on the disk: {_spread(durable)}, {slow} over 100 ms")


def _spread(seconds: list[float]) -> str:
    s = sorted(seconds)
    return (f"median {statistics.median(s) * 1000:.0f} ms, 95th percentile {s[int(0.95 * (len(s) - 1))] * 1000:.0f} ms, "
            f"max {s[-1] * 1000:.0f} ms")


if __name__ == "__main__":
    sys.exit(main())
