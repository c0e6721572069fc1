"""GCG records: every pragma and event kind, encodings, replaying through the engine with every
bad input named in the issue, and the round trip (hypothesis: random legal games)."""

from __future__ import annotations

import codecs
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from board_pi.rules.board import Direction, Square
from board_pi.rules.game import ChallengeRule, Game, GameRules, IllegalEvent
from board_pi.rules.events import (ChallengeBonus, ChallengeJudged, EndRackPoints, Exchanged, Passed,
                                   PhonyWithdrawn, PlayMade, RackPenalty, TimePenalty, TurnLost)
from board_pi.rules.gcg import (GcgError, GcgMove, GcgPlayer, GcgRecord, decode_gcg, parse_gcg, read_gcg,
                                record_from_game, write_gcg)
from board_pi.rules.replay import guess_tiles, replay
from board_pi.rules.play import IllegalPlay, Placement, play_notation
from board_pi.rules.tiles import BLANK, ENGLISH, POLISH, TileSet

SMALL = TileSet("small", {"A": (6, 1), "E": (4, 1), "T": (3, 1), "Z": (1, 10), "Q": (1, 10), "S": (1, 1)},
                blanks=0)

HEAD = "#player1 ann Ann\n#player2 bob Bob\n"

# A whole game ended by six scoreless turns: plays with '.' and a blank, exchanges of letters and
# of a count, passes, a phony withdrawn, the six-zero rack penalties, and a time penalty.
SIX_ZERO = HEAD + """\
>ann: DINNVWY 8D WINDY +32 32
>bob: AEGLOPR 7C GALE +16 16
>ann: ?EIRSTU H8 .Es +5 37
>bob: ABCEIOU -ABC +0 16
>ann: ?IIRTTU - +0 37
>bob: EIOQUYZ 9H .ZO +22 38
>bob: EIOQUYZ -- -22 16
>ann: ?IIRTTU - +0 37
>bob: AEIOQUZ -3 +0 16
>ann: ?IIRTTU - +0 37
>ann: AEIORST (AEIORST) -7 30
>bob: AEIOQUZ (AEIOQUZ) -25 -9
>ann: AEIORST (time) -10 20
"""

# With the 16-tile set: Ann goes out, Bob's unsuccessful challenge of the last play gives her 5,
# then twice Bob's rack.
GOING_OUT = HEAD + """\
>ann: AAEETTZ 8B AAEETTZ +84 84
>bob: AAAEQST H8 .AAAE +15 15
>ann: QS 9B QS +26 110
>ann: QS (challenge) +5 115
>ann: (AET) +6 121
"""


def declared(line: str) -> str:
    """#player pragmata for the nickname of an event line (players come before the first move)."""
    nick = line[1:line.index(":")]
    return f"#player1 {nick} {nick}\n#player2 zz Zed\n"


def lines_of(rec: GcgRecord) -> list[int]:
    return [m.line for m in rec.moves]


# --- reading pragmata ---------------------------------------------------------------------------


def test_every_pragma() -> None:
    text = """#character-encoding UTF-8
#player1 ann Ann Smith
#player2 bob Bob
#title Club final
#description A long game
 played on a Tuesday
#lexicon NWL2023
#id io.woogles xYz123
#tile-distribution English
#note before the first move
and its second line
>ann: DINNVWY 8D WINDY +32 32
#note a note on WINDY
#note more on WINDY
>bob: AEGLOPR 7C GALE +16 16
#rack1 ?EIRSTU
#rack2 ABOPR
"""
    rec = parse_gcg(text)
    assert rec.players == [GcgPlayer("ann", "Ann Smith"), GcgPlayer("bob", "Bob")]
    assert rec.title == "Club final"
    assert rec.description == "A long game\n played on a Tuesday"
    assert rec.lexicon == "NWL2023"
    assert rec.id == "io.woogles xYz123"
    assert rec.tile_distribution == "english"  # the set's own name, whatever the case written
    assert rec.other == []
    assert rec.notes == ["before the first move\nand its second line"]
    assert rec.moves[0].note == "a note on WINDY\nmore on WINDY"
    assert rec.moves[1].note == ""
    assert rec.racks == {1: "?EIRSTU", 2: "ABOPR"}
    assert lines_of(rec) == [12, 15]
    assert replay(rec).ok


