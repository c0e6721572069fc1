"""What the status page (and anything else that shows or steers a table) may use of it: the
snapshot, the events, and the commands. Nothing else of the table's insides.

>>> from board_pi.rules.judge import WordJudge
>>> from board_pi.rules.lexicon import Lexicon
>>> from board_pi.table.store import Journal
>>> table = Table(Journal(":memory:"), WordJudge(Lexicon.from_words(["QI"], name="tiny")))
>>> facade = TableFacade(table)
>>> facade.snapshot()["game"], facade.snapshot()["seq"]
(None, 0)
>>> game = facade.new_game(["Ann", "Bob"])
>>> facade.enter_play(0, "H8 QI").score, facade.events.last_seq > 0
(22, True)
>>> facade.last_play()
LastPlay(words=['QI'], play='H8 QI')
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from ..clock import TimeControl
from ..rules.game import GameRules
from ..rules.judge import Verdict, WordJudge
from .archive import GameNotFound
from .bus import EventBus
from .snapshot import Snapshot
from .table import PressResult, Table, TableError


class NotFound(LookupError):
    """What was asked for is not there (no game, no such finished game, no camera view)."""


@dataclass(frozen=True)
class LastPlay:
    """The words the last play formed (upper case) and its notation; empty before any play."""

    words: list[str]
    play: str | None


@dataclass(frozen=True)
class Record:
    """A finished game's GCG file as kept: its bytes and the encoding they are in."""

    data: bytes
    charset: str


@dataclass(frozen=True)
class CameraView:
    """The latest frame and its reading, for the calibration view."""

    frame: Any
    reading: Any
    doubt_below: float


_LEXICON_NAME = re.compile(r"[\w-][\w.-]*")


