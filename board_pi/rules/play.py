"""Plays: tiles placed on the board, written in standard notation, and checked against the rules.

A play is written as on a score sheet, ``8D QUITE``: the coordinate, then the main word with
``.`` for a tile already on the board (or that tile's letter) and lower case for a blank. The
word is read as the tile set's tiles (:meth:`TileSet.tokenize`), so a multi-letter tile is one
square: ``8H [CH]E`` or, in Spanish, ``8H CHE``.

>>> from board_pi.rules.board import Board
>>> from board_pi.rules.tiles import ENGLISH
>>> b = Board()
>>> tiles = Play.parse("8D QUITe").placements(b, ENGLISH)
>>> [str(t) for t in tiles]
['D8=Q', 'E8=U', 'F8=I', 'G8=T', 'H8=e']
>>> check_placements(b, tiles, ENGLISH).direction
<Direction.ACROSS: 'across'>
>>> from board_pi.rules.tiles import SPANISH
>>> [str(t) for t in Play.parse("8H CHIRRiO").placements(b, SPANISH)]
['H8=CH', 'I8=I', 'J8=RR', 'K8=i', 'L8=O']
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable, Sequence

from .board import EMPTY, BadCoordinate, Board, Coordinate, Direction, Square
from .tiles import BadTiles, TileSet


class IllegalPlay(ValueError):
    """A play that breaks the rules of placement; the message says which rule and where."""


@dataclass(frozen=True, order=True)
class Placement:
    """One tile put on one square: its face (``"Ä"``, ``"CH"``), in lower case for a blank."""

    square: Square
    tile: str

    @property
    def is_blank(self) -> bool:
        return self.tile != self.tile.upper()

    def __str__(self) -> str:
        return f"{self.square}={self.tile}"


@dataclass(frozen=True)
class Line:
    """The main line of a legal play: its direction and the span of its main word."""

    direction: Direction
    start: Square
    length: int

    def squares(self) -> list[Square]:
        return [self.start.step(self.direction, i) for i in range(self.length)]

    @property
    def coordinate(self) -> Coordinate:
        return Coordinate(self.start.row, self.start.col, self.direction)


@dataclass(frozen=True)
class Play:
    """A play in score-sheet notation: where it starts, which way, and the main word."""

    coordinate: Coordinate
    word: str

    @classmethod
    def parse(cls, text: str, size: int = 15) -> "Play":
        """Read ``"8D QUITE"`` or ``"D8 QUITE"``."""
        parts = text.split()
        if len(parts) != 2:
            raise IllegalPlay(f"{text!r} is not a play like '8D QUITE'")
        try:
            coord = Coordinate.parse(parts[0], size)
        except BadCoordinate as e:
            raise IllegalPlay(str(e)) from None
        return cls(coord, parts[1])

    def __str__(self) -> str:
        return f"{self.coordinate} {self.word}"

    def tiles(self, tiles: TileSet) -> tuple[str, ...]:
        """The word as the set's tiles, ``.`` for a square played through (IllegalPlay if not)."""
        try:
            return tiles.tokenize(self.word, EMPTY)
        except BadTiles as e:
            raise IllegalPlay(f"{self}: {e}") from None

    def placements(self, board: Board, tiles: TileSet) -> list[Placement]:
        """The new tiles this play puts down on ``board``.

        Each tile of the word lands on the next square along the line. A ``.`` must fall on
        a tile already there; a tile on an occupied square must match the tile there (some
        records spell played-through tiles out).
        """
        if not self.word:
            raise IllegalPlay("a play needs a word")
        d = self.coordinate.direction
        start = self.coordinate.square
        out: list[Placement] = []
        for i, tile in enumerate(self.tiles(tiles)):
            sq = start.step(d, i)
            if not sq.on_board(board.size):
                raise IllegalPlay(f"{self}: the word runs off the board at letter {i + 1}")
            there = board[sq]
            if tile == EMPTY:
                if there == EMPTY:
                    raise IllegalPlay(f"{self}: '.' at {sq} but there is no tile there to play through")
                continue
            if there != EMPTY:
                if there != tile and there.upper() != tile.upper():
                    raise IllegalPlay(f"{self}: {sq} already holds {there}, not {tile}")
                continue
            out.append(Placement(sq, tile))
        if not out:
            raise IllegalPlay(f"{self}: places no new tile")
        return out


