"""Tile sets: how many of each letter, what each is worth, how many blanks.

Tile sets are data: a new language is a new :class:`TileSet` built from a table, no new code.

>>> ENGLISH.value("Q"), ENGLISH.count("E"), ENGLISH.blanks, ENGLISH.total
(10, 12, 2, 100)
>>> ENGLISH.value("q")  # a blank played as Q
0
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Iterable, Mapping

BLANK = "?"
"""A blank tile on a rack or in the bag (on the board a blank is its letter in lower case)."""


class UnknownTileSet(KeyError):
    """No tile set of that name."""


@dataclass(frozen=True)
class TileSet:
    """A language's tiles: letter -> (count, value), plus the blanks (worth 0)."""

    name: str
    distribution: Mapping[str, tuple[int, int]]
    blanks: int = 2
    _values: Mapping[str, int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        for letter in self.distribution:
            if len(letter) != 1 or not letter.isupper():
                raise ValueError(f"tile set {self.name}: letter {letter!r} must be one upper-case character")
        object.__setattr__(self, "_values", {k: v for k, (_, v) in self.distribution.items()})

    @property
    def letters(self) -> tuple[str, ...]:
        """The letters of the set, in alphabetical order of the table."""
        return tuple(self.distribution)

    @property
    def total(self) -> int:
        """Number of tiles in a full bag, blanks included."""
        return sum(c for c, _ in self.distribution.values()) + self.blanks

    def is_letter(self, letter: str) -> bool:
        """True for an upper-case letter of this set (not the blank)."""
        return letter in self.distribution

    def count(self, letter: str) -> int:
        """How many tiles of this letter (``?`` for blanks) the full set holds."""
        if letter == BLANK:
            return self.blanks
        return self.distribution[letter][0]

    def value(self, tile: str) -> int:
        """Points for a tile: upper case is a lettered tile, lower case or ``?`` a blank (0)."""
        if tile == BLANK or tile.islower():
            return 0
        return self._values[tile]

    def full_bag(self) -> Counter[str]:
        """Every tile of the set, blanks as ``?``."""
        bag: Counter[str] = Counter({k: c for k, (c, _) in self.distribution.items()})
        if self.blanks:
            bag[BLANK] = self.blanks
        return bag

    def rack_value(self, tiles: Iterable[str]) -> int:
        """Sum of the face values of tiles on a rack (``?`` counts 0)."""
        return sum(self.value(t) for t in tiles)


def _table(spec: str) -> dict[str, tuple[int, int]]:
    """Parse ``"A 9 1, B 2 3, ..."`` (letter, count, value)."""
    out: dict[str, tuple[int, int]] = {}
    for item in spec.split(","):
        letter, count, value = item.split()
        out[letter] = (int(count), int(value))
    return out


ENGLISH = TileSet(
    "english",
    _table(
        "A 9 1, B 2 3, C 2 3, D 4 2, E 12 1, F 2 4, G 3 2, H 2 4, I 9 1, J 1 8, K 1 5, L 4 1, M 2 3,"
        "N 6 1, O 8 1, P 2 3, Q 1 10, R 6 1, S 4 1, T 6 1, U 4 1, V 2 4, W 2 4, X 1 8, Y 2 4, Z 1 10"
    ),
)

POLISH = TileSet(
    "polish",
    _table(
        "A 9 1, Ą 1 5, B 2 3, C 3 2, Ć 1 6, D 3 2, E 7 1, Ę 1 5, F 1 5, G 2 3, H 2 3, I 8 1, J 2 3,"
        "K 3 2, L 3 2, Ł 2 3, M 3 2, N 5 1, Ń 1 7, O 6 1, Ó 1 5, P 3 2, R 4 1, S 4 1, Ś 1 5, T 3 2,"
        "U 2 3, W 4 1, Y 4 2, Z 5 1, Ź 1 9, Ż 1 5"
    ),
)

TILE_SETS: dict[str, TileSet] = {t.name: t for t in (ENGLISH, POLISH)}


def tile_set(name: str) -> TileSet:
    """Look a tile set up by name (``english``, ``polish``)."""
    try:
        return TILE_SETS[name.lower()]
    except KeyError:
        raise UnknownTileSet(f"unknown tile set {name!r}; known: {', '.join(TILE_SETS)}") from None
