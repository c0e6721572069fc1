"""GCG game records: read and written (replayed through the rules engine by :mod:`.replay`).

GCG is the score-sheet format of the tournament world (poslfit.com's spec, used by Quackle,
Macondo and the online servers). Pragmata start with ``#``, events with ``>``:

>>> rec = parse_gcg('#player1 ann Ann\\n#player2 bob Bob\\n>ann: DINNVWY 8D WINDY +32 32\\n')
>>> rec.moves[0].kind, rec.moves[0].position, rec.moves[0].score
(<MoveKind.PLAY: 'play'>, '8D', 32)

Records in other languages name their tile set with ``#tile-distribution`` (Macondo's pragma)
and are written in UTF-8; a multi-letter tile is written in brackets, ``[CH]``:

>>> rec = parse_gcg('#character-encoding UTF-8\\n#tile-distribution spanish\\n#player1 a A\\n'
...                 '#player2 b B\\n>a: [CH]AORR? 8G [CH]A[RR]O +30 30\\n')
>>> rec.tile_distribution, rec.moves[0].word
('spanish', '[CH]A[RR]O')
"""

from __future__ import annotations

import codecs
import enum
import os
import re
from collections import Counter
from dataclasses import dataclass, field

from .board import BadCoordinate, Coordinate, split_row
from .game import Game
from .events import (ChallengeBonus, EndRackPoints, Exchanged, Passed, PhonyWithdrawn, PlayMade, RackPenalty,
                     ScoreAdjusted, TimePenalty, TurnLost)
from .scoring import ScoredPlay
from .tiles import BLANK, TILE_SETS, BadTiles, TileSet, UnknownTileSet, tile_set


class MoveKind(enum.StrEnum):
    """The kinds of GCG event line (a ``str``, so it compares and prints as its name)."""

    PLAY = "play"                # >ann: RACK 8D WORD +N T
    PASS = "pass"                # >ann: RACK - +0 T
    EXCHANGE = "exchange"        # >ann: RACK -TILES +0 T   (or -N: how many)
    PHONY = "phony"              # >ann: RACK -- -N T       (the last play withdrawn)
    CHALLENGE = "challenge"      # >ann: RACK (challenge) +N T
    ENDRACK = "endrack"          # >ann: (RACK) +N T        (the others' tiles, to who went out)
    RACKPENALTY = "rackpenalty"  # >ann: RACK (RACK) -N T   (own rack lost)
    TIME = "time"                # >ann: RACK (time) -N T


