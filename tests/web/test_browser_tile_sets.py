"""The page shows the game's own tile set: its letters and values, two-letter tiles on one square,
its unseen tiles in its own order, and blanks played as its letters (Debian's Chromium, a real
server)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from board_pi.rules.game import GameRules
from board_pi.rules.tiles import GERMAN, SPANISH
from board_pi.table.table import Table

from .test_browser import page, tile  # noqa: F401  (page: a fixture)


def unseen(page: Any) -> dict[str, str]:
    return {s.get_attribute("data-tile"): s.locator("small").inner_text()
            for s in page.locator(".unseen-tile").all()}


def test_a_german_game_shows_umlauts_with_their_values(server: Any, table: Table, page: Any, artifacts: Path) -> None:
    table.new_game(["Anna", "Ben"], GameRules(tiles=GERMAN))
    table.enter_play(0, "8E ÜBEL")
    page.goto(server.url)
    page.wait_for_selector('.sq[data-square="E8"] .tile')
    assert [tile(page, sq).locator(".letter").inner_text() for sq in ("E8", "F8", "G8", "H8")] == ["Ü", "B", "E", "L"]
    assert tile(page, "E8").locator(".value").inner_text() == str(GERMAN.value("Ü")) == "6"
    left = unseen(page)
    assert "Ü" not in left  # the set's only Ü is on the board
    assert left["Ä"] == "1" and left["Ö"] == "1" and left["?"] == "2"
    order = list(left)
    assert order.index("A") < order.index("Ä") < order.index("B") and order[-1] == "?"  # the set's own order
    assert page.locator("#bag").inner_text().startswith(f"{102 - 4} unseen")  # 102 tiles in the German set
    page.screenshot(path=str(artifacts / "tile-set-german.png"))


def test_a_spanish_game_shows_two_letter_tiles_and_a_blank_played_as_enye(server: Any, table: Table, page: Any,
                                                                         artifacts: Path) -> None:
    table.new_game(["Ana", "Bea"], GameRules(tiles=SPANISH))
    table.enter_play(0, "8G [CH]A[RR]O")
    table.enter_play(1, "J7 ñO")  # a blank played as Ñ, through the O
    page.goto(server.url)
    page.wait_for_selector('.sq[data-square="J7"] .tile.blank')
    assert tile(page, "G8").locator(".letter").inner_text() == "CH"
    assert "multi" in tile(page, "G8").get_attribute("class")
    assert tile(page, "G8").locator(".value").inner_text() == str(SPANISH.value("CH"))
    assert tile(page, "I8").locator(".letter").inner_text() == "RR"
    assert tile(page, "J8").locator(".letter").inner_text() == "O"  # the square after RR is the O, not an R
    assert tile(page, "J7").locator(".letter").inner_text() == "Ñ"
    assert tile(page, "J7").locator(".value").inner_text() == ""  # a blank scores nothing
    left = unseen(page)
    assert "CH" not in left and "RR" not in left and left["LL"] == "1"
    assert left["Ñ"] == "1" and left["?"] == "1"  # the Ñ tile is unseen still; one blank is on the board
    page.screenshot(path=str(artifacts / "tile-set-spanish.png"))
