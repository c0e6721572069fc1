"""The training boards of `board_pi.vision.train` (pure NumPy and OpenCV; training itself needs torch,
behind `make model`)."""

from __future__ import annotations

import numpy as np
import pytest

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


def test_training_options_out_of_range_are_refused_before_any_work(capsys) -> None:
    # Refused with a message and exit 2 before the fonts or torch are looked for (neither is
    # needed to say so).
    from board_pi.vision.train import main

    for argv, says in ((["--hard-share", "1.5"], "--hard-share: a share from 0 to 1"),
                       (["--set-weights", "klingon=2"], "--set-weights"),
                       (["--accents", "--values"], "one at a time")):
        with pytest.raises(SystemExit) as stop:
            main(argv)
        assert stop.value.code == 2
        assert says in capsys.readouterr().err
