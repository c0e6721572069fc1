"""Malformed and impossible GCG records, each refused with its line and the reason, and the
records of the same shapes that are fine (positive controls).

The kinds are those of another engine's negative tests (MAGPIE's gcg tests, which found 13 of 45
accepted here): racks that are malformed or cannot have come from the bag (first, mid-game and
last racks), tiles exchanged or played that are not on the rack, phony tiles given back that are
not the play's, challenge-bonus, end-points and end-penalty lines with bad racks, six-pass
endings with a bad last rack, a move before the players, an unsupported character encoding. The
records here are our own, small, one defect each.
"""

from __future__ import annotations

import codecs
from pathlib import Path

import pytest

from board_pi.rules.gcg import MAX_GCG_BYTES, GcgError, decode_gcg, parse_gcg, read_gcg, record_from_game, write_gcg
from board_pi.rules.replay import replay
from board_pi.rules.game import ChallengeRule, Game, GameRules
from board_pi.rules.tiles import TileSet

SMALL = TileSet("small", {"A": (6, 1), "E": (4, 1), "T": (3, 1), "Z": (1, 10), "Q": (1, 10), "S": (1, 1)},
                blanks=0)

HEAD = "#player1 ann Ann\n#player2 bob Bob\n"

# A whole game (English tiles) ended by six scoreless turns; every line gives a rack.
SIX_ZERO = HEAD + """\
>ann: DINNVWY 8D WINDY +32 32
>bob: AEGLOPR 7C GALE +16 16
>ann: ?EIRSTU H8 .Es +5 37
>bob: ABCEIOU -ABC +0 16
>ann: IRSTU? - +0 37
>bob: EIOQUYZ 9H .ZO +22 38
>bob: EIOQUYZ -- -22 16
>ann: IIRTTU? - +0 37
>bob: AEIOQUZ -3 +0 16
>ann: IIRTTU? - +0 37
>ann: AEIORST (AEIORST) -7 30
>bob: AEIOQUZ (AEIOQUZ) -25 -9
>ann: AEIORST (time) -10 20
"""

# With the 16-tile set: Ann goes out, Bob's challenge of her last play fails (5 points), then
# Ann has twice Bob's rack.
GOING_OUT = HEAD + """\
>ann: AAEETTZ 8B AAEETTZ +84 84
>bob: AAAEQST H8 .AAAE +15 15
>ann: QS 9B QS +26 110
>ann: (challenge) +5 115
>ann: (AET) +6 121
"""

# Stops mid-game: the racks after the last event.
WITH_LAST_RACKS = HEAD + """\
>ann: DINNVWY 8D WINDY +32 32
>bob: AEGLOPR 7C GALE +16 16
#rack1 ?EIRSTU
#rack2 ABCEIOU
"""


def edit(text: str, old: str, new: str) -> str:
    assert old in text, old
    return text.replace(old, new, 1)


def refused(text: str, tiles: TileSet | None = None) -> GcgError:
    """The error a record stops with, whether the reader or the replay finds it."""
    try:
        rec = parse_gcg(text)
    except GcgError as e:
        return e
    report = replay(rec, tiles)
    assert report.error is not None, "accepted"
    assert not report.ok
    return report.error


def test_the_records_as_written_are_fine() -> None:
    for text, tiles in ((SIX_ZERO, None), (GOING_OUT, SMALL), (WITH_LAST_RACKS, None)):
        report = replay(parse_gcg(text), tiles)
        assert report.error is None and report.ok, report.error


