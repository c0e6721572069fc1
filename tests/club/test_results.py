"""Pairings in (typed or imported) and results out, on their own."""

from __future__ import annotations

import io
import zipfile

import pytest

from board_pi.club.results import (GameResult, PairingError, gcg_archive, parse_pairings, results_csv, standings,
                                   tsh_lines)


def test_pairings_typed_or_as_csv_give_the_same_round():
    typed = parse_pairings("1 Ada Lovelace - Ben Franklin\n2 #3 Cy Cole vs #9 Di Dunn\n")
    csv = parse_pairings("Table,Player1,Player2\n1,Ada Lovelace,Ben Franklin\n2,#3 Cy Cole,#9 Di Dunn\n")
    assert typed == csv
    assert typed[1].players == ("Cy Cole", "Di Dunn") and typed[1].numbers == (3, 9)


@pytest.mark.parametrize("text, says", [
    ("", "no pairings"),
    ("1 Ada - Ben\n1 Cy - Di", "line 2: table 1 is paired twice"),
    ("0 Ada - Ben", "line 1: starts with a table number from 1 to 999"),
    ("5 Ada", "line 1: table 5 needs 2 to 4 players"),
    ("1 Ada - Ben\n2 Ada - Cy", "paired twice in the round: Ada"),
    ("1 Ada - " + "B" * 60, "1 to 40 characters"),
])
def test_bad_pairings_name_their_line(text, says):
    with pytest.raises(PairingError, match=says):
        parse_pairings(text)


def test_every_problem_of_a_round_is_said_at_once():
    with pytest.raises(PairingError) as e:
        parse_pairings("x Ada - Ben\n2 Cy\n3 Di - Ed")
    assert str(e.value).splitlines() == [
        "line 1: starts with a table number from 1 to 999, not 'x'",
        "line 2: table 2 needs 2 to 4 players separated by ' - ', found 1"]


def test_tsh_lines_put_the_first_player_first_and_mark_unknown_numbers():
    rs = [GameResult(1, 2, "A", ("Ada", "Ben"), (400, 380), (12, 7)),
          GameResult(2, 2, "A", ("Cy Cole", "Di"), (350, 390)),
          GameResult(1, 1, "A", ("Ada", "Cy Cole"), (300, 300), (12, 3))]
    assert tsh_lines(rs).splitlines() == ["a 1 A", "12 300 3 300", "a 2 A", "12 400 7 380", "?Cy_Cole 350 ?Di 390"]
    assert results_csv(rs).splitlines()[2] == "A,2,Cy Cole,350,Di,390"


def test_standings_count_a_tie_as_half_then_spread():
    rs = [GameResult(1, 1, "A", ("Ada", "Ben"), (400, 380)), GameResult(2, 1, "A", ("Cy", "Di"), (300, 300)),
          GameResult(1, 2, "A", ("Ada", "Cy"), (350, 390))]
    table = {s.player: s for s in standings(rs)}
    assert (table["Ada"].wins, table["Ada"].spread) == (1, -20)
    assert (table["Cy"].wins, table["Cy"].losses, table["Cy"].spread) == (1.5, 0.5, 40)
    assert [s.player for s in standings(rs)] == ["Cy", "Ada", "Di", "Ben"]


def test_the_archive_keeps_two_games_at_one_table_in_one_round_apart():
    rs = [GameResult(4, 1, "A", ("Ada", "Ben"), (1, 0), gcg="one"), GameResult(4, 1, "A", ("Ada", "Ben"), (0, 1), gcg="two")]
    z = zipfile.ZipFile(io.BytesIO(gcg_archive(rs)))
    assert z.namelist() == ["round-1/table-04.gcg", "round-1/table-04-2.gcg"]
    assert z.read("round-1/table-04-2.gcg") == b"two"
