"""The 20 game records in ../shared/data/gcg/macondo: every move of the 19 real games scores as
recorded, and each survives a write and read unchanged; the one Macondo keeps as a negative test
(an encoding it does not read) is refused, as Macondo refuses it."""

from __future__ import annotations

from pathlib import Path

import pytest

from board_pi.rules.events import ChallengeBonus, EndRackPoints, Exchanged, Passed, PhonyWithdrawn
from board_pi.rules.gcg import parse_gcg, read_gcg, write_gcg
from board_pi.rules.replay import replay
from board_pi.rules.tiles import ENGLISH, POLISH

COMPLETE = ["doug_v_emely.gcg", "doug_v_emely_double_challenge.gcg", "guy_vs_bot.gcg", "josh2.gcg",
            "noah_vs_mishu.gcg", "noah_vs_peter.gcg", "polish_endgame.gcg", "some_isc_game.gcg",
            "utf8_dos.gcg", "vs_andy.gcg", "vs_frentz.gcg"]
INCOMPLETE = ["guy_vs_bot_almost_complete.gcg", "incomplete.gcg", "incomplete4.gcg", "incomplete_3.gcg",
              "incomplete_elise.gcg", "name_iso8859-1.gcg", "name_utf8_noheader.gcg",
              "name_utf8_with_header.gcg"]
GAMES = sorted(COMPLETE + INCOMPLETE)
# Macondo's TestParseUnsupportedEncoding: declares ISO 8859-6 (and is not even valid in it), but
# is valid UTF-8: read as UTF-8, with a warning to check the names.
MISDECLARED = ["name_weird_encoding_with_header.gcg"]
ALL = sorted(GAMES + MISDECLARED)


@pytest.fixture(scope="module")
def macondo(shared_data: Path) -> Path:
    return shared_data / "gcg" / "macondo"


def test_the_folder_holds_the_twenty_records(macondo: Path) -> None:
    assert sorted(p.name for p in macondo.glob("*.gcg")) == ALL


@pytest.mark.parametrize("name", GAMES)
def test_every_move_agrees(macondo: Path, name: str) -> None:
    rec = read_gcg(str(macondo / name))
    report = replay(rec)
    assert report.error is None, str(report.error)
    bad = [(r.line, r.text, r.score, r.total) for r in report.lines if not r.agrees]
    assert bad == []
    assert report.agree == report.moves == len(rec.moves) > 0
    assert report.ok
    assert report.game.state.scores == report.recorded_final
    assert report.complete == (name in COMPLETE)
    # The incrementally built state is the state the events give.
    assert report.game.rebuild() == report.game.state


@pytest.mark.parametrize("name", GAMES)
def test_write_and_read_back(macondo: Path, name: str) -> None:
    rec = read_gcg(str(macondo / name))
    text = write_gcg(rec)
    back = parse_gcg(text)
    assert back.same_game(rec)
    assert write_gcg(back) == text
    a, b = replay(rec), replay(back)
    assert b.ok
    assert b.game.events == a.game.events
    assert b.game.state == a.game.state


def test_phony_withdrawn(macondo: Path) -> None:
    report = replay(read_gcg(str(macondo / "doug_v_emely.gcg")))
    withdrawn = [i for i, e in enumerate(report.game.events) if isinstance(e, PhonyWithdrawn)]
    assert withdrawn
    # The board after the withdrawal is the board before the phony.
    i = withdrawn[0]
    from board_pi.rules.game import Game

    before = Game(report.game.players, report.game.rules, events=report.game.events[:i - 1]).state
    after = Game(report.game.players, report.game.rules, events=report.game.events[:i + 1]).state
    assert after.board == before.board and after.bag == before.bag


def test_double_challenge_of_the_out_play(macondo: Path) -> None:
    # Emely goes out; Doug challenges under the double rule, loses his turn (written as a pass),
    # and the game ends with Emely's rack points.
    events = replay(read_gcg(str(macondo / "doug_v_emely_double_challenge.gcg"))).game.events
    assert isinstance(events[-2], Passed) and events[-2].player == 0
    assert isinstance(events[-1], EndRackPoints) and events[-1].player == 1


def test_challenge_bonuses(macondo: Path) -> None:
    events = replay(read_gcg(str(macondo / "josh2.gcg"))).game.events
    assert sum(isinstance(e, ChallengeBonus) for e in events) >= 3


def test_exchanges(macondo: Path) -> None:
    events = replay(read_gcg(str(macondo / "guy_vs_bot.gcg"))).game.events
    assert Exchanged(1, 4, "OOOY") in events


def test_polish_game_uses_the_polish_tiles(macondo: Path) -> None:
    report = replay(read_gcg(str(macondo / "polish_endgame.gcg")))
    assert report.tiles is POLISH and report.ok


@pytest.mark.parametrize("name,names", [
    ("name_iso8859-1.gcg", ["césar", "hércules"]),
    ("name_utf8_noheader.gcg", ["césar", "doug"]),
    ("name_utf8_with_header.gcg", ["césar", "doug"]),
    ("some_isc_game.gcg", ["José Arcadio Buendía", "Úrsula Iguarán Buendía"]),
])
def test_encodings(macondo: Path, name: str, names: list[str]) -> None:
    rec = read_gcg(str(macondo / name))
    assert [p.name for p in rec.players] == names
    report = replay(rec)
    assert report.ok and report.tiles is ENGLISH


@pytest.mark.parametrize("name", MISDECLARED)
def test_a_record_that_declares_an_encoding_it_is_not_in_is_read_with_a_warning(macondo: Path, name: str) -> None:
    rec = read_gcg(str(macondo / name))
    assert rec.warnings == ["line 1 declares 'ISO8859-6', which this reader does not read; the file is valid "
                            "UTF-8 and was read as UTF-8: check the players' names"]
    assert rec.players[0].name == "césar"
    report = replay(rec)
    assert report.ok and report.agree == 2 and report.warnings[:1] == rec.warnings
