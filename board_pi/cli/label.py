"""``board-pi label``: label real photos by hand, starting from what the reader proposes.

For each photo the reader's reading is proposed (or the label already kept, to check it again),
printed as a board and drawn over the rectified photo in a sheet (a PNG to look at beside the
terminal): squares the reader doubts are outlined orange, squares that differ from the last
photo labelled before it on the command line blue (in a game: the tiles just played). Corrections
are typed as ``SQUARE WHAT`` pairs (``H8 Q, O10 ?, K4 .``), as many lines as needed; ``ok`` keeps
the label, ``skip`` leaves the photo as it was, and the end of the input leaves it and the photos
after it. A label is written to the file when it is kept, so stopping half-way loses none of the
photos done.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import IO, Any

import cv2
import numpy as np

from ..rules.board import Square
from ..rules.tiles import UnknownTileSet, tile_set
from ..vision.frames import FrameSourceError, load_image
from ..files import write_json
from ..vision.labels import (SHARED, LabelError, LabelFile, apply_corrections, check_rows, differences, grid_text,
                             label_sheet)
from ..vision.read import Reader, Reading, ReadError

HELP = ("corrections as SQUARE WHAT pairs (H8 Q, O10 ?, K4 ., a blank played as S: O10 s); "
        "'turn' reads the board a quarter turn further clockwise (its corners too); "
        "'ok' keeps the label, 'skip' leaves the photo unlabelled")


def _doubtful(reading: Reading) -> list[tuple[int, int]]:
    """The squares read, with less belief than :attr:`Reader.SURE`: outlined on the sheet."""
    return [(r, c) for r in range(15) for c in range(15) if 0 < reading.confidence[r, c] < Reader.SURE]


def _corners_file(path: Path | None) -> dict[str, Any]:
    if path is None or not path.exists():
        return {"photos": {}}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(data.get("photos"), dict):
            raise TypeError("no 'photos' object")
        return data
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError, TypeError, AttributeError) as e:
        raise LabelError(f"{path} is not a corners file ({e})") from None


def cmd_label(args: argparse.Namespace, stdin: IO[str] | None = None, out: IO[str] | None = None) -> int:
    """``board-pi label PHOTO... --labels FILE [--corners FILE] [--tiles NAME] [--sheet PNG]``."""
    stdin = stdin or sys.stdin
    out = out or sys.stdout

    def say(text: str = "") -> None:
        print(text, file=out, flush=True)

    try:
        tiles = tile_set(args.tiles or "english")
    except UnknownTileSet as e:
        print(f"board-pi label: --tiles: {e.args[0]}", file=sys.stderr)
        return 2
    corners_path = Path(args.corners) if args.corners else None
    try:
        labels = LabelFile.load(args.labels)
        corners_data = _corners_file(corners_path)
    except LabelError as e:
        print(f"board-pi label: {e}", file=sys.stderr)
        return 2
    for photo in args.photos:  # a mistyped name is said before any photo is worked on
        if not Path(photo).is_file():
            print(f"board-pi label: {photo}: no such file", file=sys.stderr)
            return 2
    faces = tiles.letters
    reader = Reader(tiles=tiles)
    sheet = Path(args.sheet)
    previous: list[str] | None = None  # the last photo labelled, in this command line's order
    previous_name = ""
    told = False
    missing = unreadable = 0
    for photo in args.photos:
        name = Path(photo).name
        say(f"== {name}")
        try:
            image = load_image(photo)
        except FrameSourceError as e:
            print(f"board-pi label: {e}", file=sys.stderr)
            unreadable += 1
            continue
        kept = corners_data["photos"].get(name)
        try:
            if kept is not None:
                corners = np.float32(kept["corners"])
                reading = reader.read(image, corners, played=True)
            else:
                from ..vision.locate import find_board

                loc = find_board(image, far=True)
                if loc is None:
                    say("no board found in this photo: give its corners in the --corners file")
                    missing += 1
                    continue
                reading = reader.read_upright(image, loc.corners, played=True)
                corners = reading.corners
        except (ReadError, KeyError, TypeError, ValueError) as e:
            say(f"cannot read the board: {e}")
            missing += 1
            continue
        turn = reading.turn
        if turn is not None and turn.worth_telling:
            say(turn.message + ("; 'turn' if it is the wrong way up" if not turn.decided or turn.in_doubt else ""))
        turned = False
        doubtful = _doubtful(reading)
        if name in labels.photos:
            rows = list(labels.photos[name])
            say("already labelled: the kept label is shown (the reader's differences outlined orange)")
            doubtful = sorted(set(doubtful) | {(q.row, q.col) for q, _, _ in differences(rows, reading.grid)})
        else:
            rows = list(reading.grid)
        try:
            check_rows(rows, faces)
        except LabelError as e:
            say(f"the kept label is not a board of the {tiles.name} tiles ({e}); starting from the reading")
            rows = list(reading.grid)
        while True:
            changed = [(q.row, q.col) for q, _, _ in differences(previous, rows)] if previous else []
            if not cv2.imwrite(str(sheet), label_sheet(image, corners, rows, doubtful, changed)):
                print(f"board-pi label: cannot write the sheet {sheet} (a .png in a folder that exists)",
                      file=sys.stderr)
                return 2
            say(grid_text(rows))
            if doubtful:
                say("the reader doubts: " + ", ".join(Square(r, c).name for r, c in doubtful))
            if previous:
                diff = differences(previous, rows)
                say(f"against {previous_name}: " + (", ".join(f"{sq} {a}->{b}" for sq, a, b in diff) or "no change"))
            say(f"sheet: {sheet}")
            if not told:
                say(HELP)
                told = True
            line = stdin.readline()
            if not line:
                say(f"{name}: left as it was (end of the input: the photos after it are left too)")
                return 2 if unreadable else 1 if missing else 0
            if line.strip().lower() == "skip":
                say(f"{name}: left as it was")
                if name in labels.photos:
                    previous, previous_name = labels.photos[name], name
                break
            if line.strip().lower() == "turn":
                # Corner k+1 first is the board a quarter turn further (Reader.read_upright).
                corners = np.roll(np.asarray(corners, np.float32), -1, axis=0)
                reading = reader.read(image, corners, played=True)
                rows = list(reading.grid)
                doubtful = _doubtful(reading)
                turned = True
                continue
            if line.strip().lower() == "ok":
                labels.photos[name] = rows
                write_corners = (kept is None or turned) and corners_path is not None
                if write_corners:
                    corners_data["photos"][name] = {
                        **(kept if isinstance(kept, dict) else {"independent": False, "found": True}),
                        "corners": [[round(float(x), 1), round(float(y), 1)] for x, y in corners]}
                try:
                    labels.save()
                    if write_corners:
                        write_json(corners_path, corners_data, mode=SHARED)
                except OSError as e:
                    print(f"board-pi label: cannot write the labels: {e}", file=sys.stderr)
                    return 2
                say(f"{name}: labelled ({args.labels})")
                previous, previous_name = rows, name
                break
            try:
                rows = apply_corrections(rows, line, faces)
            except LabelError as e:
                say(f"not taken: {e}")
    # 2: a file that is no photo; 1: a photo with no board found; the rest were done either way.
    return 2 if unreadable else 1 if missing else 0