def test_player_without_a_full_name() -> None:
    rec = parse_gcg("#player1 ann\n#player2 bob Bob\n")
    assert rec.players[0] == GcgPlayer("ann", "ann")


@pytest.mark.parametrize("text,line,message", [
    ("#player1 ann Ann\n#character-encoding UTF-8\n", 2, "must be the first line"),
    ("#player2 bob Bob\n", 1, "out of order"),
    ("#player1 ann Ann\n#player1 bob Bob\n", 2, "out of order"),
    ("#player1\n", 1, "needs a nickname"),
    (HEAD + "this is not gcg\n", 3, "not a GCG line"),
    ("what\n#player1 ann Ann\n", 1, "not a GCG line"),
])
def test_bad_pragmata(text: str, line: int, message: str) -> None:
    with pytest.raises(GcgError, match=f"line {line}: .*{message}") as e:
        parse_gcg(text)
    assert e.value.line == line


def test_players_sharing_a_nickname() -> None:
    with pytest.raises(GcgError, match="two players share a nickname"):
        parse_gcg("#player1 ann Ann\n#player2 ann Anne\n")


# --- reading events ------------------------------------------------------------------------------


@pytest.mark.parametrize("line,kind,fields", [
    (">ann: DINNVWY 8D WINDY +32 32", "play", dict(rack="DINNVWY", position="8D", word="WINDY", score=32, total=32)),
    (">ann: ?EIRSTU H8 .Es +5 37", "play", dict(position="H8", word=".Es", score=5)),
    (">bob: ABCEIOU -ABC +0 16", "exchange", dict(word="ABC", score=0, total=16)),
    (">bob: ABCEIO? -B? +0 16", "exchange", dict(word="B?")),
    (">bob: ABCEIOU -3 +0 16", "exchange", dict(word="3")),
    (">ann: ?IIRTTU - +0 37", "pass", dict(score=0, total=37)),
    (">bob: EIOQUYZ -- -22 16", "phony", dict(score=-22, total=16)),
    (">jvc: DIMSTTW (challenge) +5 37", "challenge", dict(rack="DIMSTTW", score=5, total=37)),
    (">ursula:  (challenge) +5 399", "challenge", dict(rack="", score=5)),
    (">ann: (AET) +6 121", "endrack", dict(word="AET", score=6, total=121)),
    (">ann: AEIORST (AEIORST) -7 30", "rackpenalty", dict(rack="AEIORST", word="AEIORST", score=-7, total=30)),
    (">ann: AEIORST (time) -10 20", "time", dict(score=-10, total=20)),
    (">ann: AEIORST (time) -10 -20", "time", dict(total=-20)),
])
def test_event_kinds(line: str, kind: str, fields: dict) -> None:
    [m] = parse_gcg(declared(line) + line + "\n").moves
    assert m.kind == kind
    for k, v in fields.items():
        assert getattr(m, k) == v
    # Writing the event gives the same line (up to spacing).
    assert m.text().split() == line.split()


@pytest.mark.parametrize("line,message", [
    (">ann DINNVWY 8D WINDY +32 32", "must start '>nickname:'"),
    (">ann: DINNVWY 8D WINDY 32 32", "ends with a score"),
    (">ann: DINNVWY 8D WINDY +32", "ends with a score"),
    (">ann: DINNVWY 8D WINDY +32 x", "ends with a score"),
    (">ann: DINNVWY 16D WINDY +32 32", "off the 15x15 board"),
    (">ann: DINNVWY 8P WINDY +32 32", "off the 15x15 board"),
    (">ann: DINNVWY 88 WINDY +32 32", "not a play coordinate"),
    (">ann: DINNVWY 8D WIN1Y +32 32", "is not a played word"),
    (">ann: DINNVWY 8D WIN_Y +32 32", "is not a played word"),
    (">ann: DINNVWY 8D WINDY -32 0", "cannot be negative"),
    (">ann: DINNVWY - +5 5", "a pass scores \\+0"),
    (">ann: DINNVWY -ABC +5 5", "an exchange scores \\+0"),
    (">ann: DINNVWY -- +5 5", "phony withdrawn is written with the points lost"),
    (">ann: DINNVWY (challenge) -5 0", "a challenge bonus is \\+N"),
    (">ann: DINNVWY (time) +5 5", "a time penalty is -N"),
    (">ann: (AET) -6 0", "end-of-game rack points are written \\+N"),
    (">ann: AET (AET) +3 3", "points lost for a rack are written -N"),
    (">ann: DINNVWY WHAT +0 0", "cannot read this event"),
    (">ann: A B C D +0 0", "cannot read this event"),
    (">ann: +0 0", "ends with a score"),
])
def test_bad_event_lines_name_the_line(line: str, message: str) -> None:
    text = HEAD + ">bob: AEGLOPR - +0 0\n" + line + "\n"
    with pytest.raises(GcgError, match=f"^line 4: .*{message}") as e:
        parse_gcg(text)
    assert e.value.line == 4


