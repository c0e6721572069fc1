"""Learning the table's own tiles (issue 11 item 5): does the reader get better the longer a table
is used?

A real game photographed move by move, on a vintage tile set the model was never trained on, is
read photo by photo as a table reads it: each photo is read with what the table has learnt from
the photos before it (and nothing of its own), then its labelled squares are learnt, as the
players' confirmation of that play would teach them. Printed beside the same photos read by the
model alone, the tuning and held-out photos apart (tests/data/real_split.json). The held-out
photos are never used to choose anything here (the memory's weights were set on rendered boards).

Usage: ``python benchmarks/bench_learn.py``. Needs ../shared/data and tests/data's hand labels.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from board_pi.vision.evaluate import Tally, hand_labelled, real_split  # noqa: E402
from board_pi.vision.learn import TableMemory, learn_squares, model_fingerprint  # noqa: E402
from board_pi.vision.read import Reader  # noqa: E402

DATA = ROOT.parent / "shared" / "data"
LABELS = ROOT / "tests" / "data"
N = 15


def main() -> int:
    game = DATA / "real-photos" / "jheidel-game"
    if not game.is_dir():
        print(f"no shared data at {DATA}: nothing to measure")
        return 0
    photos = sorted(hand_labelled(LABELS / "jheidel_labels.json", LABELS / "jheidel_corners.json", game))
    split = real_split()["jheidel-2015"]
    plain, learning = Reader(), Reader()
    memory = TableMemory(None, model=model_fingerprint(learning.model_path))
    tallies = {(part, who): Tally() for part in ("tuning", "held_out") for who in ("model alone", "learning")}
    learn_ms = []
    print(f"a real game, {len(photos)} hand-labelled photos in move order (a vintage set; of the tuning photos, "
          "170219 is in the tile model's training data; the held-out ones are never used to choose anything):")
    for name, path, truth, corners in photos:
        image = cv2.imread(str(path))
        part = split.part(name)
        if part not in ("tuning", "held_out"):
            continue
        alone = plain.read(image, corners).grid
        learning.memory = memory.profile()
        learnt = learning.read(image, corners).grid
        tallies[(part, "model alone")].add(truth, alone, tag=f"{name} ")
        tallies[(part, "learning")].add(truth, learnt, tag=f"{name} ")
        wrong_alone = sum(a != b for ra, rb in zip(alone, _camera(truth)) for a, b in zip(ra, rb))
        wrong_learnt = sum(a != b for ra, rb in zip(learnt, _camera(truth)) for a, b in zip(ra, rb))
        print(f"  {name} ({part}): wrong squares {wrong_alone} by the model alone, {wrong_learnt} having "
              f"learnt {memory.learnt} squares of earlier photos")
        t0 = time.perf_counter()
        learn_squares(learning, memory, image, corners, [(r, c) for r in range(N) for c in range(N)], _camera(truth))
        learn_ms.append((time.perf_counter() - t0) * 1000)
    for (part, who), t in tallies.items():
        f = t.figures()
        if f["squares"]:
            print(f"{part:9s} {who:12s}: {f['square_accuracy']:.2%} of {f['squares']} squares, letters "
                  f"{f['letter_accuracy']:.2%}, empty read as tile {f['empty_read_as_tile']}; {f['errors'][:6]}")
    if learn_ms:
        print(f"learning one photo's 225 squares: median {np.median(learn_ms):.0f} ms (a play's few squares: "
              "a few ms; a Pi 4 core is several times slower)")
    print(f"memory kept: {memory.size} examples ({memory.embeddings.nbytes // 1024} KB)")
    return 0


def _camera(rows: list[str]) -> list[str]:
    """Labels as the camera writes them: a blank tile is '?' whatever letter it stands for."""
    return ["".join("?" if ch.islower() else ch for ch in row) for row in rows]


if __name__ == "__main__":
    raise SystemExit(main())
