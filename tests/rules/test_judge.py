"""The word judge: a verdict on the play as a whole, never on a word; the adjudication log;
input that is not a word."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from board_pi.rules.game import ChallengeRule, Game, GameRules, PlayRefused
from board_pi.rules.judge import MAX_WORDS, Adjudication, CannotRule, NotAWord, Verdict, WordJudge
from board_pi.rules.lexicon import Lexicon

# The judge takes the alphabet from the lexicon's words: these use all 26 letters.
WORDS = ["QI", "ZA", "QAT", "AA", "WINDY", "GALE", "JOB", "MUCK", "FOX", "PHT", "VERS"]
LEX = Lexicon.from_words(WORDS, name="tiny")


def make_judge() -> tuple[WordJudge, list[Adjudication]]:
    seen: list[Adjudication] = []
    ticks = iter(range(1000, 2000))
    return WordJudge(LEX, clock=lambda: float(next(ticks)), on_log=seen.append), seen


def test_acceptable_play() -> None:
    j, _ = make_judge()
    v = j.judge(["QI", "ZA"])
    assert v == Verdict(True, 2) and str(v) == "ACCEPTABLE"


def test_a_play_with_one_bad_word_is_not_acceptable_as_a_whole() -> None:
    j, _ = make_judge()
    v = j.judge(["QI", "ZZZQ", "ZA"])
    assert v == Verdict(False, 3) and str(v) == "NOT ACCEPTABLE"
    # The verdict carries nothing that could tell which word failed.
    assert [f.name for f in dataclasses.fields(Verdict)] == ["acceptable", "words"]
    assert "ZZZQ" not in str(v) and "ZZZQ" not in repr(v)


def test_order_does_not_matter() -> None:
    j, _ = make_judge()
    assert j.judge(["ZZZQ", "QI"]) == j.judge(["QI", "ZZZQ"])


def test_blanks_in_lower_case_are_judged_as_their_letters() -> None:
    j, _ = make_judge()
    assert j.judge(["qI", "za"]).acceptable


def test_adjudication_log() -> None:
    j, seen = make_judge()
    j.judge(["qi", "ZA"])
    j.judge(["QAT", "QIX"])
    assert j.log == seen == [
        Adjudication(1000.0, ("QI", "ZA"), True, "tiny"),
        Adjudication(1001.0, ("QAT", "QIX"), False, "tiny"),
    ]


def test_judge_works_without_a_log_callback() -> None:
    j = WordJudge(LEX)
    assert j(["QI"]) is True and j(["QIX"]) is False
    assert [e.time for e in j.log] == [0.0, 0.0]


@pytest.mark.parametrize("words,message", [
    ([], "no words given"),
    (["Q1"], "word 1 is not a word: use letters only"),
    (["QI", "ZA!"], "word 2 is not a word"),
    (["QI", "Z-A"], "word 2 is not a word"),
    (["QI ZA"], "word 1 is not a word"),
    ([""], "word 1 is not a word"),
    (["A"], "word 1 has one letter"),
    (["QI"] * (MAX_WORDS + 1), f"at most {MAX_WORDS} words"),
    (["ÇA"], r"letters this lexicon does not use \(Ç\)"),
    (["QI", "ДА"], r"word 2 has letters this lexicon does not use"),
])
def test_input_that_is_not_a_word(words: list[str], message: str) -> None:
    j, seen = make_judge()
    with pytest.raises(NotAWord, match=message):
        j.judge(words)
    assert j.log == [] and seen == []  # nothing was adjudicated


def test_eight_words_is_the_most() -> None:
    j, _ = make_judge()
    assert j.judge(["QI"] * MAX_WORDS).acceptable


def test_judge_serves_a_game() -> None:
    j, _ = make_judge()
    g = Game(["Ann", "Bob"], GameRules(challenge=ChallengeRule.VOID), judge=j)
    with pytest.raises(PlayRefused):
        g.play(0, "8D WINDX")
    g.play(0, "8D WINDY")
    assert [e.words for e in j.log] == [("WINDX",), ("WINDY",)]
    g2 = Game(["Ann", "Bob"], GameRules(challenge=ChallengeRule.SINGLE), judge=j)
    g2.play(0, "8D WINDX")
    assert g2.challenge(1) is False and g2.state.board.is_empty()


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(WORDS + ["QIX", "ZZ", "AAA", "TAQ", "JOBS", "FO"]), min_size=1, max_size=8))
def test_acceptable_exactly_when_every_word_is_in_the_lexicon(words: list[str]) -> None:
    assert WordJudge(LEX).judge(words).acceptable == all(w in WORDS for w in words)


def test_letters_the_lexicon_never_uses_are_not_words() -> None:
    small = WordJudge(Lexicon.from_words(["QI", "ZA"], "small"))
    with pytest.raises(NotAWord, match=r"does not use \(X\)"):
        small.judge(["QIX"])


def test_a_judge_without_a_word_list_says_so_and_never_not_acceptable() -> None:
    from board_pi.rules.tiles import TILE_SETS

    why = "no word list is configured for the polish tile set (set game.lexicon)"
    judge = WordJudge.without_list(TILE_SETS["polish"], why)
    assert not judge.can_rule and WordJudge(LEX).can_rule
    for words in (["ŻÓŁW"], ["QI"], ["1"]):  # whatever is asked, the answer is that it cannot rule
        with pytest.raises(CannotRule, match="game.lexicon"):
            judge.judge(words)
    assert judge.log == []  # nothing was ruled, so nothing is logged