# --- encodings ------------------------------------------------------------------------------------

NAMES = "#player1 césar César\n#player2 hércules Hércules\n>césar: DINNVWY 8D WINDY +32 32\n"


def test_iso_8859_1_without_header() -> None:
    text, warnings = decode_gcg(NAMES.encode("latin-1"))
    assert text == NAMES and warnings == []


def test_utf8_without_header() -> None:
    text, warnings = decode_gcg(NAMES.encode("utf-8"))
    assert text == NAMES and warnings == []


def test_utf8_with_header_and_bom() -> None:
    data = codecs.BOM_UTF8 + ("#character-encoding UTF-8\n" + NAMES).encode("utf-8")
    text, warnings = decode_gcg(data)
    assert parse_gcg(text).players[0].name == "César" and warnings == []


def test_declared_latin1() -> None:
    data = ("#character-encoding ISO-8859-1\n" + NAMES).encode("latin-1")
    text, _ = decode_gcg(data)
    assert parse_gcg(text).players[1].nick == "hércules"


@pytest.mark.parametrize("header", ["ISO8859-6", "KLINGON-8", "cp1252", "UTF-16"])
def test_an_encoding_the_reader_does_not_read_is_refused_unless_the_file_is_utf8(header: str) -> None:
    # Guessing would misread names and letters (Macondo refuses these outright); but a file that
    # is valid UTF-8 all the same is what the tool that wrote it meant, nearly always.
    with pytest.raises(GcgError, match=f"^line 1: unsupported character encoding '{header}': this "
                                       "reader reads UTF-8, ISO-8859-1, ASCII$"):
        decode_gcg((f"#character-encoding {header}\n" + NAMES).encode("latin-1"))
    text, warnings = decode_gcg((f"#character-encoding {header}\n" + NAMES).encode("utf-8"))
    assert parse_gcg(text).players[1].nick == "hércules"
    assert warnings == [f"line 1 declares {header!r}, which this reader does not read; the file is valid UTF-8 "
                        "and was read as UTF-8: check the players' names"]


def test_a_file_not_valid_in_the_encoding_it_declares_but_valid_utf8_is_read_as_utf8() -> None:
    text, warnings = decode_gcg(("#character-encoding ASCII\n" + NAMES).encode("utf-8"))
    assert parse_gcg(text).players[0].name == "César"
    assert warnings == ["line 1 declares ASCII, but the file is not valid ASCII; it is valid UTF-8 and was read as UTF-8"]


def test_text_already_decoded_only_notes_an_encoding_name_it_does_not_read() -> None:
    rec = parse_gcg("#character-encoding EBCDIC\n" + NAMES)
    assert rec.players[0].name == "César"
    assert rec.warnings == ["line 1 declares 'EBCDIC', which this reader does not read"]


def test_crlf_lines(tmp_path: Path) -> None:
    path = tmp_path / "dos.gcg"
    path.write_bytes(SIX_ZERO.replace("\n", "\r\n").encode("utf-8"))
    rec = read_gcg(str(path))
    assert rec.same_game(parse_gcg(SIX_ZERO))
    assert all("\r" not in m.word and "\r" not in m.rack for m in rec.moves)


