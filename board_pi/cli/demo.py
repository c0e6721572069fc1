"""``board-pi demo``: a whole game at a table with no hardware.

A recorded game (the bundled one by default) is acted out at a simulated table: after each play
the synthetic renderer draws the board as a camera would see it (hands over the board in some
frames), the player's press comes at a realistic pace, and the real recognition, rules engine,
journal and status page do the rest. Challenges, phonies withdrawn, exchanges and passes are
acted out as players would at the board. At the end the demo says whether the final scores
equal the record's.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from .errors import UsageError
from ..clock import TimeControl
from ..rules.board import Coordinate
from ..rules.game import ChallengeRule, Game, GameRules
from ..rules.events import Passed
from ..rules.gcg import GcgError, GcgMove, GcgRecord, parse_gcg, read_gcg
from ..rules.replay import replay
from ..rules.judge import WordJudge
from ..rules.lexicon import LexiconError
from ..rules.play import Play
from ..rules.tiles import ENGLISH, TileSet, UnknownTileSet, tile_set
from ..table.store import Journal
from ..table.table import Table

BUNDLED = "demo.gcg"


class VirtualTime:
    """The demo's clock: runs ``speed`` times faster than real time, or only when advanced."""

    def __init__(self, speed: float | None) -> None:
        self.speed = speed  # None: as fast as possible (time moves only by advance())
        self._virtual = 0.0
        self._real = time.monotonic()
        self._lock = threading.Lock()

    def __call__(self) -> float:
        with self._lock:
            if self.speed is None:
                return self._virtual
            return self._virtual + (time.monotonic() - self._real) * self.speed

    def advance(self, seconds: float) -> None:
        """Let ``seconds`` of game time pass (sleeping for the real share of it)."""
        if self.speed is None:
            with self._lock:
                self._virtual += seconds
            return
        time.sleep(seconds / self.speed)


class ScriptedCamera:
    """A camera over the demo's board: renders the physical board, with a hand in some frames.

    Frames of one board state share the camera's pose and light (a fixed camera over a board at
    rest) and differ by sensor noise; a hand over the board changes everything it covers.
    """

    FPS = 10.0  # the simulated camera's frame rate: its time is its frames

    def __init__(self, seed: int, size: tuple[int, int] = (1280, 960), tiles: TileSet = ENGLISH,
                 edition: str | None = None) -> None:
        self._rows = ["." * 15] * 15
        self.tiles = tiles  # the set the tiles on the board belong to: their letters and values
        self.seed = seed
        self.size = size
        self.style = demo_style(seed, edition=edition)
        self.state = 0  # which board state is on the table (a new one after each change)
        self.frame_no = 0
        self.hand_frames = 0
        self.last_corners: Any = None
        self.light = 1.0
        """The light in the frames as a share of what it is drawn in (each pixel's level times it,
        clipped at white): a camera that settled again on other light than at calibration."""
        self.render_seconds = 0.0
        self._cache: tuple[int, Any] | None = None
        self.mirror = False
        """The camera flips its picture (a webcam's mirror setting): each frame a mirror image."""

    @property
    def _set(self) -> TileSet | None:
        return None if self.tiles is ENGLISH else self.tiles  # English boards as they were always drawn

    def time(self) -> float:
        """The camera's own time, in seconds of frames taken: the table's still-board wait is
        timed by it, so a slow machine drawing the frames does not make the table give up."""
        return self.frame_no / self.FPS

    @property
    def rows(self) -> list[str]:
        return list(self._rows)

    @rows.setter
    def rows(self, rows: list[str]) -> None:
        if list(rows) != self._rows:
            self._rows = list(rows)
            self.state += 1

    def read(self) -> Any:
        import numpy as np

        from ..vision.render import render_board

        self.frame_no += 1
        t = time.perf_counter()
        if self.hand_frames > 0:
            self.hand_frames -= 1
            r = render_board(self._rows, seed=self.seed * 100003 + self.frame_no, size=self.size,
                             hand=True, tilt=15.0, style=self.style, pose_seed=self.seed, tiles=self._set)
            image = r.image
        else:
            if self._cache is None or self._cache[0] != self.state:
                r = render_board(self._rows, seed=self.seed * 1009 + self.state, size=self.size,
                                 hand=False, tilt=15.0, style=self.style, pose_seed=self.seed, tiles=self._set)
                self._cache = (self.state, r)
            r = self._cache[1]
            noise = np.random.default_rng(self.frame_no).normal(0, 2.0, r.image.shape)
            image = np.clip(r.image.astype(np.float32) + noise, 0, 255).astype(np.uint8)
        if self.light != 1.0:
            image = np.clip(image.astype(np.float32) * self.light, 0, 255).astype(np.uint8)
        corners = r.corners
        if self.mirror:
            from ..vision.geometry import mirror_image

            image, corners = mirror_image(image, corners)
        self.render_seconds += time.perf_counter() - t
        self.last_corners = corners
        return image