CASES = [
    # -- racks not spelt from the set ------------------------------------------------------------
    ("first rack malformed", SIX_ZERO, ">ann: DINNVWY 8D", ">ann: DIN#VWY 8D", 3,
     "rack DIN#VWY is malformed: '#' is not a tile of the english set"),
    ("first rack in lower case", SIX_ZERO, ">ann: DINNVWY 8D", ">ann: dinnvwy 8D", 3,
     "rack dinnvwy is malformed: 'd', 'i', 'n', 'v', 'w' are not a tile of the english set (a rack "
     "is written in capitals, ? for a blank)"),
    ("mid-game rack malformed", SIX_ZERO, ">ann: ?EIRSTU H8", ">ann: ?EIRS1U H8", 5,
     "rack ?EIRS1U is malformed: '1' is not a tile"),
    ("rack of eight", SIX_ZERO, ">bob: AEGLOPR 7C", ">bob: AEGLOPRS 7C", 4,
     "rack AEGLOPRS holds 8 tiles: a rack holds at most 7"),
    ("letter of another set", SIX_ZERO, ">bob: ABCEIOU -ABC", ">bob: ABCEIOŻ -ABC", 6,
     "'Ż' is not a tile of the english set"),
    ("pass rack malformed", SIX_ZERO, ">ann: IRSTU? - +0 37", ">ann: IRS-U? - +0 37", 7,
     "rack IRS-U? is malformed"),
    # -- racks that cannot have come from the bag ------------------------------------------------
    ("first rack not in the bag", SIX_ZERO, ">ann: DINNVWY 8D", ">ann: DINQVWQ 8D", 3,
     "rack DINQVWQ cannot have come from the bag: it holds 2 Q, but the set has 1"),
    ("three blanks", SIX_ZERO, ">ann: DINNVWY 8D", ">ann: ???NVWY 8D", 3,
     "it holds 3 blank, but the set has 2"),
    ("mid-game rack not in the bag (the board holds the rest)", SIX_ZERO, ">bob: AEGLOPR 7C",
     ">bob: AEGLWWR 7C", 4, "rack AEGLWWR cannot have come from the bag: it holds 2 W, but the set has 2, "
     "1 on the board"),
    ("exchange from a rack not in the bag", SIX_ZERO, ">bob: ABCEIOU -ABC", ">bob: ABCEIWW -ABC", 6,
     "rack ABCEIWW cannot have come from the bag: it holds 2 W, but the set has 2, 1 on the board"),
    ("more tiles than the player holds", GOING_OUT, ">ann: (challenge) +5 115",
     ">ann: AE (challenge) +5 115", 6, "rack AE has 2 tiles, but Ann holds 0 now"),
    ("last rack malformed", WITH_LAST_RACKS, "#rack2 ABCEIOU", "#rack2 ABC*IOU", 6,
     "rack ABC*IOU is malformed: '*' is not a tile"),
    ("last rack not in the bag", WITH_LAST_RACKS, "#rack1 ?EIRSTU", "#rack1 ?EIRSWW", 5,
     "rack ?EIRSWW cannot have come from the bag: it holds 2 W, but the set has 2, 1 on the board"),
    ("last rack of a player who is not there", WITH_LAST_RACKS, "#rack2 ABCEIOU", "#rack2 ABCEIOU\n#rack3 A",
     7, "#rack3, but the record has 2 players"),
    ("event after the last racks", WITH_LAST_RACKS, "#rack2 ABCEIOU",
     "#rack2 ABCEIOU\n>ann: ?EIRSTU H8 .Es +5 37", 7, "an event after #rack1/#rack2"),
    # -- played and exchanged tiles on the rack --------------------------------------------------
    ("played tile not on the rack", SIX_ZERO, ">ann: DINNVWY 8D", ">ann: DINNVWA 8D", 3,
     "tiles played are not on the rack DINNVWA: Y"),
    ("blank played, none on the rack", SIX_ZERO, ">ann: ?EIRSTU H8", ">ann: SEIRSTU H8", 5,
     "tiles played are not on the rack SEIRSTU: ?"),
    ("exchanged tiles not on the rack", SIX_ZERO, ">bob: ABCEIOU -ABC", ">bob: ABCEIOU -ABX", 6,
     "tiles exchanged are not on the rack ABCEIOU: X"),
    ("exchange malformed", SIX_ZERO, ">bob: ABCEIOU -ABC", ">bob: ABCEIOU -AB#", 6,
     "an exchange gives the tiles thrown in or how many: '-AB#'"),
    ("exchange in lower case", SIX_ZERO, ">bob: ABCEIOU -ABC", ">bob: ABCEIOU -abc", 6,
     "the exchange of abc is malformed"),
    # -- a phony taken back -----------------------------------------------------------------------
    ("phony tiles given back are not the play's rack", SIX_ZERO, ">bob: EIOQUYZ -- -22 16",
     ">bob: EIOQUYY -- -22 16", 9,
     "the tiles taken back (EIOQUYY) are not the rack of the play they withdraw (EIOQUYZ, line 8)"),
    ("phony rack malformed", SIX_ZERO, ">bob: EIOQUYZ -- -22 16", ">bob: EIOQUY% -- -22 16", 9,
     "rack EIOQUY% is malformed"),
    # -- a challenge bonus ------------------------------------------------------------------------
    ("challenge bonus rack malformed", GOING_OUT, ">ann: (challenge) +5 115",
     ">ann: Q5 (challenge) +5 115", 6, "rack Q5 is malformed: '5' is not a tile of the small set"),
    # -- the end of the game ----------------------------------------------------------------------
    ("end points rack malformed", GOING_OUT, ">ann: (AET) +6 121", ">ann: (A#T) +6 121", 7,
     "the rack in ( ) A#T is malformed"),
    ("end points rack not the tiles left", GOING_OUT, ">ann: (AET) +6 121", ">ann: (AEE) +6 121", 7,
     "the rack in ( ), AEE, is not the tiles left on the other racks: AET"),
    ("end penalty rack malformed", SIX_ZERO, ">ann: AEIORST (AEIORST) -7 30",
     ">ann: AEIORST (AEIOR?T$) -7 30", 13, "the rack in ( ) AEIOR?T$ is malformed"),
    ("six-pass ending: the two racks of a line differ", SIX_ZERO, ">ann: AEIORST (AEIORST) -7 30",
     ">ann: AEIORST (AEEORST) -7 30", 13, "the rack AEIORST and the rack in ( ), AEEORST, differ"),
    ("six-pass ending: last rack not in the bag", SIX_ZERO, ">ann: AEIORST (AEIORST) -7 30",
     ">ann: WWIORST (WWIORST) -7 30", 13, "rack WWIORST cannot have come from the bag: it holds 2 W"),
    ("six-pass ending: the two last racks together not in the bag", SIX_ZERO,
     ">ann: AEIORST (AEIORST) -7 30\n>bob: AEIOQUZ (AEIOQUZ) -25 -9",
     ">ann: AEIORSJ (AEIORSJ) -14 23\n>bob: AEIOQUJ (AEIOQUJ) -23 -7", 14,
     "rack AEIOQUJ cannot have come from the bag: it holds 1 J, but the set has 1, 1 on Ann's rack (line 13)"),
    # -- players ------------------------------------------------------------------------------------
    ("a move before the players", SIX_ZERO, HEAD, "", 1,
     "an event before the players are declared: #player1 and #player2 come before the first move"),
    ("a move before the second player", SIX_ZERO, HEAD, "#player1 ann Ann\n", 2,
     "an event before the players are declared"),
    ("a player declared after a move", SIX_ZERO, HEAD + ">ann: DINNVWY 8D WINDY +32 32\n",
     "#player1 ann Ann\n>ann: DINNVWY 8D WINDY +32 32\n#player2 bob Bob\n", 2,
     "an event before the players are declared"),
    ("a player declared after the first move", SIX_ZERO, ">bob: AEGLOPR 7C",
     "#player3 cat Cat\n>bob: AEGLOPR 7C", 4,
     "#player3 after the first event: the players are declared before any move"),
    ("a character-encoding pragma with no name", SIX_ZERO, HEAD, "#character-encoding\n" + HEAD, 1,
     "#character-encoding takes one encoding name"),
    # -- numbers ------------------------------------------------------------------------------------
    ("a score of 5,000 digits", SIX_ZERO, "WINDY +32 32", "WINDY +" + "9" * 5000 + " 32", 3,
     "the score +99999999999... is not a Scrabble score (at most 4 digits)"),
    ("a total of 5,000 digits", SIX_ZERO, "WINDY +32 32", "WINDY +32 " + "3" * 5000, 3,
     "the total 333333333333... is not a Scrabble score (at most 5 digits)"),
    ("an absurd score", SIX_ZERO, "WINDY +32 32", "WINDY +32000 32000", 3, "at most 4 digits"),
    ("a word longer than the board", SIX_ZERO, "8D WINDY", "8D " + "W" * 16, 3,
     "the play's word has 16 letters: a word on the 15x15 board has at most 15"),
    ("a word of 10,000 letters", SIX_ZERO, "8D WINDY", "8D " + "W" * 10_000, 3, "has at most 15"),
    ("an exchange of 123 tiles", SIX_ZERO, ">bob: AEIOQUZ -3 +0", ">bob: AEIOQUZ -123 +0", 11,
     "an exchange gives the tiles thrown in or how many"),
    ("a superscript digit", SIX_ZERO, ">bob: AEIOQUZ -3 +0", ">bob: AEIOQUZ -² +0", 11,
     "an exchange gives the tiles thrown in or how many"),
    # -- bytes that are not text --------------------------------------------------------------------
    ("a control character", SIX_ZERO, ">bob: AEGLOPR", ">bob: AEGL\x00PR", 4,
     "not a GCG line: it holds control characters"),
]