def _run(board: Board, new: dict[Square, str], sq: Square, d: Direction) -> tuple[Square, int]:
    """The maximal run of tiles (old or new) through ``sq`` along ``d``: (first square, length)."""
    def filled(s: Square) -> bool:
        return s.on_board(board.size) and (s in new or board[s] != EMPTY)

    first = sq
    while filled(first.step(d, -1)):
        first = first.step(d, -1)
    n = 1
    while filled(first.step(d, n)):
        n += 1
    return first, n


def check_placements(board: Board, placements: Sequence[Placement], tiles: TileSet) -> Line:
    """Check new tiles against the placement rules; return the main line, or raise IllegalPlay.

    The rules: squares on the board and empty, each tile a letter of the set (or a blank played
    as one), all in one row or one column, one contiguous word through tiles already there, and
    touching a tile already on the board, or, for the first play, covering the start square
    with at least two tiles.
    """
    if not placements:
        raise IllegalPlay("no tiles placed")
    new: dict[Square, str] = {}
    for p in placements:
        if not p.square.on_board(board.size):
            raise IllegalPlay(f"square {p.square.row + 1},{p.square.col + 1} is off the board")
        if not isinstance(p.tile, str) or p.tile == "?" or not tiles.is_tile(p.tile):
            raise IllegalPlay(f"{p.tile!r} at {p.square} is not a letter of the {tiles.name} tile set "
                              "(a blank is placed as the letter it stands for, in lower case)")
        if board[p.square] != EMPTY:
            raise IllegalPlay(f"{p.square} is already occupied by {board[p.square]}")
        if p.square in new:
            raise IllegalPlay(f"two tiles placed on {p.square}")
        new[p.square] = p.tile
    squares = sorted(new)
    rows = {s.row for s in squares}
    cols = {s.col for s in squares}
    if len(rows) > 1 and len(cols) > 1:
        raise IllegalPlay("the new tiles are not all in one row or one column: "
                          + " ".join(str(s) for s in squares))
    if len(squares) == 1:
        # One tile: the main word runs the way that makes a word (across first, as scorers do).
        sq = squares[0]
        d = Direction.ACROSS if _run(board, new, sq, Direction.ACROSS)[1] > 1 else Direction.DOWN
    else:
        d = Direction.ACROSS if len(rows) == 1 else Direction.DOWN
    start, length = _run(board, new, squares[0], d)
    line = Line(d, start, length)
    span = set(line.squares())
    gaps = [s for s in squares if s not in span]
    if gaps:
        raise IllegalPlay(f"the word has a gap: {gaps[0]} is not joined to {squares[0]} by tiles")
    first_play = board.is_empty()
    if first_play:
        centre = board.layout.start
        if centre not in new:
            raise IllegalPlay(f"the first play must cover the centre square {centre}")
        if len(new) < 2:
            raise IllegalPlay("the first play must place at least two tiles")
    else:
        touches = any(
            board.occupied(s.step(dd, k)) for s in squares for dd in Direction for k in (-1, 1)
        )
        if not touches:
            raise IllegalPlay("the play does not touch any tile already on the board")
    return line


def play_notation(board: Board, placements: Sequence[Placement], tiles: TileSet) -> Play:
    """Write new tiles as a score-sheet play, with ``.`` for tiles played through.

    >>> from board_pi.rules.tiles import ENGLISH
    >>> b = Board(); b[Square.parse("H8")] = "A"
    >>> str(play_notation(b, [Placement(Square.parse("G8"), "Z")], ENGLISH))
    '8G Z.'
    """
    line = check_placements(board, placements, tiles)
    new = {p.square: p.tile for p in placements}
    return Play(line.coordinate, tiles.write([new.get(s, EMPTY) for s in line.squares()]))


def words_formed(board: Board, placements: Iterable[Placement], line: Line) -> list[list[Square]]:
    """Every word the play makes: the main word first, then each cross word of two or more tiles."""
    new = {p.square: p.tile for p in placements}
    words = [line.squares()] if line.length > 1 else []
    cross = line.direction.other
    for sq in sorted(new):
        first, n = _run(board, new, sq, cross)
        if n > 1:
            words.append([first.step(cross, i) for i in range(n)])
    return words