class TableFacade:
    """One table as its pages see it.

    ``snapshot()`` is the whole state; ``events`` numbers every change (the snapshot says up to
    which it is); the other methods are the commands and the few reads the snapshot leaves out
    (the judge's log, the games kept, a finished game's record, the camera's latest view).
    ``lexicons``: lexicons a new game may choose besides those in the lexicon folders (the
    configuration's, which may be a path). Commands raise :class:`TableError` for what the table
    cannot do now and :class:`NotFound` for what is not there.
    """

    def __init__(self, table: Table, *, lexicons: Sequence[str] = ()) -> None:
        self._table = table
        self._lexicons = tuple(lexicons)

    # -- reading ---------------------------------------------------------------------------

    @property
    def events(self) -> EventBus:
        return self._table.bus

    def snapshot(self) -> Snapshot:
        """The whole state, with ``seq``: the last event it includes (events after it may
        repeat what it shows; none is lost)."""
        seq = self._table.bus.last_seq  # taken first
        return {**self._table.snapshot(), "seq": seq}

    @property
    def players(self) -> int:
        """How many play the current game (0 with no game)."""
        game = self._table.game
        return len(game.players) if game is not None else 0

    def last_play(self) -> LastPlay:
        words, play = self._table.last_play_words()
        return LastPlay([w.upper() for w in words], play)

    def judge_log(self) -> list[dict[str, Any]]:
        return [{"time": a.time, "words": list(a.words), "acceptable": a.acceptable, "lexicon": a.lexicon}
                for a in self._table.judge.log]

    @property
    def lexicon(self) -> str:
        """The name of the lexicon the judge uses now."""
        return self._table.judge.lexicon.name

    def lexicons(self) -> list[str]:
        """The lexicons in the lexicon folders, by name (what a new game may choose)."""
        from ..wordlists import available

        return available()

    def games(self) -> dict[str, Any]:
        """The games in the journal, the current one, and the finished games kept."""
        t = self._table
        archive = t.archive.list() if t.archive is not None else []
        return {"games": t.journal.games(), "current": t.game_id, "archive": archive}

    def record(self, game_id: str) -> Record:
        """A finished game's record from the archive (never overwritten)."""
        archive = self._table.archive
        if archive is None:
            raise NotFound("this table keeps no archive of finished games")
        try:
            return Record(archive.get(game_id).encode("utf-8"), "utf-8")
        except GameNotFound:
            raise NotFound(f"no finished game {game_id!r}") from None
        except UnicodeDecodeError:
            # A record from another program, in the GCG's old default encoding: kept as it is.
            return Record((Path(archive.dir) / f"{game_id}.gcg").read_bytes(), "iso-8859-1")

    def gcg(self) -> tuple[str, str]:
        """The current game's record and its id."""
        t = self._table
        if t.game is None:
            raise NotFound("no game yet: nothing to download")
        return t.gcg(), str(t.game_id)

    def camera_view(self) -> CameraView:
        t = self._table
        frame = t.last_frame
        # The grid's corners are the straightened frame's where the camera's lens was measured.
        straightened = getattr(t.reader, "straightened", None)
        if frame is not None and callable(straightened):
            frame = straightened(frame)
        return CameraView(frame, t.last_reading, t.settings.doubt_below)

    # -- commands --------------------------------------------------------------------------

    def judge_words(self, words: Sequence[str]) -> Verdict:
        return self._table.judge_words(words)

    def new_game(self, players: Sequence[str], rules: GameRules = GameRules(),
                 control: TimeControl | None = None, lexicon: str = "", event: str = "") -> Any:
        """Start a new game (judged with ``lexicon`` when one is named); returns its id."""
        judged_as = getattr(self._table.judge.tiles, "name", "english")
        if (lexicon and lexicon != self.lexicon) or rules.tiles.name != judged_as:
            # another list, or the same name read as another set's tiles (or refused for it)
            self._choose_lexicon(lexicon or self.lexicon, rules.tiles)
        meta = {"lexicon": self.lexicon}
        if event:
            meta["event"] = event
        return self._table.new_game(list(players), rules, control, meta)

    def _choose_lexicon(self, name: str, tiles: Any = None) -> None:
        from ..rules.lexicon import LexiconError
        from ..wordlists import available, load_lexicon

        # By name only, from the lexicon folders or the configuration: a path would let the
        # judge answer whether a word is in any file the table can read.
        allowed = {Path(spec).stem if ("/" in spec or spec.endswith(".txt")) else spec: spec
                   for spec in (self._table.settings.lexicon, *self._lexicons)}
        if name in allowed:
            spec = allowed[name]
        elif name in available() and _LEXICON_NAME.fullmatch(name) and ".." not in name:
            spec = name
        else:
            raise TableError(f"no lexicon named {name!r} (known: {', '.join(available())})")
        old = self._table.judge
        tiles = tiles if tiles is not None else getattr(old, "tiles", None)
        try:
            lex = load_lexicon(spec, tiles=tiles)  # read as the game's tiles: CH one tile, not C and H
        except LexiconError as e:
            raise TableError(str(e)) from None
        extra = {"tiles": tiles} if tiles is not None else {}
        self._table.use_judge(WordJudge(lex, clock=time.time, on_log=old.on_log, log=old.log, **extra))

    def pause(self) -> None:
        self._table.pause()

    def resume_clock(self) -> None:
        self._table.resume_clock()

    def undo(self) -> str:
        return self._table.undo()

    def adjust(self, player: int, points: int, reason: str) -> None:
        self._table.adjust(player, points, reason)

    def end_game(self, reason: str) -> None:
        self._table.end_game(reason)

    def correct_last_play(self, play: str) -> PressResult:
        return self._table.correct_last_play(play)

    def enter_play(self, player: int, play: str) -> PressResult:
        return self._table.enter_play(player, play)

    def press(self, player: int, exchange: bool = False, exchange_count: int | None = None) -> PressResult:
        return self._table.press(player, exchange=exchange, exchange_count=exchange_count)

    def confirm(self, tiles: dict[str, str] | None = None) -> PressResult:
        return self._table.confirm(tiles)

    def set_blanks(self, letters: dict[str, str]) -> PressResult:
        return self._table.set_blanks(letters)

    def give_racks(self, racks: dict[int, str]) -> None:
        self._table.give_racks(racks)

    def hold(self, player: int) -> None:
        self._table.hold(player)

    def challenge(self, player: int) -> Verdict:
        return self._table.challenge(player)

    def accept_out_play(self) -> PressResult:
        return self._table.accept_out_play()


# The web imports these from here, and nothing else of the table.
__all__ = ["CameraView", "LastPlay", "NotFound", "PressResult", "Record", "Snapshot", "Table", "TableError",
           "TableFacade"]
