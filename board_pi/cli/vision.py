"""The vision commands: ``board-pi read``, ``board-pi enrol`` and ``board-pi calibrate``."""

from __future__ import annotations

import argparse
import json
import math
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from ..rules.tiles import UnknownTileSet, tile_set
from ..vision.calibration import MARKER_IDS, CalibrationError, calibrate, marker_image, save
from ..vision.enrol import DEFAULT_PROFILE, enrol, layout_text
from ..vision.frames import FrameSourceError, open_source
from ..vision.geometry import corners_moved, squares_named, squares_not_shown, squares_outside
from ..vision.locate.refine import snap_hand_corners
from ..vision.read import NoBoard, ReadError, Reader, board_washed_out, load_profile, photo_board, washed_out_note
from .errors import UsageError


def cmd_read(args: argparse.Namespace) -> int:
    """``board-pi read IMAGE [--corners ...] [--json] [--profile FILE] [--tiles NAME]``.

    Corners found (not given) leave which way up the board is to the tiles, read at all four
    turns; the JSON's ``turn`` says which, and a board with too few tiles to tell, or whose turn is
    in doubt (:attr:`~board_pi.vision.read.Turn.in_doubt`), is said so."""
    try:
        tiles = tile_set(getattr(args, "tiles", None) or "english")
    except UnknownTileSet as e:
        print(f"board-pi read: --tiles: {e.args[0]}", file=sys.stderr)
        return 2
    try:
        # The profile first: a damaged one is refused before the photo is worked on.
        profile = load_profile(args.profile) if getattr(args, "profile", None) else None
        image, corners, scale = photo_board(args.image, args.corners)
        reader = Reader(profile=profile, tiles=tiles)
        # A photo of a game: a tile alone, away from every other, is no tile (Reader.read, played).
        # Corners given are a person's clicks: read through the grid's lines where they are far
        # off, else the doubtful squares looked at through the lines as well (Reader.read, by_hand).
        reading = (reader.read(image, corners, played=True, by_hand=True) if args.corners
                   else reader.read_upright(image, corners, played=True))
        # Read through the grid's lines instead of the corners given (Reader.HAND_OUTRIGHT)?
        snapped = bool(args.corners) and not np.allclose(reading.corners, corners)
        note = _hand_note(reading.corners, corners) if snapped else ""
        given = corners * np.float32(scale)
        reading = replace(reading, corners=reading.corners * np.float32(scale))  # the photo's own pixels
    except NoBoard as e:
        print(f"board-pi read: {e}", file=sys.stderr)
        return 1
    except (ReadError, FrameSourceError) as e:
        print(f"board-pi read: {e}", file=sys.stderr)
        return 2
    if reading.turn is not None and reading.turn.worth_telling:
        print(f"board-pi read: {reading.turn.message}", file=sys.stderr)
    burnt = washed_out_note(board_washed_out(image, corners))
    if burnt:
        print(f"board-pi read: {burnt}; a photo with less light on the board reads more surely", file=sys.stderr)
    if args.json:
        out = reading.to_json()
        if snapped:  # in the JSON, not on standard error: a caller may read the two together
            out["corners_given"] = [[round(float(x), 2), round(float(y), 2)] for x, y in given]
        print(json.dumps(out))
    else:
        if snapped:
            print(f"board-pi read: {note}; the squares read through them", file=sys.stderr)
        if reading.outside:  # in the JSON as "outside"
            print(f"board-pi read: {squares_not_shown(list(reading.outside), 'photo')}: the board runs off its edge "
                  "there; not read, shown as empty", file=sys.stderr)
        if reading.covered:  # in the JSON as "covered"
            n = len(reading.covered)
            print(f"board-pi read: {n} square{'s' if n != 1 else ''} ({squares_named(list(reading.covered))}) "
                  f"{'does' if n == 1 else 'do'} not show the board: something lies over them (a sheet, a phone, "
                  "a hand) or a reflection washes them out, and a tile there is not seen; clear the board, or "
                  "move the light, and take the photo again", file=sys.stderr)
        print("\n".join(reading.grid))
    return 0