DEMO_FONT = "DejaVu Sans Bold"  # a name in the renderer's font catalogue: Debian's fonts-dejavu-core


def demo_style(seed: int, fonts: Any = None, edition: str | None = None) -> Any:
    """The demo's board and tiles: a random cream board, or a board of the club ``edition``
    (:data:`~board_pi.vision.editions.EDITIONS`: green, sage, lavender, wooden), lettered in the
    catalogue's :data:`DEMO_FONT` (found in the font directory ``fonts``, by default
    /usr/share/fonts), so the demo looks the same on every machine that has it, whatever other
    fonts it has. Where it is absent the demo still plays, in Pillow's own font, and says so."""
    from dataclasses import replace

    import numpy as np

    from ..vision.editions import edition_style
    from ..vision.fonts import BUILTIN, FontMissing, font_path
    from ..vision.render import random_style

    font = DEMO_FONT
    try:
        font_path(DEMO_FONT, fonts)
    except FontMissing as e:
        print(f"board-pi demo: {e}; the tiles are lettered in Pillow's own font instead", file=sys.stderr, flush=True)
        font = BUILTIN
    rng = np.random.default_rng(seed)
    style = random_style(rng) if edition is None else edition_style(rng, edition)
    return replace(style, letter_font=font, value_font=font, label_font=font)


@dataclass
class DemoResult:
    final: list[int]
    recorded: list[int]
    plays: int = 0
    plays_read_correctly: int = 0
    notes: list[str] = field(default_factory=list)
    press_to_score: list[float] = field(default_factory=list)
    journal_seconds: list[float] = field(default_factory=list)
    """Of each of :attr:`press_to_score`, the time the journal's writes took (to its log)."""
    frame_read: list[float] = field(default_factory=list)
    """Of each of :attr:`press_to_score`, the reading of the last frame (the still board): the
    board checked where the calibration has it (found again only if it moved), and its changed
    squares read. What a camera at a table costs per frame."""
    longest_sync: float = 0.0
    """The longest the journal took to sync a write to the disk, behind the presses."""


DEMO_SEEDS = {"english": 7, "german": 2}
"""The seed of each set's composed demo game (German's: one with plays of Ä, Ö and Ü)."""


def load_record(path: str | None, tiles: TileSet | None = None) -> GcgRecord:
    """The record to act out: the file given, else the bundled English game, else a game of
    ``tiles`` composed now by the project's own move generator with that set's demo word list."""
    if path is None and tiles is not None and tiles is not ENGLISH:
        from ..table.compose import DEMO_LISTS, compose

        if tiles.name not in DEMO_LISTS:
            raise UsageError(f"no demo game for the {tiles.name} tile set: board-pi has a word list to compose "
                             f"one for {', '.join(DEMO_LISTS)} only; act out a record of your own with --game FILE.gcg")
        return parse_gcg(compose(DEMO_SEEDS.get(tiles.name, 7), tiles))
    if path is None:
        text = resources.files("board_pi.table").joinpath("data", BUNDLED).read_text("utf-8")
        return parse_gcg(text)
    try:
        return read_gcg(path)
    except OSError as e:
        raise UsageError(f"cannot read {path}: {e.strerror or e}") from None
    except GcgError as e:
        raise UsageError(f"{path}: {e}") from None


def challenge_rule(rec: GcgRecord) -> ChallengeRule:
    bonuses = {m.score for m in rec.moves if m.kind == "challenge"}
    if 10 in bonuses:
        return ChallengeRule.TEN_POINTS
    if bonuses:
        return ChallengeRule.FIVE_POINTS
    return ChallengeRule.SINGLE


SPEEDS = (0.1, 10_000.0)  # slow motion to far faster than a game; "max" is as fast as possible


