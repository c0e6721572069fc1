"""Enrolment: photograph your tiles in the printed layout, and the reader adapts to them."""

from __future__ import annotations

import re
import subprocess
import sys

import cv2
import numpy as np
import pytest

from board_pi.vision.enrol import LAYOUT, enrol, layout_text
from board_pi.vision.evaluate import Tally, game_like_rows
from board_pi.vision.read import Profile, ReadError, Reader
from board_pi.vision.fonts import BUILTIN
from board_pi.vision.render import Style, random_style, render_board


def _as_board(rows) -> list[str]:
    """The layout as a board state (a blank is written as a lower-case letter on a board)."""
    return [row.replace("?", "e") for row in rows]


@pytest.fixture(scope="module")
def odd_style() -> Style:
    """A tile set unlike most: dark tiles, light letters, Pillow's own font, no point values."""
    s = random_style(np.random.default_rng(21))
    return Style(**{**s.__dict__, "tile": (70, 60, 55), "tile_kind": "plain", "ink": (235, 235, 235),
                    "letter_font": BUILTIN, "value_font": BUILTIN, "show_values": False})


def test_layout_has_every_letter_and_two_blanks_apart():
    tiles = [ch for row in LAYOUT for ch in row if ch != "."]
    assert sorted(tiles) == sorted("ABCDEFGHIJKLMNOPQRSTUVWXYZ??")
    for r in range(15):
        for c in range(14):
            assert LAYOUT[r][c] == "." or LAYOUT[r][c + 1] == "."
    text = layout_text()
    assert " A . B . C" in text


def test_enrolment_adapts_to_an_unfamiliar_tile_set(odd_style, tmp_path):
    reader = Reader()
    shot = render_board(_as_board(LAYOUT), seed=31, style=odd_style, hand=False)
    profile = enrol(shot.image, shot.corners, reader)
    assert len(profile.embeddings) == len(profile.labels) and profile.embeddings.shape[1] >= 32
    # every tile of the layout (A-Z and the blank) and the empty squares between them
    assert {reader.classes[k] for k in profile.labels.tolist()} == set("ABCDEFGHIJKLMNOPQRSTUVWXYZ?.")
    profile.save(tmp_path / "tiles.npz")
    loaded = Profile.load(tmp_path / "tiles.npz")
    assert np.array_equal(loaded.labels, profile.labels)

    adapted = Reader(profile=loaded)
    plain, taught = Tally(), Tally()
    for seed in (41, 42):
        rows = game_like_rows(np.random.default_rng(seed))
        r = render_board(rows, seed=seed, style=odd_style, hand=False)
        plain.add(rows, reader.read(r.image, r.corners).grid)
        taught.add(rows, adapted.read(r.image, r.corners).grid)
    p, t = plain.figures(), taught.figures()
    assert t["square_accuracy"] >= 0.97, t
    assert t["square_accuracy"] >= p["square_accuracy"] - 0.005, (p, t)


def test_a_photo_that_is_not_the_layout_is_refused(odd_style):
    r = render_board(["." * 15] * 15, seed=3, style=odd_style, hand=False)
    with pytest.raises(ReadError, match="does not match the layout"):
        enrol(r.image, r.corners)


def test_enrol_command(tmp_path):
    def cli(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "board_pi.cli", "enrol", *args], capture_output=True,
                              text=True, timeout=120, cwd=tmp_path)

    p = cli("--layout")
    assert p.returncode == 0 and " A . B" in p.stdout
    shot = render_board(_as_board(LAYOUT), seed=32, hand=False)
    cv2.imwrite(str(tmp_path / "layout.png"), shot.image)
    corners = ",".join(f"{v:.2f}" for v in shot.corners.reshape(-1))
    p = cli("layout.png", "--corners", corners)
    assert p.returncode == 0, p.stderr
    assert Profile.load(tmp_path / "calibration" / "tiles.npz").labels.size > 28
    assert "the corners given snapped" in p.stdout or "kept as they are" in p.stdout
    # A hand's corners a third of a square off are snapped to the grid's lines before the
    # patches are cut through them; the corners kept are printed in the photo's pixels.
    side = float(np.linalg.norm(shot.corners[1] - shot.corners[0])) / 15
    hand = shot.corners + np.float32([[0.3, -0.25], [-0.3, 0.3], [0.25, 0.3], [-0.3, -0.3]]) * side
    p = cli("layout.png", "--corners", ",".join(f"{v:.2f}" for v in hand.reshape(-1)))
    assert p.returncode == 0, p.stderr
    assert "the corners given snapped to the grid's lines (moved up to 0." in p.stdout, p.stdout
    kept = np.float32(re.findall(r"\((-?[\d.]+), (-?[\d.]+)\)", p.stdout)).reshape(4, 2)
    assert np.abs(kept - shot.corners).max() < 0.1 * side
    p = cli("missing.png", "--corners", corners)
    assert p.returncode == 2 and "no such file" in p.stderr and "Traceback" not in p.stderr
    p = cli()
    assert p.returncode == 2 and "Traceback" not in p.stderr


def test_enrol_command_refuses_an_image_of_too_many_pixels(tmp_path):
    from tests.vision.huge_image import huge_png

    p = subprocess.run([sys.executable, "-m", "board_pi.cli", "enrol", str(huge_png(tmp_path / "big.png"))],
                       capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert p.returncode == 2 and "400 megapixels" in p.stderr and "Traceback" not in p.stderr, p.stderr
    assert not (tmp_path / "calibration").exists()
