"""The board: premium layouts, squares and their names, play coordinates, and the tiles on it.

Squares are named as on a score sheet: columns A-O, rows 1-15, so ``H8`` is the centre.
A play's coordinate puts the row first for a play across (``8D``: row 8 from column D) and the
column first for a play down (``D8``: column D from row 8).

>>> Square.parse("H8")
Square(row=7, col=7)
>>> Coordinate.parse("8D"), Coordinate.parse("D8").direction
(Coordinate(row=7, col=3, direction=<Direction.ACROSS: 'across'>), <Direction.DOWN: 'down'>)
>>> STANDARD.premium(Square.parse("A1"))
<Premium.TRIPLE_WORD: 'TW'>
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass
from typing import Iterator, Sequence

EMPTY = "."
COLUMNS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


class BadCoordinate(ValueError):
    """A square or play coordinate that cannot be read or is off the board."""


class Premium(enum.Enum):
    NONE = ""
    DOUBLE_LETTER = "DL"
    TRIPLE_LETTER = "TL"
    DOUBLE_WORD = "DW"
    TRIPLE_WORD = "TW"

    @property
    def letter_multiplier(self) -> int:
        return {"DL": 2, "TL": 3}.get(self.value, 1)

    @property
    def word_multiplier(self) -> int:
        return {"DW": 2, "TW": 3}.get(self.value, 1)


class Direction(enum.Enum):
    ACROSS = "across"
    DOWN = "down"

    @property
    def step(self) -> tuple[int, int]:
        """(row, column) step along a word in this direction."""
        return (0, 1) if self is Direction.ACROSS else (1, 0)

    @property
    def other(self) -> "Direction":
        return Direction.DOWN if self is Direction.ACROSS else Direction.ACROSS


@dataclass(frozen=True, order=True)
class Square:
    """A square by 0-based row and column; ``Square.parse("H8")`` is row 7, column 7."""

    row: int
    col: int

    @classmethod
    def parse(cls, name: str, size: int = 15) -> "Square":
        m = re.fullmatch(r"\s*([A-Za-z])(\d{1,2})\s*", name)
        if not m:
            raise BadCoordinate(f"{name!r} is not a square name like H8")
        sq = cls(int(m.group(2)) - 1, COLUMNS.index(m.group(1).upper()))
        if not sq.on_board(size):
            raise BadCoordinate(f"square {name} is off the {size}x{size} board")
        return sq

    def on_board(self, size: int = 15) -> bool:
        return 0 <= self.row < size and 0 <= self.col < size

    @property
    def name(self) -> str:
        return f"{COLUMNS[self.col]}{self.row + 1}"

    def __str__(self) -> str:
        return self.name

    def step(self, direction: Direction, n: int = 1) -> "Square":
        dr, dc = direction.step
        return Square(self.row + dr * n, self.col + dc * n)


@dataclass(frozen=True)
class Coordinate:
    """Where a play starts and which way it runs."""

    row: int
    col: int
    direction: Direction

    @classmethod
    def parse(cls, text: str, size: int = 15) -> "Coordinate":
        t = text.strip()
        across = re.fullmatch(r"(\d{1,2})([A-Za-z])", t)
        down = re.fullmatch(r"([A-Za-z])(\d{1,2})", t)
        if across:
            row, col, d = int(across.group(1)) - 1, COLUMNS.index(across.group(2).upper()), Direction.ACROSS
        elif down:
            row, col, d = int(down.group(2)) - 1, COLUMNS.index(down.group(1).upper()), Direction.DOWN
        else:
            raise BadCoordinate(f"{text!r} is not a play coordinate like 8D (across) or D8 (down)")
        if not (0 <= row < size and 0 <= col < size):
            raise BadCoordinate(f"coordinate {text} is off the {size}x{size} board")
        return cls(row, col, d)

    @property
    def square(self) -> Square:
        return Square(self.row, self.col)

    def __str__(self) -> str:
        col, row = COLUMNS[self.col], self.row + 1
        return f"{row}{col}" if self.direction is Direction.ACROSS else f"{col}{row}"


_PREMIUM_CODES = {".": Premium.NONE, "*": Premium.DOUBLE_WORD, "d": Premium.DOUBLE_LETTER,
                  "t": Premium.TRIPLE_LETTER, "D": Premium.DOUBLE_WORD, "T": Premium.TRIPLE_WORD}


@dataclass(frozen=True)
class Layout:
    """A board's premium squares, written as rows of codes.

    ``T`` triple word, ``D`` double word, ``*`` the start square (a double word), ``t`` triple
    letter, ``d`` double letter, ``.`` plain.
    """

    name: str
    rows: tuple[str, ...]

    def __post_init__(self) -> None:
        n = len(self.rows)
        if any(len(r) != n for r in self.rows):
            raise ValueError(f"layout {self.name}: rows must make a square")
        bad = {c for r in self.rows for c in r} - set(_PREMIUM_CODES)
        if bad:
            raise ValueError(f"layout {self.name}: unknown premium codes {sorted(bad)}")
        if sum(r.count("*") for r in self.rows) != 1:
            raise ValueError(f"layout {self.name}: needs exactly one start square '*'")

    @property
    def size(self) -> int:
        return len(self.rows)

    @property
    def start(self) -> Square:
        for r, row in enumerate(self.rows):
            if "*" in row:
                return Square(r, row.index("*"))
        raise AssertionError("unreachable: checked in __post_init__")

    def premium(self, sq: Square) -> Premium:
        return _PREMIUM_CODES[self.rows[sq.row][sq.col]]

    def squares(self) -> Iterator[Square]:
        for r in range(self.size):
            for c in range(self.size):
                yield Square(r, c)

    def count(self, premium: Premium) -> int:
        return sum(1 for sq in self.squares() if self.premium(sq) is premium)


STANDARD = Layout(
    "standard",
    (
        "T..d...T...d..T",
        ".D...t...t...D.",
        "..D...d.d...D..",
        "d..D...d...D..d",
        "....D.....D....",
        ".t...t...t...t.",
        "..d...d.d...d..",
        "T..d...*...d..T",
        "..d...d.d...d..",
        ".t...t...t...t.",
        "....D.....D....",
        "d..D...d...D..d",
        "..D...d.d...D..",
        ".D...t...t...D.",
        "T..d...T...d..T",
    ),
)

LAYOUTS: dict[str, Layout] = {STANDARD.name: STANDARD}


def split_row(row: str) -> list[str]:
    """One board row written as text into its squares: ``[CH]`` is one square, any other
    character one square (``.`` empty).

    >>> split_row("..[CH]A[ll]")
    ['.', '.', 'CH', 'A', 'll']
    """
    out: list[str] = []
    i = 0
    while i < len(row):
        if row[i] == "[":
            j = row.find("]", i + 1)
            if j < 0 or j == i + 1:
                raise ValueError(f"row {row!r}: an unclosed or empty bracket at character {i + 1}")
            out.append(row[i + 1:j])
            i = j + 1
        else:
            out.append(row[i])
            i += 1
    return out


def write_cell(tile: str) -> str:
    """A square as text: a multi-letter tile in brackets (``[CH]``), others as themselves."""
    return f"[{tile}]" if len(tile) > 1 else tile


class Board:
    """The tiles on the board: ``.`` empty, a tile's face (``"A"``, ``"Ä"``, ``"CH"``), or the
    face in lower case for a blank (``"ch"``).

    Mutable like a real board; :meth:`copy` for a snapshot. Rows are written as text with a
    multi-letter tile in brackets, so a row with a ``[CH]`` is longer than 15 characters:
    :meth:`cells` gives the squares themselves.

    >>> b = Board()
    >>> b[Square.parse("H8")] = "Q"
    >>> b[Square.parse("I8")] = "CH"
    >>> b.rows()[7]
    '.......Q[CH]......'
    >>> b.cells()[7][8], Board(rows=b.rows()) == b
    ('CH', True)
    """

    __slots__ = ("layout", "_cells")

    def __init__(self, layout: Layout = STANDARD, rows: Sequence[str | Sequence[str]] | None = None) -> None:
        self.layout = layout
        n = layout.size
        self._cells: list[str] = [EMPTY] * (n * n)
        if rows is not None:
            grid = [split_row(r) if isinstance(r, str) else list(r) for r in rows]
            if len(grid) != n or any(len(r) != n for r in grid):
                raise ValueError(f"a board needs {n} rows of {n} squares")
            for r, row in enumerate(grid):
                for c, tile in enumerate(row):
                    if not isinstance(tile, str) or not tile:
                        raise ValueError(f"square {COLUMNS[c]}{r + 1}: {tile!r} is not a tile")
                    self._cells[r * n + c] = tile

    @property
    def size(self) -> int:
        return self.layout.size

    def __getitem__(self, sq: Square) -> str:
        return self._cells[sq.row * self.layout.size + sq.col]

    def __setitem__(self, sq: Square, tile: str) -> None:
        self._cells[sq.row * self.layout.size + sq.col] = tile

    def is_empty(self) -> bool:
        return all(c == EMPTY for c in self._cells)

    def occupied(self, sq: Square) -> bool:
        return sq.on_board(self.layout.size) and self[sq] != EMPTY

    def tiles(self) -> Iterator[tuple[Square, str]]:
        n = self.layout.size
        for i, c in enumerate(self._cells):
            if c != EMPTY:
                yield Square(i // n, i % n), c

    def copy(self) -> "Board":
        b = Board(self.layout)
        b._cells = list(self._cells)
        return b

    def cells(self) -> list[list[str]]:
        """The squares row by row, each a tile (``"CH"``, ``"ä"``) or ``.``."""
        n = self.layout.size
        return [self._cells[r * n:(r + 1) * n] for r in range(n)]

    def rows(self) -> list[str]:
        """The rows as text: one character a square, a multi-letter tile in brackets."""
        return ["".join(write_cell(t) for t in row) for row in self.cells()]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Board) and other.layout == self.layout and other._cells == self._cells

    def __repr__(self) -> str:
        return "Board(\n  " + "\n  ".join(self.rows()) + "\n)"

    def __str__(self) -> str:
        return "\n".join(self.rows())
