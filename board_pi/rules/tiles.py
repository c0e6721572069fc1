"""Tile sets: each language's tiles, how many of each, what each is worth, how many blanks.

Tile sets are data (:mod:`board_pi.rules.tile_data`): a new language is a new table entry.

A tile's face is a string: ``"A"``, ``"Ä"``, ``"Ñ"``, or a multi-letter tile's ``"CH"`` or
``"IJ"``. A blank on a rack is ``?``; on the board it is the face it stands for in lower case
(``"ä"``, ``"ch"``). Words, plays and racks are sequences of tiles, not of characters: use
:meth:`TileSet.tokenize` to read text and :meth:`TileSet.write` to write it, where a
multi-letter tile is written in brackets, ``[CH]`` (a blank as ``[ch]``).

>>> ENGLISH.value("Q"), ENGLISH.count("E"), ENGLISH.blanks, ENGLISH.total
(10, 12, 2, 100)
>>> ENGLISH.value("q")  # a blank played as Q
0
>>> SPANISH.tokenize("CHURRO"), SPANISH.value("CH"), SPANISH.value("RR")
(('CH', 'U', 'RR', 'O'), 5, 8)
>>> SPANISH.write(("CH", "U", "rr", "O"))
'[CH]U[rr]O'
>>> GERMAN.total, GERMAN.value("Ö")
(102, 8)
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from typing import Iterable, Mapping, Sequence

from .tile_data import SPECS, TileSetSpec

BLANK = "?"
"""A blank tile on a rack or in the bag (on the board a blank is its face in lower case)."""
PLAYED_THROUGH = "."
"""In play notation, a square whose tile is already on the board."""

_RESERVED = set("[]?. \t\n")


class UnknownTileSet(KeyError, ValueError):
    """No tile set of that name (the message lists the known ones)."""

    def __str__(self) -> str:  # KeyError would show the message in quotes
        return str(self.args[0]) if self.args else ""


class BadTiles(ValueError):
    """Text that does not spell tiles of a set; the message says which character and where."""


def _sort_key(face: str) -> tuple[str, str]:
    """Alphabetical order as a table prints it: Ä after A, CH after C, Ł after L, Ñ after N."""
    base = "".join(c for c in unicodedata.normalize("NFD", face) if not unicodedata.combining(c))
    return base.replace("Ł", "L").replace("Ø", "O"), face


@dataclass(frozen=True)
class TileSet:
    """A language's tiles: face -> (count, value), plus the blanks (worth 0).

    ``text_digraphs``: plain text is read greedily into the set's multi-letter tiles (the rule
    of sets whose digraphs are always one tile, as Spanish CH, LL, RR under FISE rules).
    """

    name: str
    distribution: Mapping[str, tuple[int, int]]
    blanks: int = 2
    text_digraphs: bool = False
    title: str = ""
    source: str = ""
    _values: Mapping[str, int] = field(init=False, repr=False, compare=False)
    _multi: tuple[str, ...] = field(init=False, repr=False, compare=False)
    _single: frozenset[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        for face, (count, value) in self.distribution.items():
            if (not face or face != face.upper() or face == face.lower() or face.lower().upper() != face
                    or _RESERVED & set(face)):
                raise ValueError(f"tile set {self.name}: tile {face!r} must be upper-case letters "
                                 "(one or more, no brackets, ? or .)")
            if count < 0 or value < 0:
                raise ValueError(f"tile set {self.name}: tile {face} has a negative count or value")
        if self.blanks < 0:
            raise ValueError(f"tile set {self.name}: a negative number of blanks")
        ordered = {k: self.distribution[k] for k in sorted(self.distribution, key=_sort_key)}
        object.__setattr__(self, "distribution", ordered)
        object.__setattr__(self, "_values", {k: v for k, (_, v) in ordered.items()})
        multi = sorted((f for f in ordered if len(f) > 1), key=lambda f: (-len(f), f))
        object.__setattr__(self, "_multi", tuple(multi))
        object.__setattr__(self, "_single", frozenset(f for f in ordered if len(f) == 1))

    # -- the set's contents ----------------------------------------------------------------

    @property
    def letters(self) -> tuple[str, ...]:
        """The faces of the set's lettered tiles, in alphabetical order (Ä after A, CH after C)."""
        return tuple(self.distribution)

    @property
    def multi_letter(self) -> tuple[str, ...]:
        """The faces of more than one letter (``CH``, ``LL``, ``RR``; ``IJ``), longest first."""
        return self._multi

    @property
    def total(self) -> int:
        """Number of tiles in a full bag, blanks included."""
        return sum(c for c, _ in self.distribution.values()) + self.blanks

    @property
    def face_value(self) -> int:
        """The face value of the whole set (English: 187)."""
        return sum(c * v for c, v in self.distribution.values())

    def is_letter(self, tile: str) -> bool:
        """True for a lettered tile of this set (upper case; not the blank, not a designation)."""
        return tile in self.distribution

    def is_tile(self, tile: str) -> bool:
        """A lettered tile, a blank on a rack (``?``) or a blank designated as a letter (``ä``)."""
        return tile == BLANK or tile in self.distribution or (
            tile == tile.lower() and tile.upper() in self.distribution)

    @staticmethod
    def is_blank(tile: str) -> bool:
        """A blank: ``?`` on a rack, a lower-case face on the board."""
        return tile == BLANK or (tile != tile.upper())

    @staticmethod
    def letter(tile: str) -> str:
        """The face a tile shows or stands for: ``"ch"`` (a blank as CH) -> ``"CH"``."""
        return tile.upper()

    @staticmethod
    def rack_tile(tile: str) -> str:
        """The tile as it was on the rack: a designated blank is ``?`` again."""
        return BLANK if tile == BLANK or tile != tile.upper() else tile

    def count(self, tile: str) -> int:
        """How many tiles of this face (``?`` for blanks) the full set holds."""
        if tile == BLANK:
            return self.blanks
        return self.distribution[tile][0]

    def value(self, tile: str) -> int:
        """Points for a tile: upper case is a lettered tile, lower case or ``?`` a blank (0)."""
        if tile == BLANK or tile != tile.upper():
            return 0
        return self._values[tile]

    def full_bag(self) -> Counter[str]:
        """Every tile of the set, blanks as ``?``."""
        bag: Counter[str] = Counter({k: c for k, (c, _) in self.distribution.items()})
        if self.blanks:
            bag[BLANK] = self.blanks
        return bag

    def rack_value(self, tiles: Iterable[str] | str) -> int:
        """Sum of the face values of tiles (``?`` counts 0); a string is read as a rack.

        >>> SPANISH.rack_value("[CH]Ñ?"), SPANISH.rack_value(["CH", "Ñ", "?"])
        (13, 13)
        """
        seq = self.tokenize(tiles, BLANK) if isinstance(tiles, str) else tiles
        return sum(self.value(t) for t in seq)

    def sort(self, tiles: Iterable[str]) -> list[str]:
        """Tiles in rack order: blanks first, then the set's alphabetical order.

        >>> SPANISH.sort(["Ñ", "CH", "?", "C", "A"])
        ['?', 'A', 'C', 'CH', 'Ñ']
        """
        order = {f: i for i, f in enumerate(self.distribution)}
        return sorted(tiles, key=lambda t: (t != BLANK, order.get(t.upper(), len(order)), t))

    def rack(self, text: str) -> tuple[str, ...]:
        """A rack written as text (``?`` a blank; ``[CH]`` or, in Spanish, ``CH``) as tiles."""
        return self.tokenize(text, BLANK)

    # -- text ------------------------------------------------------------------------------

    def tokenize(self, text: str, extra: str = BLANK + PLAYED_THROUGH) -> tuple[str, ...]:
        """Read text as this set's tiles; raises :class:`BadTiles` naming what is not a tile.

        ``[CH]`` (``[ch]`` a blank) is always one tile; plain letters are single tiles except
        in sets whose digraphs are always one tile (Spanish), where the longest face matches.
        Upper case is a lettered tile, lower case a blank standing for it; the characters in
        ``extra`` (by default ``?`` and ``.``) pass through as themselves.

        >>> SPANISH.tokenize("LLaMA"), SPANISH.tokenize("[ll]AMA")
        (('LL', 'a', 'M', 'A'), ('ll', 'A', 'M', 'A'))
        >>> GERMAN.tokenize("ÜBEL?")
        ('Ü', 'B', 'E', 'L', '?')
        >>> DUTCH.tokenize("IJS"), DUTCH_IJ.tokenize("IJS")
        (('I', 'J', 'S'), ('IJ', 'S'))
        """
        out: list[str] = []
        i, n = 0, len(text)
        while i < n:
            ch = text[i]
            if ch == "[":
                j = text.find("]", i + 1)
                inner = text[i + 1:j] if j > 0 else ""
                if j < 0 or not (self.is_letter(inner) or (inner == inner.lower() and self.is_letter(inner.upper()))):
                    shown = text[i:j + 1] if j > 0 else text[i:i + 6]
                    raise BadTiles(f"{text!r}: {shown!r} at character {i + 1} is not a letter of the "
                                   f"{self.name} tile set (brackets hold one tile, such as "
                                   f"[{(self._multi or self.letters or ('A',))[0]}])")
                out.append(inner)
                i = j + 1
                continue
            if ch in extra:
                out.append(ch)
                i += 1
                continue
            if self.text_digraphs:
                for face in self._multi:
                    piece = text[i:i + len(face)]
                    if piece == face or piece == face.lower():
                        out.append(piece)
                        i += len(face)
                        break
                else:
                    face = ""
                if face:
                    continue
            if self.is_letter(ch) or (ch == ch.lower() and ch != ch.upper() and self.is_letter(ch.upper())):
                out.append(ch)
                i += 1
                continue
            raise BadTiles(f"{text!r}: {ch!r} at character {i + 1} is not a letter of the {self.name} tile set"
                           + (f" (its tiles: {' '.join(self.letters)}; ? for a blank)" if len(self.letters) < 60 else ""))
        return tuple(out)

    def write(self, tiles: Sequence[str] | Iterable[str]) -> str:
        """Tiles as text: multi-letter tiles in brackets, the rest as themselves.

        In a set whose plain text is read into its digraph tiles, single tiles that would read
        as one (a C tile before an H tile in Spanish) are bracketed, so the text reads back as
        the same tiles.

        >>> DUTCH_IJ.write(["IJ", "s"]), ENGLISH.write("QI"), DUTCH_IJ.write(["I", "J", "S"])
        ('[IJ]s', 'QI', '[I]JS')
        """
        seq = list(tiles)
        out = [f"[{t}]" if len(t) > 1 else t for t in seq]
        if self.text_digraphs and self._multi:
            for i, t in enumerate(seq):
                if len(t) == 1:
                    ahead = "".join(seq[i:i + max(map(len, self._multi))])
                    if any(ahead.startswith(f) or ahead.startswith(f.lower()) for f in self._multi):
                        out[i] = f"[{t}]"
        return "".join(out)

    def word(self, text: str) -> tuple[str, ...]:
        """A word's tiles in upper case (a blank reads as its letter), for a lexicon or judge.

        >>> SPANISH.word("chico"), GERMAN.word("Übel")
        (('CH', 'I', 'C', 'O'), ('Ü', 'B', 'E', 'L'))
        """
        upper = text.upper()
        if self._plain(text, upper):
            return tuple(upper)
        return tuple(t.upper() for t in self.tokenize(text, ""))

    def canonical(self, text: str) -> str:
        """A word as lexicons hold it: its tiles in upper case, a multi-letter tile in brackets.

        >>> SPANISH.canonical("chico"), ENGLISH.canonical("qi")
        ('[CH]ICO', 'QI')
        """
        upper = text.upper()
        if self._plain(text, upper):
            return upper
        return self.write(self.word(text))

    def _plain(self, text: str, upper: str) -> bool:
        """Plain letters of the set, one tile each: a set comparison, not a character loop, so
        a 188,000-word list compiles in a fraction of the time."""
        return ("[" not in text and len(upper) == len(text) and set(upper) <= self._single
                and not (self.text_digraphs and any(f in upper for f in self._multi)))


