"""The ``board-pi`` command: wires the parts together; each subcommand imports only what it needs.

Exit codes: 0 success, 1 a negative answer (a play not acceptable, a record that disagrees),
2 bad input (a message on stderr, never a traceback).
"""

from __future__ import annotations

import argparse
import math
import sys
from typing import Callable, Sequence

from .errors import UsageError

Handler = Callable[[argparse.Namespace], int]


def port_number(*, any_free: bool = False) -> Callable[[str], int]:
    """An argparse type for a TCP port: 1-65535 (0 too with ``any_free``: any free port). Out of
    range is refused, not wrapped round by the resolver onto some other port."""
    lo = 0 if any_free else 1

    def parse(text: str) -> int:
        try:
            port = int(text.strip(), 10)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a port number: {text[:40]!r}") from None
        if not lo <= port <= 65535:
            raise argparse.ArgumentTypeError(f"a port is from {lo} to 65535, not {text[:40]}")
        return port

    return parse


def _number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text[:40]!r}") from None


def seconds(text: str) -> float:
    """A duration on the command line: a finite number of seconds, 0 or more."""
    value = _number(text)
    if not math.isfinite(value) or not 0 <= value <= 10**7:
        raise argparse.ArgumentTypeError(f"must be a number of seconds from 0 to 10000000, not {text[:40]}")
    return float(value)


def _lazy(module: str, func: str) -> Handler:
    def run(args: argparse.Namespace) -> int:
        import importlib

        return getattr(importlib.import_module(module), func)(args)

    return run


