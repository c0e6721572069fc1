"""GCG game records: read, write, and replay through the rules engine.

GCG is the score-sheet format of the tournament world (poslfit.com's spec, used by Quackle,
Macondo and the online servers). Pragmata start with ``#``, events with ``>``:

>>> rec = parse_gcg('#player1 ann Ann\\n#player2 bob Bob\\n>ann: DINNVWY 8D WINDY +32 32\\n')
>>> rec.moves[0].kind, rec.moves[0].position, rec.moves[0].score
('play', '8D', 32)
>>> replay(rec).agree
1
"""

from __future__ import annotations

import codecs
import os
import re
from collections import Counter
from dataclasses import dataclass, field

from .board import BadCoordinate, Coordinate
from .game import (ChallengeBonus, EndRackPoints, Event, Exchanged, Game, GameRules, IllegalEvent,
                   Passed, PhonyWithdrawn, PlayMade, RackPenalty, ScoreAdjusted, TimePenalty,
                   TurnLost)
from .play import IllegalPlay, Play
from .tiles import BLANK, ENGLISH, TILE_SETS, TileSet

KINDS = ("play", "pass", "exchange", "phony", "challenge", "endrack", "rackpenalty", "time")


class GcgError(ValueError):
    """A record that cannot be read or cannot have happened; names the line."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(f"line {line}: {message}" if line else message)
        self.line = line
        self.message = message


@dataclass(frozen=True)
class GcgPlayer:
    nick: str
    name: str


@dataclass(frozen=True)
class GcgMove:
    """One ``>`` line. ``score`` is signed as written (``-24`` for a phony withdrawn)."""

    kind: str
    nick: str
    rack: str = ""
    position: str = ""
    word: str = ""  # the play's word, or the tiles (or count) exchanged, or the rack in ( )
    score: int = 0
    total: int = 0
    note: str = ""
    line: int = field(default=0, compare=False)

    def text(self) -> str:
        """The event as a GCG line."""
        r = self.rack
        body = {
            "play": f"{r} {self.position} {self.word} +{self.score}",
            "pass": f"{r} - +0",
            "exchange": f"{r} -{self.word} +0",
            # Signed scores keep their sign when 0 (a rack of blanks, a phony of blanks):
            # the reader needs +N or -N.
            "phony": f"{r} -- {self.score:+d}",
            "challenge": f"{r} (challenge) +{self.score}",
            "endrack": f"({self.word}) +{self.score}",
            "rackpenalty": f"{r} ({self.word}) {self.score:+d}",
            "time": f"{r} (time) {self.score:+d}",
        }[self.kind]
        return f">{self.nick}: {body} {self.total}"


@dataclass
class GcgRecord:
    players: list[GcgPlayer] = field(default_factory=list)
    title: str = ""
    description: str = ""
    id: str = ""
    lexicon: str = ""
    notes: list[str] = field(default_factory=list)  # notes before the first event
    racks: dict[int, str] = field(default_factory=dict)  # #rack1 / #rack2: racks after the last event
    rack_lines: dict[int, int] = field(default_factory=dict)  # where each #rackN was read
    moves: list[GcgMove] = field(default_factory=list)
    other: list[str] = field(default_factory=list)  # pragmata we keep but do not interpret
    warnings: list[str] = field(default_factory=list)

    def same_game(self, other: "GcgRecord") -> bool:
        """Equal players, pragmata and events (warnings and line numbers aside)."""
        keys = ("players", "title", "description", "id", "lexicon", "notes", "racks", "moves", "other")
        return all(getattr(self, k) == getattr(other, k) for k in keys)


# --- reading ----------------------------------------------------------------------------------

_ENCODING = re.compile(r"#character-encoding(?:\s+(\S*))?\s*(.*)")
_EVENT = re.compile(r">(\S+):(?:\s+(.*))?$")
_SCORE = re.compile(r"[+-][0-9]+")
_TOTAL = re.compile(r"-?[0-9]+")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")

MAX_GCG_BYTES = 1_000_000
"""A whole game is a few kB; anything past this is not a GCG record (and is not read on)."""
MAX_SCORE_DIGITS = 4  # no single event on a 15x15 board comes near 10,000 points
MAX_TOTAL_DIGITS = 5
MAX_WORD = 15  # a play's word runs along one line of the 15x15 board

# The encodings this reader really reads, by their codec names: the spec's default (ISO 8859-1),
# UTF-8, and ASCII (a part of both).
ENCODINGS = {"utf-8": "UTF-8", "iso8859-1": "ISO-8859-1", "ascii": "ASCII"}


def decode_gcg(data: bytes) -> tuple[str, list[str]]:
    """Bytes to text: the declared encoding, else UTF-8, else ISO 8859-1 (the spec's default).

    A declared encoding this reader does not read, or a file that is not valid in the encoding it
    declares, is refused (GcgError naming the line): guessing would misread names and letters.
    """
    warnings: list[str] = []
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8):]
    elif data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        raise GcgError(1, "the file is UTF-16, which GCG records are not written in: save it as UTF-8")
    first = data.split(b"\n", 1)[0].decode("ascii", "replace").strip()
    codec = _declared(first)
    if codec:
        try:
            return data.decode(codec), warnings
        except UnicodeDecodeError as e:
            raise GcgError(data[:e.start].count(b"\n") + 1,
                           f"not valid {ENCODINGS[codec]}, as line 1 declares (byte 0x{data[e.start]:02x})") from None
    try:
        return data.decode("utf-8"), warnings
    except UnicodeDecodeError:
        return data.decode("latin-1"), warnings


def _declared(first: str) -> str:
    """The codec a first line declares ("" if it declares none); GcgError if not one we read."""
    m = _ENCODING.fullmatch(first)
    if not m:
        return ""
    name, extra = m.group(1) or "", m.group(2)
    if not name or extra:
        raise GcgError(1, "#character-encoding takes one encoding name, such as UTF-8")
    try:
        codec = codecs.lookup(name).name if len(name) <= 40 else ""
    except (LookupError, ValueError):  # ValueError: a NUL in the name
        codec = ""
    if codec not in ENCODINGS:
        raise GcgError(1, f"unsupported character encoding {name[:40]!r}: this reader reads "
                          f"{', '.join(ENCODINGS.values())}")
    return codec


def read_gcg(path: str) -> GcgRecord:
    """Read a GCG file (raises OSError, GcgError); at most MAX_GCG_BYTES are read."""
    with open(path, "rb") as f:
        # Refused before reading when the size is known, read bounded when not (/dev/zero, a pipe).
        too_big = os.fstat(f.fileno()).st_size > MAX_GCG_BYTES
        data = b"" if too_big else f.read(MAX_GCG_BYTES + 1)
    if too_big or len(data) > MAX_GCG_BYTES:
        raise GcgError(0, f"larger than {MAX_GCG_BYTES // 1_000_000} MB: not a GCG record "
                          "(a whole game is a few kB)")
    text, warnings = decode_gcg(data)
    rec = parse_gcg(text)
    rec.warnings[:0] = warnings
    return rec


def parse_gcg(text: str) -> GcgRecord:
    """Parse GCG text into a record; syntax only (``replay`` checks it against the rules)."""
    rec = GcgRecord()
    continues: str | None = None  # the pragma a bare line continues
    # Lines end at \n, \r\n or \r only (not at the other characters str.splitlines takes),
    # so line numbers are the ones an editor shows.
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    for n, raw in enumerate(lines, 1):
        line = raw.rstrip()
        if not line.strip():
            continue
        if _CONTROL.search(line):
            raise GcgError(n, "not a GCG line: it holds control characters (a binary file, not a "
                              "GCG record?)")
        if line.startswith("#"):
            continues = _pragma(rec, line, n)
        elif line.startswith(">"):
            if len(rec.players) < 2:
                raise GcgError(n, "an event before the players are declared: #player1 and "
                                  "#player2 come before the first move")
            if rec.racks:
                raise GcgError(n, "an event after #rack1/#rack2, which give the racks after the "
                                  "last event")
            rec.moves.append(_event(line, n))
            continues = None
        elif continues is not None:
            _continue(rec, continues, line)
        else:
            raise GcgError(n, f"not a GCG line (pragmata start with #, events with >): {line[:60]!r}")
    nicks = [p.nick for p in rec.players]
    if len(set(nicks)) != len(nicks):
        raise GcgError(0, "two players share a nickname")
    return rec


def _pragma(rec: GcgRecord, line: str, n: int) -> str | None:
    word, _, rest = line.partition(" ")
    key = word[1:]
    rest = rest.strip()
    if key == "character-encoding":
        if n != 1:
            raise GcgError(n, "#character-encoding must be the first line")
        _declared(line.strip())  # text handed in already decoded says what it was, too
        return None
    m = re.fullmatch(r"player([1-4])", key)
    if m:
        parts = rest.split(None, 1)
        if not parts:
            raise GcgError(n, f"#{key} needs a nickname")
        idx = int(m.group(1))
        if rec.moves:
            raise GcgError(n, f"#{key} after the first event: the players are declared before any move")
        if idx != len(rec.players) + 1:
            raise GcgError(n, f"#{key} out of order")
        rec.players.append(GcgPlayer(parts[0], parts[1] if len(parts) > 1 else parts[0]))
        return None
    if key == "note":
        # Only the one space after #note goes: a note's own indentation is its text (found by
        # the fuzz test: a continuation line starting with a space did not read back the same).
        rest = line[len(word) + 1:]
        if rec.moves:
            last = rec.moves[-1]
            note = rest if not last.note else last.note + "\n" + rest
            rec.moves[-1] = _with_note(last, note)
        else:
            rec.notes.append(rest)
        return "note"
    if key in ("title", "description", "lexicon"):
        setattr(rec, key, rest)
        return key
    if key == "id":
        rec.id = rest
        return None
    m = re.fullmatch(r"rack([1-4])", key)
    if m:
        rec.racks[int(m.group(1))] = rest
        rec.rack_lines[int(m.group(1))] = n
        return None
    rec.other.append(line)
    return None


def _with_note(m: GcgMove, note: str) -> GcgMove:
    return GcgMove(m.kind, m.nick, m.rack, m.position, m.word, m.score, m.total, note, m.line)


def _continue(rec: GcgRecord, key: str, line: str) -> None:
    if key == "note":
        if rec.moves:
            rec.moves[-1] = _with_note(rec.moves[-1], rec.moves[-1].note + "\n" + line)
        else:
            rec.notes[-1] += "\n" + line
    else:
        setattr(rec, key, getattr(rec, key) + "\n" + line)


def _is_count(word: str) -> bool:
    """An exchange written as how many tiles (``-3``): one or two ASCII digits."""
    return re.fullmatch(r"[0-9]{1,2}", word) is not None


def _points(token: str, digits: int, what: str, n: int) -> int:
    # Checked before int(): Python refuses to convert 4,300+ digits, and no game scores like that.
    if len(token.lstrip("+-")) > digits:
        raise GcgError(n, f"{what} {token[:12]}{'...' if len(token) > 12 else ''} is not a Scrabble "
                          f"score (at most {digits} digits)")
    return int(token)


def _event(line: str, n: int) -> GcgMove:
    m = _EVENT.match(line)
    if not m:
        raise GcgError(n, f"an event line must start '>nickname:': {line[:60]!r}")
    nick = m.group(1)
    tokens = (m.group(2) or "").split()
    if len(tokens) < 3 or not _SCORE.fullmatch(tokens[-2]) or not _TOTAL.fullmatch(tokens[-1]):
        raise GcgError(n, "an event line ends with a score (+N or -N) and the total")
    score = _points(tokens[-2], MAX_SCORE_DIGITS, "the score", n)
    total = _points(tokens[-1], MAX_TOTAL_DIGITS, "the total", n)
    mid = tokens[:-2]
    if len(mid) == 3:
        rack, pos, word = mid
        if score < 0:
            raise GcgError(n, "a play's score cannot be negative")
        try:
            Coordinate.parse(pos)
        except BadCoordinate as e:
            raise GcgError(n, str(e)) from None
        if len(word) > MAX_WORD:
            raise GcgError(n, f"the play's word has {len(word)} letters: a word on the 15x15 board "
                              f"has at most {MAX_WORD}")
        if not re.fullmatch(r"[^\W\d_.]*[.\w]*", word) or "_" in word or any(c.isdigit() for c in word):
            raise GcgError(n, f"{word!r} is not a played word")
        return GcgMove("play", nick, rack, pos, word, score, total, line=n)
    if len(mid) == 2:
        rack, x = mid
    elif len(mid) == 1:
        rack, x = "", mid[0]
    else:
        raise GcgError(n, f"cannot read this event: {line[:60]!r}")

    def expect(cond: bool, what: str) -> None:
        if not cond:
            raise GcgError(n, what)

    if x == "-":
        expect(score == 0, "a pass scores +0")
        return GcgMove("pass", nick, rack, score=0, total=total, line=n)
    if x == "--":
        expect(score <= 0, "a phony withdrawn is written with the points lost, -N")
        return GcgMove("phony", nick, rack, score=score, total=total, line=n)
    if x.startswith("-"):
        expect(score == 0, "an exchange scores +0")
        # The tiles thrown in, or how many (checked against the tile set by replay).
        expect(_is_count(x[1:]) or all(c.isalpha() or c == BLANK for c in x[1:]),
               f"an exchange gives the tiles thrown in or how many: {x[:20]!r}")
        return GcgMove("exchange", nick, rack, word=x[1:], score=0, total=total, line=n)
    if x == "(challenge)":
        expect(score >= 0, "a challenge bonus is +N")
        return GcgMove("challenge", nick, rack, score=score, total=total, line=n)
    if x == "(time)":
        expect(score <= 0, "a time penalty is -N")
        return GcgMove("time", nick, rack, score=score, total=total, line=n)
    if x.startswith("(") and x.endswith(")") and len(x) > 2:
        inner = x[1:-1]
        if rack:
            expect(score <= 0, "points lost for a rack are written -N")
            return GcgMove("rackpenalty", nick, rack, word=inner, score=score, total=total, line=n)
        expect(score >= 0, "end-of-game rack points are written +N")
        return GcgMove("endrack", nick, word=inner, score=score, total=total, line=n)
    raise GcgError(n, f"cannot read this event: {line[:60]!r}")


# --- writing ----------------------------------------------------------------------------------


def write_gcg(rec: GcgRecord) -> str:
    """The record as GCG text (UTF-8 declared), which :func:`parse_gcg` reads back unchanged."""
    out = ["#character-encoding UTF-8"]
    for i, p in enumerate(rec.players, 1):
        out.append(f"#player{i} {p.nick} {p.name}")
    for key in ("title", "description", "lexicon"):
        value = getattr(rec, key)
        if value:
            first, *more = value.split("\n")
            out.append(f"#{key} {first}".rstrip())
            out += more
    if rec.id:
        out.append(f"#id {rec.id}")
    out += rec.other
    for note in rec.notes:
        out += _note_lines(note)
    for m in rec.moves:
        out.append(m.text())
        if m.note:
            out += _note_lines(m.note)
    for i in sorted(rec.racks):
        out.append(f"#rack{i} {rec.racks[i]}")
    return "\n".join(out) + "\n"


def _note_lines(note: str) -> list[str]:
    return [f"#note {line}".rstrip() for line in note.split("\n")]


def record_from_game(game: Game, nicks: list[str] | None = None, lexicon: str = "",
                     title: str = "", description: str = "") -> GcgRecord:
    """The GCG record of a game played on the table (racks are unknown to the table: left blank)."""
    nicks = nicks or [re.sub(r"\s+", "_", p) or f"p{i + 1}" for i, p in enumerate(game.players)]
    rec = GcgRecord([GcgPlayer(n, name) for n, name in zip(nicks, game.players)],
                    title=title, description=description, lexicon=lexicon)
    g = Game(game.players, game.rules)
    n = len(game.players)
    owed: list[int] = []  # lost turns already taken (casual double challenge), not yet written

    def write_owed() -> None:
        # Written as passes once the challenges of the play before them are settled, so that
        # a reader sees them where the turn went by.
        rec.moves.extend(GcgMove("pass", nicks[q], total=g.state.scores[q]) for q in owed)
        owed.clear()

    for e in game.events:
        if isinstance(e, (PlayMade, Passed, Exchanged, EndRackPoints, RackPenalty)) or (
                isinstance(e, TurnLost) and e.player == g.state.turn):
            write_owed()
        before = g.state.last_play
        skip_before = set(g.state.skip)
        g.append(e)
        s = g.state
        p = getattr(e, "player", None)
        if p is None:
            continue
        nick, total = nicks[p], s.scores[p]
        if isinstance(e, TurnLost) and p in s.skip - skip_before:
            continue  # a lost turn still to come: written as a pass when the turn comes (below)
        if isinstance(e, PlayMade):
            assert s.last_play is not None
            sp = s.last_play.scored
            rec.moves.append(GcgMove("play", nick, "", str(sp.line.coordinate),
                                     _gcg_word(e, sp), sp.score, total))
        elif isinstance(e, Exchanged):
            rec.moves.append(GcgMove("exchange", nick, "", word=e.tiles or str(e.count), total=total))
        elif isinstance(e, PhonyWithdrawn):
            lost = before.scored.score if before else 0
            rec.moves.append(GcgMove("phony", nick, score=-lost, total=total))
        elif isinstance(e, ChallengeBonus):
            rec.moves.append(GcgMove("challenge", nick, score=e.points, total=total))
        elif isinstance(e, TimePenalty):
            rec.moves.append(GcgMove("time", nick, score=-e.points, total=total))
        elif isinstance(e, EndRackPoints):
            rec.moves.append(GcgMove("endrack", nick, word=e.rack, score=e.points, total=total))
        elif isinstance(e, RackPenalty):
            rec.moves.append(GcgMove("rackpenalty", nick, e.rack, word=e.rack, score=-e.points, total=total))
        elif isinstance(e, ScoreAdjusted):
            # GCG has no line for a director's adjustment: keep it as a note on the last event.
            note = f"director adjusted {game.players[p]}'s score by {e.points:+d}: {e.reason}"
            if rec.moves:
                last = rec.moves[-1]
                rec.moves[-1] = _with_note(last, f"{last.note}\n{note}" if last.note else note)
            else:
                rec.notes.append(note)
        elif isinstance(e, (Passed, TurnLost)):  # a lost turn is written as a pass
            rec.moves.append(GcgMove("pass", nick, total=total))
        # Lost turns taken as the turn came round (casual double challenge), in turn order.
        owed += sorted(skip_before - s.skip, key=lambda q: (q - p - 1) % n)
    write_owed()
    # The table never sees a rack: a play's rack is written as the tiles it used, other
    # events leave the rack out (the reader accepts both).
    rec.moves = [_fill_rack(m) for m in rec.moves]
    return rec


def _gcg_word(e: PlayMade, sp) -> str:  # type: ignore[no-untyped-def]
    new = {p.square: p.tile for p in sp.placements}
    return "".join(new.get(sq, ".") for sq in sp.line.squares())


def _fill_rack(m: GcgMove) -> GcgMove:
    if m.kind == "play" and not m.rack:
        tiles = "".join(sorted(BLANK if c.islower() else c for c in m.word if c != "."))
        return GcgMove(m.kind, m.nick, tiles, m.position, m.word, m.score, m.total, m.note, m.line)
    return m


# --- replaying --------------------------------------------------------------------------------


@dataclass(frozen=True)
class ReplayLine:
    line: int
    text: str
    player: int
    kind: str
    score: int | None
    recorded_score: int
    total: int | None
    recorded_total: int
    message: str = ""

    @property
    def agrees(self) -> bool:
        return self.score == self.recorded_score and self.total == self.recorded_total


@dataclass
class ReplayReport:
    record: GcgRecord
    tiles: TileSet
    lines: list[ReplayLine]
    game: Game
    error: GcgError | None = None
    warnings: list[str] = field(default_factory=list)

    @property
    def moves(self) -> int:
        return len(self.record.moves)

    @property
    def agree(self) -> int:
        return sum(1 for r in self.lines if r.agrees)

    @property
    def ok(self) -> bool:
        return self.error is None and self.agree == self.moves

    @property
    def recorded_final(self) -> list[int]:
        finals = [0] * len(self.game.players)
        nicks = [p.nick for p in self.record.players]
        for m in self.record.moves:
            if m.nick in nicks:
                finals[nicks.index(m.nick)] = m.total
        return finals

    @property
    def complete(self) -> bool:
        return self.game.state.over

    def first_disagreement(self) -> ReplayLine | None:
        return next((r for r in self.lines if not r.agrees), None)


def guess_tiles(rec: GcgRecord) -> TileSet:
    """The tile set a record was played with: English unless its letters need another."""
    if rec.lexicon.upper().startswith("OSPS"):
        return TILE_SETS["polish"]
    letters = {c.upper() for m in rec.moves for c in (m.rack + m.word) if c.isalpha()}
    for ts in TILE_SETS.values():
        if letters <= set(ts.letters):
            return ts
    return ENGLISH


def replay(rec: GcgRecord, tiles: TileSet | None = None) -> ReplayReport:
    """Replay every event through the engine, checking each score and running total.

    An event the rules forbid (tiles off the board or on occupied squares, more tiles than the
    set has, out of turn), or a rack the record could not have had (not spelt from the tile set,
    not in the bag given the tiles already seen, missing the tiles played or exchanged), stops the
    replay with ``error`` set; a score that differs is recorded in the line and the replay goes on
    with the engine's own score.
    """
    tiles = tiles or guess_tiles(rec)
    players = list(rec.players)
    warnings = list(rec.warnings)
    nicks = [p.nick for p in players]
    rules = GameRules(tiles=tiles, tournament=len(players) == 2)
    report = ReplayReport(rec, tiles, [], Game.__new__(Game), warnings=warnings)
    try:
        if len(players) < 2:
            raise ValueError(f"the record declares {len(players)} player(s): a game needs 2 to 4 players, "
                             "declared with #player1, #player2... before the first move")
        game = Game([p.name for p in players], rules)
    except ValueError as e:
        report.error = GcgError(0, str(e))
        report.game = Game(["player 1", "player 2"], GameRules(tiles=tiles))
        return report
    report.game = game
    book = _Racks(game)
    for m in rec.moves:
        if m.nick not in nicks:
            report.error = GcgError(m.line, f"{m.nick!r} is not one of the players ({', '.join(nicks)})")
            break
        p = nicks.index(m.nick)
        try:
            book.before(p, m)
            event, computed, message = _event_for(game, p, m, tiles)
            before = game.state.scores[p]
            game.append(event)
            if computed is None:
                computed = game.state.scores[p] - before
            book.after(p, m)
        except GcgError as e:
            report.error = e
            break
        except (IllegalEvent, IllegalPlay, BadCoordinate) as e:
            report.error = GcgError(m.line, str(e))
            break
        report.lines.append(ReplayLine(m.line, m.text(), p, m.kind, computed, m.score,
                                       game.state.scores[p], m.total, message))
    if report.error is None:
        try:
            book.last_racks(rec)
        except GcgError as e:
            report.error = e
    return report


class _Racks:
    """What a record says about the racks, checked against the tile set and the tiles seen.

    A rack must be spelt from the set's tiles (capitals, ``?`` for a blank), hold no more tiles
    than the player has, and fit in the bag: with the tiles on the board, no tile may appear more
    often than the set has it. The racks lost at a six-scoreless ending are held at the same
    moment, so together they must fit too. Racks may be partial or left out (the
    table never sees them, and real records often give only the tiles played): a player's next
    rack is not checked against what they kept.
    """

    def __init__(self, game: Game) -> None:
        self.game = game
        n = len(game.players)
        self.left: list[Counter[str]] = [Counter() for _ in range(n)]  # racks left at the end
        self.since: list[int] = [0] * n  # the line that gave each
        self.played: dict[int, tuple[int, str, Counter[str]]] = {}  # last play: line, rack, tiles

    @property
    def tiles(self) -> TileSet:
        return self.game.rules.tiles

    def spelt(self, rack: str, line: int, what: str = "rack", limit: int | None = None) -> Counter[str]:
        """The tiles a rack spells, or GcgError saying why it is not a rack of this set."""
        limit = self.game.rules.rack_size if limit is None else limit
        bad = sorted({c for c in rack if c != BLANK and not self.tiles.is_letter(c)})
        if bad:
            shown = ", ".join(repr(c) for c in bad[:5])
            raise GcgError(line, f"{what} {rack[:20]} is malformed: {shown} {'is' if len(bad) == 1 else 'are'} "
                                 f"not a tile of the {self.tiles.name} set (a rack is written in "
                                 f"capitals, ? for a blank)")
        if len(rack) > limit:
            raise GcgError(line, f"{what} {rack[:20]} holds {len(rack)} tiles: a rack holds at most {limit}")
        return Counter(rack)

    def possible(self, p: int, rack: str, held: Counter[str], line: int, at_end: bool = False) -> None:
        """GcgError unless player ``p`` can hold ``held`` now (at the end: beside the others' racks)."""
        s = self.game.state
        name = self.game.players[p]
        count = sum(held.values())
        if count > s.racks[p]:
            raise GcgError(line, f"rack {rack} has {count} tiles, but {name} holds {s.racks[p]} now")
        unseen = s.unseen
        others = [q for q in range(len(self.left)) if q != p and self.left[q]] if at_end else []
        free = unseen - sum((self.left[q] for q in others), Counter())
        short = held - free
        if short:
            t = min(short)
            full = self.tiles.count(t)
            where = [f"{full - unseen[t]} on the board"] if full - unseen[t] else []
            where += [f"{self.left[q][t]} on {self.game.players[q]}'s rack (line {self.since[q]})"
                      for q in others if self.left[q][t]]
            what = "blank" if t == BLANK else t
            raise GcgError(line, f"rack {rack} cannot have come from the bag: it holds {held[t]} {what}, "
                                 f"but the set has {full}" + (f", {', '.join(where)}" if where else ""))

    def before(self, p: int, m: GcgMove) -> None:
        """Checks on the event's racks against the state before it is applied."""
        s = self.game.state
        held = self.spelt(m.rack, m.line)
        if m.kind in ("play", "pass", "exchange") and m.rack:
            self.possible(p, m.rack, held, m.line)
        elif m.kind == "challenge" and m.rack and m.rack != self.played.get(p, (0, ""))[1]:
            # The rack after the draw (as Macondo writes it; the state has drawn), unless the
            # line repeats the rack of the play challenged, as some programs write it.
            self.possible(p, m.rack, held, m.line)
        if m.kind == "play" and m.rack:
            play = Play(Coordinate.parse(m.position), m.word)
            placed = Counter(BLANK if t.is_blank else t.tile for t in play.placements(s.board, self.tiles))
            missing = placed - held
            if missing:
                raise GcgError(m.line, f"tiles played are not on the rack {m.rack}: "
                                       f"{''.join(sorted(missing.elements()))}")
        elif m.kind == "exchange" and not _is_count(m.word):
            thrown = self.spelt(m.word, m.line, "the exchange of")
            missing = thrown - held
            if m.rack and missing:
                raise GcgError(m.line, f"tiles exchanged are not on the rack {m.rack}: "
                                       f"{''.join(sorted(missing.elements()))}")
        elif m.kind == "rackpenalty":
            left = self.spelt(m.word, m.line, "the rack in ( )")
            if m.rack and held != left:
                raise GcgError(m.line, f"the rack {m.rack} and the rack in ( ), {m.word}, differ")
            self.possible(p, m.word, left, m.line, at_end=True)
        elif m.kind == "endrack":
            # Everyone else's tiles: up to a rack from each other player.
            self.spelt(m.word, m.line, "the rack in ( )", self.game.rules.rack_size * (len(self.left) - 1))

    def after(self, p: int, m: GcgMove) -> None:
        """Checks that need the state after the event, and what it tells of the racks."""
        s = self.game.state
        if m.kind == "play":
            assert s.last_play is not None
            placed = Counter(BLANK if t.is_blank else t.tile for t in s.last_play.scored.placements)
            self.played[p] = (m.line, m.rack, placed)
        elif m.kind == "phony":
            line, rack, _ = self.played.pop(p, (0, "", Counter()))
            if m.rack:
                # The tiles go back to the rack they came from: the line shows that same rack.
                held = Counter(m.rack)
                if rack and held != Counter(rack):
                    raise GcgError(m.line, f"the tiles taken back ({m.rack}) are not the rack of the "
                                           f"play they withdraw ({rack}, line {line})")
                self.possible(p, m.rack, held, m.line)
        elif m.kind == "rackpenalty":
            self.left[p], self.since[p] = Counter(m.word), m.line

    def last_racks(self, rec: GcgRecord) -> None:
        """#rack1, #rack2...: the racks after the last event, each one possible.

        Not checked against each other: programs write them loosely (Elise's records, among the
        shared ones, give two racks that together hold more A tiles than are left).
        """
        for i in sorted(rec.racks):
            line, rack = rec.rack_lines.get(i, 0), rec.racks[i]
            if i > len(self.left):
                raise GcgError(line, f"#rack{i}, but the record has {len(self.left)} players")
            self.possible(i - 1, rack, self.spelt(rack, line), line)


def _event_for(game: Game, p: int, m: GcgMove, tiles: TileSet) -> tuple[Event, int | None, str]:
    s = game.state
    if m.kind == "play":
        return PlayMade(p, Play(Coordinate.parse(m.position), m.word)), None, ""
    if m.kind == "pass":
        return Passed(p), None, ""
    if m.kind == "exchange":
        w = m.word
        if _is_count(w):
            return Exchanged(p, int(w)), None, ""
        return Exchanged(p, len(w), w), None, ""
    if m.kind == "phony":
        return PhonyWithdrawn(p), None, ""
    if m.kind == "challenge":
        return ChallengeBonus(p, m.score), None, ""
    if m.kind == "time":
        return TimePenalty(p, -m.score), None, ""
    if m.kind == "endrack":
        if s.going_out is None:
            raise IllegalEvent("end-of-game rack points, but nobody has gone out")
        unseen = s.unseen
        value = tiles.rack_value(unseen.elements())
        points = 2 * value if game.rules.tournament else value
        rack = "".join(sorted(unseen.elements()))
        if p == s.going_out and Counter(m.word) != unseen:  # (another player: the engine says no)
            raise IllegalEvent(f"the rack in ( ), {m.word}, is not the tiles left on the other "
                               f"racks: {rack}")
        return EndRackPoints(p, rack, points), points, ""
    if m.kind == "rackpenalty":
        value = tiles.rack_value(m.word)  # spelt from the set: checked by _Racks.before
        return RackPenalty(p, m.word, value), -value, ""
    raise IllegalEvent(f"unknown event kind {m.kind}")  # pragma: no cover