def cmd_demo(args: argparse.Namespace) -> int:
    try:
        speed = None if str(args.speed).strip() == "max" else float(args.speed)
    except ValueError:
        speed = float("nan")
    if speed is not None and not SPEEDS[0] <= speed <= SPEEDS[1]:  # nan and inf fail this too
        raise UsageError(f"--speed must be a number from {SPEEDS[0]:g} to {SPEEDS[1]:g} times a real game, "
                         f"or 'max', not {str(args.speed)[:40]!r}")
    if args.data:
        from ..config import data_dir_problem

        problem = data_dir_problem(Path(args.data))
        if problem:
            raise UsageError(f"--data: {problem}")
        try:
            Path(args.data).mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise UsageError(f"--data: cannot make {args.data}: {e.strerror or e}") from None
    edition = getattr(args, "edition", None)
    if edition is not None:
        from ..vision.editions import EDITIONS

        if edition not in EDITIONS:
            raise UsageError(f"--edition: no board edition {edition[:40]!r}; board-pi draws {', '.join(EDITIONS)}")
    from .club import table_club_settings

    club = table_club_settings(args)  # a bad --broker or --table before anything is played
    tiles = None
    if getattr(args, "tiles", None):
        try:
            tiles = tile_set(args.tiles)
        except UnknownTileSet as e:
            raise UsageError(f"--tiles: {e.args[0]}") from None
    rec = load_record(args.game, tiles)
    check = replay(rec, tiles) if args.game and tiles is not None else replay(rec)
    if check.error is not None:
        raise UsageError(f"the record cannot be played: {check.error}")
    say = (lambda *a: print(*a, file=sys.stderr, flush=True)) if args.json else \
        (lambda *a: print(*a, flush=True))
    from ..config.schema import CameraConfig

    # The table learns its tiles as it plays, as `board-pi run` does with the embedded default.
    result = play_record(rec, speed, args.port, not args.no_web, say, data_dir=args.data, club=club,
                         edition=edition, learn=CameraConfig().learn)
    same = result.final == result.recorded
    say("final: " + ", ".join(f"{n} {s}" for n, s in zip(check.game.players, result.final))
        + f"; recorded: {', '.join(map(str, result.recorded))} -> "
        + ("the same" if same else "DIFFERENT"))
    say(f"plays read correctly without correction: {result.plays_read_correctly}/{result.plays}")
    if result.press_to_score:
        ts = sorted(result.press_to_score)
        say(f"press to score (board still): median {ts[len(ts) // 2] * 1000:.0f} ms, "
            f"max {ts[-1] * 1000:.0f} ms")
    if args.json:
        print(json.dumps({"final": result.final, "recorded": result.recorded, "plays": result.plays,
                          "plays_read_correctly": result.plays_read_correctly}), flush=True)
    return 0 if same else 1


