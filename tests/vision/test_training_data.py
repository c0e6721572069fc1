"""The training boards of `board_pi.vision.train` (pure NumPy and OpenCV; training itself needs torch,
behind `make model`)."""

from __future__ import annotations

import numpy as np

from board_pi.rules.tiles import ENGLISH
from board_pi.vision.evaluate import game_like_rows
from board_pi.vision.train import specialist_render


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