def is_one_play(board: Board, new: dict[Square, str], tiles: TileSet,
                acceptable: Callable[[list[str]], bool] | None = None) -> bool:
    """Whether new tiles (square -> tile; ``?`` a blank whose letter is not known yet) are one
    legal play on ``board``, and with ``acceptable`` (a word judge), one whose words it accepts;
    a word with a ``?`` in it is not judged.

    >>> from board_pi.rules.tiles import ENGLISH
    >>> b = Board(); b[Square(7, 7)] = "A"
    >>> is_one_play(b, {Square(7, 8): "T"}, ENGLISH), is_one_play(b, {Square(0, 0): "T"}, ENGLISH)
    (True, False)
    >>> judge = lambda words: all(w in {"AT"} for w in words)
    >>> is_one_play(b, {Square(7, 8): "T"}, ENGLISH, judge), is_one_play(b, {Square(7, 8): "X"}, ENGLISH, judge)
    (True, False)
    >>> is_one_play(b, {Square(7, 8): "?"}, ENGLISH, judge)  # A? is judged when its letter is known
    True
    """
    stand_in = [Placement(q, tiles.letters[0] if t == "?" else t) for q, t in new.items()]
    try:
        line = check_placements(board, stand_in, tiles)
    except IllegalPlay:
        return False
    if acceptable is None:
        return True
    words = [[(new.get(s) or board[s]) for s in w] for w in words_formed(board, stand_in, line)]
    return acceptable(["".join(w).upper() for w in words if "?" not in w])


def split_plays(board: Board, new: dict[Square, str], tiles: TileSet,
                acceptable: Callable[[list[str]], bool] | None = None, budget: int = 5000,
                feasible: Callable[[list[int], bool], bool] | None = None) -> list[dict[Square, str]] | None:
    """New tiles that are no single play, as a sequence of plays that makes them, or None.

    Photos of a game taken at each press miss one now and then; the next photo then shows two
    plays or more at once. Each play of the sequence is legal on the board the ones before it
    leave, and with ``acceptable`` (a word judge), every word it forms is acceptable (a word
    with a blank, ``?`` among ``new``, is not judged: its letter is chosen later). Longer plays
    are tried first, so the answer has as few plays as the search finds; ``budget`` bounds the
    plays tried. Which of several sequences the players made the picture cannot tell.
    ``feasible(sizes, last)``, given the number of tiles of each play of a sequence so far (and
    whether it is the whole sequence), says whether the players could have made it (their racks
    and the bag: no one goes out before the last play); sequences it refuses are not taken.

    >>> from board_pi.rules.tiles import ENGLISH
    >>> b = Board()
    >>> for i, ch in enumerate("CAT"): b[Square(7, 6 + i)] = ch      # CAT across at 8G
    >>> new = {Square(8, 8): "O", Square(9, 8): "P", Square(9, 9): "E"}  # TOP down, then PE across
    >>> words = {"CAT", "TOP", "PE"}.__contains__
    >>> [" ".join(f"{q}={t}" for q, t in sorted(p.items()))
    ...  for p in split_plays(b, new, ENGLISH, lambda ws: all(map(words, ws)))]
    ['I9=O I10=P', 'J10=E']
    """
    left = [budget]

    def candidates(rest: dict[Square, str]) -> list[dict[Square, str]]:
        found: dict[frozenset[Square], dict[Square, str]] = {}
        for key in (lambda q: (0, q.row), lambda q: (1, q.col)):
            lines: dict[tuple[int, int], list[Square]] = {}
            for q in rest:
                lines.setdefault(key(q), []).append(q)
            for squares in lines.values():
                squares.sort()
                for i in range(len(squares)):
                    for j in range(i, len(squares)):
                        part = frozenset(squares[i:j + 1])
                        found.setdefault(part, {q: rest[q] for q in part})
        return sorted(found.values(), key=lambda p: (-len(p), sorted(p)))

    def search(b: Board, rest: dict[Square, str], sizes: list[int]) -> list[dict[Square, str]] | None:
        if not rest:
            return []
        for play in candidates(rest):
            if left[0] <= 0:
                return None
            left[0] -= 1
            if feasible is not None and not feasible(sizes + [len(play)], len(play) == len(rest)):
                continue
            if not is_one_play(b, play, tiles, acceptable):
                continue
            after = b.copy()
            for q, t in play.items():
                after[q] = tiles.letters[0] if t == "?" else t
            tail = search(after, {q: t for q, t in rest.items() if q not in play}, sizes + [len(play)])
            if tail is not None:
                return [play] + tail
        return None

    return search(board, dict(new), [])