@pytest.mark.parametrize("what,base,old,new,line,reason", CASES, ids=[c[0] for c in CASES])
def test_refused_with_the_line_and_the_reason(what: str, base: str, old: str, new: str, line: int,
                                              reason: str) -> None:
    e = refused(edit(base, old, new), SMALL if base is GOING_OUT else None)
    assert e.line == line, str(e)
    assert str(e).startswith(f"line {line}: ")
    assert reason in str(e), str(e)


# -- positive controls: the same shapes, fine ---------------------------------------------------------

FINE = [
    ("racks left out, as the table writes them", SIX_ZERO, ">ann: IRSTU? - +0 37", ">ann: - +0 37"),
    ("a partial rack (the tiles played)", SIX_ZERO, ">ann: DINNVWY 8D", ">ann: DINWY 8D"),
    ("an exchange of a blank", SIX_ZERO, ">bob: ABCEIOU -ABC", ">bob: ABCEIO? -AB?"),
    ("an exchange by count, no rack", SIX_ZERO, ">bob: ABCEIOU -ABC", ">bob: -3"),
    ("a phony line without a rack", SIX_ZERO, ">bob: EIOQUYZ -- -22 16", ">bob: -- -22 16"),
    ("a challenge line giving the play's rack", GOING_OUT, ">ann: (challenge) +5 115",
     ">ann: QS (challenge) +5 115"),
    ("a six-pass ending, the racks in another order", SIX_ZERO, ">ann: AEIORST (AEIORST) -7 30",
     ">ann: TSROIEA (AEIORST) -7 30"),
    ("last racks with blanks", WITH_LAST_RACKS, "#rack2 ABCEIOU", "#rack2 ??CEIOU"),
    ("a time penalty with the rack left out", SIX_ZERO, ">ann: AEIORST (time) -10 20", ">ann: (time) -10 20"),
    ("the largest score and total", SIX_ZERO, ">ann: AEIORST (time) -10 20", ">ann: (time) -9999 -9969"),
]


