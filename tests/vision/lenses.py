"""Frames as a lens that bends straight lines would draw them, for the lens's tests and benchmarks:
written from the model's definition (:mod:`board_pi.vision.lens`), apart from the code under test."""

from __future__ import annotations

import cv2
import numpy as np


def through_a_lens(image: np.ndarray, bend: float) -> np.ndarray:
    """The frame as a lens of ``bend`` would draw it: each pixel from ``1 + bend * r**2`` times its
    distance from the middle (``r`` in halves of the longer side); > 0 a wide lens's barrel (the
    middle of the long side's edge pulled in by ``bend``), < 0 a pincushion."""
    h, w = image.shape[:2]
    yy, xx = np.mgrid[:h, :w].astype(np.float32)
    half = max(w, h) / 2
    x, y = (xx - w / 2) / half, (yy - h / 2) / half
    f = 1 + bend * (x * x + y * y)
    return cv2.remap(image, x * f * half + w / 2, y * f * half + h / 2, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
