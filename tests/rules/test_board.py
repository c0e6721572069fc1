"""The standard premium layout, square names and play coordinates, and the board itself."""

from __future__ import annotations

import pytest

from board_pi.rules.board import (STANDARD, BadCoordinate, Board, Coordinate, Direction, Layout,
                                  Premium, Square)


def _named(premium: Premium) -> set[str]:
    return {sq.name for sq in STANDARD.squares() if STANDARD.premium(sq) is premium}


def test_standard_layout_counts() -> None:
    assert STANDARD.size == 15
    assert STANDARD.count(Premium.TRIPLE_WORD) == 8
    assert STANDARD.count(Premium.DOUBLE_WORD) == 17  # the H8 star included
    assert STANDARD.count(Premium.TRIPLE_LETTER) == 12
    assert STANDARD.count(Premium.DOUBLE_LETTER) == 24
    assert STANDARD.count(Premium.NONE) == 225 - 8 - 17 - 12 - 24


def test_standard_layout_squares() -> None:
    assert _named(Premium.TRIPLE_WORD) == {"A1", "H1", "O1", "A8", "O8", "A15", "H15", "O15"}
    assert _named(Premium.TRIPLE_LETTER) == {"F2", "J2", "B6", "F6", "J6", "N6",
                                             "B10", "F10", "J10", "N10", "F14", "J14"}
    dw = _named(Premium.DOUBLE_WORD)
    assert "H8" in dw
    assert {"B2", "C3", "D4", "E5", "K11", "L12", "M13", "N14",
            "N2", "M3", "L4", "K5", "E11", "D12", "C13", "B14"} == dw - {"H8"}
    dl = _named(Premium.DOUBLE_LETTER)
    assert {"D1", "L1", "A4", "O4", "D15", "L15", "A12", "O12", "H4", "D8", "L8", "H12",
            "C7", "G7", "I7", "M7", "C9", "G9", "I9", "M9", "G3", "I3", "G13", "I13"} == dl


def test_start_square_is_h8_and_a_double_word() -> None:
    assert STANDARD.start == Square.parse("H8")
    assert STANDARD.premium(STANDARD.start) is Premium.DOUBLE_WORD


def test_layout_is_symmetric_under_transposition_and_mirroring() -> None:
    for sq in STANDARD.squares():
        p = STANDARD.premium(sq)
        assert STANDARD.premium(Square(sq.col, sq.row)) is p
        assert STANDARD.premium(Square(sq.row, 14 - sq.col)) is p
        assert STANDARD.premium(Square(14 - sq.row, sq.col)) is p


def test_premium_multipliers() -> None:
    assert (Premium.DOUBLE_LETTER.letter_multiplier, Premium.DOUBLE_LETTER.word_multiplier) == (2, 1)
    assert (Premium.TRIPLE_LETTER.letter_multiplier, Premium.TRIPLE_LETTER.word_multiplier) == (3, 1)
    assert (Premium.DOUBLE_WORD.letter_multiplier, Premium.DOUBLE_WORD.word_multiplier) == (1, 2)
    assert (Premium.TRIPLE_WORD.letter_multiplier, Premium.TRIPLE_WORD.word_multiplier) == (1, 3)
    assert (Premium.NONE.letter_multiplier, Premium.NONE.word_multiplier) == (1, 1)


@pytest.mark.parametrize("name,row,col", [("H8", 7, 7), ("A1", 0, 0), ("O15", 14, 14), ("d12", 11, 3),
                                          (" C3 ", 2, 2)])
def test_square_names(name: str, row: int, col: int) -> None:
    sq = Square.parse(name)
    assert (sq.row, sq.col) == (row, col)
    assert sq.name == name.strip().upper()


def test_8d_is_across_row_8_and_d8_is_down_column_d() -> None:
    across = Coordinate.parse("8D")
    down = Coordinate.parse("D8")
    assert across == Coordinate(7, 3, Direction.ACROSS)
    assert down == Coordinate(7, 3, Direction.DOWN)
    assert across.square == down.square == Square.parse("D8")
    assert str(across) == "8D" and str(down) == "D8"
    assert str(Coordinate.parse("15o")) == "15O"
    assert Coordinate.parse("a15").direction is Direction.DOWN


@pytest.mark.parametrize("text", ["16A", "A16", "P8", "8P", "0A", "A0", "Z1", "99Z"])
def test_coordinates_off_the_board(text: str) -> None:
    with pytest.raises(BadCoordinate, match="off the 15x15 board"):
        Coordinate.parse(text)


@pytest.mark.parametrize("text", ["", "8", "H", "HH", "88", "8D8", "H-8", "8 D", "H8x", "123A"])
def test_unreadable_coordinates(text: str) -> None:
    with pytest.raises(BadCoordinate, match="not a play coordinate"):
        Coordinate.parse(text)


@pytest.mark.parametrize("text", ["P1", "A16", "A0"])
def test_squares_off_the_board(text: str) -> None:
    with pytest.raises(BadCoordinate, match="off the"):
        Square.parse(text)


@pytest.mark.parametrize("text", ["8D", "", "H", "HH8", "H 8"])
def test_unreadable_squares(text: str) -> None:
    with pytest.raises(BadCoordinate, match="not a square name"):
        Square.parse(text)


def test_square_step() -> None:
    h8 = Square.parse("H8")
    assert h8.step(Direction.ACROSS).name == "I8"
    assert h8.step(Direction.DOWN, 2).name == "H10"
    assert h8.step(Direction.ACROSS, -7).name == "A8"


def test_board_tiles_copy_and_equality() -> None:
    b = Board()
    assert b.is_empty()
    b[Square.parse("H8")] = "Q"
    b[Square.parse("I8")] = "i"  # a blank
    assert not b.is_empty()
    assert b.occupied(Square.parse("H8"))
    assert not b.occupied(Square.parse("A1"))
    assert not b.occupied(Square(-1, 0))  # off the board is never occupied
    assert sorted((sq.name, t) for sq, t in b.tiles()) == [("H8", "Q"), ("I8", "i")]
    c = b.copy()
    assert c == b
    c[Square.parse("A1")] = "Z"
    assert c != b and b[Square.parse("A1")] == "."
    assert Board(rows=b.rows()) == b


def test_board_rows_must_fit_the_layout() -> None:
    with pytest.raises(ValueError):
        Board(rows=["." * 15] * 14)


def test_layouts_are_checked() -> None:
    with pytest.raises(ValueError, match="square"):
        Layout("bad", ("...", ".*."))
    with pytest.raises(ValueError, match="start"):
        Layout("bad", ("...", "...", "..."))
    with pytest.raises(ValueError, match="premium codes"):
        Layout("bad", ("..x", ".*.", "..."))
    small = Layout("small", ("T.T", ".*.", "T.T"))
    assert small.size == 3 and small.count(Premium.TRIPLE_WORD) == 4
    assert Board(small).size == 3
