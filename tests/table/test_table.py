"""The table's logic from press to events, with a camera that shows exactly the physical board.

The camera here is the boundary stand-in: its frames are the board's rows and its reader turns
them into a reading with the given confidence. Recognition itself is tested with real rendered
images in tests/table/test_demo.py and tests/vision/.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from board_pi.clock import TimeControl
from board_pi.rules.board import Board, Square
from board_pi.rules.game import ChallengeRule, GameRules
from board_pi.rules.gcg import parse_gcg
from board_pi.rules.replay import replay
from board_pi.rules.judge import WordJudge
from board_pi.rules.play import Play
from board_pi.rules.tiles import ENGLISH, SPANISH
from board_pi.table.reading import BoardReading, blank_options
from board_pi.table.store import Journal
from board_pi.table.table import Table, TableError
from board_pi.wordlists import load_lexicon


class BoardCamera:
    """Frames are the physical board's rows; ``doubt`` squares are read with low confidence."""

    def __init__(self) -> None:
        self.board = Board()
        self.doubt: set[Square] = set()

    def read(self) -> list[str]:
        return self.board.rows()

    def lay(self, play: str) -> None:
        p = Play.parse(play)
        for pl in p.placements(self.board, GameRules().tiles):
            self.board[pl.square] = pl.tile


class RowsReader:
    def __init__(self, camera: BoardCamera) -> None:
        self.camera = camera

    def read(self, frame: list[str]) -> BoardReading:
        r = BoardReading.certain(frame)
        conf = tuple(tuple(0.4 if Square(i, j) in self.camera.doubt else 1.0 for j in range(15))
                     for i in range(15))
        return BoardReading(r.grid, conf)


@pytest.fixture(scope="module")
def lexicon():  # type: ignore[no-untyped-def]
    return load_lexicon()


class Clock:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


def make(tmp_path: Path, lexicon, rule: ChallengeRule = ChallengeRule.SINGLE, minutes: float = 25,  # type: ignore[no-untyped-def]
         finished: list | None = None):
    cam = BoardCamera()
    clock = Clock()
    table = Table(Journal(tmp_path / "j.db"), WordJudge(lexicon), camera=cam, reader=RowsReader(cam),
                  time_source=clock, wall_time=lambda: 1_000_000.0 + clock.t,
                  on_finished=(lambda gcg, meta: finished.append((gcg, meta))) if finished is not None else None)
    table.new_game(["Ann", "Bob"], GameRules(challenge=rule), TimeControl(minutes=minutes))
    table.press(1)  # Bob starts Ann's clock
    return table, cam, clock


def turn(table: Table, cam: BoardCamera, clock: Clock, player: int, play: str | None, secs: float = 30):  # type: ignore[no-untyped-def]
    clock.t += secs
    if play:
        cam.lay(play)
    return table.press(player)


def test_a_press_reads_the_play_and_scores_it(tmp_path: Path, lexicon) -> None:  # type: ignore[no-untyped-def]
    table, cam, clock = make(tmp_path, lexicon)
    r = turn(table, cam, clock, 0, "8D WINDY")
    assert (r.outcome, r.play, r.score) == ("play", "8D WINDY", 32)
    r = turn(table, cam, clock, 1, "7C GALE")
    assert (r.outcome, r.score) == ("play", 16)
    snap = table.snapshot()
    assert [p["score"] for p in snap["players"]] == [32, 16]
    assert snap["board"][7] == "...WINDY......."
    assert snap["players"][0]["clock"]["remaining_ms"] == 25 * 60_000 - 30_000
    assert [m["text"] for m in snap["moves"]] == ["8D WINDY", "7C GALE"]
    assert snap["bag"] == 100 - 14 - 9
    assert sum(snap["unseen"].values()) == 100 - 9