def test_read_gcg_latin1_file(tmp_path: Path) -> None:
    path = tmp_path / "names.gcg"
    path.write_bytes(NAMES.encode("latin-1"))
    rec = read_gcg(str(path))
    assert [p.name for p in rec.players] == ["César", "Hércules"]
    assert replay(rec).ok


# --- replaying -------------------------------------------------------------------------------------


def test_replay_six_zero_game() -> None:
    report = replay(parse_gcg(SIX_ZERO))
    assert report.ok and report.error is None and report.agree == report.moves == 13
    assert report.complete and report.game.state.end_reason == "six scoreless turns"
    assert report.game.state.scores == [20, -9] == report.recorded_final
    kinds = [type(e) for e in report.game.events]
    assert kinds == [PlayMade, PlayMade, PlayMade, Exchanged, Passed, PlayMade, PhonyWithdrawn, Passed,
                     Exchanged, Passed, RackPenalty, RackPenalty, TimePenalty]
    assert report.game.events[3] == Exchanged(1, 3, "ABC") and report.game.events[8] == Exchanged(1, 3)
    assert report.game.state.board[Square.parse("H10")] == "s"  # the blank


def test_replay_going_out_with_a_challenge_bonus() -> None:
    report = replay(parse_gcg(GOING_OUT), SMALL)
    assert report.ok and report.complete and report.game.state.end_reason == "went out"
    assert report.game.events[-2:] == [ChallengeBonus(0, 5), EndRackPoints(0, "AET", 6)]


def test_end_rack_in_a_casual_record_of_three() -> None:
    text = ("#player1 a A\n#player2 b B\n#player3 c C\n"
            ">a: AAAAAAA 8B AAAAAAA +66 66\n")  # (7 * 1 + 1) * 2 + 50
    report = replay(parse_gcg(text))
    assert report.ok and not report.game.rules.tournament


def test_wrong_score_is_reported_and_replay_goes_on() -> None:
    text = SIX_ZERO.replace(">bob: AEGLOPR 7C GALE +16 16", ">bob: AEGLOPR 7C GALE +18 18")
    report = replay(parse_gcg(text))
    assert report.error is None and not report.ok
    bad = report.first_disagreement()
    assert bad is not None and bad.line == 4 and bad.score == 16 and bad.recorded_score == 18
    assert report.agree == report.moves - len([r for r in report.lines if not r.agrees])


def test_wrong_total_is_a_disagreement() -> None:
    text = SIX_ZERO.replace("+5 37", "+5 38", 1)
    bad = replay(parse_gcg(text)).first_disagreement()
    assert bad is not None and bad.line == 5 and bad.score == bad.recorded_score and bad.total == 37


@pytest.mark.parametrize("events,line,message", [
    # a word running off the board
    (">ann: ABCDEFG 8L ABCDEFG +0 0\n", 3, "runs off the board"),
    # onto an occupied square
    (">ann: DINNVWY 8D WINDY +32 32\n>bob: AX 8D XI +10 10\n", 4, "D8 already holds W"),
    # more Z tiles than the set has: the third Z (the second lettered one)
    (">ann: AZ 8G ZA +22 22\n>bob: ? G7 z. +1 1\n>ann: ZO 9H ZO +0 0\n", 5,
     "rack ZO cannot have come from the bag: it holds 1 Z, but the set has 1, 1 on the board"),
    # a third blank
    (">ann: ?A 8G zA +2 2\n>bob: ? G7 z. +0 0\n>ann: ?O 9H zO +0 0\n", 5, "it holds 1 blank, but the set has 2, 2 on"),
    # out of turn
    (">ann: DINNVWY 8D WINDY +32 32\n>ann: ? - +0 32\n", 4, "it is Bob's turn"),
    # a play not touching
    (">ann: DINNVWY 8D WINDY +32 32\n>bob: ZA 1A ZA +0 0\n", 4, "does not touch"),
    # a first play off the centre
    (">ann: DINNVWY 1A WINDY +32 32\n", 3, "centre square"),
    # '.' with nothing to play through
    (">ann: DINNVWY 8D W.NDY +32 32\n", 3, "no tile there to play through"),
    # a player who is not in the record
    (">carl: DINNVWY 8D WINDY +32 32\n", 3, "'carl' is not one of the players"),
    # rack points before the end
    (">ann: DINNVWY 8D WINDY +32 32\n>ann: (AB) +8 40\n", 4, "nobody has gone out"),
    (">ann: DINNVWY 8D WINDY +32 32\n>bob: AB (AB) -4 -4\n", 4, "only at the end"),
    # a phony withdrawn with no play to withdraw
    (">ann: ? -- -10 0\n", 3, "no play on the board to withdraw"),
    # a challenge bonus to the wrong player
    (">ann: DINNVWY 8D WINDY +32 32\n>bob: ? (challenge) +5 5\n", 4, "challenge bonus goes to the player"),
    # an exchange of tiles that cannot be on a rack (the only Z is on the board)
    (">ann: AZ 8G ZA +22 22\n>bob: ZE -ZE +0 0\n", 4, "rack ZE cannot have come from the bag"),
    # a play with more tiles than a rack
    (">ann: ABCDEFGH 8A ABCDEFGH +0 0\n", 3, "holds 8 tiles: a rack holds at most 7"),
])
def test_impossible_records_stop_with_the_line(events: str, line: int, message: str) -> None:
    report = replay(parse_gcg(HEAD + events))
    assert report.error is not None and not report.ok
    assert report.error.line == line
    assert str(report.error).startswith(f"line {line}: ")
    assert re.search(message, str(report.error)), str(report.error)


