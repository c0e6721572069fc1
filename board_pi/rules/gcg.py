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
    moves: list[GcgMove] = field(default_factory=list)
    other: list[str] = field(default_factory=list)  # pragmata we keep but do not interpret
    warnings: list[str] = field(default_factory=list)

    def same_game(self, other: "GcgRecord") -> bool:
        """Equal players, pragmata and events (warnings and line numbers aside)."""
        keys = ("players", "title", "description", "id", "lexicon", "notes", "racks", "moves", "other")
        return all(getattr(self, k) == getattr(other, k) for k in keys)


# --- reading ----------------------------------------------------------------------------------

_ENCODING = re.compile(r"#character-encoding\s+(\S+)")
_EVENT = re.compile(r">(\S+):(?:\s+(.*))?$")
_SCORE = re.compile(r"[+-]\d+")
_TOTAL = re.compile(r"-?\d+")


def decode_gcg(data: bytes) -> tuple[str, list[str]]:
    """Bytes to text: the declared encoding, else UTF-8, else ISO 8859-1 (the spec's default)."""
    warnings: list[str] = []
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8):]
    first = data.split(b"\n", 1)[0].decode("ascii", "replace").strip()
    m = _ENCODING.fullmatch(first)
    if m:
        enc = m.group(1)
        try:
            return data.decode(enc), warnings
        except LookupError:
            warnings.append(f"unknown character encoding {enc!r}; read as UTF-8")
        except UnicodeDecodeError:
            warnings.append(f"the file is not valid {enc}; read as UTF-8")
    try:
        return data.decode("utf-8"), warnings
    except UnicodeDecodeError:
        if m:
            warnings.append("not valid UTF-8 either; read as ISO 8859-1")
        return data.decode("latin-1"), warnings


def read_gcg(path: str) -> GcgRecord:
    """Read a GCG file (raises OSError, GcgError)."""
    with open(path, "rb") as f:
        data = f.read()
    text, warnings = decode_gcg(data)
    rec = parse_gcg(text)
    rec.warnings[:0] = warnings
    return rec


def parse_gcg(text: str) -> GcgRecord:
    """Parse GCG text into a record; syntax only (``replay`` checks it against the rules)."""
    rec = GcgRecord()
    continues: str | None = None  # the pragma a bare line continues
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.rstrip("\r\n").rstrip()
        if not line.strip():
            continue
        if line.startswith("#"):
            continues = _pragma(rec, line, n)
        elif line.startswith(">"):
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
        return None
    m = re.fullmatch(r"player([1-4])", key)
    if m:
        parts = rest.split(None, 1)
        if not parts:
            raise GcgError(n, f"#{key} needs a nickname")
        idx = int(m.group(1))
        if idx != len(rec.players) + 1:
            raise GcgError(n, f"#{key} out of order")
        rec.players.append(GcgPlayer(parts[0], parts[1] if len(parts) > 1 else parts[0]))
        return None
    if key == "note":
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


def _event(line: str, n: int) -> GcgMove:
    m = _EVENT.match(line)
    if not m:
        raise GcgError(n, f"an event line must start '>nickname:': {line[:60]!r}")
    nick = m.group(1)
    tokens = (m.group(2) or "").split()
    if len(tokens) < 3 or not _SCORE.fullmatch(tokens[-2]) or not _TOTAL.fullmatch(tokens[-1]):
        raise GcgError(n, "an event line ends with a score (+N or -N) and the total")
    score, total = int(tokens[-2]), int(tokens[-1])
    mid = tokens[:-2]
    if len(mid) == 3:
        rack, pos, word = mid
        if score < 0:
            raise GcgError(n, "a play's score cannot be negative")
        try:
            Coordinate.parse(pos)
        except BadCoordinate as e:
            raise GcgError(n, str(e)) from None
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
    set has, out of turn) stops the replay with ``error`` set; a score that differs is recorded
    in the line and the replay goes on with the engine's own score.
    """
    tiles = tiles or guess_tiles(rec)
    players = list(rec.players)
    warnings = list(rec.warnings)
    if len(players) < 2:  # no #player pragmata: name the players in order of appearance
        for m in rec.moves:
            if m.nick not in [p.nick for p in players]:
                players.append(GcgPlayer(m.nick, m.nick))
        if len(players) >= 2:
            warnings.append("no #player1/#player2 pragmata: players taken from the events")
    nicks = [p.nick for p in players]
    rules = GameRules(tiles=tiles, tournament=len(players) == 2)
    report = ReplayReport(rec, tiles, [], Game.__new__(Game), warnings=warnings)
    try:
        game = Game([p.name for p in players], rules)
    except ValueError as e:
        report.error = GcgError(0, str(e))
        report.game = Game(["player 1", "player 2"], GameRules(tiles=tiles))
        return report
    report.game = game
    for m in rec.moves:
        if m.nick not in nicks:
            report.error = GcgError(m.line, f"{m.nick!r} is not one of the players ({', '.join(nicks)})")
            break
        p = nicks.index(m.nick)
        try:
            event, computed, message = _event_for(game, p, m, tiles)
            before = game.state.scores[p]
            game.append(event)
            if computed is None:
                computed = game.state.scores[p] - before
        except (IllegalEvent, IllegalPlay, BadCoordinate) as e:
            report.error = GcgError(m.line, str(e))
            break
        report.lines.append(ReplayLine(m.line, m.text(), p, m.kind, computed, m.score,
                                       game.state.scores[p], m.total, message))
    return report


def _event_for(game: Game, p: int, m: GcgMove, tiles: TileSet) -> tuple[Event, int | None, str]:
    s = game.state
    if m.kind == "play":
        play = Play(Coordinate.parse(m.position), m.word)
        message = ""
        placed = Counter(BLANK if t.is_blank else t.tile for t in play.placements(s.board, tiles))
        if m.rack and placed - Counter(m.rack.upper()):
            message = "tiles played are not all on the recorded rack"
        return PlayMade(p, play), None, message
    if m.kind == "pass":
        return Passed(p), None, ""
    if m.kind == "exchange":
        w = m.word
        if w.isdigit():
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
        message = ""
        if Counter(m.word.upper()) != unseen:
            message = f"the record's rack ({m.word}) differs from the unseen tiles ({rack})"
        return EndRackPoints(p, rack, points), points, message
    if m.kind == "rackpenalty":
        rack = m.word
        extra = Counter(rack.upper()) - s.unseen
        if extra:
            raise IllegalEvent(f"rack {rack} holds tiles that are not unseen: {''.join(extra.elements())}")
        value = tiles.rack_value(c.upper() if c != BLANK else c for c in rack)
        return RackPenalty(p, rack, value), -value, ""
    raise IllegalEvent(f"unknown event kind {m.kind}")  # pragma: no cover
