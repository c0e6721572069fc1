"""The lens model: points carried to and from the straightened frame, frames straightened."""

from __future__ import annotations

import doctest

import cv2
import numpy as np
import pytest

from board_pi.vision import lens as lens_module
from board_pi.vision.lens import Lens
from tests.vision.lenses import through_a_lens


def test_the_modules_examples_hold() -> None:
    result = doctest.testmod(lens_module)
    assert result.attempted > 0 and result.failed == 0


def test_a_straightened_frame_has_its_lines_straight() -> None:
    # A grid of straight lines drawn through a barrel comes back straight: the pixels of a line drawn bowed lie on the straight line again.
    w, h = 640, 480
    straight = np.zeros((h, w), np.uint8)
    for x in range(40, w, 80):
        cv2.line(straight, (x, 0), (x, h - 1), 255, 1)
    lens = Lens(0.2, (w, h))
    bowed = through_a_lens(straight, 0.2)
    assert (bowed[:, 40] > 128).sum() < 0.5 * h  # the edge line is bowed off its column
    again = lens.straighten(bowed)
    col = again[40:h - 40].astype(np.float32)
    assert (col[:, 38:43].max(axis=1) > 60).mean() > 0.95  # back on its column, top to bottom


def test_no_bend_or_another_size_leaves_the_frame_as_it_is() -> None:
    frame = np.random.default_rng(0).integers(0, 255, (48, 64, 3)).astype(np.uint8)
    assert Lens(0.0, (64, 48)).straighten(frame) is frame
    assert Lens(0.1, (640, 480)).straighten(frame) is frame
    with pytest.raises(ValueError, match="bend"):
        Lens(0.9, (64, 48))
    with pytest.raises(ValueError, match="bend"):
        Lens(float("nan"), (64, 48))