def test_no_new_tiles_is_a_pass_and_a_marked_press_an_exchange(tmp_path: Path, lexicon) -> None:  # type: ignore[no-untyped-def]
    table, cam, clock = make(tmp_path, lexicon)
    assert turn(table, cam, clock, 0, None).outcome == "pass"
    clock.t += 20
    r = table.press(1, exchange=True, exchange_count=4)
    assert r.outcome == "exchange"
    assert [m["text"] for m in table.snapshot()["moves"]] == ["pass", "-4"]
    assert table.snapshot()["turn"] == 0


def test_a_press_from_the_side_not_running_changes_nothing(tmp_path: Path, lexicon) -> None:  # type: ignore[no-untyped-def]
    table, cam, clock = make(tmp_path, lexicon)
    cam.lay("8D WINDY")
    assert table.press(1).outcome == "ignored"
    assert table.game is not None and table.game.events == []


def test_a_blank_settled_by_the_lexicon_is_used_and_shown(tmp_path: Path, lexicon) -> None:  # type: ignore[no-untyped-def]
    table, cam, clock = make(tmp_path, lexicon)
    r = turn(table, cam, clock, 0, "8E JAzZ")  # only Z makes a word of JA?Z
    assert r.outcome == "play" and r.play == "8E JAzZ"
    assert any("blank read as Z" in m for m in table.snapshot()["messages"])


def test_an_ambiguous_blank_is_asked_never_guessed(tmp_path: Path, lexicon) -> None:  # type: ignore[no-untyped-def]
    table, cam, clock = make(tmp_path, lexicon)
    r = turn(table, cam, clock, 0, "8G CAt")  # CAB, CAD, CAT... all words
    assert r.outcome == "pending"
    pending = table.snapshot()["pending"]
    assert pending["kind"] == "blank" and pending["doubtful"] == ["I8"]
    assert table.game is not None and table.game.events == []
    with pytest.raises(TableError):
        table.set_blanks({"I8": "7"})
    r = table.set_blanks({"I8": "t"})
    assert (r.outcome, r.play, r.score) == ("play", "8G CAt", 8)


def test_a_doubtful_reading_is_put_to_the_players(tmp_path: Path, lexicon) -> None:  # type: ignore[no-untyped-def]
    table, cam, clock = make(tmp_path, lexicon)
    cam.doubt = {Square.parse("F8")}
    r = turn(table, cam, clock, 0, "8D WINDY")
    assert r.outcome == "pending"
    pending = table.snapshot()["pending"]
    assert pending["kind"] == "reading" and pending["doubtful"] == ["F8"]
    # The clock runs on for the opponent while the players look.
    assert table.clock is not None and table.clock.running == 1
    tiles = dict(pending["tiles"])
    r = table.confirm(tiles)
    assert (r.outcome, r.score) == ("play", 32)


def test_tiles_in_two_lines_are_not_scored_but_shown(tmp_path: Path, lexicon) -> None:  # type: ignore[no-untyped-def]
    table, cam, clock = make(tmp_path, lexicon)
    cam.board[Square.parse("H8")] = "A"
    cam.board[Square.parse("I9")] = "B"
    clock.t += 20
    r = table.press(0)
    assert r.outcome == "pending" and "one row or one column" in r.message
    r = table.confirm({"H8": "A", "I8": "B"})  # the players correct it on the page
    assert r.outcome == "play" and r.play == "8H AB"


def test_a_tile_taken_away_is_reported_and_old_tiles_stay_committed(tmp_path: Path, lexicon) -> None:  # type: ignore[no-untyped-def]
    table, cam, clock = make(tmp_path, lexicon)
    turn(table, cam, clock, 0, "8D WINDY")
    cam.board[Square.parse("D8")] = "."
    r = turn(table, cam, clock, 1, "E7 A.E")
    # The play stands; the missing tile is reported, and the committed board keeps it.
    assert r.outcome == "play" and r.play == "E7 A(I)E"
    assert any("missing from D8" in m for m in table.snapshot()["messages"])
    assert table.snapshot()["board"][7] == "...WINDY......."
    # A tile moved to another square shows as a new tile: not a play anyone made.
    cam.board[Square.parse("M12")] = "W"
    r = turn(table, cam, clock, 0, "F9 ZA")
    assert r.outcome == "pending" and "one row or one column" in r.message


