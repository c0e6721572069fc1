"""Hand labels of real photos: the corrections, the label file, the sheet, and `board-pi label`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from board_pi.rules.tiles import ENGLISH, SPANISH
from board_pi.vision.evaluate import game_like_rows
from board_pi.vision.labels import (SHEET_MARGIN, SHEET_SQUARE, LabelError, LabelFile, apply_corrections, check_rows,
                                    differences, label_sheet)
from board_pi.vision.render import render_board

EMPTY = ["." * 15] * 15


def test_corrections_set_squares_and_blanks_and_refuse_what_the_set_has_not() -> None:
    rows = apply_corrections(EMPTY, "H8 Q, O10 s  A1 ?", ENGLISH.letters)
    assert rows[7][7] == "Q" and rows[9][14] == "s" and rows[0][0] == "?"
    assert apply_corrections(rows, "H8 .", ENGLISH.letters)[7] == EMPTY[7]
    # A two-letter tile is one square, written in brackets; in lower case, a blank played as it.
    es = apply_corrections(EMPTY, "B2 ch, C2 LL, D2 ñ", SPANISH.letters)
    assert es[1] == ".[ch][LL]ñ..........." and check_rows(es, SPANISH.letters) is None
    for bad, why in (("H8", "nothing to set"), ("P1 A", "off the"), ("H8 Ä", "not a tile of this set"),
                     ("8H A", "not a square name")):
        with pytest.raises(LabelError, match=why):
            apply_corrections(rows, bad, ENGLISH.letters)
    # One bad pair and nothing of the line is taken.
    with pytest.raises(LabelError):
        apply_corrections(EMPTY, "A1 B, Z9 C", ENGLISH.letters)
    assert [(q.name, a, b) for q, a, b in differences(EMPTY, rows)] == [("A1", ".", "?"), ("H8", ".", "Q"),
                                                                         ("O10", ".", "s")]
    with pytest.raises(LabelError, match="row 3"):
        check_rows(EMPTY[:2] + ["...Ä..........."] + EMPTY[3:], ENGLISH.letters)


def test_the_sheet_shows_the_rectified_board_with_the_grid_over_it() -> None:
    rows = game_like_rows(np.random.default_rng(20_000_011))
    r = render_board(rows, seed=20_000_011)
    sheet = label_sheet(r.image, r.corners, rows, doubtful=[(0, 0)], changed=[(7, 7)])
    side = 15 * SHEET_SQUARE + 2 * SHEET_MARGIN
    assert sheet.shape == (side, side, 3)
    # A grid line runs along every square's edge, and the outlines are drawn in their colours.
    m, s = SHEET_MARGIN, SHEET_SQUARE
    assert (sheet[m + 3 * s, m + 5:m + 15 * s - 5] == (0, 200, 0)).all(axis=1).mean() > 0.9
    assert tuple(sheet[m + 2, m + s // 2]) == (0, 140, 255)  # A1 doubted: orange
    assert tuple(sheet[m + 7 * s + 2, m + 7 * s + s // 2]) == (255, 80, 0)  # H8 changed: blue


def test_a_label_file_is_written_whole_and_a_damaged_one_refused(tmp_path: Path) -> None:
    f = LabelFile.load(tmp_path / "labels.json")
    assert f.photos == {}
    f.about = "test"
    f.photos["b.jpg"] = list(EMPTY)
    f.photos["a.jpg"] = apply_corrections(EMPTY, "H8 Ñ", SPANISH.letters)
    f.save()
    back = LabelFile.load(tmp_path / "labels.json")
    assert back.about == "test" and list(back.photos) == ["a.jpg", "b.jpg"] and back.photos["a.jpg"][7][7] == "Ñ"
    assert [p.name for p in tmp_path.iterdir()] == ["labels.json"]  # no temporary file left
    (tmp_path / "bad.json").write_text('{"photos": {"a.jpg": "not rows"}}')
    with pytest.raises(LabelError, match="not a label file"):
        LabelFile.load(tmp_path / "bad.json")


def _label(*args: str, answers: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "board_pi.cli", "label", *args], input=answers,
                          capture_output=True, text=True, timeout=300, cwd=cwd)


def test_the_command_proposes_the_reading_and_keeps_the_corrected_label(tmp_path: Path) -> None:
    rows = game_like_rows(np.random.default_rng(20_000_012))
    r = render_board(rows, seed=20_000_012)
    photo, other = tmp_path / "board.png", tmp_path / "nothing.png"
    cv2.imwrite(str(photo), r.image)
    cv2.imwrite(str(other), np.full((480, 640, 3), 90, np.uint8))
    corners = tmp_path / "corners.json"
    corners.write_text(json.dumps({"about": "kept", "photos": {"board.png": {"corners": r.corners.tolist()}}}))
    labels = tmp_path / "labels.json"
    labels.write_text(json.dumps({"about": "my labels", "photos": {"old.jpg": EMPTY}}))
    read = subprocess.run([sys.executable, "-m", "board_pi.cli", "read", str(photo), "--corners",
                           ",".join(f"{v:.3f}" for v in r.corners.reshape(-1))], capture_output=True, text=True,
                          timeout=120)
    assert read.returncode == 0, read.stderr
    proposal = read.stdout.split()
    # A wrong pair is refused and asked again; then H8 is set and the label kept.
    p = _label(str(other), str(photo), "--labels", str(labels), "--corners", str(corners),
               "--sheet", str(tmp_path / "sheet.png"), answers="H8 Ä\nH8 Q\nok\n", cwd=tmp_path)
    assert p.returncode == 1, p.stderr  # the photo with no board is said so, and the rest done
    assert "nothing.png" in p.stdout and "no board found" in p.stdout
    assert "not taken: 'Ä' on H8 is not a tile of this set" in p.stdout
    kept = json.loads(labels.read_text())
    assert kept["about"] == "my labels" and kept["photos"]["old.jpg"] == EMPTY
    want = [row[:7] + "Q" + row[8:] if i == 7 else row for i, row in enumerate(proposal)]
    assert kept["photos"]["board.png"] == want
    assert cv2.imread(str(tmp_path / "sheet.png")).shape[0] == 15 * SHEET_SQUARE + 2 * SHEET_MARGIN
    # Labelled again, the kept label is proposed; the end of the input leaves it as it was.
    before = labels.read_text()
    p = _label(str(photo), "--labels", str(labels), "--corners", str(corners), "--sheet",
               str(tmp_path / "sheet.png"), answers="A1 Z\n", cwd=tmp_path)
    assert p.returncode == 0 and "already labelled" in p.stdout and "left as it was" in p.stdout
    assert labels.read_text() == before


def test_turn_reads_the_board_a_quarter_turn_further_and_keeps_those_corners(tmp_path: Path) -> None:
    rows = game_like_rows(np.random.default_rng(20_000_012))
    r = render_board(rows, seed=20_000_012)
    photo = tmp_path / "board.png"
    cv2.imwrite(str(photo), r.image)
    corners = tmp_path / "corners.json"
    wrong_way = np.roll(r.corners, 1, axis=0)  # kept a quarter turn wrong
    corners.write_text(json.dumps({"photos": {"board.png": {"corners": wrong_way.tolist(), "independent": True}}}))
    labels = tmp_path / "labels.json"
    p = _label(str(photo), "--labels", str(labels), "--corners", str(corners), "--sheet",
               str(tmp_path / "sheet.png"), answers="turn\nok\n", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert "'turn' reads the board a quarter turn further" in p.stdout
    from board_pi.vision.read import Reader

    upright = Reader().read(r.image, r.corners, played=True)
    assert json.loads(labels.read_text())["photos"]["board.png"] == list(upright.grid)
    kept = json.loads(corners.read_text())["photos"]["board.png"]
    assert np.allclose(kept["corners"], r.corners, atol=0.1) and kept["independent"] is True


def test_the_command_refuses_a_damaged_label_file_and_leaves_it_alone(tmp_path: Path) -> None:
    labels = tmp_path / "labels.json"
    labels.write_text("{ not json")
    p = _label(str(tmp_path / "x.png"), "--labels", str(labels), answers="", cwd=tmp_path)
    assert p.returncode == 2 and "not a label file" in p.stderr and "Traceback" not in p.stderr
    assert labels.read_text() == "{ not json"
    p = _label(str(tmp_path / "x.png"), "--labels", str(tmp_path / "l.json"), "--tiles", "klingon",
               answers="", cwd=tmp_path)
    assert p.returncode == 2 and "--tiles" in p.stderr