KINDS = tuple(MoveKind)


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

    kind: MoveKind
    nick: str
    rack: str = ""
    position: str = ""
    word: str = ""  # the play's word, or the tiles (or count) exchanged, or the rack in ( )
    score: int = 0
    total: int = 0
    note: str = ""
    line: int = field(default=0, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", MoveKind(self.kind))  # "play" -> MoveKind.PLAY

    def text(self) -> str:
        """The event as a GCG line."""
        r = self.rack
        body = {
            MoveKind.PLAY: f"{r} {self.position} {self.word} +{self.score}",
            MoveKind.PASS: f"{r} - +0",
            MoveKind.EXCHANGE: f"{r} -{self.word} +0",
            # Signed scores keep their sign when 0 (a rack of blanks, a phony of blanks):
            # the reader needs +N or -N.
            MoveKind.PHONY: f"{r} -- {self.score:+d}",
            MoveKind.CHALLENGE: f"{r} (challenge) +{self.score}",
            MoveKind.ENDRACK: f"({self.word}) +{self.score}",
            MoveKind.RACKPENALTY: f"{r} ({self.word}) {self.score:+d}",
            MoveKind.TIME: f"{r} (time) {self.score:+d}",
        }[self.kind]
        return f">{self.nick}: {body} {self.total}"


@dataclass
class GcgRecord:
    players: list[GcgPlayer] = field(default_factory=list)
    title: str = ""
    description: str = ""
    id: str = ""
    lexicon: str = ""
    tile_distribution: str = ""  # #tile-distribution: the tile set's name (Macondo's names)
    notes: list[str] = field(default_factory=list)  # notes before the first event
    racks: dict[int, str] = field(default_factory=dict)  # #rack1 / #rack2: racks after the last event
    rack_lines: dict[int, int] = field(default_factory=dict)  # where each #rackN was read
    moves: list[GcgMove] = field(default_factory=list)
    other: list[str] = field(default_factory=list)  # pragmata we keep but do not interpret
    warnings: list[str] = field(default_factory=list)

    def same_game(self, other: "GcgRecord") -> bool:
        """Equal players, pragmata and events (warnings and line numbers aside)."""
        keys = ("players", "title", "description", "id", "lexicon", "tile_distribution", "notes", "racks",
                "moves", "other")
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

    A declared encoding this reader does not read, or one the file is not valid in, is taken at
    its word only as far as the bytes allow: a file that is valid UTF-8 all the same (what most
    tools write, whatever their header says) is read as UTF-8 with a warning, so the game is
    replayed and the names can be checked; anything else is refused (GcgError naming the line),
    since guessing further would misread names and letters.

    >>> decode_gcg("#character-encoding ISO8859-6\\n#player1 c César\\n".encode())[1]
    ["line 1 declares 'ISO8859-6', which this reader does not read; the file is valid UTF-8 and was read as UTF-8: check the players' names"]
    """
    warnings: list[str] = []
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8):]
    elif data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        raise GcgError(1, "the file is UTF-16, which GCG records are not written in: save it as UTF-8")
    first = data.split(b"\n", 1)[0].decode("ascii", "replace").strip()
    try:
        codec = _declared(first)
    except UnsupportedEncoding as e:
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise e from None
        name = e.name if e.name.isprintable() else repr(e.name)[1:-1]
        return text, [f"line 1 declares {name!r}, which this reader does not read; the file is valid UTF-8 and "
                      "was read as UTF-8: check the players' names"]
    if codec:
        try:
            return data.decode(codec), warnings
        except UnicodeDecodeError as e:
            if codec != "utf-8":
                try:
                    return data.decode("utf-8"), [f"line 1 declares {ENCODINGS[codec]}, but the file is not valid "
                                                  f"{ENCODINGS[codec]}; it is valid UTF-8 and was read as UTF-8"]
                except UnicodeDecodeError:
                    pass
            raise GcgError(data[:e.start].count(b"\n") + 1,
                           f"not valid {ENCODINGS[codec]}, as line 1 declares (byte 0x{data[e.start]:02x})") from None
    try:
        return data.decode("utf-8"), warnings
    except UnicodeDecodeError:
        return data.decode("latin-1"), warnings


class UnsupportedEncoding(GcgError):
    """``#character-encoding`` names an encoding this reader does not read."""

    def __init__(self, name: str) -> None:
        self.name = name
        super().__init__(1, f"unsupported character encoding {name[:40]!r}: this reader reads "
                            f"{', '.join(ENCODINGS.values())}")


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
        raise UnsupportedEncoding(name)
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
    # decode_gcg's warning says more than parse_gcg's about an encoding it does not read
    rec.warnings[:] = warnings + [w for w in rec.warnings if not (warnings and w.startswith("line 1 declares"))]
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
            rec.moves.append(_event(line, n, TILE_SETS.get(rec.tile_distribution)))
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
        try:
            _declared(line.strip())  # a malformed pragma is refused all the same
        except UnsupportedEncoding as e:  # text is already decoded: the name no longer matters
            rec.warnings.append(f"line 1 declares {e.name[:40]!r}, which this reader does not read")
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
    if key == "tile-distribution":
        if rec.moves:
            raise GcgError(n, "#tile-distribution after the first event: the tile set is named before any move")
        if not rest or len(rest.split()) != 1:
            raise GcgError(n, "#tile-distribution takes one tile set name, such as german")
        try:
            rec.tile_distribution = tile_set(rest).name
        except UnknownTileSet as e:
            raise GcgError(n, str(e)) from None
        return None
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


def is_count(word: str) -> bool:
    """An exchange written as how many tiles (``-3``): one or two ASCII digits."""
    return re.fullmatch(r"[0-9]{1,2}", word) is not None


def _points(token: str, digits: int, what: str, n: int) -> int:
    # Checked before int(): Python refuses to convert 4,300+ digits, and no game scores like that.
    if len(token.lstrip("+-")) > digits:
        raise GcgError(n, f"{what} {token[:12]}{'...' if len(token) > 12 else ''} is not a Scrabble "
                          f"score (at most {digits} digits)")
    return int(token)


_BRACKETED = re.compile(r"(?:\[[^\[\]]+\]|[^\[\]])+")


def _tiles_text(text: str, allowed: str) -> bool:
    """Letters, ``[CH]`` tiles and the ``allowed`` characters (``.`` in a play, ``?`` in an
    exchange): the syntax of tiles in any set (replay checks them against the record's set)."""
    return bool(_BRACKETED.fullmatch(text)) and all(
        c.isalpha() or c in allowed for c in text if c not in "[]")


def _word_tiles(word: str, tiles: TileSet | None) -> int:
    """How many squares a play's word covers: by the record's tile set when it names one."""
    if tiles is not None:
        try:
            return len(tiles.tokenize(word, "."))
        except BadTiles:
            pass  # replay says which tile is wrong, with the line
    return len(split_row(word))


def _event(line: str, n: int, tiles: TileSet | None = None) -> GcgMove:
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
        if len(word) > 4 * MAX_WORD:  # before any other work on it: it may be huge
            raise GcgError(n, f"the play's word has {len(word)} characters: a word on the 15x15 board "
                              f"has at most {MAX_WORD} tiles")
        if not _tiles_text(word, "."):
            raise GcgError(n, f"{word!r} is not a played word (letters, [CH] for a two-letter tile, "
                              ". for a tile played through)")
        count = _word_tiles(word, tiles)
        if count > MAX_WORD:
            raise GcgError(n, f"the play's word has {count} letters: a word on the 15x15 board "
                              f"has at most {MAX_WORD}")
        return GcgMove(MoveKind.PLAY, nick, rack, pos, word, score, total, line=n)
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
        return GcgMove(MoveKind.PASS, nick, rack, score=0, total=total, line=n)
    if x == "--":
        expect(score <= 0, "a phony withdrawn is written with the points lost, -N")
        return GcgMove(MoveKind.PHONY, nick, rack, score=score, total=total, line=n)
    if x.startswith("-"):
        expect(score == 0, "an exchange scores +0")
        # The tiles thrown in, or how many (checked against the tile set by replay).
        expect(is_count(x[1:]) or _tiles_text(x[1:], BLANK),
               f"an exchange gives the tiles thrown in or how many: {x[:20]!r}")
        return GcgMove(MoveKind.EXCHANGE, nick, rack, word=x[1:], score=0, total=total, line=n)
    if x == "(challenge)":
        expect(score >= 0, "a challenge bonus is +N")
        return GcgMove(MoveKind.CHALLENGE, nick, rack, score=score, total=total, line=n)
    if x == "(time)":
        expect(score <= 0, "a time penalty is -N")
        return GcgMove(MoveKind.TIME, nick, rack, score=score, total=total, line=n)
    if x.startswith("(") and x.endswith(")") and len(x) > 2:
        inner = x[1:-1]
        if rack:
            expect(score <= 0, "points lost for a rack are written -N")
            return GcgMove(MoveKind.RACKPENALTY, nick, rack, word=inner, score=score, total=total, line=n)
        expect(score >= 0, "end-of-game rack points are written +N")
        return GcgMove(MoveKind.ENDRACK, nick, word=inner, score=score, total=total, line=n)
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
    if rec.tile_distribution:
        out.append(f"#tile-distribution {rec.tile_distribution}")
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
                    title=title, description=description, lexicon=lexicon,
                    # Named when it is a set a reader can look up (a custom set is not).
                    tile_distribution=game.rules.tiles.name
                    if TILE_SETS.get(game.rules.tiles.name) == game.rules.tiles else "")
    g = Game(game.players, game.rules)
    n = len(game.players)
    owed: list[int] = []  # lost turns already taken (casual double challenge), not yet written

    def write_owed() -> None:
        # Written as passes once the challenges of the play before them are settled, so that
        # a reader sees them where the turn went by.
        rec.moves.extend(GcgMove(MoveKind.PASS, nicks[q], total=g.state.scores[q]) for q in owed)
        owed.clear()

    for e in game.events:
        if isinstance(e, (PlayMade, Passed, Exchanged, EndRackPoints, RackPenalty)) or (
                isinstance(e, TurnLost) and e.player == g.state.turn):
            write_owed()
        before = g.state.last_play
        skip_before = Counter(g.state.skip)
        g.append(e)
        s = g.state
        p = getattr(e, "player", None)
        if p is None:
            continue
        nick, total = nicks[p], s.scores[p]
        if isinstance(e, TurnLost) and s.skip[p] > skip_before[p]:
            continue  # a lost turn still to come: written as a pass when the turn comes (below)
        if isinstance(e, PlayMade):
            assert s.last_play is not None
            sp = s.last_play.scored
            rec.moves.append(GcgMove(MoveKind.PLAY, nick, "", str(sp.line.coordinate),
                                     _gcg_word(sp, g.rules.tiles), sp.score, total))
        elif isinstance(e, Exchanged):
            rec.moves.append(GcgMove(MoveKind.EXCHANGE, nick, "", word=e.tiles or str(e.count), total=total))
        elif isinstance(e, PhonyWithdrawn):
            lost = before.scored.score if before else 0
            rec.moves.append(GcgMove(MoveKind.PHONY, nick, score=-lost, total=total))
        elif isinstance(e, ChallengeBonus):
            rec.moves.append(GcgMove(MoveKind.CHALLENGE, nick, score=e.points, total=total))
        elif isinstance(e, TimePenalty):
            rec.moves.append(GcgMove(MoveKind.TIME, nick, score=-e.points, total=total))
        elif isinstance(e, EndRackPoints):
            rec.moves.append(GcgMove(MoveKind.ENDRACK, nick, word=e.rack, score=e.points, total=total))
        elif isinstance(e, RackPenalty):
            rec.moves.append(GcgMove(MoveKind.RACKPENALTY, nick, e.rack, word=e.rack, score=-e.points, total=total))
        elif isinstance(e, ScoreAdjusted):
            # GCG has no line for a director's adjustment: keep it as a note on the last event.
            note = f"director adjusted {game.players[p]}'s score by {e.points:+d}: {e.reason}"
            if rec.moves:
                last = rec.moves[-1]
                rec.moves[-1] = _with_note(last, f"{last.note}\n{note}" if last.note else note)
            else:
                rec.notes.append(note)
        elif isinstance(e, (Passed, TurnLost)):  # a lost turn is written as a pass
            rec.moves.append(GcgMove(MoveKind.PASS, nick, total=total))
        # Lost turns taken as the turn came round (casual double challenge), in turn order.
        owed += sorted((skip_before - s.skip).elements(), key=lambda q: (q - p - 1) % n)
    write_owed()
    # The table never sees a rack: a play's rack is written as the tiles it used, other
    # events leave the rack out (the reader accepts both).
    rec.moves = [_fill_rack(m, game.rules.tiles) for m in rec.moves]
    return rec


def _gcg_word(sp: ScoredPlay, tiles: TileSet) -> str:
    new = {p.square: p.tile for p in sp.placements}
    return tiles.write([new.get(sq, ".") for sq in sp.line.squares()])


def _fill_rack(m: GcgMove, tiles: TileSet) -> GcgMove:
    if m.kind is MoveKind.PLAY and not m.rack:
        used = [TileSet.rack_tile(t) for t in tiles.tokenize(m.word, ".") if t != "."]
        return GcgMove(m.kind, m.nick, tiles.write(tiles.sort(used)), m.position, m.word, m.score,
                       m.total, m.note, m.line)
    return m
