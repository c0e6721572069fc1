"""The table as the status page sees it (board_pi.table.facade), on a real SQLite journal."""

from __future__ import annotations

import doctest
import time
from pathlib import Path

import pytest

import board_pi.table.facade as facade_module
from board_pi.rules.judge import WordJudge
from board_pi.rules.lexicon import Lexicon
from board_pi.table.archive import GameArchive
from board_pi.table.facade import NotFound, TableError, TableFacade
from board_pi.table.store import Journal
from board_pi.table.table import Table


@pytest.fixture
def table(tmp_path: Path) -> Table:
    judge = WordJudge(Lexicon.from_words(["QI", "ZA", "QIS"], name="tiny"), clock=time.time)
    archive = GameArchive(tmp_path)  # as `board-pi run` keeps finished games
    return Table(Journal(tmp_path / "journal.db"), judge, archive=archive,
                 on_finished=lambda gcg, meta: archive.save(gcg, meta))


def test_doctests() -> None:
    assert doctest.testmod(facade_module).failed == 0


def test_what_is_not_there_is_not_found(table: Table) -> None:
    facade = TableFacade(table)
    with pytest.raises(NotFound, match="no game yet"):
        facade.gcg()
    with pytest.raises(NotFound, match="no finished game"):
        facade.record("2026-01-01-nobody")
    with pytest.raises(NotFound, match="keeps no archive"):
        TableFacade(Table(Journal(":memory:"), table.judge)).record("x")


def test_a_finished_game_is_kept_and_read_back(table: Table) -> None:
    facade = TableFacade(table)
    facade.new_game(["Ann", "Bob"], event="club night")
    facade.enter_play(0, "H8 QI")
    facade.end_game("ended by the director")
    (kept,) = facade.games()["archive"]
    record = facade.record(kept["id"])
    assert record.charset == "utf-8" and b"H8 QI" in record.data and kept["event"] == "club night"


def test_a_lexicon_is_chosen_by_name_never_by_path(table: Table, tmp_path: Path) -> None:
    words = tmp_path / "secret.txt"
    words.write_text("QI\nZA\n")
    facade = TableFacade(table)
    for name in (str(words), "../secret", "no-such-list"):
        with pytest.raises(TableError, match="no lexicon named"):
            facade.new_game(["Ann", "Bob"], lexicon=name)
    assert facade.lexicon == "tiny" and facade.snapshot()["game"] is None
    facade = TableFacade(table, lexicons=(str(words),))  # the configuration's own, by its name
    facade.new_game(["Ann", "Bob"], lexicon="secret")
    assert facade.lexicon == "secret" and facade.snapshot()["rules"]["lexicon"] == "secret"
