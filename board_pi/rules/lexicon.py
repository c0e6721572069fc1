"""Lexicons in a compact form: sorted words in one byte string, found by binary search.

A 280,000-word list takes about 3 MB this way (a Python set of the same words takes ten times
that) and loads with one read, so the table starts fast on a Pi.

>>> lex = Lexicon.from_words(["qi", "ZA", "Qat"], name="tiny")
>>> "QI" in lex, "za" in lex, "ZZZ" in lex, len(lex)
(True, True, False, 3)
>>> Lexicon.from_bytes(lex.to_bytes()).name
'tiny'

A word list is compiled for a tile set: each word is read as the set's tiles, and kept in the
form the set writes them (a multi-letter tile in brackets). A word the set cannot spell is
counted and a few kept as examples, never dropped silently:

>>> from board_pi.rules.tiles import SPANISH
>>> es = Lexicon.from_words(["chico", "calle", "kiwi", "carro"], "tiny-es", tiles=SPANISH)
>>> sorted(es), es.tiles, es.unspellable, es.unspellable_examples
(['CA[LL]E', 'CA[RR]O', '[CH]ICO'], 'spanish', 1, ('KIWI',))
>>> "CHICO" in es.for_tiles(SPANISH) and "[CH]ICO" in es
True
"""

from __future__ import annotations

import json
import struct
from array import array
from typing import TYPE_CHECKING, Iterable, Iterator

if TYPE_CHECKING:
    from .tiles import TileSet

MAGIC = b"BPLEX2\n"  # v2: a JSON header (name, tile set, words the set could not spell)
MAGIC_V1 = b"BPLEX1\n"
MAGICS = (MAGIC, MAGIC_V1)
EXAMPLES = 10  # unspellable words kept as examples


class LexiconError(ValueError):
    """A word list or compiled lexicon that cannot be used."""


def normalise(word: str) -> str:
    """Words are kept in upper case; a blank's lower-case letter reads as the letter."""
    return word.strip().upper()


def parse_word_list(text: str) -> Iterator[str]:
    """Words from a plain list: one per line, any case, ``#`` comments, blank lines ignored.

    A line may carry a definition after the word (as many published lists do): only the
    first token is taken.
    """
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            yield normalise(line.split()[0])