def add_club_options(parser: argparse.ArgumentParser) -> None:
    """``--broker`` and ``--table``: a table on the club's broker (board_pi.cli.club checks them)."""
    parser.add_argument("--broker", metavar="URL",
                        help="publish this table to the club's MQTT broker: mqtt://[user:password@]host[:port] "
                             "(mqtts:// for TLS; overrides [club] broker)")
    parser.add_argument("--table", metavar="N", help="this table's number in the room, 1-999 (overrides [club] table)")


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="board-pi", description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    j = sub.add_parser("judge", help="word judge: is this play acceptable? (never says which word)")
    j.add_argument("words", nargs="+", metavar="WORD")
    j.add_argument("--lexicon", help="lexicon name (in lexicons/) or path to a word list")
    j.add_argument("--tiles", metavar="NAME", help="tile set the words are spelt in (default english; "
                   "others need --lexicon)")
    j.add_argument("--log", metavar="FILE", help="append the adjudication to this log file")
    j.set_defaults(handler=_lazy("board_pi.cli.rules", "cmd_judge"))

    r = sub.add_parser("replay", help="replay a GCG record through the rules engine and check every score")
    r.add_argument("file", metavar="FILE.gcg")
    r.add_argument("--json", action="store_true", help="print one JSON object instead of lines")
    r.add_argument("--tiles", metavar="NAME", help="tile set (english, german, french, spanish, italian, "
                   "dutch, dutch-ij, polish) when the record's #tile-distribution does not name it; "
                   "guessed from its letters if neither does")
    r.set_defaults(handler=_lazy("board_pi.cli.rules", "cmd_replay"))

    lx = sub.add_parser("lexicon", help="compile or inspect a lexicon")
    lx.add_argument("source", metavar="NAME|PATH")
    lx.add_argument("--tiles", metavar="NAME", help="read the words as this tile set's tiles and report "
                    "those it cannot spell")
    lx.set_defaults(handler=_lazy("board_pi.cli.rules", "cmd_lexicon"))
    rn = sub.add_parser("run", help="run a table with its camera, clock and status page")
    rn.add_argument("--config", metavar="FILE", help="configuration file (default: the usual places)")
    rn.add_argument("--port", type=port_number(), help="status page port, 1-65535 (overrides the configuration)")
    rn.add_argument("--stop-after", type=seconds, metavar="SECONDS", help=argparse.SUPPRESS)
    add_club_options(rn)
    rn.set_defaults(handler=_lazy("board_pi.cli.run", "cmd_run"))

    d = sub.add_parser("demo", help="a whole game at a simulated table: no hardware needed")
    d.add_argument("--game", metavar="FILE.gcg", help="the game to act out (default: the bundled game)")
    d.add_argument("--tiles", metavar="NAME",
                   help="act out a game of this tile set, composed by board-pi's own move generator (english, "
                        "german); with --game, the set of a record that does not name it")
    d.add_argument("--speed", default="20", metavar="N|max",
                   help="how many times faster than a real game (default 20); max: as fast as possible")
    d.add_argument("--port", type=port_number(any_free=True), default=8080,
                   help="status page port (default 8080; 0: any free port)")
    d.add_argument("--edition", metavar="NAME",
                   help="the club board the camera sees: the modern green board, a pale sage or lavender "
                        "edition, a wooden board (default: a cream board)")
    d.add_argument("--no-web", action="store_true", help="do not serve the status page")
    d.add_argument("--json", action="store_true", help="end with one JSON line: final, recorded, plays")
    d.add_argument("--data", metavar="DIR", help="keep the journal here (default: a temporary folder)")
    add_club_options(d)
    d.set_defaults(handler=_lazy("board_pi.cli.demo", "cmd_demo"))

    h = sub.add_parser("hub", help="the director's dashboard for every table of the room (club night)")
    h.add_argument("--config", metavar="FILE",
                   help="configuration with [club] broker (the hub's account), [web] and [data]")
    h.add_argument("--broker", metavar="URL", help="the club's broker, mqtt://hub:password@host:1883 "
                                                   "(overrides [club] broker)")
    h.add_argument("--port", type=port_number(any_free=True), help="the hub's page port (0: any free port)")
    h.add_argument("--data", metavar="DIR", help="where the hub keeps what it collects (overrides [data] dir)")
    h.add_argument("--stop-after", type=seconds, metavar="SECONDS", help=argparse.SUPPRESS)
    h.set_defaults(handler=_lazy("board_pi.cli.hub", "cmd_hub"))


    c = sub.add_parser("config", help="check, write or show the configuration; set the director's PIN")
    csub = c.add_subparsers(dest="config_command", metavar="ACTION")
    csub.required = True
    cc = csub.add_parser("check", help="validate a configuration file (exit 0, or 1 with every problem)")
    cc.add_argument("file", metavar="FILE")
    ci = csub.add_parser("init", help="write the commented template (default /etc/board-pi/board-pi.toml)")
    ci.add_argument("path", nargs="?", metavar="PATH")
    ci.add_argument("--force", action="store_true", help="overwrite an existing file")
    cp = csub.add_parser("set-pin", help="store a salted hash of the director's PIN in the configuration")
    cp.add_argument("--config", metavar="FILE")
    cp.add_argument("--pin-stdin", action="store_true", help="read the PIN from standard input (for scripts)")
    cs = csub.add_parser("show", help="print the configuration in effect, defaults filled in")
    cs.add_argument("--config", metavar="FILE")
    c.set_defaults(handler=_lazy("board_pi.cli.config", "cmd_config"))

    dr = sub.add_parser("doctor", help="check the table: config, camera, clock, lexicon, disk, system clock")
    dr.add_argument("--config", metavar="FILE")
    dr.add_argument("--json", action="store_true", help="print one JSON object instead of lines")
    dr.set_defaults(handler=_lazy("board_pi.cli.doctor", "cmd_doctor"))


    ck = sub.add_parser("clock", help="a standalone tournament clock in the terminal (GPIO, Pico or keyboard)")
    ck.add_argument("--backend", choices=("gpio", "serial", "keyboard"), default="keyboard",
                    help="GPIO buttons, the Pico on a serial port, or keys (z/m players, space pause, "
                         "c challenge, h hold, q quit)")
    ck.add_argument("--port", help="the Pico's serial port (--backend serial), e.g. /dev/serial/by-id/...")
    # Taken as text and checked by the command (board_pi.cli.clock) against TimeControl's limits,
    # in the words the configuration file and the status page use; the defaults are TimeControl's.
    ck.add_argument("--minutes", help="minutes per player (default 25)")
    ck.add_argument("--penalty", help="points per started overtime minute (default 10)")
    ck.add_argument("--max-overtime", help="overtime minutes before a flag (default 10; 0: no limit)")
    ck.add_argument("--increment", help="seconds added after each turn (casual games)")
    ck.add_argument("--delay", help="free seconds at the start of each turn (casual games)")
    ck.add_argument("--state", metavar="FILE", help="keep the clock's state here; resume from it if it exists")
    ck.add_argument("--seconds", type=seconds, help="stop after this many seconds (scripted runs)")
    ck.set_defaults(handler=_lazy("board_pi.cli.clock", "cmd_clock"))

    cal = sub.add_parser("calibrate", help="find the board in one camera frame and save where it is (calibration/)")
    cal.add_argument("source", nargs="?", metavar="SOURCE", help="picamera2, a webcam index or /dev/videoN, an image, a folder or a video")
    cal.add_argument("--corners", metavar="X1,Y1,X2,Y2,X3,Y3,X4,Y4", help="the grid's outer corners (A1 first, clockwise) instead of finding them")
    cal.add_argument("--rotation", type=int, choices=(0, 90, 180, 270), help="how the board is turned, clockwise, when the tiles cannot tell")
    cal.add_argument("--out", default="calibration/board.json", metavar="FILE.json", help="where to save the profile")
    cal.add_argument("--no-markers", action="store_true", help="ignore ArUco markers in the frame")
    cal.add_argument("--no-lens", action="store_true",
                     help="do not measure the lens's bend (a frame of the empty board measures it; straight lines bowed by a wide lens)")
    cal.add_argument("--print-markers", metavar="DIR", help="write the four ArUco marker images to DIR, to print")
    cal.set_defaults(handler=_lazy("board_pi.cli.vision", "cmd_calibrate"))


    rd = sub.add_parser("read", help="read the tiles on a board from a photo")
    rd.add_argument("image", metavar="IMAGE")
    rd.add_argument("--corners", metavar="X1,Y1,X2,Y2,X3,Y3,X4,Y4",
                    help="outer corners of the playing grid (TL, TR, BR, BL as the board is seen upright)")
    rd.add_argument("--json", action="store_true", help="print one JSON object: grid, confidence, corners")
    rd.add_argument("--profile", metavar="FILE", help="an enrolled tile profile (board-pi enrol)")
    rd.add_argument("--tiles", metavar="NAME", default="english",
                    help="the tile set on the board (default english): only its tiles are read, at most as many as it holds")
    rd.set_defaults(handler=_lazy("board_pi.cli.vision", "cmd_read"))

    rs = sub.add_parser("rescore", help="re-score a game from the photos taken at each clock press")
    rs.add_argument("frames", metavar="FRAME", nargs="+",
                    help="the board before the first play, then the board after each press, in order")
    rs.add_argument("--tiles", metavar="NAME", default="english", help="the tile set on the board (default english)")
    rs.add_argument("--players", metavar="A,B", help="the players' names, the first to play first (default Player1,Player2)")
    rs.add_argument("--lexicon", metavar="LIST", help="the word list that settles blank tiles' letters "
                    "(default: the default list for English; none for other sets)")
    rs.add_argument("--json", action="store_true",
                    help="print one JSON object: moves, play_points, final, doubtful (else the game as GCG)")
    rs.set_defaults(handler=_lazy("board_pi.cli.rescore", "cmd_rescore"))

    lb = sub.add_parser("label", help="label real photos by hand, starting from the reader's proposal (for benchmarks)")
    lb.add_argument("photos", metavar="PHOTO", nargs="+", help="photos of boards, in game order")
    lb.add_argument("--labels", metavar="FILE.json", required=True,
                    help="the label file to add to (created if absent; the format of tests/data/jheidel_labels.json)")
    lb.add_argument("--corners", metavar="FILE.json",
                    help="the grid corners by photo (jheidel_corners.json's format): used where given, "
                         "else the board is found and its corners added here")
    lb.add_argument("--tiles", metavar="NAME", default="english", help="the tile set on the board (default english)")
    lb.add_argument("--sheet", metavar="FILE.png", default="label-sheet.png",
                    help="where to draw the proposal over the rectified photo (default label-sheet.png)")
    lb.set_defaults(handler=_lazy("board_pi.cli.label", "cmd_label"))

    en = sub.add_parser("enrol", help="teach the reader your own tiles from a photo of the printed layout")
    en.add_argument("image", metavar="IMAGE", nargs="?", help="photo of your tiles laid out as --layout shows")
    en.add_argument("--layout", action="store_true", help="print the layout to lay your tiles out in")
    en.add_argument("--corners", metavar="X1,Y1,X2,Y2,X3,Y3,X4,Y4", help="outer corners of the playing grid")
    en.add_argument("--out", metavar="FILE", help="where to store the profile (default calibration/tiles.npz)")
    en.set_defaults(handler=_lazy("board_pi.cli.vision", "cmd_enrol"))
    return p


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:  # argparse has said what is wrong (or printed --help): its code
        return e.code if isinstance(e.code, int) else 2
    try:
        return int(args.handler(args) or 0)
    except UsageError as e:
        print(f"board-pi {args.command}: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0

