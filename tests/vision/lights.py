"""Light laid over a real photo, for the tests and for ``benchmarks/bench_conditions.py``: a
body's shadow and warm lamplight, written apart from the code under test."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np


def shadow(light: float) -> Callable[[np.ndarray], np.ndarray]:
    """A body's soft-edged shadow over one side of the photo, ``light`` of the light left in it."""
    def change(im: np.ndarray) -> np.ndarray:
        h, w = im.shape[:2]
        yy, xx = np.mgrid[:h, :w]
        edge = 1 / (1 + np.exp(-((xx - 0.55 * w) + 0.4 * (yy - 0.5 * h)) / (0.03 * w)))
        return np.clip(im * (1 - (1 - light) * edge)[..., None], 0, 255).astype(np.uint8)
    return change


def warm(im: np.ndarray) -> np.ndarray:
    """Under warm lamplight: less blue, more red."""
    return np.clip(im * np.float32([0.65, 0.9, 1.15]), 0, 255).astype(np.uint8)
