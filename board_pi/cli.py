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

    rd = sub.add_parser("read", help="read the tiles on a board from a photo")
    rd.add_argument("image", metavar="IMAGE")
    rd.add_argument("--corners", metavar="X1,Y1,X2,Y2,X3,Y3,X4,Y4",
                    help="outer corners of the playing grid (TL, TR, BR, BL as the board is seen upright)")
    rd.add_argument("--json", action="store_true", help="print one JSON object: grid, confidence, corners")
    rd.add_argument("--profile", metavar="FILE", help="an enrolled tile profile (board-pi enrol)")
    rd.set_defaults(handler=_lazy("board_pi.vision.read", "cmd_read"))

    en = sub.add_parser("enrol", help="teach the reader your own tiles from a photo of the printed layout")
    en.add_argument("image", metavar="IMAGE", nargs="?", help="photo of your tiles laid out as --layout shows")
    en.add_argument("--layout", action="store_true", help="print the layout to lay your tiles out in")
    en.add_argument("--corners", metavar="X1,Y1,X2,Y2,X3,Y3,X4,Y4", help="outer corners of the playing grid")
    en.add_argument("--out", metavar="FILE", help="where to store the profile (default calibration/tiles.npz)")
    en.set_defaults(handler=_lazy("board_pi.vision.enrol", "cmd_enrol"))
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
