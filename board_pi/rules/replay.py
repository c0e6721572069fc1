"""A GCG record replayed through the rules engine: every recorded score checked, the game rebuilt.

>>> from board_pi.rules.gcg import parse_gcg
>>> rec = parse_gcg('#player1 ann Ann\\n#player2 bob Bob\\n>ann: DINNVWY 8D WINDY +32 32\\n')
>>> replay(rec).agree
1

Records in other languages name their tile set with ``#tile-distribution``; a multi-letter tile
is written in brackets:

>>> rec = parse_gcg('#character-encoding UTF-8\\n#tile-distribution spanish\\n#player1 a A\\n'
...                 '#player2 b B\\n>a: [CH]AORR? 8G [CH]A[RR]O +30 30\\n')
>>> report = replay(rec)
>>> report.tiles.name, report.agree, report.game.state.board.cells()[7][6:10]
('spanish', 1, ['CH', 'A', 'RR', 'O'])
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from .board import BadCoordinate, Coordinate
from .game import Game, GameRules, IllegalEvent
from .events import (ChallengeBonus, EndRackPoints, Event, Exchanged, Passed, PhonyWithdrawn, PlayMade,
                     RackPenalty, TimePenalty)
from .gcg import GcgError, GcgMove, GcgRecord, MoveKind, is_count
from .play import IllegalPlay, Play
from .tiles import BLANK, ENGLISH, TILE_SETS, BadTiles, TileSet, tile_set



@dataclass(frozen=True)
class ReplayLine:
    line: int
    text: str
    player: int
    kind: MoveKind
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


# Lexicon names that say which tile set a record was played with when it does not say so itself.
_LEXICON_SETS = (("OSPS", "polish"), ("FISE", "spanish"), ("RD", "german"), ("ODS", "french"))


def guess_tiles(rec: GcgRecord) -> TileSet:
    """The tile set a record was played with: the one its ``#tile-distribution`` names, else
    the one its lexicon's name implies, else the first set that spells all its racks and words
    (English for A-Z).

    >>> from board_pi.rules.gcg import parse_gcg
    >>> guess_tiles(parse_gcg('#player1 a A\\n#player2 b B\\n>a: BELÜ 8E ÜBEL +24 24\\n')).name
    'german'
    """
    if rec.tile_distribution:
        return tile_set(rec.tile_distribution)
    lexicon = rec.lexicon.upper()
    for prefix, name in _LEXICON_SETS:
        if lexicon.startswith(prefix) and name in TILE_SETS:
            return TILE_SETS[name]
    texts = [(m.rack, BLANK) for m in rec.moves] + [
        (m.word, "." if m.kind is MoveKind.PLAY else BLANK) for m in rec.moves
        if m.kind in (MoveKind.PLAY, MoveKind.ENDRACK, MoveKind.RACKPENALTY)
        or (m.kind is MoveKind.EXCHANGE and not is_count(m.word))]
    for ts in TILE_SETS.values():
        try:
            for text, extra in texts:
                ts.tokenize(text, extra)
        except BadTiles:
            continue
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
    warnings = list(rec.warnings)
    if tiles is not None and rec.tile_distribution and tiles.name != rec.tile_distribution:
        warnings.append(f"the record names the {rec.tile_distribution} tile set; replayed with "
                        f"{tiles.name} as asked")
    tiles = tiles or guess_tiles(rec)
    players = list(rec.players)
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
        try:
            tiles = self.tiles.rack(rack)
        except BadTiles:
            tiles = ()
        bad = [t for t in tiles if t != BLANK and not self.tiles.is_letter(t)]  # lower case
        if not tiles and rack or bad:
            chars = sorted(set(bad)) or sorted({c for c in rack if c not in "[]" and c != BLANK
                                                and not self.tiles.is_letter(c)}) or [rack[:20]]
            shown = ", ".join(repr(c) for c in chars[:5])
            multi = self.tiles.multi_letter
            raise GcgError(line, f"{what} {rack[:20]} is malformed: {shown} {'is' if len(chars) == 1 else 'are'} "
                                 f"not a tile of the {self.tiles.name} set (a rack is written in "
                                 f"capitals, ? for a blank" + (f", [{multi[0]}] for a two-letter tile)" if multi else ")"))
        if len(tiles) > limit:
            raise GcgError(line, f"{what} {rack[:20]} holds {len(tiles)} tiles: a rack holds at most {limit}")
        return Counter(tiles)

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
        if m.kind in (MoveKind.PLAY, MoveKind.PASS, MoveKind.EXCHANGE) and m.rack:
            self.possible(p, m.rack, held, m.line)
        elif m.kind is MoveKind.CHALLENGE and m.rack and m.rack != self.played.get(p, (0, ""))[1]:
            # The rack after the draw (as Macondo writes it; the state has drawn), unless the
            # line repeats the rack of the play challenged, as some programs write it.
            self.possible(p, m.rack, held, m.line)
        if m.kind is MoveKind.PLAY and m.rack:
            play = Play(Coordinate.parse(m.position), m.word)
            placed = Counter(BLANK if t.is_blank else t.tile for t in play.placements(s.board, self.tiles))
            missing = placed - held
            if missing:
                raise GcgError(m.line, f"tiles played are not on the rack {m.rack}: "
                                       f"{self.tiles.write(self.tiles.sort(missing.elements()))}")
        elif m.kind is MoveKind.EXCHANGE and not is_count(m.word):
            thrown = self.spelt(m.word, m.line, "the exchange of")
            missing = thrown - held
            if m.rack and missing:
                raise GcgError(m.line, f"tiles exchanged are not on the rack {m.rack}: "
                                       f"{self.tiles.write(self.tiles.sort(missing.elements()))}")
        elif m.kind is MoveKind.RACKPENALTY:
            left = self.spelt(m.word, m.line, "the rack in ( )")
            if m.rack and held != left:
                raise GcgError(m.line, f"the rack {m.rack} and the rack in ( ), {m.word}, differ")
            self.possible(p, m.word, left, m.line, at_end=True)
        elif m.kind is MoveKind.ENDRACK:
            # Everyone else's tiles: up to a rack from each other player.
            self.spelt(m.word, m.line, "the rack in ( )", self.game.rules.rack_size * (len(self.left) - 1))

    def after(self, p: int, m: GcgMove) -> None:
        """Checks that need the state after the event, and what it tells of the racks."""
        s = self.game.state
        if m.kind is MoveKind.PLAY:
            assert s.last_play is not None
            placed = Counter(BLANK if t.is_blank else t.tile for t in s.last_play.scored.placements)
            self.played[p] = (m.line, m.rack, placed)
        elif m.kind is MoveKind.PHONY:
            line, rack, _ = self.played.pop(p, (0, "", Counter()))
            if m.rack:
                # The tiles go back to the rack they came from: the line shows that same rack.
                held = self.spelt(m.rack, m.line)
                if rack and held != self.spelt(rack, m.line):
                    raise GcgError(m.line, f"the tiles taken back ({m.rack}) are not the rack of the "
                                           f"play they withdraw ({rack}, line {line})")
                self.possible(p, m.rack, held, m.line)
        elif m.kind is MoveKind.RACKPENALTY:
            self.left[p], self.since[p] = self.spelt(m.word, m.line, "the rack in ( )"), m.line

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
    if m.kind is MoveKind.PLAY:
        return PlayMade(p, Play(Coordinate.parse(m.position), m.word)), None, ""
    if m.kind is MoveKind.PASS:
        return Passed(p), None, ""
    if m.kind is MoveKind.EXCHANGE:
        w = m.word
        if is_count(w):
            return Exchanged(p, int(w)), None, ""
        try:
            return Exchanged(p, len(tiles.rack(w)), w), None, ""
        except BadTiles as e:
            raise GcgError(m.line, f"the exchange of {e}") from None
    if m.kind is MoveKind.PHONY:
        return PhonyWithdrawn(p), None, ""
    if m.kind is MoveKind.CHALLENGE:
        return ChallengeBonus(p, m.score), None, ""
    if m.kind is MoveKind.TIME:
        return TimePenalty(p, -m.score), None, ""
    if m.kind is MoveKind.ENDRACK:
        if s.going_out is None:
            raise IllegalEvent("end-of-game rack points, but nobody has gone out")
        unseen = s.unseen
        value = tiles.rack_value(unseen.elements())
        points = 2 * value if game.rules.tournament else value
        rack = tiles.write(tiles.sort(unseen.elements()))
        try:
            left = Counter(tiles.rack(m.word))
        except BadTiles as e:
            raise GcgError(m.line, f"the rack in ( ): {e}") from None
        if p == s.going_out and left != unseen:  # (another player: the engine says no)
            raise IllegalEvent(f"the rack in ( ), {m.word}, is not the tiles left on the other "
                               f"racks: {rack}")
        return EndRackPoints(p, rack, points), points, ""
    if m.kind is MoveKind.RACKPENALTY:
        value = tiles.rack_value(m.word)  # spelt from the set: checked by _Racks.before
        return RackPenalty(p, m.word, value), -value, ""
    raise IllegalEvent(f"unknown event kind {m.kind}")  # pragma: no cover