@pytest.mark.parametrize("what,base,old,new", FINE, ids=[c[0] for c in FINE])
def test_fine(what: str, base: str, old: str, new: str) -> None:
    report = replay(parse_gcg(edit(base, old, new)), SMALL if base is GOING_OUT else None)
    assert report.error is None, str(report.error)
    assert report.agree == report.moves


def test_a_blank_on_the_rack_played_as_a_lower_case_letter() -> None:
    report = replay(parse_gcg(HEAD + ">ann: ?DINNVW 8D WINDy +24 24\n"))
    assert report.ok, report.error


def test_the_tables_own_records_are_fine() -> None:
    # The table never sees racks: a play's rack is the tiles it used, other lines have none.
    g = Game(["Ann", "Bob"], GameRules(challenge=ChallengeRule.FIVE_POINTS))
    g.play(0, "8D WINDY")
    g.challenge(1, acceptable=True)
    g.exchange(1, 3, "ABC")
    g.play(0, "9D aX")
    g.challenge(1, acceptable=False)
    g.pass_turn(1)
    report = replay(parse_gcg(write_gcg(record_from_game(g))))
    assert report.ok, report.error


def test_the_bundled_demo_record_is_fine() -> None:
    text = (Path(__file__).resolve().parents[2] / "board_pi" / "table" / "data" / "demo.gcg").read_text("utf-8")
    report = replay(parse_gcg(text))
    assert report.ok and report.complete, report.error


# -- encodings ---------------------------------------------------------------------------------------