def test_a_phony_is_withdrawn_and_the_table_watches_the_tiles_go(tmp_path: Path, lexicon) -> None:  # type: ignore[no-untyped-def]
    table, cam, clock = make(tmp_path, lexicon, ChallengeRule.DOUBLE)
    turn(table, cam, clock, 0, "8D WINDY")
    turn(table, cam, clock, 1, "9E ZQX")
    table.hold(0)
    v = table.challenge(0)
    assert str(v) == "NOT ACCEPTABLE"
    snap = table.snapshot()
    assert snap["players"][1]["score"] == 0 and snap["board"][8] == "." * 15
    assert snap["removal"] == ["E9", "F9", "G9"]
    assert snap["turn"] == 0  # the challenger plays next, under the double rule too
    assert snap["verdict"]["acceptable"] is False
    # Until Bob takes his tiles back, the table keeps saying so; then it says they are off.
    table.tick()
    assert table.snapshot()["messages"][-1] == "take the withdrawn tiles back: E9, F9, G9"
    # Bob takes his tiles back: the next reading of those squares is empty, and Ann plays.
    for sq in ("E9", "F9", "G9"):
        cam.board[Square.parse(sq)] = "."
    clock.t += 3
    table.tick()
    assert table.snapshot()["removal"] == []
    assert "the withdrawn tiles were taken back" in table.snapshot()["messages"]
    r = turn(table, cam, clock, 0, "E7 A.E")
    assert r.outcome == "play"


def test_withdrawal_leaves_the_challenger_to_play(tmp_path: Path, lexicon) -> None:  # type: ignore[no-untyped-def]
    table, cam, clock = make(tmp_path, lexicon)
    turn(table, cam, clock, 0, "8D WINDY")
    turn(table, cam, clock, 1, "9E ZQX")
    table.challenge(0)
    assert table.snapshot()["turn"] == 0
    assert table.clock is not None and table.clock.running == 0
    # The tiles are still on the board at Ann's next press: not a play of hers.
    clock.t += 20
    r = table.press(0)
    assert r.outcome == "pass"
    assert any("take the withdrawn tiles back" in m for m in table.snapshot()["messages"])


def test_an_unsuccessful_challenge_under_each_rule(tmp_path: Path, lexicon) -> None:  # type: ignore[no-untyped-def]
    for rule, bonus, turn_after in ((ChallengeRule.SINGLE, 0, 0), (ChallengeRule.FIVE_POINTS, 5, 0),
                                    (ChallengeRule.TEN_POINTS, 10, 0), (ChallengeRule.DOUBLE, 0, 1)):
        d = tmp_path / rule.value
        d.mkdir()
        table, cam, clock = make(d, lexicon, rule)
        turn(table, cam, clock, 0, "8D WINDY")
        turn(table, cam, clock, 1, "7C GALE")
        assert str(table.challenge(0)) == "ACCEPTABLE"
        snap = table.snapshot()
        assert snap["players"][1]["score"] == 16 + bonus, rule
        assert snap["turn"] == turn_after, rule
        assert table.clock is not None and table.clock.running == turn_after, rule


def test_void_rule_has_no_challenges(tmp_path: Path, lexicon) -> None:  # type: ignore[no-untyped-def]
    table, cam, clock = make(tmp_path, lexicon, ChallengeRule.VOID)
    r = turn(table, cam, clock, 0, "8E ZQXJ")
    assert r.outcome == "pending" and "not acceptable" in r.message
    with pytest.raises(TableError):
        table.challenge(1)