@pytest.mark.parametrize("ending,line,message", [
    (">ann: (AET) +6 121\n>ann: (AET) +6 127\n", 8, "already settled"),
    (">ann: (AET) +6 121\n>bob: AET (AET) -3 12\n", 8, "keeps their score"),
    (">bob: (QS) +22 37\n", 7, "Bob did not go out"),
])
def test_impossible_endings(ending: str, line: int, message: str) -> None:
    text = GOING_OUT.replace(">ann: (AET) +6 121\n", ending)
    report = replay(parse_gcg(text), SMALL)
    assert report.error is not None and report.error.line == line and message in str(report.error)


def test_six_zero_rack_penalty_twice() -> None:
    text = SIX_ZERO.replace(">ann: AEIORST (time) -10 20", ">ann: AEIORST (AEIORST) -7 23")
    report = replay(parse_gcg(text))
    assert report.error is not None and report.error.line == 15 and "already settled" in str(report.error)


def test_exchange_with_fewer_than_seven_in_the_bag_is_impossible() -> None:
    # With the 16-tile set the bag holds 2 after the racks.
    report = replay(parse_gcg(HEAD + ">ann: AAAAAEE -A +0 0\n"), SMALL)
    assert report.error is not None and report.error.line == 3 and "no exchange with 2 tiles" in str(report.error)


def test_rack_penalty_with_tiles_that_are_not_unseen() -> None:
    text = SIX_ZERO.replace(">ann: AEIORST (AEIORST) -7 30", ">ann: WWW (WWW) -12 25")
    report = replay(parse_gcg(text))
    assert report.error is not None and report.error.line == 13
    assert "rack WWW cannot have come from the bag: it holds 3 W, but the set has 2, 1 on the board" \
        in str(report.error)


def test_end_rack_that_is_not_the_tiles_left_is_refused() -> None:
    report = replay(parse_gcg(GOING_OUT.replace("(AET)", "(AEE)")), SMALL)
    assert report.error is not None and report.error.line == 7
    assert "the rack in ( ), AEE, is not the tiles left on the other racks: AET" in str(report.error)


def test_record_with_one_player_is_an_error_not_a_crash() -> None:
    rec = parse_gcg("#player1 ann Ann\n")
    rec.moves.append(GcgMove("play", "ann", "DINNVWY", "8D", "WINDY", 32, 32, line=2))
    report = replay(rec)
    assert report.error is not None and "2 to 4 players" in str(report.error)


