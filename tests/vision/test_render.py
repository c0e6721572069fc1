"""The synthetic renderer: deterministic, truthful corners, the board drawn where it says."""

from __future__ import annotations

import numpy as np
import pytest

from board_pi.rules.board import Premium
from board_pi.vision.read import SQUARE_PX, PAD, _warp
from board_pi.vision.render import BUILTIN, random_rows, random_style, render_board

EMPTY = ["." * 15] * 15


def _cell(warped: np.ndarray, r: int, c: int) -> np.ndarray:
    """Mean colour of the middle of square (r, c) in a rectified board."""
    y, x = PAD + r * SQUARE_PX, PAD + c * SQUARE_PX
    q = SQUARE_PX // 4
    return warped[y + q:y + SQUARE_PX - q, x + q:x + SQUARE_PX - q].reshape(-1, 3).mean(0)


def test_same_seed_same_frame_other_seed_other_frame():
    rows = random_rows(np.random.default_rng(3))
    a, b, c = (render_board(rows, seed=s, size=(640, 480)) for s in (7, 7, 8))
    assert np.array_equal(a.image, b.image) and np.array_equal(a.corners, b.corners)
    assert not np.array_equal(a.image, c.image)
    assert a.image.shape == (480, 640, 3) and a.image.dtype == np.uint8
    assert a.corners.shape == (4, 2) and a.rows == tuple(rows)


def test_corners_put_the_premium_squares_where_the_layout_has_them():
    style = random_style(np.random.default_rng(11))
    r = render_board(EMPTY, seed=2, style=style, hand=False, effects=False)
    w = _warp(r.image, r.corners)
    tw = np.array(style.premium[Premium.TRIPLE_WORD], float)
    plain = np.array(style.square, float)
    for rc in [(0, 0), (0, 14), (14, 0), (14, 14), (7, 0)]:
        # label text covers part of the square: compare with the nearer of the two colours
        got = _cell(w, *rc)
        assert np.linalg.norm(got - tw) < np.linalg.norm(got - plain), rc
    for rc in [(0, 1), (1, 0), (6, 1), (12, 7)]:
        got = _cell(w, *rc)
        assert np.linalg.norm(got - plain) < 25, (rc, got, plain)


@pytest.mark.parametrize("turns", [0, 1, 2, 3])
def test_corners_name_the_boards_own_top_left_when_it_is_turned(turns):
    rows = ["Q" + "." * 14] + ["." * 15] * 14
    style = random_style(np.random.default_rng(5))
    r = render_board(rows, seed=4, style=style, hand=False, effects=False, quarter_turns=turns)
    w = _warp(r.image, r.corners)
    tw = np.array(style.premium[Premium.TRIPLE_WORD], float)
    # the tile on A1 covers the triple-word colour there; O15's triple word is bare
    assert np.linalg.norm(_cell(w, 0, 0) - tw) > np.linalg.norm(_cell(w, 14, 14) - tw) + 20


def test_a_hand_hides_squares_and_is_reported():
    r = render_board(random_rows(np.random.default_rng(1)), seed=9, hand=True)
    plain = render_board(random_rows(np.random.default_rng(1)), seed=9, hand=False)
    assert r.occluded.shape == (15, 15) and r.occluded.any() and not plain.occluded.any()


def test_pillows_builtin_font_is_enough():
    style = random_style(np.random.default_rng(0))
    style = type(style)(**{**style.__dict__, "letter_font": BUILTIN, "value_font": BUILTIN, "label_font": BUILTIN})
    r = render_board(["ABCDEFGHIJKLMNO"] * 15, seed=1, style=style, size=(320, 240))
    assert r.image.std() > 10


def test_bad_board_states_are_refused():
    with pytest.raises(ValueError):
        render_board(["." * 15] * 14)
    with pytest.raises(ValueError):
        render_board(["1" + "." * 14] + ["." * 15] * 14)
