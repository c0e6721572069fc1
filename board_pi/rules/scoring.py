"""Scoring a play: every word formed, premiums under new tiles only, bingo bonus for a full rack.

Letter premiums apply before word premiums; word premiums multiply together (two double words
make 4x, two triple words 9x); blanks score nothing; the bonus is earned only when a whole rack
(7 tiles) is played.

>>> from board_pi.rules.board import Board
>>> from board_pi.rules.play import Play
>>> from board_pi.rules.tiles import ENGLISH
>>> b = Board()
>>> score_play(b, Play.parse("8D WINDY").placements(b, ENGLISH), ENGLISH).score
32
>>> from board_pi.rules.tiles import SPANISH
>>> sp = score_play(b, Play.parse("8G CHARRO").placements(b, SPANISH), SPANISH)
>>> sp.main_word, sp.words[0].tiles, sp.score
('[CH]A[RR]O', ('CH', 'A', 'RR', 'O'), 30)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from .board import Board, Square
from .play import Line, Placement, check_placements, words_formed
from .tiles import TileSet

RACK_SIZE = 7
BINGO_BONUS = 50


@dataclass(frozen=True)
class ScoredWord:
    """One word a play formed: its tiles as they lie (a blank in lower case), and its points.

    ``text`` is the word written out, a multi-letter tile in brackets (``[CH]ICO``); its upper
    case is the form lexicons and the judge look words up by.
    """

    text: str
    squares: tuple[Square, ...]
    points: int
    tiles: tuple[str, ...] = ()

    @property
    def word(self) -> str:
        """The word as a lexicon holds it: upper case, a multi-letter tile in brackets."""
        return self.text.upper()


@dataclass(frozen=True)
class ScoredPlay:
    """A legal play's words, bingo bonus and total."""

    line: Line
    placements: tuple[Placement, ...]
    words: tuple[ScoredWord, ...]
    bingo: bool
    score: int

    @property
    def main_word(self) -> str:
        return self.words[0].text if self.words else ""


def score_play(board: Board, placements: Sequence[Placement], tiles: TileSet,
               bingo_bonus: int = BINGO_BONUS, rack_size: int = RACK_SIZE) -> ScoredPlay:
    """Check and score new tiles on ``board`` (the board before the play; it is not changed)."""
    line = check_placements(board, placements, tiles)
    new = {p.square: p.tile for p in placements}
    layout = board.layout
    scored: list[ScoredWord] = []
    for squares in words_formed(board, placements, line):
        letters, word_mult = 0, 1
        text = []
        for sq in squares:
            tile = new.get(sq) or board[sq]
            text.append(tile)
            value = tiles.value(tile)
            if sq in new:  # premiums count only under tiles placed by this play
                prem = layout.premium(sq)
                value *= prem.letter_multiplier
                word_mult *= prem.word_multiplier
            letters += value
        scored.append(ScoredWord(tiles.write(text), tuple(squares), letters * word_mult, tuple(text)))
    bingo = len(new) == rack_size
    total = sum(w.points for w in scored) + (bingo_bonus if bingo else 0)
    return ScoredPlay(line, tuple(sorted(placements)), tuple(scored), bingo, total)