def test_round_trip_of_a_casual_game_with_a_lost_turn() -> None:
    # Cat, not next to play, challenges under the double rule and loses her next turn: the
    # record shows it as her pass when that turn comes.
    g = Game(["Ann", "Bob", "Cat"], GameRules(challenge=ChallengeRule.DOUBLE, tournament=False))
    g.play(0, "8D WINDY")
    g.challenge(2, acceptable=True)
    g.play(1, "7C GALE")
    g.play(0, "9D AT")
    rec = record_from_game(g)
    assert [(m.nick, m.kind) for m in rec.moves] == [("Ann", "play"), ("Bob", "play"), ("Cat", "pass"),
                                                     ("Ann", "play")]
    report = replay(parse_gcg(write_gcg(rec)))
    assert report.ok, report.error
    assert report.game.state.scores == g.state.scores and report.game.state.turn == g.state.turn


def test_tile_set_is_guessed_from_the_letters() -> None:
    assert guess_tiles(parse_gcg(SIX_ZERO)) is ENGLISH
    polish = parse_gcg("#player1 a A\n#player2 b B\n>a: ŻÓŁWIA 8D ŻÓŁW +1 1\n")
    assert guess_tiles(polish) is POLISH
    assert guess_tiles(parse_gcg("#lexicon OSPS44\n")) is POLISH


# --- writing and the round trip --------------------------------------------------------------------


@pytest.mark.parametrize("text", [SIX_ZERO, GOING_OUT])
def test_write_then_read_gives_the_same_record(text: str) -> None:
    rec = parse_gcg(text)
    rec.title, rec.description, rec.lexicon, rec.id = "Final", "Two lines\nof description", "NWL2023", "x 1"
    rec.notes = ["before play"]
    rec.racks = {1: "AB", 2: "CD"}
    rec.moves[0] = GcgMove(**{**rec.moves[0].__dict__, "note": "first\nsecond"})
    out = write_gcg(rec)
    assert out.startswith("#character-encoding UTF-8\n")
    back = parse_gcg(out)
    assert back.same_game(rec)
    assert write_gcg(back) == out


def test_record_from_game_writes_every_event_kind() -> None:
    g = Game(["Ann Lee", "Bob"], GameRules(challenge=ChallengeRule.FIVE_POINTS))
    g.play(0, "8D WINDY")
    g.challenge(1, acceptable=True)
    g.exchange(1, 3, "ABC")
    g.play(0, "9D aX")
    g.challenge(1, acceptable=False)
    g.exchange(1, 2)
    g.pass_turn(0)
    g.time_penalty(0, 10)
    rec = record_from_game(g, lexicon="NWL2023", title="t")
    assert rec.players == [GcgPlayer("Ann_Lee", "Ann Lee"), GcgPlayer("Bob", "Bob")]
    assert [m.kind for m in rec.moves] == ["play", "challenge", "exchange", "play", "phony", "exchange",
                                           "pass", "time"]
    assert rec.moves[3].word == "aX" and rec.moves[3].rack == "?X"
    assert rec.moves[4].score == -rec.moves[3].score
    report = replay(parse_gcg(write_gcg(rec)))
    assert report.ok and report.game.state.scores == g.state.scores


# Random legal games, played through the engine, written, read back and replayed.

TINY = TileSet("tiny", {"A": (5, 1), "E": (4, 1), "I": (3, 1), "S": (2, 1), "T": (3, 1), "Z": (1, 10),
                        "Q": (1, 10), "K": (1, 5), "X": (1, 8), "N": (2, 1), "O": (3, 1), "R": (2, 1)},
               blanks=2)


@st.composite
def random_play(draw: st.DrawFn, g: Game) -> list[Placement] | None:
    """New tiles for a legal play on the game's board, from the unseen tiles and the rack size."""
    s = g.state
    board = s.board
    anchor = board.layout.start if board.is_empty() else draw(st.sampled_from(sorted(sq for sq, _ in board.tiles())))
    d = draw(st.sampled_from(list(Direction)))
    length = draw(st.integers(2, 8))
    before = draw(st.integers(0, length - 1))
    segment = [anchor.step(d, i - before) for i in range(length)]
    run = [sq for sq in segment if sq.on_board(board.size)]
    empty = [sq for sq in run if board[sq] == "."][: s.racks[s.turn]]
    if not empty or (board.is_empty() and len(empty) < 2):
        return None
    pool = list(s.unseen.elements())
    if len(pool) < len(empty):
        return None
    out = []
    for sq in empty:
        t = pool.pop(draw(st.integers(0, len(pool) - 1)))
        if t == BLANK:
            t = draw(st.sampled_from(g.rules.tiles.letters)).lower()
        out.append(Placement(sq, t))
    return out


