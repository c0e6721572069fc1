"""Play notation and the placement rules, each with its message."""

from __future__ import annotations

import pytest

from board_pi.rules.board import Board, Direction, Square
from board_pi.rules.play import (IllegalPlay, Placement, Play, check_placements, play_notation,
                                 split_plays, words_formed)
from board_pi.rules.tiles import ENGLISH


def board_with(*plays: str) -> Board:
    """A board with plays put down directly (as if made earlier), no rules checked."""
    b = Board()
    for text in plays:
        for p in Play.parse(text).placements(b, ENGLISH):
            b[p.square] = p.tile
    return b


def tiles(*spec: str) -> list[Placement]:
    """``tiles("H8=Q", "I8=i")``."""
    out = []
    for s in spec:
        sq, t = s.split("=")
        out.append(Placement(Square.parse(sq), t))
    return out


# --- notation ---------------------------------------------------------------------------------


def test_parse_across_and_down() -> None:
    across = Play.parse("8D QUITE")
    assert across.coordinate.direction is Direction.ACROSS and across.word == "QUITE"
    assert [str(p) for p in across.placements(Board(), ENGLISH)] == ["D8=Q", "E8=U", "F8=I", "G8=T", "H8=E"]
    down = Play.parse("D8 QUITE")
    assert [str(p) for p in down.placements(Board(), ENGLISH)] == ["D8=Q", "D9=U", "D10=I", "D11=T", "D12=E"]
    assert str(down) == "D8 QUITE"


def test_lower_case_is_a_blank() -> None:
    ps = Play.parse("8H QuITE").placements(Board(), ENGLISH)
    assert [p.is_blank for p in ps] == [False, True, False, False, False]


def test_played_through_tiles_as_dots_or_spelled_out() -> None:
    b = board_with("8D QUITE")
    # H8 holds E: play down from H8 through it.
    dotted = Play.parse("H8 .AT").placements(b, ENGLISH)
    spelled = Play.parse("H8 EAT").placements(b, ENGLISH)
    assert dotted == spelled == tiles("H9=A", "H10=T")
    # A blank on the board is played through by its letter in either case.
    b2 = board_with("8D QUITe")
    assert Play.parse("H8 EAT").placements(b2, ENGLISH) == tiles("H9=A", "H10=T")


@pytest.mark.parametrize("text", ["8D", "8D QUITE extra", "", "QUITE"])
def test_unreadable_play(text: str) -> None:
    with pytest.raises(IllegalPlay, match="is not a play like"):
        Play.parse(text)


@pytest.mark.parametrize("text", ["16D QUITE", "P8 QUITE", "8 QUITE"])
def test_play_with_a_bad_coordinate(text: str) -> None:
    with pytest.raises(IllegalPlay, match="coordinate"):
        Play.parse(text)


def test_word_running_off_the_board() -> None:
    with pytest.raises(IllegalPlay, match="runs off the board at letter 4"):
        Play.parse("8M QUITE").placements(Board(), ENGLISH)
    with pytest.raises(IllegalPlay, match="runs off the board"):
        Play.parse("M14 QUITE").placements(Board(), ENGLISH)


def test_dot_with_nothing_to_play_through() -> None:
    with pytest.raises(IllegalPlay, match="no tile there to play through"):
        Play.parse("8D Q.ITE").placements(Board(), ENGLISH)


def test_letter_onto_an_occupied_square() -> None:
    b = board_with("8D QUITE")
    with pytest.raises(IllegalPlay, match="D8 already holds Q, not Z"):
        Play.parse("D8 ZA").placements(b, ENGLISH)


def test_play_placing_no_new_tile() -> None:
    b = board_with("8D QUITE")
    with pytest.raises(IllegalPlay, match="places no new tile"):
        Play.parse("8D QUITE").placements(b, ENGLISH)


@pytest.mark.parametrize("word", ["QU1TE", "QU-TE", "QÜITE", "QU?TE"])
def test_letters_not_in_the_set(word: str) -> None:
    with pytest.raises(IllegalPlay, match="not a letter of the english tile set"):
        Play.parse(f"8D {word}").placements(Board(), ENGLISH)


# --- the placement rules ----------------------------------------------------------------------


def test_first_play_across_h8_is_legal() -> None:
    line = check_placements(Board(), tiles("G8=Q", "H8=I"), ENGLISH)
    assert line.direction is Direction.ACROSS and line.start.name == "G8" and line.length == 2
    assert str(line.coordinate) == "8G"


def test_first_play_down_h8_is_legal() -> None:
    line = check_placements(Board(), tiles("H7=Q", "H8=I"), ENGLISH)
    assert line.direction is Direction.DOWN and str(line.coordinate) == "H7"


