"""The standard English tile set, and tile sets as data."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from board_pi.rules.tiles import (BLANK, DUTCH, DUTCH_IJ, ENGLISH, GERMAN, ITALIAN, POLISH, SPANISH, TILE_SETS,
                                  BadTiles, TileSet, UnknownTileSet, all_glyphs, tile_set)

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


@pytest.mark.parametrize("bad", ["a", "Ab", "1", "", "[A]", "A?", "C.H"])
def test_tile_set_faces_must_be_upper_case_letters(bad: str) -> None:
    with pytest.raises(ValueError, match="upper-case"):
        TileSet("bad", {bad: (1, 1)})


# --- every set against its published distribution ---------------------------------------------
# name: (tiles with blanks, blanks, face value of the letters). The tile totals are the published
# ones (see each set's source in board_pi/rules/tile_data.py); the face values are worked out by
# hand from the published tables, value group by value group:
#   german  1x64 + 2x13 + 3x8 + 4x7 + 6x4 + 8x2 + 10x2 = 202
#   french  1x73 + 2x8 + 3x6 + 4x6 + 8x2 + 10x5 = 197
#   spanish 1x68 + 2x7 + 3x10 + 4x5 + 5x2 + 8x5 + 10x1 = 192
#   italian 1x52 + 2x24 + 3x20 + 5x15 + 8x6 + 10x1 = 293
#   dutch   1x44 + 2x20 + 3x16 + 4x13 + 5x4 + 8x2 + 10x1 = 230
#   dutch-ij 1x44 + 2x22 + 3x13 + 4x14 + 5x4 + 8x2 + 10x1 = 229
#   polish  1x52 + 2x25 + 3x12 + 5x6 + 6 + 7 + 9 = 190
PUBLISHED = {
    "english": (100, 2, 187),
    "german": (102, 2, 202),
    "french": (102, 2, 197),
    "spanish": (100, 2, 192),
    "italian": (120, 2, 293),
    "dutch": (102, 2, 230),
    "dutch-ij": (102, 2, 229),
    "polish": (100, 2, 190),
}

# One letter per set whose count and value a player of that language would know: (face, count, value).
KNOWN = {
    "english": [("Q", 1, 10), ("E", 12, 1)],
    "german": [("Ä", 1, 6), ("Ö", 1, 8), ("Ü", 1, 6), ("E", 15, 1), ("Y", 1, 10)],
    "french": [("K", 1, 10), ("M", 3, 2), ("E", 15, 1)],
    "spanish": [("CH", 1, 5), ("LL", 1, 8), ("RR", 1, 8), ("Ñ", 1, 8), ("A", 12, 1)],
    "italian": [("O", 15, 1), ("Q", 1, 10), ("Z", 2, 8)],
    "dutch": [("E", 18, 1), ("Z", 2, 4), ("Y", 1, 8)],
    "dutch-ij": [("IJ", 2, 4), ("S", 4, 2)],
    "polish": [("Ź", 1, 9), ("Ł", 2, 3), ("A", 9, 1)],
}


def test_every_set_is_in_the_published_table() -> None:
    assert set(TILE_SETS) == set(PUBLISHED)


@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_counts_and_values_add_up_to_the_published_totals(name: str) -> None:
    ts = tile_set(name)
    total, blanks, face_value = PUBLISHED[name]
    assert ts.total == total
    assert ts.blanks == blanks
    assert sum(ts.full_bag().values()) == total
    assert ts.face_value == face_value
    assert ts.rack_value(ts.full_bag().elements()) == face_value
    assert ts.source and ts.title  # every set says where it was checked


@pytest.mark.parametrize("name", sorted(KNOWN))
def test_known_letters_of_each_set(name: str) -> None:
    ts = tile_set(name)
    for face, count, value in KNOWN[name]:
        assert (ts.count(face), ts.value(face)) == (count, value), face
        assert ts.value(face.lower()) == 0  # a blank standing for it


def test_the_sets_letters() -> None:
    assert {"Ä", "Ö", "Ü"} <= set(GERMAN.letters) and "ß" not in GERMAN.letters
    assert SPANISH.multi_letter == ("CH", "LL", "RR")
    assert not {"K", "W"} & set(SPANISH.letters)  # FISE sets have neither
    assert "IJ" not in DUTCH.letters and "IJ" in DUTCH_IJ.letters
    assert len(ITALIAN.letters) == 21
    # Alphabetical order as a table prints it: CH after C, Ñ after N, Ł after L.
    assert SPANISH.letters[:4] == ("A", "B", "C", "CH")
    assert SPANISH.letters.index("Ñ") == SPANISH.letters.index("N") + 1
    assert POLISH.letters.index("Ł") == POLISH.letters.index("L") + 1
    assert ENGLISH.letters == tuple("ABCDEFGHIJKLMNOPQRSTUVWXYZ")


def test_names_and_aliases() -> None:
    assert tile_set("GERMAN") is GERMAN
    assert tile_set(" deutsch ") is GERMAN
    assert tile_set("Español") is SPANISH
    assert tile_set("dutch-ij") is DUTCH_IJ


def test_unknown_tile_set_message_lists_the_known_ones() -> None:
    with pytest.raises(UnknownTileSet) as e:
        tile_set("klingon")
    assert str(e.value).startswith("unknown tile set 'klingon'; known: english, german")
    assert isinstance(e.value, ValueError)


# --- text <-> tiles ----------------------------------------------------------------------------


def test_spanish_plain_text_is_read_into_its_digraph_tiles() -> None:
    # FISE: C+H may not stand for CH (nor L+L for LL, R+R for RR), so plain text always means the tile.
    assert SPANISH.tokenize("CHARRO") == ("CH", "A", "RR", "O")
    assert SPANISH.tokenize("CALLE") == ("C", "A", "LL", "E")
    assert SPANISH.tokenize("chico") == ("ch", "i", "c", "o")  # all blanks
    assert SPANISH.tokenize("[CH]ICO") == SPANISH.tokenize("CHICO")
    assert SPANISH.tokenize("NIÑO") == ("N", "I", "Ñ", "O")


def test_brackets_are_read_in_every_set_and_plain_digraphs_only_where_they_are_one_tile() -> None:
    assert DUTCH_IJ.tokenize("[IJ]S") == DUTCH_IJ.tokenize("IJS") == ("IJ", "S")
    assert DUTCH.tokenize("IJS") == ("I", "J", "S")
    with pytest.raises(BadTiles, match=r"\[IJ\]"):
        DUTCH.tokenize("[IJ]S")  # the current Dutch set has no IJ tile
    assert ENGLISH.tokenize("[Q]I") == ("Q", "I")


@pytest.mark.parametrize("ts, text, bad", [
    (ENGLISH, "QUÄL", "'Ä' at character 3"),
    (GERMAN, "STRAßE", "'ß' at character 5"),
    (SPANISH, "KIWI", "'K' at character 1"),
    (SPANISH, "[CH", "'[CH' at character 1"),
    (SPANISH, "[XY]Z", "'[XY]' at character 1"),
    (ENGLISH, "A-B", "'-' at character 2"),
])
def test_text_that_is_not_tiles_is_refused_naming_the_character(ts: TileSet, text: str, bad: str) -> None:
    with pytest.raises(BadTiles, match=re.escape(bad)):
        ts.tokenize(text)


def test_single_tiles_that_would_read_as_a_digraph_are_bracketed() -> None:
    assert SPANISH.write(["C", "H", "E"]) == "[C]HE"
    assert SPANISH.tokenize("[C]HE") == ("C", "H", "E")
    assert SPANISH.write(["c", "h"]) == "[c]h" and SPANISH.write(["C", "h"]) == "Ch"
    assert SPANISH.write(["R", "R", "R"]) == "[R][R]R"
    assert SPANISH.tokenize("[R][R]R") == ("R", "R", "R")
    assert DUTCH.write(["I", "J"]) == "IJ"  # no IJ tile: nothing to mistake


def test_extra_characters_pass_through() -> None:
    assert GERMAN.tokenize("Ü.EL?") == ("Ü", ".", "E", "L", "?")
    with pytest.raises(BadTiles):
        GERMAN.tokenize("Ü.EL", extra="")


tile_lists = st.sampled_from(sorted(TILE_SETS)).flatmap(
    lambda name: st.tuples(st.just(tile_set(name)), st.lists(
        st.sampled_from(tile_set(name).letters).flatmap(lambda f: st.sampled_from([f, f.lower()]))
        | st.just(BLANK), max_size=15)))


@given(tile_lists)
def test_writing_then_reading_gives_the_same_tiles(case: tuple[TileSet, list[str]]) -> None:
    ts, tiles = case
    assert ts.tokenize(ts.write(tiles)) == tuple(tiles)


def test_every_glyph_of_every_set_for_the_reader() -> None:
    glyphs = all_glyphs()
    assert len(glyphs) == len(set(glyphs))
    for ts in TILE_SETS.values():
        assert set(ts.letters) <= set(glyphs)
    assert {"Ä", "Ö", "Ü", "Ñ", "CH", "LL", "RR", "IJ", "Ą", "Ż"} <= set(glyphs)
    assert all_glyphs([ENGLISH]) == ENGLISH.letters


def test_blank_helpers() -> None:
    assert TileSet.is_blank("?") and TileSet.is_blank("ch") and TileSet.is_blank("ä")
    assert not TileSet.is_blank("CH") and not TileSet.is_blank("Ä")
    assert TileSet.rack_tile("ch") == "?" and TileSet.rack_tile("Ñ") == "Ñ"
    assert SPANISH.is_tile("ch") and SPANISH.is_tile("?") and not SPANISH.is_tile("K")