@st.composite
def random_game(draw: st.DrawFn) -> Game:
    n = draw(st.sampled_from([2, 2, 3]))
    tiles = draw(st.sampled_from([TINY, ENGLISH]))
    rule = draw(st.sampled_from([ChallengeRule.SINGLE, ChallengeRule.DOUBLE, ChallengeRule.FIVE_POINTS,
                                 ChallengeRule.TEN_POINTS]))
    g = Game(["Ann", "Bob", "Cat"][:n], GameRules(challenge=rule, tournament=n == 2, tiles=tiles,
                                                   challenge_per_word=draw(st.booleans())))
    play_out = draw(st.booleans())  # play the game to its end, or stop anywhere
    failures = 0
    for step in range(200 if play_out else draw(st.integers(1, 40))):
        s = g.state
        if s.over:
            break
        if s.going_out is not None or s.scoreless_ended:
            _settle(draw, g)
            break
        action = "play" if failures < 3 else "pass"
        if failures < 3 and not play_out:
            action = draw(st.sampled_from(["play"] * 6 + ["pass", "exchange", "challenge", "time"]))
        elif failures < 3 and draw(st.integers(0, 9)) == 0:
            action = draw(st.sampled_from(["exchange", "challenge", "time"]))
        try:
            if action == "play":
                ps = draw(random_play(g))
                if ps is None:
                    failures += 1
                    continue
                g.play(s.turn, play_notation(s.board, ps, g.rules.tiles))
                failures = 0
            elif action == "pass":
                g.pass_turn(s.turn)
                failures = 0
            elif action == "exchange":
                k = draw(st.integers(1, max(1, s.racks[s.turn])))
                pool = sorted(s.unseen.elements())
                tiles_out = "".join(pool.pop(draw(st.integers(0, len(pool) - 1))) for _ in range(k)) \
                    if draw(st.booleans()) else ""
                g.exchange(s.turn, k, tiles_out)
            elif action == "challenge" and s.last_play is not None:
                challenger = (s.last_play.player + draw(st.integers(1, n - 1))) % n
                g.challenge(challenger, acceptable=draw(st.booleans()))
            elif action == "time":
                g.time_penalty(draw(st.integers(0, n - 1)), draw(st.integers(1, 30)))
        except (IllegalEvent, IllegalPlay):
            failures += 1  # e.g. an exchange with too few in the bag, a play the generator got wrong
    return g


def _settle(draw: st.DrawFn, g: Game) -> None:
    """The end of a random game: maybe a challenge of the out-play, then the rack points."""
    s = g.state
    n = len(g.players)
    if s.going_out is not None and s.last_play is not None and draw(st.booleans()):
        g.challenge((s.going_out + 1) % n, acceptable=draw(st.booleans()))
        if g.state.going_out is None:
            return  # the out-play was a phony: the game goes on (and stops here)
    racks = None
    if s.going_out is None or n > 2:
        pool = sorted(s.unseen.elements())
        racks, k = {}, 0
        for p in range(n):
            if p != s.going_out:
                racks[p] = "".join(pool[k:k + s.racks[p]])
                k += s.racks[p]
    g.finish(racks)


