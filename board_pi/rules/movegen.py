"""A plain move generator: the legal plays a rack can make through tiles on the board.

It is not a championship engine (it considers plays that cross at least one tile already on
the board, and first plays through the start square, not parallel plays); it serves to compose
demonstration games and to test the engine on plays it did not choose.

Words and racks are tiles of the set: a lexicon's word ``[CH]ICO`` is four tiles, and a rack
``?CHIO`` in Spanish holds a blank, CH, I and O.

>>> from board_pi.rules.board import Board
>>> from board_pi.rules.lexicon import Lexicon
>>> from board_pi.rules.tiles import GERMAN
>>> lex = Lexicon.from_words(["ÜBEL", "BEL"], "tiny")
>>> best_play(Board(), "BELÜXYZ", lex, GERMAN).main_word
'ÜBEL'
"""

from __future__ import annotations

from collections import Counter
from typing import Iterator, Sequence

from .board import EMPTY, Board, Coordinate, Direction, Square
from .lexicon import Lexicon
from .play import IllegalPlay, Play
from .scoring import ScoredPlay, score_play
from .tiles import BLANK, BadTiles, TileSet


def _fits(word: tuple[str, ...], rack: Counter[str], board_letters: int) -> bool:
    """Could ``word`` be made from ``rack`` (blanks standing in) plus up to ``board_letters``?"""
    short = sum((Counter(word) - rack).values())
    return short <= rack[BLANK] + board_letters


def candidate_plays(board: Board, rack: str | Sequence[str], lexicon: Lexicon, tiles: TileSet,
                    max_len: int = 15) -> Iterator[ScoredPlay]:
    """Every legal play (all words in the lexicon) of ``rack`` that crosses the board's tiles.

    ``rack`` is text in the set's notation (``"?[CH]IO"``) or a sequence of tiles.
    """
    have = Counter(tiles.rack(rack) if isinstance(rack, str) else rack)
    on_board = list(board.tiles())
    first = not on_board
    reach = 0 if first else 3  # letters a word may borrow from the board
    seen: set[tuple[str, tuple[str, ...]]] = set()
    plain = not tiles.multi_letter  # one character, one tile: no need to tokenise
    for text in lexicon:
        if plain and "[" not in text:
            word = tuple(text)  # a character not in the set fails at placements() below
        else:
            try:
                word = tiles.tokenize(text, "")
            except BadTiles:
                continue  # a word this set cannot spell (the lexicon is for another set)
        if len(word) > max_len or not _fits(word, have, reach or 0):
            continue
        starts: list[Coordinate] = []
        if first:
            c = board.layout.start
            for i in range(len(word)):
                for d in Direction:
                    s = c.step(d, -i)
                    if s.on_board(board.size):
                        starts.append(Coordinate(s.row, s.col, d))
        else:
            for sq, t in on_board:
                letter = t.upper()
                for i, ch in enumerate(word):
                    if ch != letter:
                        continue
                    for d in Direction:
                        s = sq.step(d, -i)
                        if s.on_board(board.size):
                            starts.append(Coordinate(s.row, s.col, d))
        for coord in starts:
            key = (str(coord), word)
            if key in seen:
                continue
            seen.add(key)
            play = _as_play(board, coord, word, have, tiles)
            if play is None:
                continue
            try:
                scored = score_play(board, play.placements(board, tiles), tiles)
            except IllegalPlay:
                continue
            if tuple(t.upper() for t in scored.words[0].tiles) != word:
                continue  # the word runs on into other tiles
            if all(w.word in lexicon for w in scored.words):
                yield scored


def _as_play(board: Board, coord: Coordinate, word: tuple[str, ...], have: Counter[str],
             tiles: TileSet) -> Play | None:
    """Spell ``word`` from ``coord``: board tiles where there are some, rack tiles elsewhere."""
    need: Counter[str] = Counter()
    out: list[str] = []
    sq = coord.square
    for ch in word:
        if not sq.on_board(board.size):
            return None
        there = board[sq]
        if there != EMPTY:
            if there.upper() != ch:
                return None
            out.append(".")
        else:
            need[ch] += 1
            out.append(ch)
        sq = sq.step(coord.direction)
    if not need:
        return None
    blanks = have[BLANK]
    spelled = []
    used: Counter[str] = Counter()
    for ch in out:
        if ch == ".":
            spelled.append(ch)
            continue
        if used[ch] < have[ch]:
            used[ch] += 1
            spelled.append(ch)
        elif blanks > 0:
            blanks -= 1
            spelled.append(ch.lower())
        else:
            return None
    return Play(coord, tiles.write(spelled))


def best_play(board: Board, rack: str | Sequence[str], lexicon: Lexicon, tiles: TileSet) -> ScoredPlay | None:
    """The highest-scoring play found (ties: the first found), or None."""
    best: ScoredPlay | None = None
    for p in candidate_plays(board, rack, lexicon, tiles):
        if best is None or p.score > best.score:
            best = p
    return best


__all__ = ["candidate_plays", "best_play", "Square"]
