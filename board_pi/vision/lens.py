"""A camera lens that bends straight lines, and the frame straightened again.

A wide lens draws the straight lines of a board bowed outwards (barrel), a long one inwards
(pincushion). One homography then cannot place every square: the squares at the edges of a
board filling the frame are cut across their tiles. The model is the plainest, one term about
the frame's middle: the point seen at ``p`` lies, in the frame with its lines straight, at
``c + (p - c) * (1 + bend * r**2)``, ``r`` being ``|p - c|`` in halves of the frame's longer
side. A 10% barrel (``bend`` 0.1) pulls the middle of the long side's edge in by a tenth.

A table measures its camera's bend once, on the calibration frame of the empty board
(:func:`board_pi.vision.calibration.calibrate` with ``lens=True``), and straightens every frame
before it is looked at.

>>> lens = Lens(0.1, (1280, 960))
>>> seen = np.float32([[100, 50], [1200, 900]])
>>> bool(np.allclose(lens.seen(lens.straight(seen)), seen, atol=0.01))
True
>>> lens.straight(np.float32([[640, 480], [1280, 480]])).tolist()  # the middle stays; the edge moves out
[[640.0, 480.0], [1344.0, 480.0]]
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

MAX_BEND = 0.5
"""The largest bend either way a calibration may hold: more than any lens a board is read through."""


@dataclass(frozen=True)
class Lens:
    """A lens's ``bend`` (> 0 barrel, < 0 pincushion) for frames of ``size`` (width, height)."""

    bend: float
    size: tuple[int, int]

    def __post_init__(self) -> None:
        if not abs(self.bend) <= MAX_BEND:
            raise ValueError(f"a lens's bend must be within ±{MAX_BEND}, not {self.bend}")

    @property
    def _centre_half(self) -> tuple[np.ndarray, np.float32]:
        w, h = self.size
        return np.float32([w / 2, h / 2]), np.float32(max(w, h) / 2)

    def straight(self, points: np.ndarray) -> np.ndarray:
        """Where points seen in the frame lie in the frame straightened: (n, 2) -> (n, 2)."""
        c, half = self._centre_half
        d = (np.asarray(points, np.float32).reshape(-1, 2) - c) / half
        f = 1 + self.bend * (d * d).sum(axis=1, keepdims=True)
        return (c + d * f * half).astype(np.float32)

    def seen(self, points: np.ndarray) -> np.ndarray:
        """Where points of the straightened frame are seen in the frame (:meth:`straight` undone,
        a few steps of a fixed point: the bend is small)."""
        c, half = self._centre_half
        q = (np.asarray(points, np.float32).reshape(-1, 2) - c) / half
        d = q.copy()
        for _ in range(10):
            d = q / (1 + self.bend * (d * d).sum(axis=1, keepdims=True))
        return (c + d * half).astype(np.float32)

    def straighten(self, frame: np.ndarray) -> np.ndarray:
        """The frame with its lines straight: the same size, the same middle. A frame of another
        size than the lens's, or no bend, is given back as it is."""
        h, w = frame.shape[:2]
        if self.bend == 0 or (w, h) != tuple(self.size):
            return frame
        one, two = _maps(self.bend, w, h)
        return cv2.remap(frame, one, two, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


@lru_cache(maxsize=1)
def _maps(bend: float, w: int, h: int) -> tuple[np.ndarray, np.ndarray]:
    """:func:`cv2.remap`'s maps for a lens, in its fast fixed-point form: made once per bend and
    frame size (tens of milliseconds), then each frame takes a few. Only the last lens's are kept
    (a table has one; measuring one tries 25, whose maps would hold megabytes each)."""
    # Worked out every 8 pixels and spread between them (the bend is smooth): a sixty-fourth of
    # the work, the same maps to a hundredth of a pixel.
    step = 8
    gy, gx = np.mgrid[0:h + step:step, 0:w + step:step].astype(np.float32)
    coarse = Lens(bend, (w, h)).seen(np.stack([gx.ravel(), gy.ravel()], 1)).reshape(gx.shape + (2,))
    fx = np.broadcast_to(np.arange(w, dtype=np.float32) / step, (h, w))
    fy = np.broadcast_to((np.arange(h, dtype=np.float32) / step)[:, None], (h, w))
    src = cv2.remap(coarse, np.ascontiguousarray(fx), np.ascontiguousarray(fy), cv2.INTER_LINEAR)
    return cv2.convertMaps(src[..., 0].copy(), src[..., 1].copy(), cv2.CV_16SC2)