def test_a_word_list_without_the_plays_letters_cannot_rule_and_changes_nothing(tmp_path: Path) -> None:
    from board_pi.rules.lexicon import Lexicon

    # An empty list (a set with no word list: the demo's stand-in) uses no letters at all.
    table, cam, clock = make(tmp_path, Lexicon.from_words([], name="none"))
    turn(table, cam, clock, 0, "8D WINDY")
    before = table.snapshot()
    with pytest.raises(TableError, match="cannot rule"):
        table.challenge(1)
    after = table.snapshot()
    assert after["moves"] == before["moves"] and after["players"] == before["players"]
    assert table.clock is not None and table.clock.running == 1  # the clock was not stopped for it
    # A record's verdict (the demo following a game record) needs no judge.
    assert str(table.challenge(1, acceptable=False)) == "NOT ACCEPTABLE"
    assert table.snapshot()["moves"][-1]["text"] != "8D WINDY"


def test_a_judge_with_no_word_list_cannot_rule_and_says_why(tmp_path: Path, lexicon) -> None:  # type: ignore[no-untyped-def]
    from board_pi.rules.judge import WordJudge
    from board_pi.rules.tiles import ENGLISH

    table, cam, clock = make(tmp_path, lexicon)
    table.use_judge(WordJudge.without_list(ENGLISH, "no word list is configured (game.lexicon)"))
    turn(table, cam, clock, 0, "8D WINDY")
    with pytest.raises(TableError, match=r"cannot rule on this play: no word list .*game\.lexicon"):
        table.challenge(1)
    with pytest.raises(TableError, match="no word list"):
        table.judge_words(["WINDY"])
    assert table.clock is not None and table.clock.running == 1
    assert str(table.challenge(1, acceptable=True)) == "ACCEPTABLE"  # a record's verdict still counts


def test_a_game_to_its_end_writes_the_record(tmp_path: Path, lexicon, shared_data: Path) -> None:  # type: ignore[no-untyped-def]
    from board_pi.rules.gcg import read_gcg

    rec = read_gcg(str(shared_data / "gcg" / "macondo" / "vs_frentz.gcg"))
    finished: list = []
    table, cam, clock = make(tmp_path, lexicon, ChallengeRule.FIVE_POINTS, finished=finished)
    nicks = [p.nick for p in rec.players]
    for m in rec.moves:
        p = nicks.index(m.nick)
        if m.kind == "play":
            r = turn(table, cam, clock, p, f"{m.position} {m.word}", secs=40)
            if r.outcome == "pending":
                assert table.pending is not None and table.pending.kind == "blank"
                letters = {sq: t for sq, t in zip(table.pending.doubtful, "l")}
                r = table.set_blanks(letters)
            assert r.score == m.score, m.text()
        elif m.kind == "challenge":
            table.challenge((p + 1) % 2, acceptable=True)
        elif m.kind == "endrack" and table.game is not None and not table.game.state.over:
            table.accept_out_play()
    assert table.game is not None and table.game.state.over
    assert table.game.state.scores == [439, 550]
    assert len(finished) == 1
    again = replay(parse_gcg(finished[0][0]))
    assert again.ok and again.game.state.scores == [439, 550]


def test_overtime_penalties_at_the_end_and_the_flag(tmp_path: Path, lexicon) -> None:  # type: ignore[no-untyped-def]
    table, cam, clock = make(tmp_path, lexicon, minutes=1)
    turn(table, cam, clock, 0, "8D WINDY", secs=60 + 65)  # 1:05 over: 20 points
    clock.t += 12 * 60  # Bob sits on his clock: more than 10 minutes over
    table.tick()
    assert table.game is not None and table.game.state.over
    scores = table.snapshot()["players"]
    assert scores[0]["score"] == 32 - 20
    assert scores[1]["score"] == -100  # the clock stops at the flag: 10 minutes over, 100 points
    assert scores[1]["clock"]["flagged"]