def play_record(rec: GcgRecord, speed: float | None, port: int = 8080, web: bool = True,
                say: Any = print, data_dir: str | None = None, seed: int = 1, club: Any = None,
                edition: str | None = None, learn: bool = False, light: float = 1.0, mirror: bool = False,
                calibrated_turned: int = 0) -> DemoResult:
    """Act out ``rec`` at a simulated table; returns the scores and how the reading went.
    ``club``: club settings to publish the table to a broker (None: a table on its own);
    ``edition``: the club board the camera sees (see :func:`demo_style`); ``learn``: the table
    learns its tiles as it plays, as ``board-pi run`` does (kept in the game's data folder);
    ``light``: the light in the game's frames as a share of the calibration frame's
    (:attr:`ScriptedCamera.light`: a table started again under other light than it was
    calibrated in); ``mirror``: the camera flips its picture (:attr:`ScriptedCamera.mirror`);
    ``calibrated_turned``: the director calibrated the table that many quarter turns out (a
    camera over the table's side, A1 not where it was said to be)."""
    from ..wordlists import load_lexicon
    from ..table.vision import VisionReader

    check = replay(rec)
    tiles = check.tiles
    names = check.game.players
    nicks = [p.nick for p in rec.players] or names
    rules = GameRules(challenge=challenge_rule(rec), tournament=len(names) == 2, tiles=check.tiles)
    clock_time = VirtualTime(speed)
    tmp = tempfile.TemporaryDirectory(prefix="board-pi-demo-")
    data = Path(data_dir) if data_dir else Path(tmp.name)
    from ..table.compose import DEMO_LISTS
    from ..vision.read import Reader

    lexicon = DEMO_LISTS.get(tiles.name, "default") if tiles is not ENGLISH else "default"
    try:
        judge = WordJudge(load_lexicon(lexicon, tiles=tiles), clock=time.time, tiles=tiles)
    except LexiconError as e:  # a record of a set with no word list of board-pi's: follow the record
        say(f"no word list for the {tiles.name} tiles ({e}); challenges follow the record")
        judge = WordJudge.without_list(tiles, str(e), clock=time.time)
        lexicon = "none"
    camera = ScriptedCamera(seed, tiles=tiles, edition=edition)
    # The camera reads only the set's own tiles, as a table configured with game.tile_set does.
    tile_reader = Reader(tiles=tiles)
    memory = None
    if learn:
        from ..vision.learn import TableMemory, model_fingerprint

        memory = TableMemory.open(data / "learned-tiles.npz", model_fingerprint(tile_reader.model_path))
    camera.mirror = mirror
    reader = VisionReader(reader=tile_reader, tracker=_setup_calibration(camera, calibrated_turned), memory=memory)
    camera.light = light
    table = Table(Journal(data / "journal.db"), judge, camera=camera, reader=reader,
                  time_source=clock_time, camera_time=camera.time)
    table.new_game(names, rules, TimeControl(minutes=25), meta={"lexicon": lexicon, "demo": True})
    server = None
    if web:
        server = _start_web(table, port, say)
    rng = random.Random(seed)
    shadow = Game(names, GameRules(tiles=check.tiles, tournament=len(names) == 2))
    result = DemoResult([0] * len(names), check.recorded_final)
    racks_at_end: dict[int, str] = {}
    publisher = None
    try:
        if club is not None:
            from .club import start_publisher

            publisher = start_publisher(club, table, table.journal, data, say)
        table.press((shadow.state.turn + 1) % len(names))  # the opponent starts the first player's clock
        for m in rec.moves:
            p = nicks.index(m.nick)
            if m.kind in ("play", "pass", "exchange"):
                clock_time.advance(rng.uniform(15, 75))
            if m.kind == "play":
                _act_play(table, shadow, camera, clock_time, p, m, rng, result, say)
            elif m.kind == "pass":
                if table.game is not None and table.game.state.going_out is not None:
                    table.accept_out_play(p)
                    say(f"{names[p]:>14}: accepts the out-play")
                else:
                    _act_pass(table, shadow, camera, clock_time, p, say)
            elif m.kind == "exchange":
                n = int(m.word) if m.word.isdigit() else len(m.word)
                shadow.exchange(p, n)
                out = _press(table, p, clock_time, exchange=True, exchange_count=n)
                say(f"{names[p]:>14}: exchanges {n} ({out.outcome})")
            elif m.kind in ("phony", "challenge"):
                challenger = (p + 1) % len(names)
                acceptable = m.kind == "challenge"
                lp = table.game.state.last_play if table.game else None
                # With no word list for the set there is nothing to weigh the record against.
                if table.judge.can_rule and lp is not None and table.judge.judge(lp.words).acceptable != acceptable:
                    msg = (f"line {m.line}: the record says the play was "
                           f"{'acceptable' if acceptable else 'not acceptable'}; this lexicon says otherwise: "
                           "following the record")
                    result.notes.append(msg)
                    say(msg)
                clock_time.advance(rng.uniform(5, 20))
                table.hold(challenger) if _can_hold(table) else None
                v = table.challenge(challenger, acceptable=acceptable)
                say(f"{names[challenger]:>14}: challenges -> {v}")
                if not acceptable:
                    shadow.challenge(challenger, False)
                    camera.rows = shadow.state.board.rows()
                else:
                    shadow.append(_bonus(p, m.score))
            elif m.kind == "endrack":
                if table.game is not None and not table.game.state.over:
                    table.accept_out_play()
                say(f"{names[p]:>14}: goes out; rack points {m.word}")
            elif m.kind == "rackpenalty":
                racks_at_end[p] = m.word
                if len(racks_at_end) == len(names) and table.game is not None and not table.game.state.over:
                    table.give_racks(racks_at_end)
            elif m.kind == "time":
                table.time_penalty(p, -m.score)
        assert table.game is not None
        result.final = list(table.game.state.scores)
        if server is not None and speed is not None:
            time.sleep(min(5.0, 50.0 / speed))  # leave the final state on the page a moment
    finally:
        if publisher is not None:
            if not publisher.flush(10.0):
                say(f"club: {publisher.backlog} events not yet at the broker; they go with this journal's next run")
            publisher.stop()
        if server is not None:
            server.stop()
        table.close()  # its readings (and learning) done, and what it learnt on the disk
        table.journal.close()
        result.longest_sync = table.journal.longest_sync
        tmp.cleanup()
    return result


