"""The pages in Debian's headless Chromium, driven by Playwright, against a real server.

Each test writes a screenshot to test-artifacts/web/ for a person to look at.
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import pytest

from board_pi.clock import TimeControl
from board_pi.table.table import Table
from board_pi.web import serve

from .conftest import PIN, SteppedTime

from playwright.sync_api import expect  # noqa: E402  (skipped with the browser fixture when absent)

TABLET = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}


@pytest.fixture
def page(browser: Any) -> Any:
    context = browser.new_context(viewport=TABLET)
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.set_default_timeout(10_000)
    yield pg
    context.close()
    assert not errors, errors  # no script errors on any page


def wait_until(check: Any, timeout: float = 10.0) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if check():
            return
        time.sleep(0.05)
    raise AssertionError("timed out")


def tile(page: Any, square: str) -> Any:
    return page.locator(f'.sq[data-square="{square}"] .tile')


def test_table_view_follows_a_game(server: Any, table: Table, page: Any, artifacts: Path) -> None:
    table.new_game(["Ann", "Bob"])
    page.goto(server.url)
    page.wait_for_selector("#link.up")
    assert page.locator(".board .sq").count() == 225
    assert page.locator(".sq.tw").count() == 8 and page.locator(".sq.start").count() == 1
    assert page.locator(".player .name").all_inner_texts() == ["▶ Ann", "Bob"]
    assert page.locator('[data-player="0"] [data-role="clock"]').inner_text() == "25:00"

    clock = page.locator('[data-player="0"] [data-role="clock"]')
    table.press(0)  # the first press starts the clock of the player to play
    expect(clock).to_have_text("24:59", timeout=5000)  # counting down by itself
    assert page.locator('[data-player="0"]').get_attribute("class").count("running") == 1

    table.enter_play(0, "8D WINDY")
    page.wait_for_selector('.sq[data-square="D8"] .tile')
    assert [tile(page, sq).locator(".letter").inner_text() for sq in ("D8", "E8", "F8", "G8", "H8")] == list("WINDY")
    assert tile(page, "D8").locator(".value").inner_text() == "4"
    assert "last" in tile(page, "H8").get_attribute("class")
    assert page.locator('[data-player="0"] [data-role="score"]').inner_text() == "32"
    assert page.locator("#moves li").first.inner_text().split() == ["Ann", "8D", "WINDY", "32", "32"]
    assert page.locator("#bag").inner_text() == "95 unseen · 81 in the bag"  # 100 less the 5 on the board; 14 on racks

    table.enter_play(1, "E5 MoA")  # a blank O
    page.wait_for_selector('.sq[data-square="E6"] .tile.blank')
    assert tile(page, "E6").locator(".letter").inner_text() == "O"
    assert tile(page, "E6").locator(".value").inner_text() == ""
    assert "last" not in tile(page, "H8").get_attribute("class")
    assert page.locator('[data-player="1"] [data-role="score"]').inner_text() == "10"
    assert page.locator("#moves li").nth(1).inner_text().split()[1:3] == ["E5", "MoA(I)"]
    assert clock.inner_text() != "25:00"
    page.screenshot(path=str(artifacts / "table-tablet.png"), full_page=True)

    # A challenge: the verdict is shown to everyone.
    verdict = table.challenge(0)
    page.wait_for_selector("#verdict.yes" if verdict.acceptable else "#verdict.no")
    assert page.locator("#verdict").inner_text() == str(verdict)
    page.screenshot(path=str(artifacts / "table-verdict.png"))


def test_overtime_shows_red_with_the_penalty(server: Any, table: Table, page: Any, artifacts: Path) -> None:
    table.new_game(["Ann", "Bob"], control=TimeControl(minutes=0.02, overtime_penalty=10))
    table.press(0)
    page.goto(server.url)
    page.wait_for_selector('[data-player="0"] .clock.overtime')
    assert page.locator('[data-player="0"] [data-role="clock"]').inner_text().startswith("−0:0")
    assert page.locator('[data-player="0"] [data-role="penalty"]').inner_text() == "overtime −10"
    colour = page.locator('[data-player="0"] .clock').evaluate("e => getComputedStyle(e).color")
    assert colour == "rgb(198, 40, 40)"
    page.screenshot(path=str(artifacts / "table-overtime.png"))


def test_pending_reading_shown_and_confirmed_by_the_director(server: Any, table: Table, page: Any,
                                                             artifacts: Path, game_time: Any) -> None:
    table.new_game(["Ann", "Bob"])
    table.press(0)
    game_time.advance(0.35)  # past the clock's guard against a double press
    table.press(0)  # no camera: the table asks for the play on the page
    page.goto(server.url)
    page.wait_for_selector("#pending:not([hidden])")
    assert "please confirm" in page.locator("#pending h2").inner_text().lower()
    page.screenshot(path=str(artifacts / "table-pending.png"))
    page.fill("#pending .play-input", "8D WINDY")
    page.click("#pending button:has-text('Enter the play')")
    page.wait_for_selector("#login-dialog[open]")  # the director's PIN is asked for
    page.fill("#login-pin", PIN)
    page.click("#login-ok")
    page.wait_for_selector('.sq[data-square="H8"] .tile')
    assert table.snapshot()["moves"][0]["text"] == "8D WINDY"
    assert page.locator("#pending").is_hidden()


def test_word_judge_screen(table: Table, pin_hash: str, browser: Any, artifacts: Path) -> None:
    handle = serve(table, port=0, pin_hash=pin_hash, judge_clear_seconds=2.0, threads=8)
    context = browser.new_context(viewport=TABLET)
    page = context.new_page()
    try:
        table.new_game(["Ann", "Bob"])
        table.enter_play(0, "8D WINDY")
        table.enter_play(1, "E5 MoA")
        page.goto(handle.url + "judge")
        expect(page.locator("#judge-lexicon")).to_have_text(f"Lexicon: {table.judge.lexicon.name}")
        page.fill('input[name="word0"]', "qi")
        page.fill('input[name="word1"]', "za")
        assert page.input_value('input[name="word0"]') == "QI"
        page.click("#judge-go")
        page.wait_for_selector("#judgement.yes")
        assert page.locator("#judgement").inner_text() == "ACCEPTABLE"
        page.screenshot(path=str(artifacts / "judge-acceptable.png"))
        # The screen clears itself.
        expect(page.locator("#judgement")).to_have_text("", timeout=5000)
        assert page.input_value('input[name="word0"]') == ""

        page.fill('input[name="word0"]', "QI")
        page.fill('input[name="word1"]', "ZZZQ")
        page.click("#judge-go")
        page.wait_for_selector("#judgement.no")
        text = page.locator("body").inner_text()
        assert "NOT ACCEPTABLE" in text and "ZZZQ" in page.input_value('input[name="word1"]')
        assert "ZZZQ" not in page.locator("#judgement").inner_text()  # never which word
        page.screenshot(path=str(artifacts / "judge-not-acceptable.png"))

        page.click("#judge-clear")
        page.click("#judge-fill")  # from the last play
        expect(page.locator('input[name="word0"]')).to_have_value("MOAI")
        page.click("#judge-go")
        page.wait_for_selector("#judgement.yes" if "MOAI" in table.judge.lexicon else "#judgement.no")

        page.fill('input[name="word0"]', "Q")
        page.fill('input[name="word1"]', "")
        page.click("#judge-go")
        expect(page.locator("#judge-error")).to_contain_text("one letter")
        assert [a.words for a in table.judge.log] == [("QI", "ZA"), ("QI", "ZZZQ"), ("MOAI",)]
    finally:
        context.close()
        handle.stop()


def test_director_action_needs_the_pin(server: Any, table: Table, page: Any, artifacts: Path) -> None:
    table.new_game(["Ann", "Bob"])
    table.press(0)
    page.goto(server.url + "director")
    page.wait_for_selector("#auth-login:not([hidden])")
    page.screenshot(path=str(artifacts / "director-logged-out.png"), full_page=True)

    # Without the PIN: asked for it; a wrong one is refused; cancelled, nothing changes.
    page.click("button[data-action='pause']")
    page.wait_for_selector("#login-dialog[open]")
    page.fill("#login-pin", "0000")
    page.click("#login-ok")
    expect(page.locator("#login-error")).to_have_text("wrong PIN")
    page.click("#login-cancel")
    page.wait_for_selector("#toast.error")
    assert "PIN" in page.locator("#toast").inner_text()
    assert table.snapshot()["clock"]["phase"] == "running"

    # With the PIN: logged in, the action goes through.
    page.fill("#director-pin", PIN)
    page.click("#director-login button")
    page.wait_for_selector("#auth-in:not([hidden])")
    page.click("button[data-action='pause']")
    wait_until(lambda: table.snapshot()["clock"]["phase"] == "paused")
    expect(page.locator("#status")).to_contain_text("Paused")

    # A score adjustment with its reason, and a new game.
    page.select_option("#adjust-player", "1")
    page.fill("#adjust-points", "-5")
    page.fill("#adjust-reason", "slow tile drawing")
    page.click("#adjust-form button")
    wait_until(lambda: table.snapshot()["players"][1]["score"] == -5)
    # A play entered by hand, then corrected: its W was a blank.
    page.click("button[data-action='resume']")
    page.select_option("#play-player", "0")
    page.fill("#play-text", "8D WINDY")
    page.click("#play-form button")
    wait_until(lambda: table.snapshot()["players"][0]["score"] == 32)
    expect(page.locator("#correct-text")).to_have_value("8D WINDY")
    page.fill("#correct-text", "8D wINDY")
    page.click("#correct-form button")
    wait_until(lambda: table.snapshot()["board"][7] == "...wINDY.......")
    assert table.snapshot()["players"][0]["score"] == 16
    page.screenshot(path=str(artifacts / "director-logged-in.png"), full_page=True)
    page.once("dialog", lambda d: d.accept())  # "a game is in progress" confirmation
    page.fill("#ng-p1", "Cleo")
    page.fill("#ng-p2", "Dev")
    page.click("#new-game-form button[type=submit]")
    wait_until(lambda: [p["name"] for p in table.snapshot()["players"]] == ["Cleo", "Dev"])
    expect(page.locator("#players")).to_contain_text("Cleo")


def test_first_start_asks_for_a_new_pin(table: Table, browser: Any, artifacts: Path) -> None:
    kept: list[str] = []
    handle = serve(table, port=0, on_pin_set=kept.append, threads=8)
    context = browser.new_context(viewport=TABLET)
    page = context.new_page()
    try:
        page.goto(handle.url + "director")
        page.wait_for_selector("#auth-setup:not([hidden])")
        page.screenshot(path=str(artifacts / "director-first-start.png"))
        page.fill("#setup-pin", "97531")
        page.fill("#setup-pin2", "97531")
        page.click("#setup-form button")
        page.wait_for_selector("#auth-in:not([hidden])")
        assert len(kept) == 1 and "97531" not in kept[0]
    finally:
        context.close()
        handle.stop()


def test_phone_viewport(server: Any, table: Table, browser: Any, artifacts: Path) -> None:
    table.new_game(["Annabelle", "Bartholomew"])
    table.enter_play(0, "8D WINDY")
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True, device_scale_factor=2)
    page = context.new_page()
    try:
        for path, name in (("", "table"), ("judge", "judge"), ("director", "director")):
            page.goto(server.url + path)
            page.wait_for_load_state("networkidle") if path == "judge" else page.wait_for_selector("#link.up")
            # Nothing wider than the phone: no sideways scrolling.
            assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"], path
            page.screenshot(path=str(artifacts / f"phone-{name}.png"), full_page=True)
        page.goto(server.url)
        page.wait_for_selector('.sq[data-square="H8"] .tile')
        board = page.locator("#board").bounding_box()
        assert board["width"] <= PHONE["width"] and board["width"] > 0.9 * PHONE["width"] - 20
        assert page.locator('.sq[data-square="O15"]').bounding_box()["x"] + 5 < PHONE["width"]
    finally:
        context.close()


def test_page_reconnects_and_catches_up(table: Table, pin_hash: str, browser: Any) -> None:
    table.new_game(["Ann", "Bob"])
    handle = serve(table, port=0, pin_hash=pin_hash, heartbeat=1.0, threads=8)
    port = handle.port
    context = browser.new_context(viewport=TABLET)
    page = context.new_page()
    try:
        page.goto(handle.url)
        page.wait_for_selector("#link.up")
        handle.stop()  # the network drops
        page.wait_for_selector("#link.down", timeout=10_000)
        table.enter_play(0, "8D WINDY")  # happens while the page is cut off
        handle = serve(table, port=port, pin_hash=pin_hash, heartbeat=1.0, threads=8)
        page.wait_for_selector('.sq[data-square="H8"] .tile', timeout=15_000)
        page.wait_for_selector("#link.up")
        assert page.locator('[data-player="0"] [data-role="score"]').inner_text() == "32"
    finally:
        context.close()
        handle.stop()


def test_blank_letter_chosen_on_the_page(server: Any, table: Table, page: Any, artifacts: Path,
                                         game_time: Any) -> None:
    table.new_game(["Ann", "Bob"])
    table.press(0)
    game_time.advance(0.35)
    table.press(0)
    table.confirm({"H8": "?", "I8": "A"})  # a blank and an A: the lexicon allows a few letters
    pending = table.snapshot()["pending"]
    assert pending["kind"] == "blank"
    page.goto(server.url)
    page.wait_for_selector("#pending [data-blank-option]")
    assert "blank" in page.locator("#pending .pending-message").inner_text()
    page.screenshot(path=str(artifacts / "table-blank.png"))
    option = page.locator("#pending [data-blank-option]").first.get_attribute("data-blank-option")
    assert option in pending["options"]
    page.locator("#pending [data-blank-option]").first.click()
    page.wait_for_selector("#login-dialog[open]")
    page.fill("#login-pin", PIN)
    page.click("#login-ok")
    page.wait_for_selector('.sq[data-square="H8"] .tile.blank')
    assert table.snapshot()["board"][7][7] == option.lower()


def test_calibration_view(server: Any, table: Table, page: Any, artifacts: Path) -> None:
    page.goto(server.url + "director")
    page.fill("#director-pin", PIN)
    page.click("#director-login button")
    page.wait_for_selector("#auth-in:not([hidden])")
    page.click("#calib-refresh")
    # No camera frame yet (or no OpenCV on this machine): the page says why.
    expect(page.locator("#calib-note")).to_contain_text("frame" if _has_cv2() else "OpenCV")
    if not _has_cv2():
        return
    import numpy as np

    from board_pi.table.reading import BoardReading

    frame = np.full((360, 360, 3), (40, 110, 60), np.uint8)
    table.last_frame = frame
    table.last_reading = BoardReading.certain(["." * 15] * 7 + ["...WINDY......."] + ["." * 15] * 7)
    page.click("#calib-refresh")
    page.wait_for_selector("#calib-img:not([hidden])")
    expect(page.locator("#calib-note")).to_contain_text("Green: the grid")
    assert page.locator("#calib-img").evaluate("img => img.naturalWidth") == 360
    page.locator("#calib-img").screenshot(path=str(artifacts / "director-calibration.png"))


def _has_cv2() -> bool:
    try:
        import cv2  # noqa: F401
    except ImportError:
        return False
    return True


def test_page_polls_when_the_streams_are_full(table: Table, pin_hash: str, browser: Any) -> None:
    table.new_game(["Ann", "Bob"])
    handle = serve(table, port=0, pin_hash=pin_hash, threads=5)  # one live stream at most
    context = browser.new_context(viewport=TABLET)
    try:
        first, second = context.new_page(), context.new_page()
        first.goto(handle.url)
        first.wait_for_selector("#link.up")
        second.goto(handle.url)
        second.wait_for_selector("#link.poll")
        table.enter_play(0, "8D WINDY")
        for pg in (first, second):
            pg.wait_for_selector('.sq[data-square="H8"] .tile', timeout=10_000)
            assert pg.locator('[data-player="0"] [data-role="score"]').inner_text() == "32"
    finally:
        context.close()
        handle.stop()


class SeenBoard:
    """The camera's side of a table, at the boundary: the board as it would be read after a play.

    The real vision reader is another part's; here each press reads exactly the rows set last.
    """

    def __init__(self) -> None:
        from board_pi.table.reading import BoardReading

        self.reading = BoardReading.certain(["." * 15] * 15)

    def show(self, rows: list[str]) -> None:
        from board_pi.table.reading import BoardReading

        self.reading = BoardReading.certain(rows)

    def read(self, frame: Any = None) -> Any:
        return self.reading if frame is not None else object()


def test_a_recorded_game_played_by_presses(shared_data: Path, tmp_path: Path, lexicon: Any, pin_hash: str,
                                           browser: Any, artifacts: Path) -> None:
    """The opening of a real recorded game, each play laid and the clock pressed: the page follows
    the board, the scores (the record's totals) and the clocks."""
    from board_pi.rules.game import Game
    from board_pi.rules.gcg import read_gcg
    from board_pi.rules.judge import WordJudge
    from board_pi.table.store import Journal

    record = read_gcg(str(shared_data / "gcg" / "macondo" / "doug_v_emely.gcg"))
    opening = []
    for m in record.moves:
        if m.kind != "play":
            break
        opening.append(m)
    assert len(opening) >= 5
    seen = SeenBoard()
    game_time = SteppedTime()
    table = Table(Journal(tmp_path / "j.db"), WordJudge(lexicon), camera=seen, reader=seen, time_source=game_time)
    names = [p.nick for p in record.players]
    table.new_game(names)
    handle = serve(table, port=0, pin_hash=pin_hash, threads=8)
    context = browser.new_context(viewport=TABLET)
    page = context.new_page()
    try:
        page.goto(handle.url)
        page.wait_for_selector("#link.up")
        table.press(0)  # starts the first player's clock
        shadow = Game(names)
        for n, m in enumerate(opening):
            p = names.index(m.nick)
            shadow.play(p, f"{m.position} {m.word}")
            seen.show(shadow.state.board.rows())
            game_time.advance(0.35)  # a real player takes longer than the clock's double-press guard
            result = table.press(p)
            assert result.outcome == "play", result
            score = page.locator(f'[data-player="{p}"] [data-role="score"]')
            expect(score).to_have_text(str(m.total))
            expect(page.locator("#moves li")).to_have_count(n + 1)
            # The clock has passed to the other player.
            expect(page.locator(f'[data-player="{1 - p}"]')).to_have_class(re.compile(r"\brunning\b"))
        assert page.locator('[data-player="0"] [data-role="clock"]').inner_text() != "25:00"
        assert page.locator('[data-player="1"] [data-role="clock"]').inner_text() != "25:00"
        rows = shadow.state.board.rows()
        shown = ["".join((tile(page, f"{c}{r + 1}").locator(".letter").inner_text()
                          if rows[r][i] != "." else ".") for i, c in enumerate("ABCDEFGHIJKLMNO"))
                 for r in range(15)]
        assert shown == [row.upper() for row in rows]
        page.screenshot(path=str(artifacts / "table-recorded-game.png"), full_page=True)
    finally:
        context.close()
        handle.stop()