def test_no_tiles() -> None:
    with pytest.raises(IllegalPlay, match="no tiles placed"):
        check_placements(Board(), [], ENGLISH)


def test_not_in_one_line() -> None:
    with pytest.raises(IllegalPlay, match="not all in one row or one column: H8 I8 H9"):
        check_placements(Board(), tiles("H8=A", "I8=B", "H9=C"), ENGLISH)


def test_gap_in_the_word() -> None:
    with pytest.raises(IllegalPlay, match="gap: J8 is not joined to G8"):
        check_placements(Board(), tiles("G8=A", "H8=T", "J8=S"), ENGLISH)


def test_gap_down_a_column() -> None:
    b = board_with("8D QUITE")
    # E9 and E11 with nothing on E10.
    with pytest.raises(IllegalPlay, match="gap"):
        check_placements(b, tiles("E9=N", "E11=S"), ENGLISH)


def test_a_gap_filled_by_board_tiles_is_no_gap() -> None:
    b = board_with("8D QUITE")
    # C8 and I8 around QUITE: one word CQUITES through five tiles already down.
    line = check_placements(b, tiles("C8=A", "I8=S"), ENGLISH)
    assert line.length == 7 and line.start.name == "C8"


def test_not_touching() -> None:
    b = board_with("8D QUITE")
    with pytest.raises(IllegalPlay, match="does not touch any tile"):
        check_placements(b, tiles("A1=Z", "B1=A"), ENGLISH)


def test_diagonal_contact_is_not_touching() -> None:
    b = board_with("8D QUITE")
    with pytest.raises(IllegalPlay, match="does not touch"):
        check_placements(b, tiles("I9=A", "J9=T"), ENGLISH)


def test_first_play_not_covering_h8() -> None:
    with pytest.raises(IllegalPlay, match="first play must cover the centre square H8"):
        check_placements(Board(), tiles("A1=Q", "B1=I"), ENGLISH)
    with pytest.raises(IllegalPlay, match="centre square H8"):
        check_placements(Board(), tiles("I8=Q", "J8=I"), ENGLISH)


def test_first_play_of_one_tile() -> None:
    with pytest.raises(IllegalPlay, match="first play must place at least two tiles"):
        check_placements(Board(), tiles("H8=A"), ENGLISH)


def test_occupied_square() -> None:
    b = board_with("8D QUITE")
    with pytest.raises(IllegalPlay, match="F8 is already occupied by I"):
        check_placements(b, tiles("F8=A", "F9=T"), ENGLISH)


def test_two_tiles_on_one_square() -> None:
    with pytest.raises(IllegalPlay, match="two tiles placed on H8"):
        check_placements(Board(), tiles("H8=A", "H8=B"), ENGLISH)


@pytest.mark.parametrize("tile", ["1", "?", "Ä", "AB", ""])
def test_tile_not_in_the_set(tile: str) -> None:
    with pytest.raises(IllegalPlay, match="not a letter of the english tile set"):
        check_placements(Board(), [Placement(Square.parse("H8"), tile), *tiles("I8=A")], ENGLISH)


def test_tile_off_the_board() -> None:
    with pytest.raises(IllegalPlay, match="off the board"):
        check_placements(Board(), [Placement(Square(7, 15), "A"), *tiles("H8=A")], ENGLISH)


def test_single_tile_takes_the_direction_that_makes_a_word() -> None:
    b = board_with("8D QUITE")
    # I8 extends QUITE across.
    assert check_placements(b, tiles("I8=S"), ENGLISH).direction is Direction.ACROSS
    # D9 makes only a word down (QI).
    line = check_placements(b, tiles("D9=I"), ENGLISH)
    assert line.direction is Direction.DOWN and line.start.name == "D8" and line.length == 2


# --- words formed and notation ---------------------------------------------------------------


def test_words_formed_main_word_first_then_cross_words() -> None:
    b = board_with("8D QUITE")
    new = tiles("D9=A", "E9=T")  # row 9 under Q and U: AT, with QA and UT down
    line = check_placements(b, new, ENGLISH)
    words = ["".join((b[s] if b[s] != "." else {p.square: p.tile for p in new}[s]) for s in w)
             for w in words_formed(b, new, line)]
    assert words == ["AT", "QA", "UT"]


def test_hook_makes_one_word_of_two_directions() -> None:
    b = board_with("8D QUITE")
    new = tiles("I8=S", "I9=O")  # QUITES across and SO down
    line = check_placements(b, new, ENGLISH)
    assert line.direction is Direction.DOWN
    got = [[s.name for s in w] for w in words_formed(b, new, line)]
    assert got == [["I8", "I9"], ["D8", "E8", "F8", "G8", "H8", "I8"]]