def _setup_calibration(camera: ScriptedCamera, turned: int = 0) -> Any:
    """What the director does when setting the table up: calibrate on the empty board, saying
    which corner is A1 (an empty board looks the same all four ways round); ``turned`` quarter
    turns out, where the director took another corner for A1."""
    import numpy as np

    from ..vision.calibration import Tracker, calibrate

    frame = camera.read()
    return Tracker(calibrate(frame, np.roll(camera.last_corners, turned, axis=0), rotation=0, use_markers=False))


def _can_hold(table: Table) -> bool:
    return table.clock is not None and table.clock.phase == "running"


def _bonus(p: int, points: int):  # type: ignore[no-untyped-def]
    from ..rules.events import ChallengeBonus
    return ChallengeBonus(p, points)


class DemoError(RuntimeError):
    """The simulated table could not go on (a bug, not a misreading: those are corrected)."""


def _press(table: Table, p: int, clock_time: VirtualTime, **kw: Any) -> Any:
    """A player's press; pressed again if the table did not take it (as a player would)."""
    out = table.press(p, **kw)
    if out.outcome == "ignored":
        clock_time.advance(1.0)
        out = table.press(p, **kw)
        if out.outcome == "ignored":
            raise DemoError(f"the table ignored the press twice: {out.message}")
    return out


def _act_play(table: Table, shadow: Game, camera: ScriptedCamera, clock_time: VirtualTime, p: int,
              m: GcgMove, rng: random.Random, result: DemoResult, say: Any) -> None:
    play = Play(Coordinate.parse(m.position), m.word)
    expected = shadow.preview(play)
    shadow.play(p, play)
    camera.rows = shadow.state.board.rows()
    camera.hand_frames = rng.choice((0, 0, 1, 2))  # the hand is still leaving the board
    want = {str(pl.square): pl.tile for pl in expected.placements}
    t, written = time.perf_counter(), table.journal.write_seconds
    out = _press(table, p, clock_time)
    blank_asked = False
    if out.outcome == "pending" and table.pending is not None and table.pending.kind == "blank" \
            and set(table.pending.tiles) == set(want):
        letters = {sq: want[sq].upper() for sq in table.pending.doubtful if sq in want}
        out = table.set_blanks(letters)
        blank_asked = True
        say(f"{'':>14}  the players say the blank is {', '.join(f'{v} on {k}' for k, v in letters.items())}")
    dt = table.timings.get("read", 0.0) + time.perf_counter() - t - table.timings.get("settle", 0.0)
    game = table.game
    assert game is not None
    lp = game.state.last_play
    got = {str(pl.square): pl.tile for pl in lp.scored.placements} if lp and out.outcome == "play" else {}
    result.plays += 1
    if out.outcome == "play" and got == want:
        result.plays_read_correctly += 1
        if not blank_asked:
            result.press_to_score.append(dt)
            result.frame_read.append(table.timings.get("read", 0.0))
            result.journal_seconds.append(table.journal.write_seconds - written)
    else:
        # The players put it right on the page, as they would at a club table.
        what = out.message or out.outcome
        if out.outcome in ("play", "pass"):
            table.undo()
        if table.pending is not None and table.pending.kind in ("reading", "reread", "blank"):
            table.confirm(want)
        else:
            table.enter_play(p, str(play))
        say(f"{'':>14}  misread ({what}); corrected on the page")
    move = game.state.moves[-1]
    mark = "" if move.score == m.score else f"  (record: {m.score})"
    say(f"{game.players[p]:>14}: {move.text} {move.score}{mark}")


def _act_pass(table: Table, shadow: Game, camera: ScriptedCamera, clock_time: VirtualTime, p: int,
              say: Any) -> None:
    shadow.pass_turn(p)
    camera.hand_frames = 0
    out = _press(table, p, clock_time)
    if out.outcome != "pass":
        if out.outcome == "play":
            table.undo()
            table.record(Passed(p))
        elif table.pending is not None:
            table.confirm({})
        say(f"{'':>14}  misread ({out.message or out.outcome}); corrected on the page to a pass")
    assert table.game is not None
    say(f"{table.game.players[p]:>14}: pass")


def _start_web(table: Table, port: int, say: Any) -> Any:
    try:
        from ..web import serve
    except ImportError as e:
        say(f"status page not available ({e}); going on without it")
        return None
    try:
        server = serve(table, host="127.0.0.1", port=port)
    except OSError as e:
        raise UsageError(f"cannot serve the status page on port {port}: {e.strerror or e}") from None
    say(f"status page: http://127.0.0.1:{server.port}/")
    return server