class Lexicon:
    """A set of words with membership by binary search over one byte string.

    ``tiles`` names the tile set the words were compiled for ("" for a list compiled letter by
    letter, as English lists are); ``unspellable`` counts the words of the source list that set
    could not spell (``unspellable_examples`` holds a few).
    """

    __slots__ = ("name", "_blob", "_offsets", "_alphabet", "tiles", "unspellable", "unspellable_examples")

    def __init__(self, name: str, blob: bytes, offsets: array, tiles: str = "", unspellable: int = 0,
                 unspellable_examples: tuple[str, ...] = ()) -> None:
        self.name = name
        self._blob = blob
        self._offsets = offsets
        self._alphabet: frozenset[str] | None = None
        self.tiles = tiles
        self.unspellable = unspellable
        self.unspellable_examples = unspellable_examples

    @classmethod
    def from_words(cls, words: Iterable[str], name: str = "", tiles: "TileSet | None" = None) -> "Lexicon":
        """Compile words; with a tile set, each is read as its tiles (see the module's example)."""
        from .tiles import BadTiles  # (here: rules.tiles imports nothing of the lexicon's)

        bad = 0
        examples: list[str] = []
        keys: set[bytes] = set()
        for w in words:
            if not w.strip():
                continue
            word = normalise(w)
            if tiles is not None:
                try:
                    word = tiles.canonical(word)
                except BadTiles:
                    bad += 1
                    if len(examples) < EXAMPLES:
                        examples.append(word)
                    continue
            keys.add(word.encode("utf-8"))
        encoded = sorted(keys)
        offsets = array("I", [0])
        pos = 0
        for e in encoded:
            pos += len(e)
            offsets.append(pos)
        return cls(name, b"".join(encoded), offsets, tiles.name if tiles is not None else "", bad, tuple(examples))

    def for_tiles(self, tiles: "TileSet") -> "TileLexicon":
        """This lexicon looked up by words in a set's plain text (``CHICO`` for ``[CH]ICO``)."""
        return TileLexicon(self, tiles)

    def to_bytes(self) -> bytes:
        """The compiled form: magic, a JSON header, word count, offsets, words."""
        meta = json.dumps({"name": self.name, "tiles": self.tiles, "unspellable": self.unspellable,
                           "examples": list(self.unspellable_examples)}, ensure_ascii=False).encode("utf-8")
        offsets = array("I", self._offsets)
        if offsets.itemsize != 4:  # pragma: no cover - every platform we run on has 4-byte I
            raise LexiconError("unsupported platform: array('I') is not 32-bit")
        head = MAGIC + struct.pack("<II", len(meta), len(offsets) - 1) + meta
        return head + offsets.tobytes() + self._blob

    @classmethod
    def from_bytes(cls, data: bytes) -> "Lexicon":
        if not data.startswith(MAGICS):
            raise LexiconError("not a compiled board-pi lexicon")
        try:
            p = len(MAGIC)
            meta: dict = {}
            if data.startswith(MAGIC_V1):
                name_len, count = struct.unpack_from("<HI", data, p)
                p += 6
                meta["name"] = data[p:p + name_len].decode("utf-8")
                p += name_len
            else:
                meta_len, count = struct.unpack_from("<II", data, p)
                p += 8
                meta = json.loads(data[p:p + meta_len].decode("utf-8"))
                p += meta_len
                if not isinstance(meta, dict):
                    raise ValueError("the header is not an object")
            offsets = array("I")
            offsets.frombytes(data[p:p + 4 * (count + 1)])
            p += 4 * (count + 1)
            blob = data[p:]
            lex = cls(str(meta.get("name", "")), blob, offsets, str(meta.get("tiles", "")),
                      int(meta.get("unspellable", 0)), tuple(str(x) for x in meta.get("examples", ())))
        except (struct.error, UnicodeDecodeError, ValueError, TypeError) as e:
            raise LexiconError(f"compiled lexicon is damaged: {e}") from None
        if len(offsets) != count + 1 or offsets[-1] != len(blob):
            raise LexiconError("compiled lexicon is damaged: sizes do not match")
        return lex

    def __len__(self) -> int:
        return len(self._offsets) - 1

    def _word(self, i: int) -> bytes:
        return self._blob[self._offsets[i]:self._offsets[i + 1]]

    def __contains__(self, word: object) -> bool:
        if not isinstance(word, str):
            return False
        key = normalise(word).encode("utf-8")
        lo, hi = 0, len(self._offsets) - 1
        offsets, blob = self._offsets, self._blob
        while lo < hi:
            mid = (lo + hi) // 2
            if blob[offsets[mid]:offsets[mid + 1]] < key:
                lo = mid + 1
            else:
                hi = mid
        return lo < len(offsets) - 1 and blob[offsets[lo]:offsets[lo + 1]] == key

    def __iter__(self) -> Iterator[str]:
        for i in range(len(self)):
            yield self._word(i).decode("utf-8")

    @property
    def alphabet(self) -> frozenset[str]:
        """The letters the lexicon's words use (a multi-letter tile's letters, not its brackets)."""
        if self._alphabet is None:
            self._alphabet = frozenset(self._blob.decode("utf-8")) - {"[", "]"}
        return self._alphabet

    def __repr__(self) -> str:
        return f"<Lexicon {self.name!r}: {len(self)} words>"


class TileLexicon:
    """A lexicon seen through a tile set: ``word in`` takes the set's plain text or tiles."""

    def __init__(self, lexicon: Lexicon, tiles: "TileSet") -> None:
        self.lexicon = lexicon
        self.tiles = tiles

    def __contains__(self, word: object) -> bool:
        from .tiles import BadTiles

        if isinstance(word, (tuple, list)):
            return self.tiles.write(t.upper() for t in word) in self.lexicon
        if not isinstance(word, str):
            return False
        try:
            return self.tiles.canonical(word) in self.lexicon
        except BadTiles:
            return False
