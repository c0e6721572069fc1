"""Other languages through the whole rules engine: tiles beyond A-Z (Ä Ö Ü, Ñ, the Polish
letters) and multi-letter tiles (Spanish CH LL RR, the Dutch IJ) in plays, scores, racks, the
bag, GCG records, lexicons, the judge and the move generator.

Scores are worked out in the tests from the published values (board_pi/rules/tile_data.py) and
the standard layout: row 8 has a double letter on D8 and L8 and the double-word star on H8;
G7, G9, I7 and I9 are double letters.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from board_pi.rules.board import Board, Square
from board_pi.rules.codec import event_from_dict, event_to_dict
from board_pi.rules.game import Game, GameRules, IllegalEvent
from board_pi.rules.events import Exchanged, PlayMade
from board_pi.rules.gcg import GcgError, MoveKind, parse_gcg, record_from_game, write_gcg
from board_pi.rules.replay import replay
from board_pi.rules.judge import NotAWord, WordJudge
from board_pi.rules.lexicon import Lexicon
from board_pi.rules.movegen import best_play, candidate_plays
from board_pi.rules.play import IllegalPlay, Placement, Play, play_notation
from board_pi.rules.scoring import ScoredPlay, score_play
from board_pi.rules.tiles import (BLANK, DUTCH, DUTCH_IJ, ENGLISH, GERMAN, POLISH, SPANISH, TileSet)


def score(board: Board, play: str, tiles: TileSet) -> ScoredPlay:
    return score_play(board, Play.parse(play).placements(board, tiles), tiles)


def game(tiles: TileSet) -> Game:
    return Game(["Ana", "Jörg"], GameRules(tiles=tiles))


# --- scoring plays that use them -------------------------------------------------------------


@pytest.mark.parametrize("tiles, play, points", [
    # Spanish: CH 5, RR 8, LL 8, Ñ 8; A C I N O E 1 (C is 3).
    (SPANISH, "8G [CH]A[RR]O", (5 + 1 + 8 + 1) * 2),
    (SPANISH, "8G CHARRO", (5 + 1 + 8 + 1) * 2),        # plain text: CH and RR are one tile each
    (SPANISH, "8H CALLE", (3 + 1 + 8 + 1) * 2),
    (SPANISH, "8F NIÑO", (1 + 1 + 8 + 1) * 2),           # Ñ on the star
    (SPANISH, "8G [ch]A[RR]O", (0 + 1 + 8 + 1) * 2),     # a blank as CH scores nothing
    (SPANISH, "8G chARRO", (0 + 1 + 8 + 1) * 2),
    # Dutch: the IJ tile (4) in the old edition; I (1) and J (4) in today's.
    (DUTCH_IJ, "8H IJS", (4 + 2) * 2),
    (DUTCH_IJ, "8H [IJ]S", (4 + 2) * 2),
    (DUTCH, "8H IJS", (1 + 4 + 2) * 2),
    # German: Ä Ü 6, Ö 8, L 2, G 2, B 3.
    (GERMAN, "8E ÜBEL", (6 + 3 + 1 + 2) * 2),
    (GERMAN, "8H ÖL", (8 + 2) * 2),
    (GERMAN, "8D ÄRGER", (6 * 2 + 1 + 2 + 1 + 1) * 2),   # Ä on the double letter
    # Polish: Ż Ó 5, Ł 3, W 1.
    (POLISH, "8G ŻÓŁW", (5 + 5 + 3 + 1) * 2),
])
def test_first_plays_score_their_tiles(tiles: TileSet, play: str, points: int) -> None:
    assert score(Board(), play, tiles).score == points


def test_a_multi_letter_tile_fills_one_square() -> None:
    sp = score(Board(), "8G CHARRO", SPANISH)
    assert [str(p) for p in sp.placements] == ["G8=CH", "H8=A", "I8=RR", "J8=O"]
    assert sp.main_word == "[CH]A[RR]O" and sp.words[0].tiles == ("CH", "A", "RR", "O")
    assert sp.line.length == 4


def test_cross_words_through_a_multi_letter_tile() -> None:
    g = game(SPANISH)
    g.play(0, "8G CHARRO")
    # OCHO down column G through the CH: O on G7 and G9, both double letters: 2 + 5 + 2.
    assert g.play(1, "G7 O.O").score == 1 * 2 + 5 + 1 * 2
    assert g.state.moves[-1].text == "G7 O([CH])O"
    # Written out, as some records do: the tile on the board in brackets or plain.
    g.undo()
    assert g.play(1, "G7 O[CH]O").score == 9
    g.undo()
    assert g.play(1, "G7 OCHO").score == 9


def test_a_play_must_not_split_a_multi_letter_tile() -> None:
    b = Board()
    b[Square.parse("H8")] = "CH"
    with pytest.raises(IllegalPlay, match="already holds CH, not C"):
        Play.parse("8H CA").placements(b, SPANISH)


def test_letters_outside_the_set_are_refused_with_the_letter() -> None:
    with pytest.raises(IllegalPlay, match="'Ä' at character 1 is not a letter of the english tile set"):
        score(Board(), "8H ÄH", ENGLISH)
    with pytest.raises(IllegalPlay, match="'K' at character 1 is not a letter of the spanish tile set"):
        score(Board(), "8H KIWI", SPANISH)
    with pytest.raises(IllegalPlay, match=r"'\[IJ\]' at character 1"):
        score(Board(), "8H [IJ]S", DUTCH)


def test_play_notation_writes_multi_letter_tiles_in_brackets() -> None:
    b = Board()
    placements = [Placement(Square.parse("H8"), "CH"), Placement(Square.parse("I8"), "e")]
    assert str(play_notation(b, placements, SPANISH)) == "8H [CH]e"
    b[Square.parse("H8")] = "Ä"
    assert str(play_notation(b, [Placement(Square.parse("I8"), "ö")], GERMAN)) == "8H .ö"


# --- the game: racks, bag, unseen tiles, exchanges, the end ------------------------------------


def test_unseen_tiles_count_multi_letter_tiles_and_blanks() -> None:
    g = game(SPANISH)
    g.play(0, "8G [ch]A[RR]O")
    unseen = g.state.unseen
    assert unseen["RR"] == 0 and unseen["CH"] == 1 and unseen[BLANK] == 1
    assert sum(unseen.values()) == 100 - 4
    assert g.state.bag == 100 - 14 - 4


def test_exchange_of_multi_letter_tiles() -> None:
    g = game(SPANISH)
    g.exchange(0, 3, "[CH]Ñ?")
    assert g.state.moves[-1].text == "-[CH]Ñ?"
    with pytest.raises(IllegalEvent, match="lists 2"):
        g.exchange(1, 3, "[LL]Ñ")
    with pytest.raises(IllegalEvent, match="'K'"):
        g.exchange(1, 1, "K")


def test_the_end_of_a_game_counts_multi_letter_tiles_on_the_rack() -> None:
    # A tiny set: out in two plays, the other rack holding RR (8) and Ñ (8).
    tiny = TileSet("tiny-es", {"A": (4, 1), "RR": (1, 8), "Ñ": (1, 8), "O": (2, 1)}, blanks=0)
    g = Game(["a", "b"], GameRules(tiles=tiny, rack_size=4))
    g.play(0, "8H AAAA")  # out: the bag was empty after the deal
    g.finish()
    last = g.events[-1]
    assert last.rack == "OO[RR]Ñ" or Counter(tiny.rack(last.rack)) == Counter(["O", "O", "RR", "Ñ"])
    assert last.points == 2 * (1 + 1 + 8 + 8)


def test_events_with_multi_letter_tiles_survive_the_journal_codec() -> None:
    for e in (PlayMade(0, Play.parse("8G [CH]A[RR]O")), Exchanged(1, 2, "[LL]Ñ")):
        assert event_from_dict(event_to_dict(e)) == e


# --- GCG -------------------------------------------------------------------------------------


GERMAN_GCG = """#character-encoding UTF-8
#tile-distribution german
#player1 A Anja Müller
#player2 B Jörg
>A: BELÜ 8E ÜBEL +24 24
"""


def test_the_german_record_replays() -> None:
    report = replay(parse_gcg(GERMAN_GCG))
    assert (report.tiles, report.moves, report.agree, report.ok) == (GERMAN, 1, 1, True)
    assert report.game.players == ["Anja Müller", "Jörg"]


def test_gcg_round_trip_with_two_letter_tiles_and_umlauts() -> None:
    g = game(SPANISH)
    g.play(0, "8G [CH]A[RR]O")
    g.play(1, "G7 O.O")
    g.exchange(0, 2, "[LL]Ñ")
    g.play(1, "9H ñu")  # two blanks: Ñ and U
    rec = record_from_game(g, title="Prueba de Ñandú")
    text = write_gcg(rec)
    assert text.startswith("#character-encoding UTF-8\n")
    assert "#tile-distribution spanish" in text
    assert ">Ana: ACHORR 8G [CH]A[RR]O +30 30" not in text  # the rack is the tiles played, sorted
    assert ">Ana: A[CH]O[RR] 8G [CH]A[RR]O +30 30" in text
    assert ">Ana:  -[LL]Ñ +0 30" in text  # (the table never sees a rack: left out)
    back = parse_gcg(text)
    assert back.same_game(rec)
    report = replay(back)
    assert report.ok and report.tiles is SPANISH and report.agree == 4
    assert report.game.state.board == g.state.board
    # The bytes are UTF-8, read back the same.
    from board_pi.rules.gcg import decode_gcg
    assert parse_gcg(decode_gcg(text.encode("utf-8"))[0]).same_game(rec)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_round_trip_of_random_games_in_every_set(data: st.DataObject) -> None:
    tiles = data.draw(st.sampled_from([SPANISH, GERMAN, DUTCH_IJ, POLISH]))
    g = game(tiles)
    # Plays along row 8 and down column H, each through the last: random faces, some as blanks.
    face = st.sampled_from(tiles.letters).flatmap(lambda f: st.sampled_from([f, f, f.lower()]))
    first = data.draw(st.lists(face, min_size=2, max_size=7))
    try:
        g.play(0, Play(Play.parse("8H X").coordinate, tiles.write(first)))
        second = data.draw(st.lists(face, min_size=1, max_size=6))
        g.play(1, Play(Play.parse("H9 X").coordinate, tiles.write(second)))
    except IllegalEvent:
        return  # more of a letter than the set has: not a game
    text = write_gcg(record_from_game(g))
    report = replay(parse_gcg(text))
    assert report.ok, (report.error, text)
    assert report.game.state.board == g.state.board
    assert report.game.state.scores == g.state.scores


def test_move_kinds_are_an_enum() -> None:
    rec = parse_gcg(GERMAN_GCG + ">B: ?ENRST - +0 0\n>A: ABCDEFG -ABC +0 24\n")
    assert [m.kind for m in rec.moves] == [MoveKind.PLAY, MoveKind.PASS, MoveKind.EXCHANGE]
    assert rec.moves[0].kind == "play" and str(rec.moves[1].kind) == "pass"  # a str enum
    with pytest.raises(ValueError):
        MoveKind("castle")


@pytest.mark.parametrize("text, line, message", [
    (GERMAN_GCG.replace("german", "klingon"), 2, "unknown tile set 'klingon'; known: english, german"),
    (GERMAN_GCG.replace("BELÜ 8E ÜBEL", "BELÇ 8E ÇBEL"), 5, "'Ç', is not"),
    (GERMAN_GCG.replace("BELÜ 8E ÜBEL", "BELÜ 8E ÜBEß"), 5, "'ß' at character 4 is not a letter of the german tile set"),
    (GERMAN_GCG.replace("BELÜ 8E ÜBEL", "BEL[CH] 8E [CH]BEL"), 5, "not a tile of the german set"),
    (GERMAN_GCG.replace("BELÜ 8E ÜBEL", "BELÜ 8E [ÜBEL"), 5, "is not a played word"),
])
def test_bad_tiles_in_a_record_name_the_line(text: str, line: int, message: str) -> None:
    try:
        report = replay(parse_gcg(text))
        error = report.error
    except GcgError as e:
        error = e
    assert error is not None and error.line == line, error
    assert message.replace("'Ç', is not", "'Ç' is not") in str(error) or message in str(error), str(error)


def test_a_record_without_a_tile_distribution_is_guessed_from_its_letters() -> None:
    spanish = "#player1 a a\n#player2 b b\n>a: AÑO 8G AÑO +20 20\n"
    assert replay(parse_gcg(spanish)).tiles is SPANISH
    bracketed = "#player1 a a\n#player2 b b\n>a: [IJ]S 8H [IJ]S +12 12\n"
    assert replay(parse_gcg(bracketed)).tiles is DUTCH_IJ


def test_asking_for_another_set_than_the_record_names_is_warned() -> None:
    report = replay(parse_gcg(GERMAN_GCG.replace("ÜBEL +24 24", "ÜBEL +22 22")), tiles=DUTCH)
    assert report.error is not None  # Ü is not a Dutch tile
    assert "names the german tile set" in report.warnings[-1]


# --- lexicons and the judge ------------------------------------------------------------------


def test_a_word_list_is_compiled_into_the_sets_tiles_and_unspellable_words_are_reported() -> None:
    # ß has no tile: in capitals it is SS, as German Scrabble writes it. Ç has no tile at all.
    lex = Lexicon.from_words(["Straße", "STRASSE", "übel", "öl", "Façade", "Ça"], "de", tiles=GERMAN)
    assert set(lex) == {"STRASSE", "ÜBEL", "ÖL"}
    assert lex.unspellable == 2 and lex.unspellable_examples == ("FAÇADE", "ÇA")
    again = Lexicon.from_bytes(lex.to_bytes())
    assert (again.tiles, again.unspellable, again.unspellable_examples) == ("german", 2, ("FAÇADE", "ÇA"))


def test_the_judge_works_on_tiles() -> None:
    lex = Lexicon.from_words(["CHICO", "CALLE", "PERRO"], "es", tiles=SPANISH)
    judge = WordJudge(lex, tiles=SPANISH)
    assert judge.judge(["chico", "perro"]).acceptable
    assert judge.judge(["[CH]ICO"]).acceptable
    assert not judge.judge(["CHICA"]).acceptable
    with pytest.raises(NotAWord, match="not spelt with the spanish tiles"):
        judge.judge(["[CA]LLE"])
    with pytest.raises(NotAWord, match="letters this lexicon does not use"):
        judge.judge(["KIWI"])
    # A 15-tile word may be longer than 15 characters when it has two-letter tiles.
    assert judge.check_words(["CH" * 15]) == ["[CH]" * 15]


def test_a_game_judged_in_german() -> None:
    lex = Lexicon.from_words(["ÜBEL", "ÖL"], "de", tiles=GERMAN)
    g = Game(["a", "b"], GameRules(tiles=GERMAN), judge=WordJudge(lex, tiles=GERMAN))
    g.play(0, "8E ÜBEL")
    assert g.challenge(1) is True


# --- the move generator ----------------------------------------------------------------------


def test_movegen_plays_multi_letter_tiles() -> None:
    lex = Lexicon.from_words(["CHICO", "CHIRRIO", "OCHO", "ÑU"], "es", tiles=SPANISH)
    best = best_play(Board(), "CHICOEA", lex, SPANISH)  # CH I C O E A: six tiles
    assert best is not None and best.main_word == "[CH]ICO"
    assert [p.tile for p in best.placements if p.tile == "CH"] == ["CH"]
    # A blank stands in for CH when the rack has none.
    best = best_play(Board(), "?ICOZZ", lex, SPANISH)
    assert best is not None and best.main_word == "[ch]ICO" and best.score == (0 + 1 + 3 + 1) * 2
    # Through a CH on the board.
    b = Board()
    for sq, t in (("G8", "CH"), ("H8", "I"), ("I8", "C"), ("J8", "O")):
        b[Square.parse(sq)] = t
    plays = {str(p.line.coordinate) + " " + p.main_word for p in candidate_plays(b, "OOXXXXX", lex, SPANISH)}
    assert "G7 O[CH]O" in plays


def test_movegen_plays_umlauts() -> None:
    lex = Lexicon.from_words(["ÜBEL", "ÖL", "BEL"], "de", tiles=GERMAN)
    best = best_play(Board(), "BELÜÖXY", lex, GERMAN)
    assert best is not None and best.main_word == "ÜBEL" and best.score == 24


def test_the_projects_german_list_composes_a_german_game() -> None:
    from board_pi.wordlists import load_lexicon

    lex = load_lexicon("german-demo", tiles=GERMAN, use_cache=False)
    assert len(lex) > 400 and lex.unspellable == 0 and lex.tiles == "german"
    g = Game(["a", "b"], GameRules(tiles=GERMAN))
    bag = sorted(GERMAN.full_bag().elements())
    random.Random(12).shuffle(bag)
    racks = [[bag.pop() for _ in range(7)] for _ in range(2)]
    plays = 0
    for turn in range(8):
        p = turn % 2
        best = best_play(g.state.board, racks[p], lex, GERMAN)
        if best is None:
            g.pass_turn(p)
            continue
        g.play_tiles(p, list(best.placements))
        plays += 1
        assert all(w.word in lex for w in best.words)
        used = Counter(TileSet.rack_tile(t.tile) for t in best.placements)
        racks[p] = list((Counter(racks[p]) - used).elements()) + [bag.pop() for _ in range(sum(used.values()))]
    assert plays >= 4
    assert replay(parse_gcg(write_gcg(record_from_game(g)))).ok
