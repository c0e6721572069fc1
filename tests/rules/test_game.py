"""The game as a list of events: turns, passes, exchanges, every challenge rule, the end of the
game in tournament and casual modes, time penalties, undo, and state rebuilt from the events."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from board_pi.rules.board import Square
from board_pi.rules.game import ChallengeRule, Game, GameRules, IllegalEvent, PlayRefused
from board_pi.rules.events import (ChallengeBonus, ChallengeJudged, EndRackPoints, GameEnded, Passed,
                                   PhonyWithdrawn, PlayMade, RackPenalty, TimePenalty, TurnLost)
from board_pi.rules.judge import WordJudge
from board_pi.rules.lexicon import Lexicon
from board_pi.rules.play import Placement, Play
from board_pi.rules.tiles import ENGLISH, TileSet

WORDS = ["WINDY", "GALE", "QUITE", "AT", "QA", "UT", "ZA", "QI", "EAT", "WIND", "ZAX"]
JUDGE = WordJudge(Lexicon.from_words(WORDS, "test"))

# A 16-tile set, so a game reaches its end in a few moves: 7 + 7 on the racks, 2 in the bag.
SMALL = TileSet("small", {"A": (6, 1), "E": (4, 1), "T": (3, 1), "Z": (1, 10), "Q": (1, 10), "S": (1, 1)},
                blanks=0)


def game(rule: ChallengeRule = ChallengeRule.SINGLE, players: int = 2, tournament: bool = True,
         per_word: bool = False, tiles: TileSet = ENGLISH) -> Game:
    names = ["Ann", "Bob", "Cat", "Dan"][:players]
    rules = GameRules(challenge=rule, challenge_per_word=per_word, tournament=tournament, tiles=tiles)
    return Game(names, rules, judge=JUDGE)


def assert_consistent(g: Game) -> None:
    """The incremental state is what the events give when replayed from the start."""
    assert g.rebuild() == g.state
    assert Game(g.players, g.rules, events=g.events).state == g.state


def small_endgame(rule: ChallengeRule = ChallengeRule.FIVE_POINTS, tournament: bool = True) -> Game:
    """Ann and Bob with the small set, the bag empty, Ann has just played her last two tiles."""
    g = game(rule, tiles=SMALL, tournament=tournament)
    g.play(0, "8B AAEETTZ")  # a bingo; Ann draws the last 2 tiles
    assert g.state.bag == 0 and g.state.racks == [2, 7]
    g.play(1, "H9 AAAE")     # ZAAAE down; Bob holds 3
    assert g.state.racks == [2, 3]
    out = g.play(0, "9B QS")  # Ann goes out: QS, AQ, AS (S on C9, a double letter)
    assert out.score == (10 + 2 * 1) + (1 + 10) + (1 + 2 * 1)
    assert g.state.racks == [0, 3] and g.state.going_out == 0
    assert sorted(g.state.unseen.elements()) == ["A", "E", "T"]  # Bob's rack
    return g


# --- setting up --------------------------------------------------------------------------------


def test_a_new_game() -> None:
    g = game()
    s = g.state
    assert s.racks == [7, 7] and s.bag == 86 and s.scores == [0, 0] and s.turn == 0
    assert s.board.is_empty() and not s.over and s.last_play is None
    assert sum(s.unseen.values()) == 100


@pytest.mark.parametrize("n,bag", [(3, 79), (4, 72)])
def test_casual_games_for_three_or_four(n: int, bag: int) -> None:
    g = game(players=n, tournament=False)
    assert g.state.racks == [7] * n and g.state.bag == bag


@pytest.mark.parametrize("n", [3, 4])
def test_tournament_games_are_for_two_players_only(n: int) -> None:
    with pytest.raises(ValueError, match="tournament games are for 2 players"):
        game(players=n, tournament=True)


@pytest.mark.parametrize("names", [["solo"], ["a", "b", "c", "d", "e"]])
def test_two_to_four_players(names: list[str]) -> None:
    with pytest.raises(ValueError, match="2 to 4 players"):
        Game(names, GameRules(tournament=False))


# --- turns, plays, passes, exchanges ---------------------------------------------------------


def test_turn_order_two_players() -> None:
    g = game()
    with pytest.raises(IllegalEvent, match="it is Ann's turn, not Bob's"):
        g.play(1, "8D WINDY")
    assert g.events == []
    assert g.play(0, "8D WINDY").score == 32
    assert g.state.turn == 1
    with pytest.raises(IllegalEvent, match="it is Bob's turn, not Ann's"):
        g.pass_turn(0)
    g.play(1, "7C GALE")
    assert g.state.turn == 0 and g.state.scores == [32, 16]


def test_turn_order_goes_round_three_players() -> None:
    g = game(players=3, tournament=False)
    order = []
    for _ in range(3):
        order.append(g.state.turn)
        g.pass_turn(g.state.turn)
    g.play(0, "8D WINDY")
    for _ in range(4):
        order.append(g.state.turn)
        g.pass_turn(g.state.turn)
    assert order == [0, 1, 2, 1, 2, 0, 1]


def test_no_such_player() -> None:
    g = game()
    with pytest.raises(IllegalEvent, match="there is no player 3"):
        g.append(Passed(2))


def test_play_updates_board_scores_bag_and_racks() -> None:
    g = game()
    sp = g.play(0, "8D WINDY")
    s = g.state
    assert s.board[Square.parse("D8")] == "W" and s.board[Square.parse("H8")] == "Y"
    assert s.bag == 81 and s.racks == [7, 7] and s.scores == [32, 0]
    assert s.unseen["W"] == 1 and s.unseen["Y"] == 1
    assert s.last_play is not None and s.last_play.words == ["WINDY"] and s.last_play.scored == sp
    assert [(m.text, m.score, m.total) for m in s.moves] == [("8D WINDY", 32, 32)]


def test_score_sheet_shows_played_through_tiles_in_parentheses() -> None:
    g = game()
    g.play(0, "8D QUITE")
    g.play(1, "H8 .AT")
    assert g.state.moves[-1].text == "H8 (E)AT"


def test_preview_scores_without_playing() -> None:
    g = game()
    assert g.preview("8D WINDY").score == 32
    assert g.events == [] and g.state.board.is_empty()


def test_play_given_as_tiles_on_squares() -> None:
    g = game()
    g.play(0, "8D QUITE")
    ps = [Placement(Square.parse("H9"), "A"), Placement(Square.parse("H10"), "T")]
    assert g.play_tiles(1, ps).score == 3
    assert g.events[-1] == PlayMade(1, Play.parse("H8 .AT"))


def test_illegal_plays_are_illegal_events_and_change_nothing() -> None:
    g = game()
    with pytest.raises(IllegalEvent, match="centre square"):
        g.play(0, "1A QUITE")
    g.play(0, "8D QUITE")
    before = g.rebuild()
    with pytest.raises(IllegalEvent, match="F8 already holds I"):
        g.play(1, "F8 ZA")
    with pytest.raises(IllegalEvent, match="does not touch"):
        g.play(1, "1A ZA")
    assert len(g.events) == 1 and g.state == before


def test_more_tiles_than_the_rack_holds() -> None:
    g = game()
    with pytest.raises(IllegalEvent, match="places 8 tiles but Ann holds only 7"):
        g.play(0, "8A ABCDEFGH")


def test_more_tiles_of_a_letter_than_the_set_has() -> None:
    g = game()
    g.play(0, "8G ZA")
    with pytest.raises(IllegalEvent, match=r"more Z tiles on the board than the set has \(1\)"):
        g.play(1, "G7 Z.")
    g.play(1, "G7 z.")  # a blank as Z is fine
    g.play(0, "9H Qi")
    with pytest.raises(IllegalEvent, match=r"more blanks on the board than the set has \(2\)"):
        g.play(1, "10H zo")


def test_pass() -> None:
    g = game()
    g.play(0, "8D WINDY")
    g.pass_turn(1)
    s = g.state
    assert s.turn == 0 and s.scoreless == 1 and s.last_play is None
    assert s.moves[-1].text == "pass" and s.moves[-1].score == 0
    with pytest.raises(IllegalEvent, match="no play to challenge"):
        g.challenge(0, False)


def test_exchange_early_in_the_game() -> None:
    g = game()
    g.exchange(0, 3, "QVV")
    g.exchange(1, 7)
    s = g.state
    assert s.bag == 86 and s.racks == [7, 7] and s.turn == 0 and s.scoreless == 2
    assert [m.text for m in s.moves] == ["-QVV", "-7"]


@pytest.mark.parametrize("count,tiles,message", [(0, "", "cannot exchange 0"), (8, "", "cannot exchange 8"),
                                                 (3, "QV", "lists 2")])
def test_bad_exchanges(count: int, tiles: str, message: str) -> None:
    g = game()
    with pytest.raises(IllegalEvent, match=message):
        g.exchange(0, count, tiles)


def test_exchange_needs_seven_tiles_in_the_bag() -> None:
    # 21 tiles: 7 left in the bag after the racks are drawn; exchanging is allowed.
    seven = TileSet("t21", {"A": (11, 1), "B": (10, 3)}, blanks=0)
    g = game(tiles=seven)
    assert g.state.bag == 7
    g.exchange(0, 7)
    # 20 tiles: 6 in the bag; no exchange.
    six = TileSet("t20", {"A": (10, 1), "B": (10, 3)}, blanks=0)
    g = game(tiles=six)
    assert g.state.bag == 6
    with pytest.raises(IllegalEvent, match="no exchange with 6 tiles in the bag"):
        g.exchange(0, 1)
    g.pass_turn(0)  # passing is still allowed


def test_exchange_refused_late_in_a_real_game(shared_data) -> None:  # type: ignore[no-untyped-def]
    from board_pi.rules.gcg import read_gcg
    from board_pi.rules.replay import replay

    rec = read_gcg(str(shared_data / "gcg" / "macondo" / "vs_frentz.gcg"))
    full = replay(rec).game
    # Replay the record event by event until fewer than 7 tiles remain in the bag.
    g = Game(full.players, full.rules)
    for e in full.events:
        g.append(e)
        if g.state.bag < 7 and not g.state.over and g.state.going_out is None:
            break
    assert g.state.bag < 7
    before = len(g.events)
    with pytest.raises(IllegalEvent, match=f"no exchange with {g.state.bag} tiles in the bag"):
        g.exchange(g.state.turn, 1)
    assert len(g.events) == before


# --- challenges --------------------------------------------------------------------------------


def test_void_rule_refuses_a_phony_and_appends_nothing() -> None:
    g = game(ChallengeRule.VOID)
    with pytest.raises(PlayRefused, match="not acceptable"):
        g.play(0, "8D WINDX")
    assert g.events == [] and g.state.turn == 0 and g.state.board.is_empty()
    assert g.play(0, "8D WINDY").score == 32  # play again
    with pytest.raises(IllegalEvent, match="void rule"):
        g.challenge(1)


def test_void_rule_judges_every_word_formed() -> None:
    g = game(ChallengeRule.VOID)
    g.play(0, "8D QUITE")
    with pytest.raises(PlayRefused):
        g.play(1, "9D AX")  # AX is not in the test lexicon, QA and UX... the play fails whole
    g.play(1, "9D AT")  # AT, QA, UT: all good
    assert g.state.scores == [48, 15]


def test_void_rule_needs_a_judge() -> None:
    g = Game(["Ann", "Bob"], GameRules(challenge=ChallengeRule.VOID))
    with pytest.raises(IllegalEvent, match="needs a word judge"):
        g.play(0, "8D WINDY")


def test_single_rule_unsuccessful_challenge_costs_nothing() -> None:
    g = game(ChallengeRule.SINGLE)
    g.play(0, "8D WINDY")
    assert g.challenge(1) is True  # the judge finds WINDY
    assert g.events[-1] == ChallengeJudged(1, True)
    assert g.state.scores == [32, 0] and g.state.turn == 1
    g.play(1, "7C GALE")
    assert_consistent(g)


def test_double_rule_challenger_loses_the_turn() -> None:
    g = game(ChallengeRule.DOUBLE)
    g.play(0, "8D WINDY")
    assert g.challenge(1) is True
    assert g.events[-2:] == [ChallengeJudged(1, True), TurnLost(1)]
    s = g.state
    assert s.turn == 0  # back to the player who was challenged
    assert s.scores == [32, 0] and s.moves[-1].text == "lost turn" and s.scoreless == 1
    with pytest.raises(IllegalEvent, match="it is Ann's turn"):
        g.play(1, "7C GALE")
    g.pass_turn(0)
    g.play(1, "7C GALE")
    assert_consistent(g)


def test_double_rule_third_player_loses_their_next_turn() -> None:
    g = game(ChallengeRule.DOUBLE, players=3, tournament=False)
    g.play(0, "8D WINDY")
    assert g.challenge(2) is True  # Cat, not next to play, challenges and loses
    assert g.state.turn == 1
    assert_consistent(g)
    g.pass_turn(1)
    assert g.state.turn == 0  # Cat's turn is skipped
    assert_consistent(g)
    g.pass_turn(0)
    assert g.state.turn == 1  # only once
    assert_consistent(g)


@pytest.mark.parametrize("rule,bonus", [(ChallengeRule.FIVE_POINTS, 5), (ChallengeRule.TEN_POINTS, 10)])
def test_point_rules_give_the_challenged_player_a_bonus(rule: ChallengeRule, bonus: int) -> None:
    g = game(rule)
    g.play(0, "8D QUITE")
    g.play(1, "9D AT")  # three words: AT, QA, UT
    assert g.challenge(0) is True
    assert g.events[-1] == ChallengeBonus(1, bonus)
    assert g.state.scores == [48, 15 + bonus]
    assert g.state.moves[-1].text == "challenge bonus" and g.state.turn == 0
    assert_consistent(g)


@pytest.mark.parametrize("rule,bonus", [(ChallengeRule.FIVE_POINTS, 5), (ChallengeRule.TEN_POINTS, 10)])
def test_per_word_variant_counts_each_word_formed(rule: ChallengeRule, bonus: int) -> None:
    g = game(rule, per_word=True)
    g.play(0, "8D QUITE")
    g.play(1, "9D AT")
    g.challenge(0)
    assert g.events[-1] == ChallengeBonus(1, 3 * bonus)
    assert g.state.scores == [48, 15 + 3 * bonus]


@pytest.mark.parametrize("rule", list(ChallengeRule)[1:])
def test_successful_challenge_withdraws_the_play(rule: ChallengeRule) -> None:
    g = game(rule)
    g.play(0, "8D QUITE")
    before = g.rebuild()
    board_before = before.board.copy()
    phony = g.play(1, "9D AX")
    assert phony.score == (1 + 8) + (10 + 1) + (1 + 8)  # AX, QA, UX
    assert g.state.bag == before.bag - 2
    assert g.challenge(0) is False
    assert g.events[-2:] == [ChallengeJudged(0, False), PhonyWithdrawn(1)]
    s = g.state
    assert s.board == board_before
    assert s.bag == before.bag and s.racks == before.racks
    assert s.scores == [48, 0]
    assert s.unseen == before.unseen
    assert s.turn == 0  # the challenger plays next: the phony cost its player the turn
    assert s.moves[-1].text == "phony withdrawn" and s.moves[-1].score == -phony.score
    assert s.scoreless == 1 and s.last_play is None
    assert_consistent(g)


def test_challenge_needs_a_play_by_someone_else() -> None:
    g = game()
    with pytest.raises(IllegalEvent, match="no play to challenge"):
        g.challenge(1, False)
    g.play(0, "8D WINDY")
    with pytest.raises(IllegalEvent, match="cannot challenge their own play"):
        g.challenge(0, False)
    g.pass_turn(1)
    with pytest.raises(IllegalEvent, match="no play to challenge"):
        g.challenge(0, False)


def test_challenge_without_a_judge_needs_the_verdict() -> None:
    g = Game(["Ann", "Bob"])
    g.play(0, "8D WINDY")
    with pytest.raises(IllegalEvent, match="no word judge"):
        g.challenge(1)
    assert g.challenge(1, acceptable=False) is False
    assert g.state.board.is_empty()


def test_only_the_last_play_can_be_challenged() -> None:
    g = game()
    g.play(0, "8D QUITE")
    g.play(1, "9D AT")
    with pytest.raises(IllegalEvent, match="cannot challenge their own play"):
        g.challenge(1, False)  # Ann's QUITE is no longer the last play
    with pytest.raises(IllegalEvent, match="Ann has no play on the board to withdraw"):
        g.append(PhonyWithdrawn(0))
    with pytest.raises(IllegalEvent, match="challenge bonus goes to the player of the last play"):
        g.append(ChallengeBonus(0, 5))
    with pytest.raises(IllegalEvent, match="cannot be negative"):
        g.append(ChallengeBonus(1, -5))


# --- the end of the game -----------------------------------------------------------------------


def test_going_out_in_tournament_mode_earns_twice_the_opponents_rack() -> None:
    g = small_endgame()
    pre = list(g.state.scores)
    with pytest.raises(IllegalEvent, match="Ann has gone out"):
        g.play(1, "10B T")
    added = g.finish()
    assert added == [EndRackPoints(0, "AET", 6)]
    s = g.state
    assert s.scores == [pre[0] + 6, pre[1]]  # the opponent keeps their score
    assert s.over and s.end_reason == "went out" and s.scores_before_racks == pre
    assert s.winners() == [0]  # (Ann's bingo and QS against Bob's ZAAAE)
    with pytest.raises(IllegalEvent, match="already over"):
        g.finish()
    with pytest.raises(IllegalEvent, match="game is over"):
        g.pass_turn(1)
    assert_consistent(g)


def test_last_play_of_the_game_challenged_unsuccessfully() -> None:
    g = small_endgame(ChallengeRule.FIVE_POINTS)
    pre = list(g.state.scores)
    assert g.challenge(1, acceptable=True) is True
    assert g.state.scores == [pre[0] + 5, pre[1]]
    g.finish()
    assert g.state.scores == [pre[0] + 5 + 6, pre[1]]
    assert_consistent(g)


def test_last_play_of_the_game_challenged_under_double_rule() -> None:
    g = small_endgame(ChallengeRule.DOUBLE)
    assert g.challenge(1, acceptable=True)
    assert isinstance(g.events[-1], TurnLost)
    g.finish()
    assert g.state.over
    assert_consistent(g)


def test_last_play_of_the_game_withdrawn_reopens_the_game() -> None:
    g = small_endgame(ChallengeRule.SINGLE)
    pre = list(g.state.scores)
    assert g.challenge(1, acceptable=False) is False
    s = g.state
    assert s.going_out is None and not s.over
    assert s.racks == [2, 3] and s.scores == [pre[0] - 26, pre[1]]
    assert s.board[Square.parse("B9")] == "." and s.board[Square.parse("C9")] == "."
    assert s.turn == 1
    with pytest.raises(IllegalEvent, match="not at its end"):
        g.finish()
    g.play(1, "H13 TEA")  # Bob goes out instead
    assert g.state.going_out == 1
    added = g.finish()
    assert added == [EndRackPoints(1, "QS", 2 * (10 + 1))]
    assert_consistent(g)


def test_accepting_an_out_play_by_passing() -> None:
    g = small_endgame()
    g.pass_turn(1)
    g.finish()
    assert g.state.over
    assert_consistent(g)


def test_going_out_in_casual_mode_two_players() -> None:
    g = small_endgame(tournament=False)
    pre = list(g.state.scores)
    added = g.finish()
    assert added == [EndRackPoints(0, "AET", 3), RackPenalty(1, "AET", 3)]
    assert g.state.scores == [pre[0] + 3, pre[1] - 3]


def test_going_out_in_casual_mode_three_players() -> None:
    three = TileSet("t23", {"A": (13, 1), "E": (5, 1), "Z": (1, 10), "Q": (1, 10), "X": (1, 8), "S": (2, 1)},
                    blanks=0)
    g = game(players=3, tournament=False, tiles=three)
    assert g.state.bag == 2
    g.play(0, "8B AAAAAAA")     # Ann draws the last 2
    g.play(1, "H9 AAAAE")       # AAAAAE down from H8... Bob holds 2
    g.play(2, "C9 EE")          # Cat holds 5
    g.play(0, "9D SS")          # Ann goes out
    assert g.state.going_out == 0 and g.state.racks == [0, 2, 5]
    with pytest.raises(IllegalEvent, match="racks left must be given"):
        g.finish()
    with pytest.raises(IllegalEvent, match="do not match the unseen tiles"):
        g.finish({1: "ZQ", 2: "AAAAE"})
    pre = list(g.state.scores)
    added = g.finish({1: "ZQ", 2: "XAEEA"})
    assert added == [EndRackPoints(0, "ZQXAEEA", 20 + 12), RackPenalty(1, "ZQ", 20), RackPenalty(2, "XAEEA", 12)]
    assert g.state.scores == [pre[0] + 32, pre[1] - 20, pre[2] - 12]
    assert_consistent(g)


def _tie_game(tournament: bool) -> Game:
    """Ann goes out and the final scores tie, Bob having led before the rack adjustment."""
    g = small_endgame(tournament=tournament)
    # Bob holds AET (3 points). Tournament: Ann + 6, Bob unchanged; casual: Ann + 3, Bob - 3.
    # Either way the final scores tie when Ann has 6 fewer points than Bob before the racks:
    # a time penalty (which counts before the rack points) brings her there.
    s0, s1 = g.state.scores
    assert s0 > s1 - 6
    g.time_penalty(0, s0 - (s1 - 6))
    g.finish()
    assert g.state.scores[0] == g.state.scores[1]
    return g


def test_tournament_tie_is_a_tie() -> None:
    g = _tie_game(tournament=True)
    assert g.state.winners() == [0, 1]


def test_casual_tie_goes_to_the_higher_score_before_racks() -> None:
    g = _tie_game(tournament=False)
    pre = g.state.scores_before_racks
    assert pre is not None and pre[1] > pre[0]
    assert g.state.winners() == [1]


def test_six_scoreless_turns_end_the_game() -> None:
    g = game()
    g.play(0, "8D WINDY")
    g.pass_turn(1)
    g.pass_turn(0)
    g.exchange(1, 2)
    g.play(0, "9D QI")
    assert g.challenge(1, acceptable=False) is False  # a phony withdrawn is scoreless too
    g.pass_turn(1)
    assert g.state.scoreless == 5 and not g.state.scoreless_ended
    g.pass_turn(0)
    assert g.state.scoreless_ended
    with pytest.raises(IllegalEvent, match="six scoreless turns"):
        g.play(1, "7C GALE")
    with pytest.raises(IllegalEvent, match="each player's rack must be given"):
        g.finish()
    with pytest.raises(IllegalEvent, match="not unseen: WW"):
        g.finish({0: "WWW", 1: "A"})
    with pytest.raises(IllegalEvent, match="rack of player 2 is needed"):
        g.finish({0: "AB"})
    added = g.finish({0: "QZ?AEIO", 1: "JXKAEIO"})
    assert added == [RackPenalty(0, "QZ?AEIO", 24), RackPenalty(1, "JXKAEIO", 25)]
    s = g.state
    assert s.scores == [32 - 24, 0 - 25] and s.over and s.end_reason == "six scoreless turns"
    assert s.scores_before_racks == [32, 0]
    assert_consistent(g)


def test_a_scoring_play_resets_the_scoreless_count() -> None:
    g = game()
    g.pass_turn(0)
    g.pass_turn(1)
    g.play(0, "8D WINDY")
    assert g.state.scoreless == 0


def test_rack_points_only_at_the_end() -> None:
    g = game()
    g.play(0, "8D WINDY")
    with pytest.raises(IllegalEvent, match="only at the end"):
        g.append(RackPenalty(1, "AB", 4))
    with pytest.raises(IllegalEvent, match="not at its end"):
        g.finish()


def test_game_ended_by_the_director() -> None:
    g = game()
    g.play(0, "8D WINDY")
    g.end("overtime limit")
    assert g.state.over and g.state.end_reason == "overtime limit"
    with pytest.raises(IllegalEvent, match="game is over"):
        g.play(1, "7C GALE")
    with pytest.raises(IllegalEvent, match="already over"):
        g.end("again")
    assert g.events[-1] == GameEnded("overtime limit")


# --- time penalties and undo -----------------------------------------------------------------


def test_time_penalties() -> None:
    g = game()
    g.play(0, "8D WINDY")
    g.time_penalty(0, 10)
    g.time_penalty(1, 0)  # nothing to take off: nothing recorded
    assert g.events[-1] == TimePenalty(0, 10) and len(g.events) == 2
    assert g.state.scores == [22, 0] and g.state.turn == 1
    assert g.state.moves[-1].text == "time penalty" and g.state.moves[-1].score == -10
    with pytest.raises(IllegalEvent, match="not negative"):
        g.append(TimePenalty(1, -5))
    assert_consistent(g)


def test_time_penalty_after_the_end_of_the_game() -> None:
    g = small_endgame()
    g.finish()
    final = list(g.state.scores)
    g.time_penalty(1, 20)  # overtime is settled after the last tile
    assert g.state.scores == [final[0], final[1] - 20]


def test_undo() -> None:
    g = game()
    with pytest.raises(IllegalEvent, match="nothing to undo"):
        g.undo()
    g.play(0, "8D WINDY")
    after_first = g.rebuild()
    g.play(1, "7C GALE")
    assert g.undo() == PlayMade(1, Play.parse("7C GALE"))
    assert g.state == after_first
    ax = g.play(1, "9D AX").score
    g.challenge(0, False)
    assert g.state.scores == [32, 0]
    g.undo()  # the withdrawal
    assert g.state.board[Square.parse("D9")] == "A" and g.state.scores == [32, ax]
    g.undo()  # the verdict
    g.undo()  # the play
    assert g.state == after_first
    g.undo()
    assert g.state == Game(["Ann", "Bob"]).state


# --- events are the truth: property-based ---------------------------------------------------

ACTIONS = ["play", "play", "play", "pass", "exchange", "challenge_ok", "challenge_bad", "time"]
PLAYS = ["8D WINDY", "7C GALE", "9D AT", "H8 .AT", "8D QUITE", "D8 .I", "E9 TE", "C9 ZA", "6E IT",
         "G7 AT", "I9 TO", "10H ZAX", "J9 .EE", "9J EEN"]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.sampled_from(ACTIONS), st.sampled_from(PLAYS), st.integers(1, 3)), max_size=25),
       st.sampled_from(list(ChallengeRule)[1:]), st.integers(2, 4))
def test_state_rebuilt_from_events_equals_the_incremental_state(
        actions: list[tuple[str, str, int]], rule: ChallengeRule, n: int) -> None:
    g = game(rule, players=n, tournament=n == 2)
    for action, play, k in actions:
        turn = g.state.turn
        try:
            if action == "play":
                g.play(turn, play)
            elif action == "pass":
                g.pass_turn(turn)
            elif action == "exchange":
                g.exchange(turn, k)
            elif action.startswith("challenge"):
                lp = g.state.last_play
                if lp is None:
                    continue
                challenger = (lp.player + k) % n
                g.challenge(challenger, acceptable=action == "challenge_ok")
            else:
                g.time_penalty((turn + k) % n, k)
        except IllegalEvent:
            pass  # refused events leave no trace, which the comparison checks too
        assert g.rebuild() == g.state
    # scores are the sum of the move lines
    for p in range(n):
        assert g.state.scores[p] == sum(m.score for m in g.state.moves if m.player == p)


# --- found while testing: each was a bug in the engine ------------------------------------------


def test_a_play_is_judged_once() -> None:
    # Pressing "challenge" twice must not give the five points twice.
    g = game(ChallengeRule.FIVE_POINTS)
    g.play(0, "8D WINDY")
    g.challenge(1, acceptable=True)
    with pytest.raises(IllegalEvent, match="already been judged"):
        g.challenge(1, acceptable=True)
    assert g.state.scores == [32 + 5, 0]
    assert_consistent(g)


def test_a_play_is_judged_once_in_a_casual_game_too() -> None:
    g = game(ChallengeRule.SINGLE, players=3, tournament=False)
    g.play(0, "8D WINDY")
    g.challenge(1, acceptable=True)
    with pytest.raises(IllegalEvent, match="already been judged"):
        g.challenge(2, acceptable=False)  # the play stands: nobody can reopen it
    assert g.state.scores == [32, 0, 0]


def test_an_accepted_out_play_cannot_be_challenged_afterwards() -> None:
    g = small_endgame()
    g.pass_turn(1)  # Bob accepts Ann's last play
    with pytest.raises(IllegalEvent, match="no play to challenge"):
        g.challenge(1, acceptable=False)
    g.finish()
    assert g.state.over


def test_exchanged_tiles_must_be_unseen() -> None:
    g = game()
    g.play(0, "8G ZA")
    with pytest.raises(IllegalEvent, match="not unseen: Z"):
        g.exchange(1, 2, "ZE")  # the only Z is on the board
    with pytest.raises(IllegalEvent, match=r"not unseen: \?$"):
        g.exchange(1, 3, "???")
    g.exchange(1, 3, "?EE")
    assert_consistent(g)


def test_each_rack_is_settled_once() -> None:
    g = small_endgame()
    g.finish()
    with pytest.raises(IllegalEvent, match="already settled"):
        g.append(EndRackPoints(0, "AET", 6))
    with pytest.raises(IllegalEvent, match="keeps their score"):
        g.append(RackPenalty(1, "AET", 3))  # tournament: the opponent is unchanged


def test_rack_points_go_to_the_player_who_went_out() -> None:
    g = small_endgame()
    with pytest.raises(IllegalEvent, match="Bob did not go out"):
        g.append(EndRackPoints(1, "QS", 22))
    with pytest.raises(IllegalEvent, match="Ann went out: there is no rack to lose"):
        g.append(RackPenalty(0, "", 0))
    casual = small_endgame(tournament=False)
    casual.finish()
    with pytest.raises(IllegalEvent, match="already settled"):
        casual.append(RackPenalty(1, "AET", 3))


def test_six_scoreless_rack_penalties_once_each() -> None:
    g = game()
    for _ in range(6):
        g.pass_turn(g.state.turn)
    with pytest.raises(IllegalEvent, match="did not go out"):
        g.append(EndRackPoints(0, "AB", 4))
    g.append(RackPenalty(0, "AB", 4))
    with pytest.raises(IllegalEvent, match="already settled"):
        g.append(RackPenalty(0, "AB", 4))
    g.append(RackPenalty(1, "CD", 5))
    assert g.state.scores == [-4, -5] and g.state.over


def test_going_out_in_a_casual_game_of_four() -> None:
    four = TileSet("t30", {"A": (20, 1), "E": (6, 1), "Z": (1, 10), "Q": (1, 10), "X": (1, 8), "K": (1, 5)},
                   blanks=0)
    g = game(players=4, tournament=False, tiles=four)
    assert g.state.bag == 2
    g.play(0, "8B AAAAAAA")
    for p in (1, 2, 3):
        g.pass_turn(p)
    g.play(0, "9B EE")  # Ann goes out
    pre = list(g.state.scores)
    racks = {1: "ZQAAAAA", 2: "XKAAAAA", 3: "EEEEAAA"}
    g.finish(racks)
    assert g.state.scores == [pre[0] + 25 + 18 + 7, -25, -18, -7]
    assert g.state.winners() == [0]
    assert_consistent(g)


def test_six_scoreless_with_the_bag_empty_needs_the_exact_racks() -> None:
    g = game(tiles=SMALL)
    g.play(0, "8B AAEETTZ")  # the bag is empty now: the racks hold every unseen tile
    for _ in range(6):
        g.pass_turn(g.state.turn)
    unseen = "".join(sorted(g.state.unseen.elements()))
    assert len(unseen) == 9
    with pytest.raises(IllegalEvent, match=f"do not match the unseen tiles \\({unseen}\\)"):
        g.finish({0: "AE", 1: "AAAQST"})  # one E short
    g.finish({0: "AE", 1: "AAAEQST"})
    assert g.state.scores == [84 - 2, -16]
