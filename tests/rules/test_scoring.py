"""Scoring: every word formed, premiums under new tiles only, letter before word premiums,
word premiums multiplying, blanks worth 0 everywhere, the bingo bonus for exactly 7 tiles.

The hand-built cases give the arithmetic in the test; the hypothesis properties check the
invariants over random legal plays on random boards.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from board_pi.rules.board import STANDARD, Board, Direction, Layout, Square
from board_pi.rules.play import IllegalPlay, Placement, Play
from board_pi.rules.scoring import BINGO_BONUS, ScoredPlay, score_play
from board_pi.rules.tiles import ENGLISH

V = ENGLISH.value


def board_with(*tiles: str, layout: Layout = STANDARD) -> Board:
    """``board_with("E8=X", "B3=A")``: tiles put down as if by earlier plays."""
    b = Board(layout)
    for spec in tiles:
        sq, t = spec.split("=")
        b[Square.parse(sq)] = t
    return b


def score(board: Board, play: str) -> ScoredPlay:
    return score_play(board, Play.parse(play).placements(board, ENGLISH), ENGLISH)


# --- hand-built cases -------------------------------------------------------------------------


def test_letter_premium_before_word_premium() -> None:
    # Q on D8 (double letter), E on H8 (the double-word star): (2*10 + 1+1+1 + 1) * 2.
    assert score(Board(), "8D QUITE").score == (2 * 10 + 1 + 1 + 1 + 1) * 2 == 48


def test_blank_scores_zero_on_a_word_premium() -> None:
    # The blank e sits on the star: the word is still doubled, the e adds nothing.
    assert score(Board(), "8D QUITe").score == (2 * 10 + 1 + 1 + 1 + 0) * 2 == 46


def test_blank_scores_zero_on_a_letter_premium() -> None:
    assert score(Board(), "8D qUITE").score == (0 + 1 + 1 + 1 + 1) * 2 == 8


def test_blank_scores_zero_on_a_triple_letter() -> None:
    b = board_with("F3=A")  # F2 is a triple letter, F1 plain
    assert score(b, "F1 zz.").score == 0 + 0 + 1 == 1
    assert score(b, "F1 Zz.").score == 10 + 0 + 1 == 11
    assert score(b, "F1 zZ.").score == 0 + 3 * 10 + 1 == 31


def test_premiums_count_only_under_new_tiles() -> None:
    b = board_with("D8=Q", "E8=U", "F8=I", "G8=T", "H8=E")
    # Down from Q on D8 (a double letter already used): QI is 10 + 1.
    assert score(b, "D8 .I").score == 11
    # Down from E on H8 (the star already used): EAT is 1+1+1, not doubled.
    assert score(b, "H8 .AT").score == 3


def test_every_word_formed_is_scored() -> None:
    b = board_with("D8=Q", "E8=U", "F8=I", "G8=T", "H8=E")
    sp = score(b, "9D AT")  # AT, with QA and UT down
    assert [(w.text, w.points) for w in sp.words] == [("AT", 2), ("QA", 11), ("UT", 2)]
    assert sp.score == 15 and not sp.bingo
    assert sp.main_word == "AT"


def test_a_letter_premium_counts_in_both_words() -> None:
    b = board_with("D8=Q", "E8=U", "F8=I", "G8=T", "H8=E")
    # A on G9 (double letter) counts twice in AS and twice in TA.
    sp = score(b, "9G AS")
    assert [(w.text, w.points) for w in sp.words] == [("AS", 2 + 1), ("TA", 1 + 2), ("ES", 2)]
    assert sp.score == 8


def test_a_word_premium_counts_in_both_words() -> None:
    b = board_with("C2=T")
    # Z on B1 (plain), A on B2 (double word): ZA doubled, and AT across doubled too.
    sp = score(b, "B1 ZA")
    assert [(w.text, w.points) for w in sp.words] == [("ZA", (10 + 1) * 2), ("AT", (1 + 1) * 2)]
    assert sp.score == 26


def test_two_double_words_make_four_times() -> None:
    # Column E, E5 and E11 are double words; X already on E8; six new tiles (no bingo).
    b = board_with("E8=X")
    sp = score(b, "E5 ZAP.ORS")
    assert sp.score == (10 + 1 + 3 + 8 + 1 + 1 + 1) * 4 == 100
    assert not sp.bingo and len(sp.placements) == 6


def test_two_triple_words_make_nine_times_and_seven_tiles_through_a_tile_are_a_bingo() -> None:
    # Row 1 from A1 (triple word) to H1 (triple word), D1 a double letter, E already down.
    b = board_with("E1=E")
    sp = score(b, "1A BACK.RSY")
    letters = V("B") + V("A") + V("C") + 2 * V("K") + V("E") + V("R") + V("S") + V("Y")
    assert letters == 24
    assert sp.bingo and len(sp.placements) == 7
    assert sp.score == letters * 9 + BINGO_BONUS == 266


def test_three_triple_words_make_twenty_seven_times() -> None:
    # Row 1 A1..O1 covers three triple words; D1 and L1 are double letters. Eight tiles are
    # already down, seven are new (A1, B1, D1, H1, L1, N1, O1).
    b = board_with("C1=E", "E1=E", "F1=E", "G1=E", "I1=E", "J1=E", "K1=E", "M1=E")
    sp = score(b, "1A ZE.Q...E...E.EE")
    letters = 10 + 1 + 1 + 2 * 10 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 2 * 1 + 1 + 1 + 1
    assert sp.score == letters * 27 + BINGO_BONUS == 44 * 27 + 50 == 1238


def test_seven_tile_first_play_is_a_bingo() -> None:
    sp = score(Board(), "8B RETAINS")  # T on D8 doubled, the star doubles the word
    assert sp.bingo
    assert sp.score == (1 + 1 + 2 + 1 + 1 + 1 + 1) * 2 + 50 == 66


def test_six_new_tiles_through_two_board_tiles_earn_no_bonus() -> None:
    b = board_with("E8=R", "F8=E")
    sp = score(b, "8B DET..ING")  # eight letters, six of them new; T on D8 doubled, N on the star
    assert not sp.bingo
    assert sp.score == (2 + 1 + 2 * 1 + 1 + 1 + 1 + 1 + 2) * 2 == 22


def test_eight_new_tiles_are_not_a_bingo_either() -> None:
    # Not possible from a 7-tile rack, but the bonus is for a whole rack, not for "7 or more".
    sp = score(Board(), "8A ABCDEFGH")
    assert not sp.bingo


def test_blank_bingo_scores_the_bonus_and_nothing_for_blanks() -> None:
    sp = score(Board(), "8B retains")
    assert sp.bingo and sp.score == 50


def test_custom_bonus_and_rack_size() -> None:
    b = Board()
    ps = Play.parse("8E QUITE").placements(b, ENGLISH)
    assert score_play(b, ps, ENGLISH, bingo_bonus=35, rack_size=5).score == (10 + 1 + 1 + 1 + 1) * 2 + 35


def test_scoring_checks_the_play_first() -> None:
    with pytest.raises(IllegalPlay, match="centre square"):
        score(Board(), "1A QUITE")


def test_scoring_does_not_change_the_board() -> None:
    b = board_with("E8=X")
    before = b.copy()
    score(b, "E5 ZAP.ORS")
    assert b == before


def test_premiums_come_from_the_board_layout() -> None:
    plain = Layout("plain", tuple("..." if r != 1 else ".*." for r in range(3)))
    b = Board(plain)
    assert score_play(b, Play.parse("2A ZAP").placements(b, ENGLISH), ENGLISH).score == (10 + 1 + 3) * 2


# --- properties -------------------------------------------------------------------------------

LETTERS = ENGLISH.letters


@st.composite
def tiles_strategy(draw: st.DrawFn, n: int) -> list[str]:
    out = []
    for _ in range(n):
        letter = draw(st.sampled_from(LETTERS))
        out.append(letter.lower() if draw(st.integers(0, 9)) == 0 else letter)
    return out


@st.composite
def legal_placements(draw: st.DrawFn, board: Board) -> list[Placement]:
    """A legal play on ``board``: a segment through an anchor (H8 on an empty board, else a
    tile already down), every empty square of the segment filled."""
    size = board.size
    if board.is_empty():
        anchor = board.layout.start
    else:
        anchor = draw(st.sampled_from(sorted(sq for sq, _ in board.tiles())))
    d = draw(st.sampled_from(list(Direction)))
    length = draw(st.integers(2, 8))
    before = draw(st.integers(0, length - 1))
    segment = [anchor.step(d, i - before) for i in range(length)]
    segment = [s for s in segment if s.on_board(size)]
    empty = [s for s in segment if board[s] == "."]
    assume(len(empty) >= (2 if board.is_empty() else 1))
    letters = draw(tiles_strategy(len(empty)))
    return [Placement(s, t) for s, t in zip(empty, letters)]


@st.composite
def board_and_play(draw: st.DrawFn) -> tuple[Board, list[Placement]]:
    """A board built from 0-5 earlier legal plays, and a legal play on it."""
    board = Board()
    for _ in range(draw(st.integers(0, 5))):
        ps = draw(legal_placements(board))
        try:
            score_play(board, ps, ENGLISH)
        except IllegalPlay:
            continue
        for p in ps:
            board[p.square] = p.tile
    ps = draw(legal_placements(board))
    try:
        score_play(board, ps, ENGLISH)
    except IllegalPlay:
        assume(False)
    return board, ps


def transpose_board(b: Board, layout: Layout | None = None) -> Board:
    rows = b.rows()
    return Board(layout or b.layout, ["".join(r[c] for r in rows) for c in range(len(rows))])


PROPS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])


@PROPS
@given(board_and_play())
def test_score_is_the_sum_of_the_words_plus_the_bonus_for_seven_tiles(bp: tuple[Board, list[Placement]]) -> None:
    board, ps = bp
    sp = score_play(board, ps, ENGLISH)
    assert sp.bingo == (len(ps) == 7)
    assert sp.score == sum(w.points for w in sp.words) + (50 if len(ps) == 7 else 0)
    assert all(w.points >= 0 for w in sp.words)
    # Every new tile is in the main word, and in at most one word of each direction.
    new = {p.square for p in ps}
    for sq in new:
        assert 1 <= sum(sq in w.squares for w in sp.words) <= 2
    if len(sp.words) and sp.line.length > 1:
        assert set(sp.words[0].squares) >= new


@PROPS
@given(board_and_play())
def test_score_is_unchanged_by_transposing_the_board(bp: tuple[Board, list[Placement]]) -> None:
    # The standard layout is symmetric about the main diagonal, so an across play and the same
    # play down on the transposed board score alike.
    board, ps = bp
    t_ps = [Placement(Square(p.square.col, p.square.row), p.tile) for p in ps]
    a = score_play(board, ps, ENGLISH)
    b = score_play(transpose_board(board), t_ps, ENGLISH)
    assert a.score == b.score
    assert sorted(w.text for w in a.words) == sorted(w.text for w in b.words)
    if len(ps) > 1:  # (a single tile's main word runs across first, whichever way)
        assert a.line.direction is b.line.direction.other


@PROPS
@given(board_and_play(), st.data())
def test_a_blank_loses_exactly_that_tiles_contribution(bp: tuple[Board, list[Placement]], data: st.DataObject) -> None:
    board, ps = bp
    lettered = [i for i, p in enumerate(ps) if not p.is_blank]
    if not lettered:
        return
    i = data.draw(st.sampled_from(lettered))
    with_blank = list(ps)
    with_blank[i] = Placement(ps[i].square, ps[i].tile.lower())
    full = score_play(board, ps, ENGLISH)
    blank = score_play(board, with_blank, ENGLISH)
    assert blank.score <= full.score
    # The tile's contribution: its value, times its letter premium, times the word premium of
    # each word it is in (premiums under new tiles only).
    sq = ps[i].square
    new = {p.square for p in ps}

    def word_mult(squares: tuple[Square, ...]) -> int:
        m = 1
        for s in squares:
            if s in new:
                m *= STANDARD.premium(s).word_multiplier
        return m

    contribution = (V(ps[i].tile) * STANDARD.premium(sq).letter_multiplier
                    * sum(word_mult(w.squares) for w in full.words if sq in w.squares))
    assert full.score - blank.score == contribution


def _with_premium(layout: Layout, sq: Square, code: str) -> Layout:
    rows = list(layout.rows)
    rows[sq.row] = rows[sq.row][:sq.col] + code + rows[sq.row][sq.col + 1:]
    return Layout("changed", tuple(rows))


@PROPS
@given(board_and_play(), st.data())
def test_adding_a_premium_never_lowers_a_score(bp: tuple[Board, list[Placement]], data: st.DataObject) -> None:
    board, ps = bp
    plain = [sq for sq in STANDARD.squares() if STANDARD.rows[sq.row][sq.col] == "."]
    sq = data.draw(st.sampled_from(plain))
    code = data.draw(st.sampled_from("dtDT"))
    changed = _with_premium(STANDARD, sq, code)
    before = score_play(board, ps, ENGLISH).score
    after = score_play(Board(changed, board.rows()), ps, ENGLISH).score
    assert after >= before
    if sq not in {p.square for p in ps}:
        assert after == before  # a premium not under a new tile changes nothing


@PROPS
@given(board_and_play(), st.data())
def test_premiums_under_old_tiles_do_not_count(bp: tuple[Board, list[Placement]], data: st.DataObject) -> None:
    board, ps = bp
    old = [sq for sq, _ in board.tiles() if STANDARD.rows[sq.row][sq.col] != "*"]
    if not old:
        return
    sq = data.draw(st.sampled_from(old))
    code = data.draw(st.sampled_from(".dtDT"))
    changed = _with_premium(STANDARD, sq, code)
    assert (score_play(Board(changed, board.rows()), ps, ENGLISH).score
            == score_play(board, ps, ENGLISH).score)


@PROPS
@given(board_and_play())
def test_score_is_unchanged_by_mirroring_the_board(bp: tuple[Board, list[Placement]]) -> None:
    board, ps = bp
    n = board.size
    mirrored = Board(board.layout, [r[::-1] for r in board.rows()])
    m_ps = [Placement(Square(p.square.row, n - 1 - p.square.col), p.tile) for p in ps]
    assert score_play(mirrored, m_ps, ENGLISH).score == score_play(board, ps, ENGLISH).score