def test_six_scoreless_turns_ask_for_the_racks(tmp_path: Path, lexicon) -> None:  # type: ignore[no-untyped-def]
    table, cam, clock = make(tmp_path, lexicon)
    for i in range(6):
        turn(table, cam, clock, i % 2, None)
    assert table.snapshot()["pending"]["kind"] == "racks"
    table.give_racks({0: "AEIOUQZ", 1: "BCDFGH?"})
    snap = table.snapshot()
    assert snap["over"] and [p["score"] for p in snap["players"]] == [-25, -18]


def test_a_restarted_table_resumes_the_game(tmp_path: Path, lexicon) -> None:  # type: ignore[no-untyped-def]
    table, cam, clock = make(tmp_path, lexicon)
    turn(table, cam, clock, 0, "8D WINDY")
    turn(table, cam, clock, 1, "7C GALE")
    before = table.snapshot()
    table.journal.close()
    again = Table(Journal(tmp_path / "j.db"), WordJudge(lexicon), time_source=clock,
                  wall_time=lambda: 1_000_000.0 + clock.t)
    assert again.resume()
    after = again.snapshot()
    for key in ("board", "moves", "bag", "unseen", "turn"):
        assert after[key] == before[key], key
    assert [p["score"] for p in after["players"]] == [32, 16]
    assert after["players"][0]["clock"]["remaining_ms"] == before["players"][0]["clock"]["remaining_ms"]


def test_director_controls(tmp_path: Path, lexicon) -> None:  # type: ignore[no-untyped-def]
    table, cam, clock = make(tmp_path, lexicon)
    turn(table, cam, clock, 0, "8D WINDY")
    table.adjust(1, 7, "scoring slip")
    assert table.snapshot()["players"][1]["score"] == 7
    with pytest.raises(TableError):
        table.adjust(1, 7, "  ")
    assert table.undo() == "score_adjusted"
    table.pause()
    clock.t += 300
    table.resume_clock()
    assert table.snapshot()["players"][1]["clock"]["remaining_ms"] == 25 * 60_000
    assert str(table.judge_words(["QI", "ZA"])) == "ACCEPTABLE"
    with pytest.raises(TableError):
        table.judge_words(["Q1"])
    table.end_game()
    assert table.snapshot()["over"]
    with pytest.raises(TableError):
        table.end_game()


def test_two_blanks_take_the_letters_that_make_every_word() -> None:
    # Two blanks are 26 x 26 letterings, checked against the words the play makes on the board.
    board = Board()
    for col, t in zip(range(6, 9), "CAT"):
        board[Square(7, col)] = t
    new = {Square(6, 8): "?", Square(8, 8): "?", Square(9, 8): "S"}  # ?T?S down column I
    words = {"OTIS", "ATES", "ITAS"}
    choice = blank_options(board, new, ENGLISH, lambda ws: all(w in words for w in ws), limit=4)
    assert choice.squares == (Square(6, 8), Square(8, 8))
    assert choice.options == ("AE", "IA", "OI")
    assert blank_options(board, new, ENGLISH, lambda ws: all(w in words for w in ws), limit=1).options == ("AE",)
    assert blank_options(board, new, ENGLISH, lambda ws: False).options == ()
    # Not one play (a tile off the line): no lettering makes it one.
    assert blank_options(board, {**new, Square(0, 0): "E"}, ENGLISH, lambda ws: True).options == ()


def test_a_blank_may_stand_for_a_tile_of_two_letters() -> None:
    board = Board()
    for col, t in zip(range(7, 9), ("U", "RR")):
        board[Square(7, col)] = t
    new = {Square(7, 6): "?", Square(7, 9): "O"}  # ?U[RR]O across row 8
    choice = blank_options(board, new, SPANISH, lambda ws: ws == ["CHURRO"])
    assert choice.options == ("CH",)
