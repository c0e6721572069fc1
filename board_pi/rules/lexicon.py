"""Lexicons in a compact form: sorted words in one byte string, found by binary search.

A 280,000-word list takes about 3 MB this way (a Python set of the same words takes ten times
that) and loads with one read, so the table starts fast on a Pi.

>>> lex = Lexicon.from_words(["qi", "ZA", "Qat"], name="tiny")
>>> "QI" in lex, "za" in lex, "ZZZ" in lex, len(lex)
(True, True, False, 3)
>>> Lexicon.from_bytes(lex.to_bytes()).name
'tiny'
"""

from __future__ import annotations

import struct
from array import array
from typing import Iterable, Iterator

MAGIC = b"BPLEX1\n"


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
    """A set of words with membership by binary search over one byte string."""

    __slots__ = ("name", "_blob", "_offsets", "_alphabet")

    def __init__(self, name: str, blob: bytes, offsets: array) -> None:
        self.name = name
        self._blob = blob
        self._offsets = offsets
        self._alphabet: frozenset[str] | None = None

    @classmethod
    def from_words(cls, words: Iterable[str], name: str = "") -> "Lexicon":
        encoded = sorted({normalise(w).encode("utf-8") for w in words if w.strip()})
        offsets = array("I", [0])
        pos = 0
        for w in encoded:
            pos += len(w)
            offsets.append(pos)
        return cls(name, b"".join(encoded), offsets)

    def to_bytes(self) -> bytes:
        """The compiled form: magic, name, word count, offsets, words."""
        name = self.name.encode("utf-8")
        offsets = array("I", self._offsets)
        if offsets.itemsize != 4:  # pragma: no cover - every platform we run on has 4-byte I
            raise LexiconError("unsupported platform: array('I') is not 32-bit")
        head = MAGIC + struct.pack("<HI", len(name), len(offsets) - 1) + name
        return head + offsets.tobytes() + self._blob

    @classmethod
    def from_bytes(cls, data: bytes) -> "Lexicon":
        if not data.startswith(MAGIC):
            raise LexiconError("not a compiled board-pi lexicon")
        try:
            p = len(MAGIC)
            name_len, count = struct.unpack_from("<HI", data, p)
            p += 6
            name = data[p:p + name_len].decode("utf-8")
            p += name_len
            offsets = array("I")
            offsets.frombytes(data[p:p + 4 * (count + 1)])
            p += 4 * (count + 1)
            blob = data[p:]
        except (struct.error, UnicodeDecodeError, ValueError) as e:
            raise LexiconError(f"compiled lexicon is damaged: {e}") from None
        if len(offsets) != count + 1 or offsets[-1] != len(blob):
            raise LexiconError("compiled lexicon is damaged: sizes do not match")
        return cls(name, blob, offsets)

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
        """The letters the lexicon's words use."""
        if self._alphabet is None:
            self._alphabet = frozenset(self._blob.decode("utf-8"))
        return self._alphabet

    def __repr__(self) -> str:
        return f"<Lexicon {self.name!r}: {len(self)} words>"
