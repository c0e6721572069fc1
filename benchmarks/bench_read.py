"""Reading the squares: accuracy on held-out synthetic boards and real photos, time and memory.

Prints, against issue 4's targets:
- held-out synthetic boards (1280x960, read through their true corners): per-square accuracy
  (target 99.9%), per-letter accuracy (99.5%), empty squares read as tiles;
- held-out boards of each club edition (:mod:`board_pi.vision.editions`: green, sage, lavender,
  wooden) and of tournament tiles (navy, maroon, black, ... lettered in white or yellow:
  :func:`~board_pi.vision.editions.tournament_tiles`), with their corners given and with the
  board found automatically;
- the real photos with their corners (target 99.5% of squares), ``eval_board`` (never trained or
  tuned on) on its own; and photos of two real games (52 labelled by hand in
  ``tests/data/jheidel_labels.json``, with ``board-pi label``): the 2015 game's tuning and held-out
  photos apart, and the 2014 photos (another board and tile set, all held out); blanks missed
  and phantom blanks (empty squares read as blanks) counted;
- boards early in real games (after each of the first four events of each English game of
  ``../shared/data/gcg/macondo``, rendered), their corners given at a random turn and read
  whichever way up as ``board-pi read`` does: how many are read a turn wrong, how many of those
  and of the rest are said to be in doubt (:attr:`~board_pi.vision.read.Turn.in_doubt`), and how
  many have too few tiles read to tell;
- the same photos as mirror images (a camera set to flip its picture): how many are said to be,
  and how well they are read;
- time per 1280x960 frame at a table with no calibration, which finds the board in every frame
  (``table.vision.default_locator``), for finding the board plus reading all 225 squares (target
  250 ms) and plus reading only a play's worth of changed squares (target 60 ms), the board taken
  in the turn nearest the last frame's, as that finder takes it; and for a single photo, found
  (its turn from the tiles' values: how often that claim is wrong is printed) and read whichever
  way up (``board-pi read``);
- peak memory of this process (target 200 MB), and of one reading a 12-megapixel phone photo as
  `board-pi read` does (decoded at half size; target 200 MB as well), and one of a board standing
  small in such a photo (found looking far, in the finder's 2048-pixel copy, read at full size), with
  the time it took.

Usage: ``python benchmarks/bench_read.py [--boards 40]``.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from board_pi.vision.editions import EDITIONS, edition_style, tournament_tiles  # noqa: E402
from board_pi.table.vision import default_locator  # noqa: E402
from board_pi.vision.evaluate import (Tally, evaluate_enrolled, evaluate_found, evaluate_photos, evaluate_real,  # noqa: E402
                                      evaluate_covered, evaluate_synthetic, game_like_rows, hand_labelled, real_boards,
                                      real_split)
from board_pi.vision.read import Reader  # noqa: E402
from board_pi.vision.fonts import describe_fonts  # noqa: E402
from peak import peak_mb  # noqa: E402  (benchmarks/peak.py, beside this script)
from board_pi.vision.render import random_style, render_board  # noqa: E402

REAL = ROOT.parent / "shared" / "data" / "real-boards" / "declanfinerty"
GCG = ROOT.parent / "shared" / "data" / "gcg" / "macondo"
LOOKS = {edition: (lambda rng, e=edition: edition_style(rng, e)) for edition in EDITIONS}
LOOKS["tournament tiles"] = lambda rng: tournament_tiles(rng, random_style(rng))
"""The club editions the cream boards do not show (green, sage, lavender, wooden), and tournament
tiles (navy, maroon, black, ... lettered in white or yellow): each a look drawn from a generator."""
GAME = ROOT.parent / "shared" / "data" / "real-photos" / "jheidel-game"
LABELS = ROOT / "tests" / "data"


def pct(x: float) -> str:
    return f"{100 * x:.2f}%"


def early_positions() -> list[list[str]]:
    """The boards after each of the first four events of every English game in :data:`GCG` that
    replays, each once, those with two tiles or more."""
    from board_pi.rules.gcg import GcgError, read_gcg
    from board_pi.rules.replay import replay
    from board_pi.rules.tiles import ENGLISH

    out: list[list[str]] = []
    for path in sorted(GCG.glob("*.gcg")) if GCG.is_dir() else []:
        try:
            record = read_gcg(str(path))
        except (GcgError, OSError, ValueError):
            continue
        report = replay(record)
        if report.error or report.tiles.name != ENGLISH.name:
            continue
        game, boards = report.game, []
        for n in range(min(4, len(game.events)), 0, -1):  # one replay, cut back an event at a time
            game.truncate(n)
            boards.append(game.state.board.rows())
        for rows in reversed(boards):
            if rows not in out and sum(ch != "." for row in rows for ch in row) >= 2:
                out.append(rows)
    return out


def early_turns(reader: Reader, looks: int = 6) -> None:
    """Early boards given at a random turn, read whichever way up (see the module's docstring).
    The looks: the default, the club editions and tournament tiles in turn; seeds 31,000,000 on,
    held out of every choice (:attr:`Turn.IN_DOUBT <board_pi.vision.read.Turn.IN_DOUBT>` was
    chosen on 39,500,000 on)."""
    positions = early_positions()
    if not positions:
        print(f"early boards: {GCG} is absent; skipped")
        return
    styles = [None, *LOOKS.values()]
    t = Tally()
    boards = wrong = wrong_doubt = right_doubt = undecided = 0
    for j in range(looks):
        for i, rows in enumerate(positions):
            seed = 31_000_000 + 1000 * j + i
            rng = np.random.default_rng(seed)
            style = styles[(i + j) % len(styles)]
            r = render_board(rows, seed=seed, style=None if style is None else style(rng), hand=False)
            k = int(rng.integers(0, 4))
            got = reader.read_upright(r.image, np.roll(r.corners, k, axis=0), played=True)
            boards += 1
            if got.turn is None or not got.turn.decided:
                undecided += 1
            elif got.turn.degrees != 90 * k:
                wrong += 1
                wrong_doubt += got.turn.in_doubt
            else:
                right_doubt += got.turn.in_doubt
                t.add(rows, got.grid, tag=f"#{seed} ")
    f = t.figures()
    print(f"early boards of real games ({len(positions)} positions x {looks} looks, after each of the first 4 events), "
          f"given at a random turn, read whichever way up:")
    print(f"  {boards} boards: turned wrong {wrong} (said to be in doubt: {wrong_doubt}), too few tiles "
          f"read to tell {undecided}; read the right way up {boards - wrong - undecided} (said to be in doubt: "
          f"{right_doubt}), their squares {pct(f['square_accuracy'])}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--boards", type=int, default=40, help="held-out synthetic boards")
    ap.add_argument("--repeats", type=int, default=20, help="timed frames")
    ap.add_argument("--edition-boards", type=int, default=10, help="held-out boards of each club edition")
    args = ap.parse_args()
    reader = Reader()

    syn = evaluate_synthetic(reader, range(30_000_000, 30_000_000 + args.boards))
    print(f"synthetic, {args.boards} held-out boards, {syn['squares']} squares not under a hand:")
    print(f"  squares right      {pct(syn['square_accuracy'])}   (target 99.9%)")
    print(f"  letters right      {pct(syn['letter_accuracy'])}   (target 99.5%) of {syn['tiles']} tiles")
    print(f"  empty read as tile {syn['empty_read_as_tile']} of {syn['empties']}")
    if syn["errors"]:
        print("  e.g. " + ", ".join(syn["errors"][:8]))
    print(f"  lettered in {describe_fonts(syn['fonts'])}")

    # Club editions the cream boards above do not show (green, sage, lavender, wooden), read
    # through their corners and found automatically; held out (seeds 32,000,000 on).
    print(f"club editions, {args.edition_boards} held-out boards each (corners given / board found, read upright):")
    # And tournament tiles (navy, maroon, black, ... lettered in white or yellow) on the boards above.
    for k, (edition, look) in enumerate(LOOKS.items()):
        given, drawn = Tally(), []
        for i in range(args.edition_boards):
            seed = 32_000_000 + 1000 * k + i
            rng = np.random.default_rng(seed)
            rows = game_like_rows(rng)
            r = render_board(rows, seed=seed, style=look(rng), hand=False)
            given.add(rows, reader.read(r.image, r.corners).grid, tag=f"#{seed} ")
            drawn.append((f"#{seed}", r.image, rows, None))
        g, f = given.figures(), evaluate_found(reader, drawn, played=False)
        print(f"  {edition:16s} squares {pct(g['square_accuracy'])} / {pct(f['square_accuracy'])}  letters "
              f"{pct(g['letter_accuracy'])} / {pct(f['letter_accuracy'])}  empty->tile {g['empty_read_as_tile']} / "
              f"{f['empty_read_as_tile']}  found {f['found']}/{f['photos']}, turned wrong {f['turned_wrong']}")
        errors = g["errors"] + [e for e in f["errors"] if "no board" in e]
        if errors:
            print("    e.g. " + ", ".join(errors[:6]))

    if REAL.is_dir():
        real = evaluate_real(reader, REAL)
        print("real photos with their corners (target 99.5% of squares):")
        for name, f in real.items():
            note = {"eval_board": "  <- held out: never trained or tuned on",
                    "training_photos": "  <- boards 001-003 together (used in training)"}.get(name, "")
            print(f"  {name:16s} squares {pct(f['square_accuracy'])}  letters {pct(f['letter_accuracy'])}  "
                  f"empty->tile {f['empty_read_as_tile']}  blanks missed {f['blanks_missed']} of {f['blanks']}{note}")
            if name == "eval_board" and f["errors"]:
                print("    errors: " + ", ".join(f["errors"]))
    else:
        print(f"real photos: {REAL} not present, skipped")
    if GAME.is_dir():
        photos = hand_labelled(LABELS / "jheidel_labels.json", LABELS / "jheidel_corners.json", GAME)
        splits = real_split()
        games = {"2015": [p for p in photos if splits["jheidel-2015"].part(p[0])],
                 "2014": [p for p in photos if splits["jheidel-2014"].part(p[0])]}
        print(f"real games photographed (jheidel, {len(photos)} photos labelled by hand): the 2015 game on a vintage "
              "tile set (of its tuning photos, 170219 is in the tile model's training data), and the 2014 photos of "
              "another board and set, all held out; held-out photos are never used for anything but this:")
        for year, part in (("2015", "tuning"), ("2015", "held_out"), ("2014", "held_out")):
            split = splits[f"jheidel-{year}"]
            f = evaluate_photos(reader, [p for p in games[year] if split.part(p[0]) == part])
            if not f["squares"]:
                continue
            print(f"  {year} {part:9s} squares {pct(f['square_accuracy'])}  letters {pct(f['letter_accuracy'])} of "
                  f"{f['tiles']} tiles  empty->tile {f['empty_read_as_tile']} of {f['empties']}  blanks missed "
                  f"{f['blanks_missed']} of {f['blanks']}  phantom blanks {f['phantom_blanks']}")
            if f["errors"]:
                print("    errors: " + ", ".join(f["errors"]))
        # Enrolment ("teach it your tiles"): each photo, as the user's enrolment photo with its
        # squares known, adapts the reader to the set; the next photo of the same game is then
        # read with it. Kinder than at a club (the two photos share many tiles on the same
        # squares, where a real enrolment photo has the printed layout), but the same board and set.
        for year, game in games.items():
            f = evaluate_enrolled(reader, game)
            print(f"  {year} enrolled on each photo, the next read with it: squares {pct(f['square_accuracy'])}  "
                  f"letters {pct(f['letter_accuracy'])}  empty->tile {f['empty_read_as_tile']}")
            if f["errors"]:
                print("    errors: " + ", ".join(f["errors"]))

    # The board found automatically, read whichever way up it lies (`board-pi read` without
    # --corners). Target 99% of squares on real photos never tuned on.
    print("the board found automatically, read whichever way up (target 99% of squares on real photos):")
    found_sets = []
    if REAL.is_dir():
        split = real_split()["declanfinerty"]
        boards = real_boards(REAL)
        for part in ("tuning", "held_out"):
            found_sets.append((f"declanfinerty {part}", [b for b in boards if split.part(b[1].name) == part], True))
    if GAME.is_dir():
        for year, part in (("2015", "tuning"), ("2015", "held_out"), ("2014", "held_out")):
            split = splits[f"jheidel-{year}"]
            found_sets.append((f"jheidel {year} {part}", [p for p in games[year] if split.part(p[0]) == part], True))
    rendered = []
    for k in range(args.boards):
        seed = 30_000_000 + k
        rows = game_like_rows(np.random.default_rng(seed))
        rendered.append((f"#{seed}", render_board(rows, seed=seed, hand=False).image, rows, None))
    found_sets.append((f"synthetic ({args.boards}, no hand)", rendered, False))
    for name, photos_of_set, played in found_sets:
        if not photos_of_set:
            continue
        f = evaluate_found(reader, photos_of_set, played=played)
        print(f"  {name:26s} squares {pct(f['square_accuracy'])}  letters {pct(f['letter_accuracy'])}  "
              f"empty->tile {f['empty_read_as_tile']}  blanks missed {f['blanks_missed']} of {f['blanks']}  "
              f"found {f['found']}/{f['photos']}, turned wrong {f['turned_wrong']}, said mirrored {f['mirrored']}")
    # The same photos as a camera set to flip its picture takes them: each should be said to be a
    # mirror image and read the right way round (Reader.MIRROR_ODDS, chosen on tuning boards only).
    print("the same, each photo a mirror image (a camera set to flip its picture), found and read upright:")
    for name, photos_of_set, played in found_sets:
        if not photos_of_set:
            continue
        f = evaluate_found(reader, photos_of_set, played=played, mirror=True)
        tiled = sum(any(ch != "." for row in truth for ch in row) for _, _, truth, _ in photos_of_set)
        print(f"  {name:26s} squares {pct(f['square_accuracy'])}  letters {pct(f['letter_accuracy'])}  "
              f"found {f['found']}/{f['photos']}, said mirrored {f['mirrored']} (of {tiled} with tiles), "
              f"turned wrong {f['turned_wrong']}")
        if f["errors"] and f["square_accuracy"] < 1:
            print("    e.g. " + ", ".join(f["errors"][:6]))

    early_turns(reader)

    # Something lying over the board (a sheet, a phone, a hand): the squares it hides are named
    # (Reading.covered, vision/cover.py, chosen on tuning photos and boards only).
    print("something lying over the board (a sheet, a phone, a hand), corners given: squares covered nine tenths "
          "or more named, squares named beside no cover, and photos as they are with squares named:")
    covered_sets = [(name, photos_of_set, played) for name, photos_of_set, played in found_sets
                    if played and photos_of_set]
    boards = []
    for k in range(args.boards):
        seed = 30_000_000 + k
        rows = game_like_rows(np.random.default_rng(seed))
        r = render_board(rows, seed=seed, hand=False)
        boards.append((f"#{seed}", r.image, rows, r.corners))
    covered_sets.append((f"synthetic ({args.boards}, no hand)", boards, False))
    for k, (name, photos_of_set, played) in enumerate(covered_sets):
        f = evaluate_covered(reader, photos_of_set, seed=33_000_000 + k, played=played)
        kinds = ", ".join(f"{kind} {a}/{b}" for kind, (a, b) in f["by_kind"].items())
        print(f"  {name:26s} named {f['named_under']}/{f['under']} ({kinds}); beside none {f['named_away']}; "
              f"as they are {f['clear_named']}/{f['photos']} photos ({f['clear_squares']} squares)")

    try:
        from board_pi.vision.locate import find_board  # the board finder (issue 4, another branch)
    except ImportError:
        find_board = None
    # A table with no calibration finds the board in every frame with this (table.vision).
    locate = default_locator()
    frames = []
    for k in range(args.repeats):
        rows = game_like_rows(np.random.default_rng(40_000_000 + k))
        frames.append(render_board(rows, seed=40_000_000 + k))
    print(f"timed frames lettered in {describe_fonts(f for fr in frames for f in fr.fonts)}")
    changed = [(7, 3), (7, 4), (7, 5), (7, 6), (7, 7), (7, 8), (7, 9)]
    full_t, part_t, find_t, photo_t = [], [], [], []
    found = claimed_wrong = 0
    reader.read(frames[0].image, frames[0].corners)  # warm up
    for fr in frames:
        t0 = time.perf_counter()
        corners = fr.corners
        if locate is not None:
            # A table's camera knows which way up the board lies (the last frame): the board
            # found again is taken in the turn nearest it, as the table's own finder does
            # (table.vision.default_locator), the tiles' values not read for it.
            got = locate(fr.image, previous=fr.corners)
            corners = got if got is not None else fr.corners
            found += got is not None
        t1 = time.perf_counter()
        reader.read(fr.image, corners)
        t2 = time.perf_counter()
        reader.read(fr.image, corners, squares=changed)
        t3 = time.perf_counter()
        find_t.append(t1 - t0)
        full_t.append(t2 - t0)
        part_t.append(t3 - t2 + (t1 - t0))
        if find_board is not None:
            # A single photo (`board-pi read` without corners): found (the turn from the tiles'
            # values), then read whichever way up. The finder's own turn claim is counted.
            t4 = time.perf_counter()
            loc = find_board(fr.image)
            if loc is not None:
                reader.read_upright(fr.image, loc.corners)
                photo_t.append(time.perf_counter() - t4)
                claimed_wrong += got is not None and not np.allclose(loc.corners, got)
    ms = lambda xs: f"{1000 * statistics.median(xs):.0f} ms (median of {len(xs)})"  # noqa: E731
    how = "finding the board + " if locate is not None else "(no board finder on this branch: corners given) "
    print(f"time per 1280x960 frame at a table with no calibration, {how}reading:")
    if locate is not None:
        print(f"  finding the board  {ms(find_t)}, found in {found} of {len(frames)} (a hand in about a third); "
              f"the finder's own turn claim (a single photo's) wrong on {claimed_wrong} of {len(photo_t)}")
    print(f"  all 225 squares    {ms(full_t)}   (target 250 ms)")
    print(f"  7 changed squares  {ms(part_t)}   (target 60 ms)")
    if photo_t:
        print(f"a single photo (found, then read whichever way up, `board-pi read`): {ms(photo_t)}")
    # memory as the table would use it: a fresh process that only reads frames (this one also holds
    # the renderer, 20 frames and the 2500-pixel real photos)
    with tempfile.TemporaryDirectory() as tmp:
        frame = Path(tmp) / "frame.png"
        cv2.imwrite(str(frame), frames[0].image)
        corners = ",".join(f"{v:.2f}" for v in frames[0].corners.reshape(-1))
        child = subprocess.run([sys.executable, __file__, "--memory-child", str(frame), corners],
                               capture_output=True, text=True, check=True)
        print(f"peak memory of a process reading 1280x960 frames {float(child.stdout):.0f} MB   (target 200 MB)")
        # A phone's photo given to `board-pi read`, decoded at half size as the command does.
        photo = Path(tmp) / "photo.jpg"
        still = render_board(game_like_rows(np.random.default_rng(40_000_000)), seed=40_000_000, hand=False)
        cv2.imwrite(str(photo), cv2.resize(still.image, (4032, 3024), interpolation=cv2.INTER_CUBIC))
        child = subprocess.run([sys.executable, __file__, "--photo-child", str(photo)],
                               capture_output=True, text=True, check=True)
        print(f"peak memory of a process reading one 4032x3024 photo as `board-pi read` does (decoded at half "
              f"size, found, read whichever way up) {float(child.stdout.split()[0]):.0f} MB   (target 200 MB)")
        # The same board standing small on a table photographed whole (a third of the frame's
        # width): found looking far (the finder's 2048-pixel copy), read from the photo at full size.
        table = np.clip(np.float32([60, 90, 120]) + np.random.default_rng(1).normal(0, 8, (3024, 4032, 1)),
                        0, 255).astype(np.uint8)
        table[1100:1100 + still.image.shape[0], 1500:1500 + still.image.shape[1]] = still.image
        cv2.imwrite(str(photo), table)
        child = subprocess.run([sys.executable, __file__, "--photo-child", str(photo)],
                               capture_output=True, text=True, check=True)
        mb, secs, scale = child.stdout.split()
        print(f"peak memory of the same for a board a third of the photo's width {float(mb):.0f} MB   "
              f"(target 200 MB); {1000 * float(secs):.0f} ms, read at scale {scale}")
    return 0


def photo_child(photo: str) -> int:
    """Read one photo as `board-pi read` does (decoded reduced, found, decoded again where its
    squares are small, read whichever way up); print peak RSS in MB, the seconds taken and the
    scale it was read at."""
    from board_pi.vision.read import NoBoard, photo_board

    reader = Reader()
    t0 = time.perf_counter()
    try:
        image, corners, scale = photo_board(photo, None)
        reader.read_upright(image, corners, played=True)
    except NoBoard:
        scale = float("nan")
    print(peak_mb(), time.perf_counter() - t0, scale)
    return 0


def memory_child(frame: str, corners: str) -> int:
    """Read one frame ten times (finding the board when a finder exists); print peak RSS in MB."""
    from board_pi.vision.frames import load_image
    from board_pi.vision.read import parse_corners

    image = load_image(frame)
    c = parse_corners(corners)
    reader = Reader()
    try:
        from board_pi.vision.locate import find_board
    except ImportError:
        find_board = None
    for _ in range(10):
        loc = find_board(image) if find_board is not None else None
        reader.read(image, loc.corners if loc is not None else c)
    print(peak_mb())
    return 0


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--memory-child":
        raise SystemExit(memory_child(sys.argv[2], sys.argv[3]))
    if len(sys.argv) == 3 and sys.argv[1] == "--photo-child":
        raise SystemExit(photo_child(sys.argv[2]))
    raise SystemExit(main())