def _parse_spec(spec: TileSetSpec) -> TileSet:
    """Build a TileSet from its published table (``"1: E15 N9"``: value, then face+count)."""
    import re

    dist: dict[str, tuple[int, int]] = {}
    blanks = 0
    for line in spec.tiles.strip().splitlines():
        value_text, _, items = line.strip().partition(":")
        value = int(value_text)
        for item in items.split():
            m = re.fullmatch(r"(\D+)(\d+)", item)
            if not m:
                raise ValueError(f"tile set {spec.name}: cannot read {item!r}")
            face, count = m.group(1), int(m.group(2))
            if face == BLANK:
                blanks = count
                continue
            if face in dist:
                raise ValueError(f"tile set {spec.name}: {face} is listed twice")
            dist[face] = (count, value)
    return TileSet(spec.name, dist, blanks, spec.text_digraphs, spec.title, spec.source)


TILE_SETS: dict[str, TileSet] = {s.name: _parse_spec(s) for s in SPECS}
"""Every known tile set by name (the names GCG's ``#tile-distribution`` uses)."""
_ALIASES: dict[str, str] = {a: s.name for s in SPECS for a in s.aliases}

ENGLISH = TILE_SETS["english"]
GERMAN = TILE_SETS["german"]
FRENCH = TILE_SETS["french"]
SPANISH = TILE_SETS["spanish"]
ITALIAN = TILE_SETS["italian"]
DUTCH = TILE_SETS["dutch"]
DUTCH_IJ = TILE_SETS["dutch-ij"]
POLISH = TILE_SETS["polish"]


def tile_set(name: str) -> TileSet:
    """Look a tile set up by name, in any case (``english``, ``German``, ``dutch-ij``...).

    >>> tile_set("German") is GERMAN
    True
    """
    key = name.strip().lower()
    key = _ALIASES.get(key, key)
    try:
        return TILE_SETS[key]
    except KeyError:
        raise UnknownTileSet(f"unknown tile set {name[:40]!r}; known: {', '.join(TILE_SETS)}") from None


def all_glyphs(sets: Iterable[TileSet] | None = None) -> tuple[str, ...]:
    """Every face of every tile set (each once, in alphabetical order): what a reader must know.

    >>> glyphs = all_glyphs()
    >>> "Ä" in glyphs, "CH" in glyphs, "IJ" in glyphs, "Ź" in glyphs, "?" in glyphs
    (True, True, True, True, False)
    """
    faces = {f for ts in (TILE_SETS.values() if sets is None else sets) for f in ts.letters}
    return tuple(sorted(faces, key=_sort_key))