def _turn_events(events: list) -> list:
    """Events as GCG keeps them: verdicts are not written, a lost turn is a pass."""
    out = []
    for e in events:
        if isinstance(e, ChallengeJudged):
            continue
        out.append(Passed(e.player) if isinstance(e, TurnLost) else e)
    return out


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_game(), st.text(alphabet="abc XYZé", max_size=12), st.booleans())
def test_round_trip_of_random_legal_games(g: Game, note: str, with_note: bool) -> None:
    rec = record_from_game(g, lexicon="TEST", title="random")
    if with_note and note.strip() and rec.moves:
        rec.moves[-1] = GcgMove(**{**rec.moves[-1].__dict__, "note": note.strip()})
    text = write_gcg(rec)
    try:
        back = parse_gcg(text)
    except GcgError as e:
        raise AssertionError(f"{e}\n{text}") from None
    assert back.same_game(rec)
    assert write_gcg(back) == text
    report = replay(back, g.rules.tiles)
    assert report.error is None, (str(report.error), text, g.events)
    assert report.ok
    s, r = g.state, report.game.state
    assert r.board == s.board and r.scores == s.scores and r.racks == s.racks and r.bag == s.bag
    assert r.over == s.over and r.turn == s.turn and r.scoreless == s.scoreless
    if len(g.players) == 2:
        assert _turn_events(report.game.events) == _turn_events(g.events)


def test_zero_point_penalties_are_written_so_they_read_back() -> None:
    # Found by the round trip: a rack of blanks loses 0 points, a phony of blanks scored 0.
    for m in (GcgMove("rackpenalty", "ann", "??", word="??", score=0, total=60),
              GcgMove("phony", "ann", "?", score=0, total=60),
              GcgMove("time", "ann", "?", score=0, total=60)):
        [back] = parse_gcg(HEAD + m.text() + "\n").moves
        assert back == m


def test_lost_turn_then_a_challenge_of_the_next_play() -> None:
    # Found by the round trip: Cat loses her turn (double rule) and, her turn skipped, challenges
    # Bob's next play off the board. The record writes the withdrawal before her pass.
    g = Game(["Ann", "Bob", "Cat"], GameRules(challenge=ChallengeRule.DOUBLE, tournament=False))
    g.play(0, "8D WINDY")
    g.challenge(2, acceptable=True)
    g.play(1, "7C GALE")
    assert g.state.turn == 0 and g.state.scoreless == 1  # Cat's lost turn went by
    g.challenge(2, acceptable=False)
    assert g.state.scoreless == 2  # the lost turn and the withdrawn play
    rec = record_from_game(g)
    assert [(m.nick, m.kind) for m in rec.moves] == [("Ann", "play"), ("Bob", "play"), ("Bob", "phony"),
                                                     ("Cat", "pass")]
    report = replay(parse_gcg(write_gcg(rec)))
    assert report.ok, report.error
    r = report.game.state
    assert (r.board, r.scores, r.turn, r.scoreless) == (g.state.board, g.state.scores, 0, 2)


def test_lost_turns_owed_twice_are_both_taken_and_written_where_they_went_by() -> None:
    # Found by the round trip: in a casual game Ann challenges two good plays before her lost
    # turn comes round. She owes two turns, not one, and the record writes each as her pass at
    # the point her turn went by (a set of owed turns kept one, and wrote the other out of turn).
    g = Game(["Ann", "Bob", "Cat"], GameRules(challenge=ChallengeRule.DOUBLE, tournament=False))
    g.play(0, "8D WINDY")
    g.play(1, "D8 .AS")
    g.challenge(0, acceptable=True)  # Cat is next: Ann's own next turn is lost
    g.play(2, "F8 .O")
    assert g.state.turn == 1  # Ann's turn went by
    g.challenge(0, acceptable=True)
    g.play(1, "H8 .ES")
    g.challenge(0, acceptable=True)  # Cat is next again, and Ann still owes the last one
    assert g.state.skip[0] == 2
    g.play(2, "G8 .O")
    assert g.state.turn == 1 and g.state.skip[0] == 1
    g.play(1, "E8 .T")
    g.play(2, "D8 ...T")
    assert g.state.turn == 1 and not g.state.skip  # both owed turns taken
    rec = record_from_game(g)
    assert [(m.nick, m.kind) for m in rec.moves] == [
        ("Ann", "play"), ("Bob", "play"), ("Cat", "play"), ("Ann", "pass"), ("Bob", "play"),
        ("Cat", "play"), ("Ann", "pass"), ("Bob", "play"), ("Cat", "play"), ("Ann", "pass")]
    report = replay(parse_gcg(write_gcg(rec)))
    assert report.ok, report.error
    r = report.game.state
    assert (r.board, r.scores, r.turn, r.scoreless) == (g.state.board, g.state.scores, 1, g.state.scoreless)
