"""From what the camera read to a play: new tiles, tiles moved or taken away, doubtful squares,
and the letters of blank tiles.

The committed board is the truth for tiles already played: a misread of an old tile changes
nothing, but an old tile the camera no longer sees is reported (moved or taken away).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Callable, Sequence

from functools import cached_property

from ..rules.board import EMPTY, Board, Square, split_row
from ..rules.play import IllegalPlay, Placement, check_placements, words_formed
from ..rules.tiles import BLANK, TileSet

DOUBT_BELOW = 0.50  # a square read with less confidence than this is shown for confirmation
# (the tile model is right on nearly every square it gives more than half its belief to)


@dataclass(frozen=True)
class BoardReading:
    """The camera's view: 15 rows ('.', a tile's face, '?' for a blank tile; a two-letter tile
    written ``[CH]``) and a confidence per square."""

    grid: tuple[str, ...]
    confidence: tuple[tuple[float, ...], ...]

    @classmethod
    def certain(cls, rows: Sequence[str]) -> "BoardReading":
        """A reading with full confidence (blanks as '?'), for manual entry and tests."""
        cells = [split_row(r) for r in rows]
        grid = tuple("".join(BLANK if c.islower() else (f"[{c}]" if len(c) > 1 else c) for c in r) for r in cells)
        return cls(grid, tuple(tuple(1.0 for _ in r) for r in cells))

    @cached_property
    def cells(self) -> tuple[tuple[str, ...], ...]:
        """The grid as squares: ``CH`` one square."""
        return tuple(tuple(split_row(r)) for r in self.grid)

    def at(self, sq: Square) -> tuple[str, float]:
        return self.cells[sq.row][sq.col], self.confidence[sq.row][sq.col]


@dataclass(frozen=True)
class BoardChange:
    new: dict[Square, str]  # squares empty on the committed board where a tile is seen
    missing: tuple[Square, ...]  # committed tiles no longer seen
    doubtful: tuple[Square, ...]  # new tiles (or their neighbours) read with low confidence

    @property
    def empty(self) -> bool:
        return not self.new and not self.missing


def compare(committed: Board, reading: BoardReading, doubt_below: float = DOUBT_BELOW) -> BoardChange:
    new: dict[Square, str] = {}
    missing: list[Square] = []
    doubtful: list[Square] = []
    for r in range(committed.size):
        for c in range(committed.size):
            sq = Square(r, c)
            seen, conf = reading.at(sq)
            old = committed[sq]
            if old == EMPTY:
                if seen != EMPTY:
                    new[sq] = seen
                    if conf < doubt_below:
                        doubtful.append(sq)
                elif conf < doubt_below and _next_to_tiles(committed, sq):
                    # An empty square next to the play read with doubt might be a tile missed.
                    doubtful.append(sq)
            elif seen == EMPTY and conf >= doubt_below:
                missing.append(sq)
    return BoardChange(new, tuple(missing), tuple(doubtful))


def _next_to_tiles(board: Board, sq: Square) -> bool:
    return any(board.occupied(Square(sq.row + dr, sq.col + dc)) for dr, dc in ((0, 1), (1, 0), (0, -1), (-1, 0)))


@dataclass(frozen=True)
class BlankChoice:
    """What the lexicon says about the letters a play's blank tiles could be."""

    squares: tuple[Square, ...]
    options: tuple[str, ...]  # each option: one letter per blank square, in order

    @property
    def unique(self) -> str | None:
        return self.options[0] if len(self.options) == 1 else None


def placements_with_letters(new: dict[Square, str], blanks: dict[Square, str]) -> list[Placement]:
    """New tiles with each blank tile given its letter (lower case, as a blank on the board)."""
    return [Placement(sq, blanks[sq].lower() if t == BLANK else t) for sq, t in sorted(new.items())]


def blank_options(board: Board, new: dict[Square, str], tiles: TileSet,
                  acceptable: Callable[[list[str]], bool], limit: int = 2) -> BlankChoice:
    """Which letters for the blank tiles make every word of the play acceptable.

    Stops after ``limit`` options: the table needs to know only whether there is exactly one.
    """
    squares = tuple(sq for sq, t in sorted(new.items()) if t == BLANK)
    # Where the tiles stand, and so the words they make, does not depend on the blanks' letters:
    # the play is checked and its words found once (two blanks are 26 x 26 letterings, and
    # checking each anew took most of a press's time).
    stand_in = placements_with_letters(new, {sq: tiles.letters[0] for sq in squares})
    try:
        line = check_placements(board, stand_in, tiles)
    except IllegalPlay:
        return BlankChoice(squares, ())
    words = words_formed(board, stand_in, line)
    fixed = {p.square: p.tile.upper() for p in stand_in if p.square not in squares}
    options: list[str] = []
    for letters in itertools.product(tiles.letters, repeat=len(squares)):
        placed = {**fixed, **{sq: letter.upper() for sq, letter in zip(squares, letters)}}
        if acceptable(["".join(placed.get(s) or board[s].upper() for s in w) for w in words]):
            options.append("".join(letters))
            if len(options) >= limit:
                break
    return BlankChoice(squares, tuple(options))
