"""The calibration view: the latest camera frame with the grid and each square's reading drawn on it.

OpenCV is imported only here, and only when the view is asked for: the page says so when it is
not installed, or when the camera has not given a frame yet.
"""

from __future__ import annotations

from typing import Any, Sequence

SIZE = 15


class NoCalibrationView(LookupError):
    """Why there is no picture to show (no OpenCV, no frame yet); the message is for the page."""


def _grid_point(corners: Sequence[Sequence[float]] | None, width: int, height: int,
                u: float, v: float) -> tuple[int, int]:
    """Where (u, v) in board units (0..15 across, 0..15 down) falls in the frame.

    With the board's four corners (top-left, top-right, bottom-right, bottom-left) the point is
    interpolated inside that quadrilateral; without them the frame is taken as the board itself
    (a reader that hands over the straightened board).
    """
    x, y = u / SIZE, v / SIZE
    if corners is None:
        return int(round(x * (width - 1))), int(round(y * (height - 1)))
    (ax, ay), (bx, by), (cx, cy), (dx, dy) = [(float(p[0]), float(p[1])) for p in corners]
    top = (ax + (bx - ax) * x, ay + (by - ay) * x)
    bottom = (dx + (cx - dx) * x, dy + (cy - dy) * x)
    return int(round(top[0] + (bottom[0] - top[0]) * y)), int(round(top[1] + (bottom[1] - top[1]) * y))


def render(frame: Any, reading: Any, doubt_below: float = 0.9) -> bytes:
    """A PNG of ``frame`` with the 15x15 grid and ``reading``'s letters (doubtful ones in red).

    Raises :class:`NoCalibrationView` when OpenCV is missing or there is no frame.
    """
    try:
        import cv2  # type: ignore[import-not-found]
        import numpy as np
    except ImportError:
        raise NoCalibrationView("OpenCV is not installed on this table: no calibration view") from None
    if frame is None:
        raise NoCalibrationView("the camera has not given a frame yet")
    img = np.ascontiguousarray(frame)
    if img.ndim == 2:
        img = cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)
    else:
        img = img.copy()
    h, w = img.shape[:2]
    corners = getattr(reading, "corners", None) if reading is not None else None
    if corners is not None and len(corners) != 4:
        corners = None
    line = max(1, min(w, h) // 400)
    for i in range(SIZE + 1):
        cv2.line(img, _grid_point(corners, w, h, i, 0), _grid_point(corners, w, h, i, SIZE), (0, 255, 0), line)
        cv2.line(img, _grid_point(corners, w, h, 0, i), _grid_point(corners, w, h, SIZE, i), (0, 255, 0), line)
    if reading is not None:
        cell = min(w, h) / SIZE
        scale = max(0.3, cell / 32)  # a letter about two thirds of a square high
        for r, row in enumerate(reading.grid):
            for c, ch in enumerate(row):
                conf = reading.confidence[r][c]
                doubtful = conf < doubt_below
                if ch == "." and not doubtful:
                    continue
                x, y = _grid_point(corners, w, h, c + 0.2, r + 0.82)
                colour = (0, 0, 255) if doubtful else (0, 255, 255)  # BGR: red, yellow
                cv2.putText(img, ch, (x, y), cv2.FONT_HERSHEY_SIMPLEX, scale, (0, 0, 0), line + 2, cv2.LINE_AA)
                cv2.putText(img, ch, (x, y), cv2.FONT_HERSHEY_SIMPLEX, scale, colour, line, cv2.LINE_AA)
    ok, png = cv2.imencode(".png", img)
    if not ok:
        raise NoCalibrationView("the frame could not be encoded")
    return bytes(png.tobytes())