NAMES = "#player1 césar César\n#player2 hércules Hércules\n>césar: DINNVWY 8D WINDY +32 32\n"


@pytest.mark.parametrize("data,line,reason", [
    # An encoding this reader does not read, and the file is not UTF-8 either: no guessing.
    (b"#character-encoding ISO8859-6\n" + NAMES.encode("latin-1"), 1, "unsupported character encoding 'ISO8859-6'"),
    (b"#character-encoding\n" + NAMES.encode(), 1, "#character-encoding takes one encoding name"),
    (b"#character-encoding UTF\x00-8\n" + NAMES.encode("latin-1"), 1, "unsupported character encoding 'UTF\\x00-8'"),
    (b"#character-encoding " + b"U" * 5000 + b"\n" + NAMES.encode("latin-1"), 1, "unsupported character encoding 'UUUU"),
    (b"#character-encoding UTF-8 please\n" + NAMES.encode(), 1, "#character-encoding takes one encoding name"),
    # Declared UTF-8, but the names are ISO 8859-1.
    (b"#character-encoding UTF-8\n" + NAMES.encode("latin-1"), 2, "not valid UTF-8, as line 1 declares (byte 0xe9)"),
    (b"#character-encoding ASCII\n" + NAMES.encode("latin-1"), 2, "not valid ASCII"),
    (codecs.BOM_UTF16_LE + ("#character-encoding UTF-16\n" + NAMES).encode("utf-16-le"), 1,
     "the file is UTF-16"),
])
def test_encodings_refused(data: bytes, line: int, reason: str) -> None:
    with pytest.raises(GcgError) as e:
        decode_gcg(data)
    assert e.value.line == line and str(e.value).startswith(f"line {line}: ") and reason in str(e.value)


@pytest.mark.parametrize("data", [
    NAMES.encode("latin-1"),  # no header: the spec's default
    NAMES.encode(),  # no header, UTF-8
    b"#character-encoding UTF-8\n" + NAMES.encode(),
    b"#character-encoding utf8\n" + NAMES.encode(),
    codecs.BOM_UTF8 + b"#character-encoding UTF-8\n" + NAMES.encode(),
    b"#character-encoding ISO-8859-1\n" + NAMES.encode("latin-1"),
    b"#character-encoding latin1\n" + NAMES.encode("latin-1"),
    b"#character-encoding ASCII\n" + HEAD.encode(),
])
def test_encodings_read(data: bytes) -> None:
    text, warnings = decode_gcg(data)
    assert warnings == [] and "#player1" in text
    assert "César" in text or "Ann" in text


def test_lines_end_at_newlines_only() -> None:
    # U+0085 (a byte 0x85 read as ISO 8859-1) is a line break to str.splitlines, not to GCG.
    text = HEAD + ">ann: DINNVWY 8D WINDY +32 32\n#note a note\x85with that character\n>bob: AEGLOPR 7C GALE +16 16\n"
    rec = parse_gcg(text)
    assert [m.line for m in rec.moves] == [3, 5]
    # Old Mac files end lines with CR alone.
    assert [m.line for m in parse_gcg(SIX_ZERO.replace("\n", "\r")).moves] == list(range(3, 16))


# -- sizes ---------------------------------------------------------------------------------------------


def test_a_file_over_the_limit_is_refused_without_reading_it(tmp_path: Path) -> None:
    big = tmp_path / "big.gcg"
    with open(big, "wb") as f:
        f.truncate(MAX_GCG_BYTES + 1)  # sparse: nothing written
    with pytest.raises(GcgError, match="larger than 1 MB: not a GCG record"):
        read_gcg(str(big))


def test_a_file_at_the_limit_is_read(tmp_path: Path) -> None:
    path = tmp_path / "long.gcg"
    note = "#note " + "x" * 70 + "\n"
    text = SIX_ZERO + note * ((MAX_GCG_BYTES - len(SIX_ZERO)) // len(note))
    path.write_text(text, encoding="ascii")
    assert path.stat().st_size <= MAX_GCG_BYTES
    assert replay(read_gcg(str(path))).ok


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero")
def test_an_endless_file_is_refused() -> None:
    with pytest.raises(GcgError, match="larger than 1 MB"):
        read_gcg("/dev/zero")