def cmd_enrol(args: argparse.Namespace) -> int:
    """``board-pi enrol --layout`` or ``board-pi enrol PHOTO [--corners ...] [--out FILE]``."""
    if args.layout:
        print(layout_text())
        return 0
    if not args.image:
        print("board-pi enrol: give a PHOTO of your tiles laid out (see --layout)", file=sys.stderr)
        return 2
    try:
        image, corners, scale = photo_board(args.image, args.corners)
        if args.corners:
            # A person's clicks, snapped to the grid's lines first (as `calibrate --corners`
            # does): the patches the set is learnt from are cut through them, and corners a third
            # of a square off cut tiles in two and can get the photo refused as not the layout.
            given = corners
            snapped = snap_hand_corners(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), corners)
            corners = given if snapped is None else snapped.astype(np.float32)
        profile = enrol(image, corners)
    except NoBoard as e:
        print(f"board-pi enrol: {e}", file=sys.stderr)
        return 1
    except (ReadError, FrameSourceError) as e:
        print(f"board-pi enrol: {e}", file=sys.stderr)
        return 2
    out = Path(args.out) if args.out else DEFAULT_PROFILE
    try:
        profile.save(out)
    except OSError as e:
        print(f"board-pi enrol: cannot write {out}: {e.strerror}", file=sys.stderr)
        return 2
    if args.corners:
        c = " ".join(f"({x:.1f}, {y:.1f})" for x, y in (corners * np.float32(scale)).tolist())
        print(f"grid corners (A1 first, clockwise): {c}; {_hand_note(corners, given)}")
    print(f"enrolled {len(profile.labels)} examples; profile written to {out} "
          f"(use it with `board-pi read --profile {out}`)")
    return 0


def _hand_note(kept: np.ndarray, given: np.ndarray) -> str:
    """What became of the corners a person gave: snapped to the grid's lines, or kept."""
    moved = corners_moved(kept, given)
    if moved > 0.005:
        return f"the corners given snapped to the grid's lines (moved up to {moved:.2f} of a square)"
    return ("the corners given kept as they are: the grid's lines near them do not agree on one place "
            "(check them against the picture: a third of a square off misreads squares)")


def _parse_corners(text: str) -> np.ndarray:
    try:
        vals = [float(v) for v in text.replace(" ", "").split(",")]
    except ValueError:
        vals = []
    if len(vals) != 8 or not all(math.isfinite(v) for v in vals):
        raise ValueError(f"--corners needs eight numbers X1,Y1,X2,Y2,X3,Y3,X4,Y4, got {text!r}")
    return np.array(vals, np.float32).reshape(4, 2)


def cmd_calibrate(args: Any) -> int:
    """``board-pi calibrate SOURCE``: find the board in one frame and save the profile."""
    if args.print_markers:
        out = Path(args.print_markers)
        out.mkdir(parents=True, exist_ok=True)
        for i in MARKER_IDS:
            cv2.imwrite(str(out / f"marker_{i}.png"), marker_image(i, 600))
        print(f"wrote markers {', '.join(map(str, MARKER_IDS))} to {out}/ (print them 3-5 cm wide; "
              "stick 0 by square A1, then 1, 2, 3 clockwise, outside the grid)")
        return 0
    if not args.source:
        raise UsageError("give a frame source (picamera2, a webcam index, /dev/videoN, an image, a folder or a video)")
    try:
        corners = _parse_corners(args.corners) if args.corners else None
    except ValueError as e:
        raise UsageError(str(e)) from None
    try:
        with open_source(args.source) as src:
            frame = src.read()
            camera: dict[str, Any] = {"source": args.source}
            camera.update(getattr(src, "settings", {}) or {})
    except FrameSourceError as e:
        raise UsageError(str(e)) from None
    if frame is None:
        why = getattr(src, "last_error", "")
        raise UsageError(f"{args.source} gave no frame" + (f" ({why})" if why else ""))
    try:
        cal = calibrate(frame, corners=corners, rotation=args.rotation, use_markers=not args.no_markers, camera=camera,
                        lens=not getattr(args, "no_lens", False), by_hand=corners is not None)
    except CalibrationError as e:
        raise UsageError(str(e)) from None
    cut = squares_outside(cal.corners, cal.frame_size)
    if cut:
        # Every frame at the table would read these squares as empty: a play there lost.
        raise UsageError(f"{squares_not_shown(cut, 'frame')}: the board runs off its edge there, and "
                         "the table could not read them. Move the camera back (or aim it) so that the whole "
                         "board is in view, and calibrate again")
    path = save(cal, args.out)
    c = " ".join(f"({x:.1f}, {y:.1f})" for x, y in cal.corners.tolist())
    print(f"grid corners (A1 first, clockwise): {c}")
    if corners is not None:
        print(_hand_note(cal.corners, cal.lens.straight(corners)))  # in the frame the corners are kept in
    print(f"turned {cal.rotation} degrees; frame {cal.frame_size[0]}x{cal.frame_size[1]}")
    if cal.bend:
        print(f"lens: {'barrel' if cal.bend > 0 else 'pincushion'}, bend {cal.bend:+.3f}; frames are straightened "
              "by it (the corners above are the straightened frame's)")
    print(f"markers: {', '.join(map(str, sorted(cal.markers))) if cal.markers else 'none'}")
    print(f"grid lines on the predicted lines: {cal.reference['lines']:.0%}; premium layout match {cal.reference['premium']:.2f}")
    burnt = washed_out_note(board_washed_out(cal.lens.straighten(frame), cal.corners))
    if burnt:
        print(f"warning: {burnt}. Take the light on the board down (or the camera's exposure) and calibrate again",
              file=sys.stderr)
    print(f"saved {path}")
    return 0
