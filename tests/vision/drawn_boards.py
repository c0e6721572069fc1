"""Boards drawn with OpenCV for the locator's tests: a known grid, seen through a known camera.

These are deliberately plain (flat colours, Hershey letters); the photo-like renderer is
``board_pi.vision.render``. What matters here is that the true corners are known exactly, and
that the drawing can vary what the locator must cope with: line polarity, premium colours,
perspective, the board's turn, clutter, a frame round the board, an arm over an edge.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from board_pi.rules.board import STANDARD, Premium, Square

GRID = 15

# Two editions' worth of colours (BGR): a modern light board with white lines, and a deluxe
# board with dark raised lines and muted premiums.
MODERN = {
    "cell": (170, 196, 206), "line": (245, 245, 245), "frame": (40, 40, 190),
    Premium.TRIPLE_WORD: (60, 60, 215), Premium.DOUBLE_WORD: (170, 160, 240),
    Premium.TRIPLE_LETTER: (200, 120, 30), Premium.DOUBLE_LETTER: (230, 200, 150),
}
DELUXE = {
    "cell": (200, 225, 235), "line": (40, 40, 40), "frame": (90, 150, 190),
    Premium.TRIPLE_WORD: (60, 60, 150), Premium.DOUBLE_WORD: (140, 150, 210),
    Premium.TRIPLE_LETTER: (90, 80, 60), Premium.DOUBLE_LETTER: (170, 160, 140),
}


@dataclass
class Scene:
    image: np.ndarray
    corners: np.ndarray  # upright order: A1's corner first
    square_px: float  # mean side of a square in the image


@dataclass
class DrawnBoard:
    colours: dict = field(default_factory=lambda: dict(MODERN))
    tiles: dict[tuple[int, int], str] = field(default_factory=dict)
    square_px: int = 40
    line_px: int = 3
    border: float = 1.5  # board margin outside the grid, in squares
    markers: bool = False  # ArUco markers 0-3 on the frame, by A1, A15... clockwise

    def top_down(self) -> tuple[np.ndarray, np.ndarray]:
        """The board seen from straight above, upright, and its grid corners there."""
        s, b = self.square_px, int(self.border * self.square_px)
        side = GRID * s + 2 * b
        img = np.full((side, side, 3), self.colours["frame"], np.uint8)
        cv2.rectangle(img, (b, b), (b + GRID * s, b + GRID * s), self.colours["cell"], -1)
        for r in range(GRID):
            for c in range(GRID):
                prem = STANDARD.premium(Square(r, c))
                if prem is not Premium.NONE:
                    x, y = b + c * s, b + r * s
                    cv2.rectangle(img, (x, y), (x + s, y + s), self.colours[prem], -1)
        for k in range(GRID + 1):
            p = b + k * s
            cv2.line(img, (p, b), (p, b + GRID * s), self.colours["line"], self.line_px)
            cv2.line(img, (b, p), (b + GRID * s, p), self.colours["line"], self.line_px)
        for (r, c), letter in self.tiles.items():
            x, y = b + c * s, b + r * s
            cv2.rectangle(img, (x + 2, y + 2), (x + s - 3, y + s - 3), (150, 200, 225), -1)
            cv2.rectangle(img, (x + 2, y + 2), (x + s - 3, y + s - 3), (110, 160, 190), 1)
            scale = s / 48
            cv2.putText(img, letter, (x + int(0.2 * s), y + int(0.75 * s)), cv2.FONT_HERSHEY_SIMPLEX, scale, (20, 20, 20), max(1, s // 16), cv2.LINE_AA)
            cv2.putText(img, "1", (x + int(0.68 * s), y + int(0.84 * s)), cv2.FONT_HERSHEY_SIMPLEX, scale * 0.45, (20, 20, 20), max(1, s // 20), cv2.LINE_AA)
        if self.markers:
            from board_pi.vision.calibration import marker_image

            ms = int(1.3 * s)
            spots = [(0, 0), (side - ms, 0), (side - ms, side - ms), (0, side - ms)]
            for i, (x, y) in enumerate(spots):
                img[y:y + ms, x:x + ms] = cv2.cvtColor(marker_image(i, ms), cv2.COLOR_GRAY2BGR)
        g = float(GRID * s)
        corners = np.array([[b, b], [b + g, b], [b + g, b + g], [b, b + g]], np.float32)
        return img, corners


def clutter(shape: tuple[int, int], rng: np.random.Generator, busy: bool = True) -> np.ndarray:
    """A table: a textured cloth, and with ``busy`` papers, cups and tiles lying about."""
    h, w = shape
    base = np.array(rng.integers(60, 200, 3), np.float32)
    img = np.clip(base + rng.normal(0, 12, (h, w, 3)), 0, 255).astype(np.uint8)
    img = cv2.GaussianBlur(img, (5, 5), 0)
    if busy:
        for _ in range(25):
            colour = tuple(int(v) for v in rng.integers(0, 255, 3))
            x, y = int(rng.integers(0, w)), int(rng.integers(0, h))
            if rng.random() < 0.5:
                sz = int(rng.integers(10, 60))
                cv2.rectangle(img, (x, y), (x + sz, y + int(sz * rng.uniform(0.5, 1.5))), colour, -1)
            else:
                cv2.circle(img, (x, y), int(rng.integers(8, 50)), colour, -1)
    return img


def photograph(
    board: DrawnBoard,
    size: tuple[int, int] = (1280, 960),
    turn: int = 0,
    tilt: float = 0.0,
    spin: float = 0.0,
    fill: float = 0.75,
    seed: int = 0,
    busy: bool = True,
    arm: bool = False,
    blur: float = 0.8,
    noise: float = 4.0,
) -> Scene:
    """The board photographed: turned ``turn`` degrees clockwise (0/90/180/270), tilted by ``tilt``
    degrees of camera angle (the far edge foreshortened), spun ``spin`` degrees more, filling
    about ``fill`` of the frame's height."""
    rng = np.random.default_rng(seed)
    w, h = size
    top, grid = board.top_down()
    side = top.shape[0]
    # Where the whole board's corners land: a square, foreshortened, then turned and spun.
    half = fill * h / 2
    t = np.tan(np.radians(tilt)) * 0.5
    quad = np.array([[-half * (1 - t), -half * (1 - 0.5 * t)], [half * (1 - t), -half * (1 - 0.5 * t)],
                     [half * (1 + t * 0.3), half], [-half * (1 + t * 0.3), half]], np.float32)
    ang = np.radians(spin + turn)
    R = np.array([[np.cos(ang), -np.sin(ang)], [np.sin(ang), np.cos(ang)]], np.float32)
    centre = np.array([w / 2 + rng.uniform(-0.05, 0.05) * w, h / 2 + rng.uniform(-0.04, 0.04) * h], np.float32)
    dst = quad @ R.T + centre
    src = np.array([[0, 0], [side, 0], [side, side], [0, side]], np.float32)
    H = cv2.getPerspectiveTransform(src, dst)
    scene = clutter((h, w), rng, busy)
    warped = cv2.warpPerspective(top, H, (w, h), flags=cv2.INTER_AREA)
    mask = cv2.warpPerspective(np.full((side, side), 255, np.uint8), H, (w, h))
    scene[mask > 127] = warped[mask > 127]
    corners = cv2.perspectiveTransform(grid.reshape(-1, 1, 2), H).reshape(4, 2)
    if arm:
        # A forearm reaching in from the nearest image edge over the middle of one grid edge.
        a, b = corners[2], corners[3]
        mid = (a + b) / 2
        inward = (corners[0] + corners[1]) / 2 - mid
        inward /= np.linalg.norm(inward)
        tip = mid + inward * 2.0 * float(np.linalg.norm(a - b)) / GRID
        far = mid - inward * 2000
        width = int(0.12 * np.linalg.norm(a - b))
        cv2.line(scene, tuple(int(v) for v in far), tuple(int(v) for v in tip), (120, 160, 210), width)
        cv2.circle(scene, tuple(int(v) for v in tip), width // 2, (120, 160, 210), -1)
    if blur > 0:
        scene = cv2.GaussianBlur(scene, (0, 0), blur)
    if noise > 0:
        scene = np.clip(scene.astype(np.float32) + rng.normal(0, noise, scene.shape), 0, 255).astype(np.uint8)
    sq = float(np.mean([np.linalg.norm(corners[i] - corners[(i + 1) % 4]) for i in range(4)])) / GRID
    return Scene(scene, corners.astype(np.float32), sq)


def some_tiles(seed: int = 0, n_words: int = 6) -> dict[tuple[int, int], str]:
    """A few words' worth of tiles through the middle of the board (letters with clear shapes)."""
    rng = np.random.default_rng(seed)
    words = ["BOARD", "TILES", "CAMERA", "PLAYS", "HOLD", "BINGO", "RACK", "OVERTIME", "PHONY"]
    tiles: dict[tuple[int, int], str] = {}
    for k in range(n_words):
        word = words[int(rng.integers(0, len(words)))]
        across = k % 2 == 0
        r, c = int(rng.integers(2, 12)), int(rng.integers(2, 15 - len(word))) if across else int(rng.integers(2, 12))
        if not across:
            r = int(rng.integers(2, 15 - len(word)))
        for i, ch in enumerate(word):
            rr, cc = (r, c + i) if across else (r + i, c)
            if 0 <= rr < GRID and 0 <= cc < GRID:
                tiles[(rr, cc)] = ch
    return tiles


def corner_error(found: np.ndarray, truth: np.ndarray) -> float:
    """Largest distance between corresponding corners, pixels."""
    return float(np.linalg.norm(np.asarray(found) - np.asarray(truth), axis=1).max())


def corner_error_any_turn(found: np.ndarray, truth: np.ndarray) -> float:
    """As :func:`corner_error`, whichever corner the finder took for A1 (grid position only)."""
    return min(corner_error(np.roll(found, k, axis=0), truth) for k in range(4))


def random_edition(seed: int):  # -> board_pi.vision.render.Rendered
    """A board of a random edition drawn by the project's renderer: random premium palette and
    lines, 0-40% of squares covered, any turn, tilt up to 35 degrees, a hand in some frames."""
    from board_pi.vision.render import random_rows, render_board

    rng = np.random.default_rng(seed)
    rows = random_rows(rng, density=float(rng.uniform(0.0, 0.4)))
    return render_board(rows, seed=seed, tilt=35.0, quarter_turns=int(rng.integers(4)))

