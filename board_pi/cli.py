"""The ``board-pi`` command: wires the parts together; each subcommand imports only what it needs.

Exit codes: 0 success, 1 a negative answer (a play not acceptable, a record that disagrees),
2 bad input (a message on stderr, never a traceback).
"""

from __future__ import annotations

import argparse
import sys
from typing import Callable, Sequence

Handler = Callable[[argparse.Namespace], int]


class UsageError(Exception):
    """Bad input from the user: printed as a message, exit 2."""


def _lazy(module: str, func: str) -> Handler:
    def run(args: argparse.Namespace) -> int:
        import importlib

        return getattr(importlib.import_module(module), func)(args)

    return run


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="board-pi", description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    j = sub.add_parser("judge", help="word judge: is this play acceptable? (never says which word)")
    j.add_argument("words", nargs="+", metavar="WORD")
    j.add_argument("--lexicon", help="lexicon name (in lexicons/) or path to a word list")
    j.add_argument("--log", metavar="FILE", help="append the adjudication to this log file")
    j.set_defaults(handler=_lazy("board_pi.commands", "cmd_judge"))

    r = sub.add_parser("replay", help="replay a GCG record through the rules engine and check every score")
    r.add_argument("file", metavar="FILE.gcg")
    r.add_argument("--json", action="store_true", help="print one JSON object instead of lines")
    r.add_argument("--tiles", help="tile set (english, polish); guessed from the record if not given")
    r.set_defaults(handler=_lazy("board_pi.commands", "cmd_replay"))

    lx = sub.add_parser("lexicon", help="compile or inspect a lexicon")
    lx.add_argument("source", metavar="NAME|PATH")
    lx.set_defaults(handler=_lazy("board_pi.commands", "cmd_lexicon"))

    cal = sub.add_parser("calibrate", help="find the board in one camera frame and save where it is (calibration/)")
    cal.add_argument("source", nargs="?", metavar="SOURCE", help="picamera2, a webcam index or /dev/videoN, an image, a folder or a video")
    cal.add_argument("--corners", metavar="X1,Y1,X2,Y2,X3,Y3,X4,Y4", help="the grid's outer corners (A1 first, clockwise) instead of finding them")
    cal.add_argument("--rotation", type=int, choices=(0, 90, 180, 270), help="how the board is turned, clockwise, when the tiles cannot tell")
    cal.add_argument("--out", default="calibration/board.json", metavar="FILE.json", help="where to save the profile")
    cal.add_argument("--no-markers", action="store_true", help="ignore ArUco markers in the frame")
    cal.add_argument("--print-markers", metavar="DIR", help="write the four ArUco marker images to DIR, to print")
    cal.set_defaults(handler=_lazy("board_pi.vision.calibration", "cmd_calibrate"))
    return p


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.handler(args) or 0)
    except UsageError as e:
        print(f"board-pi {args.command}: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
