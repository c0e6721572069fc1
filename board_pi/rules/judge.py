"""The word judge: is a play acceptable? Answers for the play as a whole, never which word.

That is the tournament rule: a challenged play stands or falls whole, and the judge must not
tell the players which of its words is not in the lexicon.

>>> from board_pi.rules.lexicon import Lexicon
>>> judge = WordJudge(Lexicon.from_words(["QI", "ZA"], "tiny"))
>>> judge.judge(["qi", "za"]).acceptable, judge.judge(["QI", "ZZZQ"]).acceptable
(True, False)
>>> len(judge.log)
2

Words are judged as tiles of the judge's set, so a Spanish judge reads ``CHICO`` as four tiles:

>>> from board_pi.rules.tiles import SPANISH
>>> es = WordJudge(Lexicon.from_words(["CHICO"], "tiny-es", tiles=SPANISH), tiles=SPANISH)
>>> es.judge(["chico"]).acceptable, es.judge(["[CH]ICO"]).acceptable, es.log[-1].words
(True, True, ('[CH]ICO',))
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Sequence

from .lexicon import Lexicon, normalise
from .tiles import ENGLISH, TILE_SETS, BadTiles, TileSet

MAX_WORDS = 8
MAX_LETTERS = 15  # a word runs along one line of the 15x15 board: no play forms a longer one


class NotAWord(ValueError):
    """Input that is not a word at all (digits, punctuation, a single letter)."""


class CannotRule(ValueError):
    """The judge has no word list (a tile set with none configured): it rules on nothing, and
    says so, rather than calling every play NOT ACCEPTABLE."""


@dataclass(frozen=True)
class Verdict:
    acceptable: bool
    words: int  # how many words were judged (never which failed)

    def __str__(self) -> str:
        return "ACCEPTABLE" if self.acceptable else "NOT ACCEPTABLE"


@dataclass(frozen=True)
class Adjudication:
    """One line of the director's adjudication log."""

    time: float
    words: tuple[str, ...]
    acceptable: bool
    lexicon: str


@dataclass
class WordJudge:
    """Judges plays against one lexicon and keeps an adjudication log.

    ``clock`` gives the time stamped on log entries (injected, so the core does no I/O);
    ``on_log`` receives each entry, e.g. to append it to a file.
    """

    lexicon: Lexicon
    clock: Callable[[], float] = lambda: 0.0
    on_log: Callable[[Adjudication], None] | None = None
    log: list[Adjudication] = field(default_factory=list)
    tiles: TileSet | None = None  # None: the set the lexicon was compiled for, else English
    no_list: str | None = None  # why there is no word list to rule with (see :meth:`without_list`)

    def __post_init__(self) -> None:
        if self.tiles is None:
            self.tiles = TILE_SETS.get(self.lexicon.tiles, ENGLISH)

    @classmethod
    def without_list(cls, tiles: TileSet, why: str, clock: Callable[[], float] = lambda: 0.0) -> "WordJudge":
        """A judge for a set with no word list: :meth:`judge` raises :class:`CannotRule` with ``why``.

        >>> from board_pi.rules.tiles import TILE_SETS
        >>> j = WordJudge.without_list(TILE_SETS["polish"], "no word list for the polish tiles")
        >>> j.can_rule, j.lexicon.name
        (False, 'none')
        """
        return cls(Lexicon.from_words([], name="none", tiles=tiles), clock=clock, tiles=tiles, no_list=why)

    @property
    def can_rule(self) -> bool:
        """Whether there is a word list to rule with."""
        return self.no_list is None

    def check_words(self, words: Sequence[str]) -> list[str]:
        """Normalise input words, or raise NotAWord saying what is wrong with the input."""
        if not words:
            raise NotAWord("no words given")
        if len(words) > MAX_WORDS:
            raise NotAWord(f"at most {MAX_WORDS} words can be judged together")
        alphabet = self.lexicon.alphabet
        ts = self.tiles or ENGLISH
        out = []
        for i, w in enumerate(words, 1):
            if len(w.strip()) > 4 * MAX_LETTERS:  # before any other work on it: it may be huge
                raise NotAWord(f"word {i} has {len(w.strip())} characters: a word on the 15x15 board "
                               f"has at most {MAX_LETTERS} letters")
            word = normalise(w)
            if not word.replace("[", "").replace("]", "").isalpha():
                raise NotAWord(f"word {i} is not a word: use letters only")
            strange = sorted(set(word) - alphabet - {"[", "]"})
            if strange:
                raise NotAWord(f"word {i} has letters this lexicon does not use ({''.join(strange)})")
            try:
                tiles = ts.word(word)
            except BadTiles as e:
                raise NotAWord(f"word {i} is not spelt with the {ts.name} tiles: {e}") from None
            if len(tiles) > MAX_LETTERS:
                what = "characters" if len(tiles) == len(word) else f"tiles of the {ts.name} set"
                raise NotAWord(f"word {i} has {len(tiles)} {what}: a word on the 15x15 board "
                               f"has at most {MAX_LETTERS} letters")
            if len(tiles) < 2:
                raise NotAWord(f"word {i} has one letter: a word has at least two")
            out.append(ts.write(tiles))
        return out

    def judge(self, words: Sequence[str]) -> Verdict:
        """The play's words judged as a whole. :class:`NotAWord` for input that is no word,
        :class:`CannotRule` when there is no word list (nothing is logged either way)."""
        if self.no_list is not None:
            raise CannotRule(self.no_list)
        checked = self.check_words(words)
        ok = all(w in self.lexicon for w in checked)
        entry = Adjudication(self.clock(), tuple(checked), ok, self.lexicon.name)
        self.log.append(entry)
        if self.on_log is not None:
            self.on_log(entry)
        return Verdict(ok, len(checked))

    def __call__(self, words: list[str]) -> bool:
        """So a judge can be handed to :class:`~board_pi.rules.game.Game` directly."""
        return self.judge(words).acceptable
