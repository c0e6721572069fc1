"""The training boards of `board_pi.vision.train` (pure NumPy and OpenCV; training itself needs torch,
behind `make model`)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from board_pi.rules.tiles import ENGLISH
from board_pi.vision.evaluate import game_like_rows
from board_pi.vision.render import render_board
from board_pi.vision.train import specialist_render, synthetic_board


def _lettered_light_on_dark(share: float, seeds: range) -> int:
    n = 0
    for seed in seeds:
        rng = np.random.default_rng(seed)
        _, _, style = specialist_render(rng, seed, game_like_rows(rng), ENGLISH, share)
        n += sum(style.ink) > sum(style.tile)
    return n


def test_tournament_tiles_are_drawn_only_when_asked_for():
    # The committed networks were trained on cream, wooden and square-coloured tiles, nearly all
    # lettered darker than the tile (2 boards in 40 otherwise, tiles the colour of a dark square);
    # asked for on every board, the boards that are neither a club edition nor tiles the squares'
    # colour get tournament tiles, most of them lettered light on dark.
    plain, tournament = _lettered_light_on_dark(0.0, range(12)), _lettered_light_on_dark(1.0, range(12))
    assert tournament >= plain + 4, (plain, tournament)


def test_training_options_out_of_range_are_refused_before_any_work(capsys) -> None:
    # Refused with a message and exit 2 before the fonts or torch are looked for (neither is
    # needed to say so).
    from board_pi.vision.train import main

    for argv, says in ((["--hard-share", "1.5"], "--hard-share: a share from 0 to 1"),
                       (["--set-weights", "klingon=2"], "--set-weights"),
                       (["--local-light", "-0.1"], "--local-light: a share from 0 to 1"),
                       (["--local-light", "0.5", "--values"], "the tile model's boards only"),
                       (["--accents", "--values"], "one at a time")):
        with pytest.raises(SystemExit) as stop:
            main(argv)
        assert stop.value.code == 2
        assert says in capsys.readouterr().err


def test_light_on_a_few_squares_is_drawn_apart_from_the_board():
    # Asked for, the light changes the picture and nothing else: the same squares, the same
    # labels; not asked for, the board is the one the committed networks were trained on.
    seed = 19 * 100_000 + 3
    plain_x, plain_y = synthetic_board(seed)
    same_x, _ = synthetic_board(seed, local_light=0.0)
    lit_x, lit_y = synthetic_board(seed, local_light=1.0)
    assert np.array_equal(plain_x, same_x)
    assert np.array_equal(plain_y, lit_y)
    moved = np.abs(lit_x.astype(np.int16) - plain_x.astype(np.int16)).mean(axis=(1, 2, 3))
    assert (moved > 8).sum() >= 5, sorted(moved)[-5:]


def test_lamps_streaks_and_reflections_fall_on_the_board():
    rows = game_like_rows(np.random.default_rng(5))
    plain = render_board(rows, seed=5, hand=False, effects=False)
    brighter = 0
    for k in range(12):
        lit = render_board(rows, seed=5, hand=False, effects=False, local_light=np.random.default_rng(k))
        assert np.array_equal(lit.corners, plain.corners) and np.array_equal(lit.occluded, plain.occluded)
        gain = lit.image.astype(np.int16).sum(axis=2) - plain.image.astype(np.int16).sum(axis=2)
        if gain.max() > 150:  # a streak or a reflection: its brightest point is on the board
            y, x = np.unravel_index(np.argmax(gain), gain.shape)
            inside = cv2.pointPolygonTest(plain.corners.reshape(-1, 1, 2), (float(x), float(y)), False)
            assert inside >= 0, (k, x, y)
            brighter += 1
    assert brighter >= 3
