"""``board-pi rescore`` on a real photographed game (issue 11): each step between two press
photos re-scored against the hand-worked truth in ``tests/data/jheidel_game.json``.

Prints, per step, what the rescore made of it beside the truth, then: the one-play steps
re-scored exactly (position, word and points), tuning and held-out steps apart (target: every
play); how many steps hold several plays (presses the photos missed: their plays cannot be
checked); every step's tiles, the several-play steps' too, against the hand labels of its frame
and the frame before (tests/data/jheidel_labels.json: the squares and tiles the rescore's plays
of that step put down); the final board against the hand-labelled last photo; the time per frame;
the game re-scored again under a lamp's reflection, a body's shadow and other light laid over
every photo (``bench_conditions``' changes), against the plays from the photos as they are; the
peak memory of `board-pi rescore` given the same photos at 12 megapixels (target 200 MB).

    python benchmarks/bench_rescore.py [--data ../shared/data]
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import cv2

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from board_pi.rules.board import split_row  # noqa: E402
from board_pi.rules.tiles import ENGLISH  # noqa: E402
from board_pi.table.rescore import rescore  # noqa: E402
from board_pi.vision.frames import load_image  # noqa: E402
from board_pi.wordlists import load_lexicon  # noqa: E402
from peak import peak_mb  # noqa: E402  (benchmarks/peak.py, beside this script)

TRUTH = ROOT / "tests" / "data" / "jheidel_game.json"
#: bench_conditions' changes of light the game is re-scored under.
LIGHTS = ("reflection-60", "reflection-120", "reflection-180", "spot-200", "streak-150", "streak-150-low",
          "streak-200", "shadow-55", "shadow-70", "warm-shadow-55", "dim", "noisy-20")
LABELS = ROOT / "tests" / "data" / "jheidel_labels.json"


def same_word(got: str, want: str) -> bool:
    """Equal as a score sheet writes them; ``?`` in the truth is a blank whose letter the photo
    does not show (any lower-case letter)."""
    return re.fullmatch(re.escape(want).replace(r"\?", "[a-z]"), got) is not None


def label_change(before: list[str], after: list[str]) -> dict[tuple[int, int], str]:
    """The tiles on ``after``'s board that ``before``'s has not."""
    return {(r, c): b for r, (ra, rb) in enumerate(zip(before, after))
            for c, (a, b) in enumerate(zip(split_row(ra), split_row(rb))) if a == "." and b != "."}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    args = ap.parse_args()
    truth = json.loads(TRUTH.read_text())
    folder = Path(args.data) / truth["folder"]
    if not folder.is_dir():
        print(f"bench_rescore: {folder} is not here (the shared data)")
        return 1
    names = [truth["first"]] + [s["frame"] for s in truth["steps"]]
    frames = [(n, load_image(folder / n)) for n in names]
    t0 = time.perf_counter()
    result = rescore(frames, ENGLISH, ["Player1", "Player2"], load_lexicon(None, tiles=ENGLISH))
    seconds = time.perf_counter() - t0
    plays_of: dict[str, list] = {}
    for p in result.plays:
        plays_of.setdefault(p.frame, []).append(p)
    right = {"tuning": [0, 0], "held_out": [0, 0]}
    several = 0
    print(f"the 2015 jheidel game: {len(names)} press photos (the first before any play), {len(truth['steps'])} steps")
    for step in truth["steps"]:
        got = [(p.position, p.word, p.score) for p in plays_of.get(step["frame"], [])]
        shown = ", ".join(f"{p} {w} {s}" for p, w, s in got) or "nothing (a pass)"
        if step.get("several"):
            several += 1
            print(f"  {step['frame']} ({step['part']}): several plays in one frame; re-scored as {len(got)}: {shown}")
            continue
        want = [tuple(p) for p in step["plays"]]
        ok = len(got) == len(want) and all(g[0] == w[0] and same_word(g[1], w[1]) and g[2] == w[2]
                                           for g, w in zip(got, want))
        right[step["part"]][0] += ok
        right[step["part"]][1] += 1
        print(f"  {step['frame']} ({step['part']}): {'right' if ok else 'WRONG'}: "
              f"{', '.join(f'{p} {w} {s}' for p, w, s in want)}; re-scored {shown}")
    for part, (k, n) in right.items():
        print(f"one-play steps re-scored exactly, {part}: {k}/{n} (target: every play)")
    print(f"steps holding several plays (presses without a photo): {several}, not checkable; "
          f"the doubts the rescore listed: {len(result.doubtful)}")
    # Every step against the hand labels of its frame and the frame before (tests/data): the tiles
    # the rescore's plays of that step put down, square by square, the several-play steps too.
    labels = json.loads(LABELS.read_text())["photos"]
    tiles_right = {"tuning": [0, 0], "held_out": [0, 0]}
    wrong: list[str] = []
    for before, step in zip(names, truth["steps"]):
        if before not in labels or step["frame"] not in labels:
            continue
        want = label_change(labels[before], labels[step["frame"]])
        got: dict[tuple[int, int], str] = {}
        for play in plays_of.get(step["frame"], []):
            got.update(((q.row, q.col), t) for q, t in play.placed)
        ok = got.keys() == want.keys() and all(
            g == w or (w == "?" and g.islower()) for g, w in ((got[q], want[q]) for q in want))
        tiles_right[step["part"]][0] += ok
        tiles_right[step["part"]][1] += 1
        if not ok:
            diff = sorted(set(got.items()) ^ set(want.items()))
            wrong.append(f"{step['frame']}: " + ", ".join(
                f"{'ABCDEFGHIJKLMNO'[c]}{r + 1} {'read' if ((r, c), t) in got.items() else 'label'} {t}"
                for (r, c), t in diff))
    for part, (k, n) in tiles_right.items():
        print(f"steps whose tiles the rescore put down exactly as labelled (several-play steps too), {part}: {k}/{n}")
    for line in wrong:
        print(f"  {line}")
    last_label = labels.get(truth["steps"][-1]["frame"])
    if last_label is not None and sum(ch != "." for r in last_label for ch in split_row(r)) == sum(ENGLISH.full_bag().values()):
        print("  (the last frame's board holds every tile of the set: no legal game ends so, one player always "
              "keeps tiles; the rescore takes the last plays as far as the rules let it)")
    labelled = labels.get("IMG_20151016_170803.jpg")
    if labelled is not None:
        board = [split_row(r) for r in result.game.state.board.rows()]
        want_rows = [split_row(r) for r in labelled]
        last = names[-1]
        agree = sum((a == ".") == (b == ".") and (a == "." or a.upper() == b.upper() or b == "?")
                    for ra, rb in zip(board, want_rows) for a, b in zip(ra, rb))
        print(f"final board (after {last}) against the hand-labelled 170803 (held out, one burst later): "
              f"{agree}/225 squares")
    print(f"time: {seconds:.1f} s for {len(names)} frames ({1000 * seconds / len(names):.0f} ms a frame, with the "
          "search for plays in one frame; a Pi 4 several times slower)")
    # The same photos under a lamp's reflection, a body's shadow and other light (bench_conditions'
    # changes, each laid over every photo alike: the camera is hand-held, so they fall on other
    # squares in each): the game re-scored as from the photos as they are? (A photo's turn left
    # open, settled by the next, is no difference: the score sheet is the same.)
    from bench_conditions import CONDITIONS  # noqa: E402  (benchmarks/, beside this script)

    parts_of = {s["frame"]: s["part"] for s in truth["steps"]}

    def plays_of_game(res) -> list[tuple]:
        # The game as a score sheet has it: each play in turn, whose, where, the word, the points.
        return [(p.player, p.position, p.word, p.score, p.withdrawn) for p in res.plays]

    reference = plays_of_game(result)
    tuned = sum(1 for p in result.plays if parts_of[p.frame] == "tuning")  # the tuning steps' plays come first
    same = {"tuning": 0, "whole": 0}
    print(f"the game re-scored from the photos under other light ({len(LIGHTS)} kinds, laid over every photo): its "
          "plays in turn (player, position, word, points) as from the photos as they are, the tuning steps' / the "
          "whole game's (the held-out steps too):")
    for cond in LIGHTS:
        change = CONDITIONS[cond]
        got = plays_of_game(rescore(((n, change(im)) for n, im in frames), ENGLISH, ["Player1", "Player2"],
                                    load_lexicon(None, tiles=ENGLISH)))
        ok = (got[:tuned] == reference[:tuned], got == reference)
        same["tuning"] += ok[0]
        same["whole"] += ok[1]
        first = next((f"play {k + 1}: {w or 'none'} for {r or 'none'}" for k, (r, w) in
                      enumerate(zip(reference + [None] * 9, got + [None] * 9)) if r != w), "")
        print(f"  {cond:16s} {'same' if ok[0] else 'DIFFERS':7s} / {'same' if ok[1] else 'DIFFERS':7s} {first}")
    print(f"  games re-scored as from the photos as they are: tuning steps {same['tuning']}/{len(LIGHTS)}, "
          f"whole game {same['whole']}/{len(LIGHTS)}")
    # The same photos as a phone takes them (12 megapixels), given to `board-pi rescore` in a
    # process of its own: each decoded at half size when its turn comes.
    with tempfile.TemporaryDirectory() as tmp:
        phone = []
        for name, image in frames:
            k = 4032 / max(image.shape[:2])
            path = Path(tmp) / name
            cv2.imwrite(str(path), cv2.resize(image, None, fx=k, fy=k, interpolation=cv2.INTER_CUBIC),
                        [cv2.IMWRITE_JPEG_QUALITY, 92])
            phone.append(str(path))
        child = subprocess.run([sys.executable, __file__, "--memory-child", *phone], capture_output=True, text=True,
                               check=True)
    print(f"peak memory of `board-pi rescore` on the {len(phone)} photos at 12 megapixels: "
          f"{float(child.stdout.split()[-1]):.0f} MB (target 200 MB)")
    return 0


def memory_child(paths: list[str]) -> int:
    """Re-score ``paths`` as the command does; print this process's peak resident memory in MB."""
    import contextlib
    import io

    from board_pi.cli import main as cli

    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        code = cli(["rescore", "--json", *paths])
    if code != 0:
        raise SystemExit(f"rescore exited {code}")
    print(peak_mb())
    return 0


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--memory-child":
        raise SystemExit(memory_child(sys.argv[2:]))
    raise SystemExit(main())