def test_play_notation_writes_dots_for_played_through_tiles() -> None:
    b = board_with("8D QUITE")
    assert str(play_notation(b, tiles("C8=A", "I8=s"), ENGLISH)) == "8C A.....s"
    assert str(play_notation(b, tiles("H9=A", "H10=T"), ENGLISH)) == "H8 .AT"
    with pytest.raises(IllegalPlay, match="gap"):
        play_notation(b, tiles("H9=A", "H11=T"), ENGLISH)


# --- plays in one photo ---------------------------------------------------------------------


def _real_games() -> list[list[Play]]:
    """The plays of the shared English records (skipped where the shared data is absent)."""
    from tests.conftest import shared_data_dir

    from board_pi.rules.events import PhonyWithdrawn, PlayMade
    from board_pi.rules.gcg import read_gcg
    from board_pi.rules.replay import replay

    d = shared_data_dir()
    if d is None:
        pytest.skip("../shared/data is not present")
    games = []
    for path in sorted((d / "gcg" / "macondo").glob("*.gcg"))[:8]:
        report = replay(read_gcg(path))
        if report.tiles is not ENGLISH:
            continue
        plays: list[Play] = []
        for e in report.game.events:
            if isinstance(e, PlayMade):
                plays.append(e.play)
            elif isinstance(e, PhonyWithdrawn):  # its tiles came off again
                plays.pop()
        games.append(plays)
    return games


def test_two_real_plays_seen_at_once_come_apart_into_legal_plays_covering_them() -> None:
    for plays in _real_games():
        board = Board()
        for first, second in zip(plays, plays[1:]):
            p1 = first.placements(board, ENGLISH)
            after = board.copy()
            for q in p1:
                after[q.square] = q.tile
            p2 = second.placements(after, ENGLISH)
            both = {q.square: q.tile for q in p1 + p2}
            parts = split_plays(board, both, ENGLISH)
            assert parts is not None, (first, second)
            assert sorted(q for part in parts for q in part) == sorted(both)  # each tile once
            b = board.copy()
            for part in parts:  # each legal on the board the ones before it leave
                check_placements(b, [Placement(q, t) for q, t in part.items()], ENGLISH)
                for q, t in part.items():
                    b[q] = t
            if len(p1) and check_placements_ok(board, both):
                assert len(parts) == 1
            board = after


def check_placements_ok(board: Board, new: dict[Square, str]) -> bool:
    try:
        check_placements(board, [Placement(q, t) for q, t in new.items()], ENGLISH)
    except IllegalPlay:
        return False
    return True


def test_one_play_stays_one_and_tiles_no_plays_can_make_give_none() -> None:
    b = board_with("8D WINDY")
    one = {Square.parse("C7"): "G", Square.parse("D7"): "A", Square.parse("E7"): "L", Square.parse("F7"): "E"}
    assert split_plays(b, one, ENGLISH) == [one]
    far = {Square.parse("A1"): "A", Square.parse("B1"): "T", Square.parse("O15"): "X"}
    assert split_plays(b, far, ENGLISH) is None  # not touching anything, in any order


def test_the_judge_decides_between_orders() -> None:
    # CAT, then O and P down from its T (TOP) and E beside the P: TOP then PE, never an order
    # that makes a word the judge refuses.
    b = board_with("8G CAT")
    new = {Square.parse("I9"): "O", Square.parse("I10"): "P", Square.parse("J10"): "E"}
    words = {"CAT", "TOP", "PE"}
    parts = split_plays(b, new, ENGLISH, lambda ws: all(w in words for w in ws))
    assert parts == [{Square.parse("I9"): "O", Square.parse("I10"): "P"}, {Square.parse("J10"): "E"}]
    assert split_plays(b, new, ENGLISH, lambda ws: False) is None


def test_the_racks_decide_between_orders() -> None:
    # The same tiles, but the player to move holds one tile: TO first (one tile), then P and E
    # (TOP and PE); a sequence the racks refuse is not taken, and none is when none fits.
    b = board_with("8G CAT")
    new = {Square.parse("I9"): "O", Square.parse("I10"): "P", Square.parse("J10"): "E"}
    seen: list[tuple[list[int], bool]] = []

    def one_first(sizes: list[int], last: bool) -> bool:
        seen.append((list(sizes), last))
        return sizes[0] == 1

    parts = split_plays(b, new, ENGLISH, feasible=one_first)
    assert parts == [{Square.parse("I9"): "O"}, {Square.parse("I10"): "P", Square.parse("J10"): "E"}]
    assert ([1, 2], True) in seen and ([2], False) in seen  # asked with every play so far
    assert split_plays(b, new, ENGLISH, feasible=lambda sizes, last: False) is None
