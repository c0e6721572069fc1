"""The standard English tile set, and tile sets as data."""

from __future__ import annotations

import pytest

from board_pi.rules.tiles import BLANK, ENGLISH, POLISH, TileSet, UnknownTileSet, tile_set

# The published English distribution: letter -> (count, value).
EXPECTED = {
    "A": (9, 1), "B": (2, 3), "C": (2, 3), "D": (4, 2), "E": (12, 1), "F": (2, 4), "G": (3, 2),
    "H": (2, 4), "I": (9, 1), "J": (1, 8), "K": (1, 5), "L": (4, 1), "M": (2, 3), "N": (6, 1),
    "O": (8, 1), "P": (2, 3), "Q": (1, 10), "R": (6, 1), "S": (4, 1), "T": (6, 1), "U": (4, 1),
    "V": (2, 4), "W": (2, 4), "X": (1, 8), "Y": (2, 4), "Z": (1, 10),
}


def test_english_has_100_tiles_with_two_blanks() -> None:
    assert ENGLISH.total == 100
    assert ENGLISH.blanks == 2
    assert ENGLISH.count(BLANK) == 2
    assert sum(ENGLISH.full_bag().values()) == 100


@pytest.mark.parametrize("letter", sorted(EXPECTED))
def test_english_counts_and_values(letter: str) -> None:
    count, value = EXPECTED[letter]
    assert ENGLISH.count(letter) == count
    assert ENGLISH.value(letter) == value
    assert ENGLISH.full_bag()[letter] == count


def test_english_has_exactly_the_26_letters() -> None:
    assert set(ENGLISH.letters) == set(EXPECTED)
    # The full bag's face value: 187 points, a figure every director knows.
    assert ENGLISH.rack_value(ENGLISH.full_bag().elements()) == 187


def test_blanks_are_worth_zero() -> None:
    assert ENGLISH.value(BLANK) == 0
    for letter in EXPECTED:
        assert ENGLISH.value(letter.lower()) == 0  # a blank played as that letter
    assert ENGLISH.rack_value("??") == 0
    assert ENGLISH.rack_value("Q?z") == 10


def test_is_letter_is_upper_case_letters_of_the_set_only() -> None:
    assert ENGLISH.is_letter("Q")
    assert not ENGLISH.is_letter("q")
    assert not ENGLISH.is_letter(BLANK)
    assert not ENGLISH.is_letter("Ą")
    assert POLISH.is_letter("Ą")


def test_polish_is_another_table_not_more_code() -> None:
    assert POLISH.total == 100
    assert POLISH.value("Ź") == 9
    assert tile_set("Polish") is POLISH
    assert tile_set("english") is ENGLISH


def test_unknown_tile_set_is_a_clear_error() -> None:
    with pytest.raises(UnknownTileSet, match="klingon"):
        tile_set("klingon")


def test_a_new_tile_set_is_just_data() -> None:
    tiny = TileSet("tiny", {"A": (3, 1), "B": (1, 5)}, blanks=1)
    assert tiny.total == 5
    assert tiny.full_bag() == {"A": 3, "B": 1, BLANK: 1}
    assert tiny.rack_value("AB?") == 6


@pytest.mark.parametrize("bad", ["a", "AB", "1"])
def test_tile_set_letters_must_be_single_upper_case(bad: str) -> None:
    with pytest.raises(ValueError, match="upper-case"):
        TileSet("bad", {bad: (1, 1)})
