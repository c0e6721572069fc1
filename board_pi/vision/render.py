"""The synthetic board renderer: a board state in, a photo-like camera frame out.

It serves training (volume), tests (known truth) and the table's demo (a camera stand-in). A board
state is 15 strings of ``.`` (empty), ``A``-``Z`` (a lettered tile) or a lower-case letter (a blank
played as that letter: drawn as a blank tile, since a blank carries no letter).

The world is modelled on real photos of real boards: wooden or ivory tiles with a black letter and
a small point value at the bottom right, raised tiles seen slightly from the side, premium squares
coloured and labelled, grid lines white, grey or black; then a camera pose, uneven light, glare,
shadows, a hand or arm, blur, noise and JPEG artefacts.

>>> r = render_board(["." * 15] * 7 + [".......CAT....."] + ["." * 15] * 7, seed=1, size=(640, 480))
>>> r.image.shape, r.corners.shape
((480, 640, 3), (4, 2))
"""

from __future__ import annotations

import functools
import unicodedata
import math
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable, Sequence

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from board_pi.rules.board import STANDARD, Premium, Square, split_row
from board_pi.rules.tiles import ENGLISH, TILE_SETS, TileSet, all_glyphs
from board_pi.vision.fonts import BUILTIN, FONTS, font_path, missing_fonts

N = 15
PX = 56  # pixels per square on the flat board drawn before the camera projection

def style_fonts(style: "Style") -> tuple[str, ...]:
    """The catalogue fonts a style letters its tiles, values and premium squares in."""
    return tuple(dict.fromkeys((style.letter_font, style.value_font, style.label_font)))


def with_stand_ins(style: "Style", directory: str | Path | None = None) -> tuple["Style", list[str]]:
    """``style`` with Pillow's own font in place of each font that cannot be drawn with, and why
    (for a camera stand-in, which says so: the picture is then not the seed's own)."""
    why = missing_fonts(style_fonts(style), directory)
    if not why:
        return style, []
    usable = {n: (n if not missing_fonts([n], directory) else BUILTIN) for n in style_fonts(style)}
    return replace(style, letter_font=usable[style.letter_font], value_font=usable[style.value_font],
                   label_font=usable[style.label_font]), why


@functools.lru_cache(maxsize=512)
def _font(path: str, size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    if path == BUILTIN:
        return ImageFont.load_default(size=size)
    return ImageFont.truetype(path, size)


@functools.lru_cache(maxsize=8192)
def _glyph(path: str, text: str, height: int) -> np.ndarray:
    """A text mask (float32 0..1), cropped to the ink, scaled so capitals are ``height`` px tall."""
    font = _font(path, max(6, int(height * 1.45)))
    l, t, r, b = font.getbbox(text)
    img = Image.new("L", (r - l + 4, b - t + 4), 0)
    ImageDraw.Draw(img).text((2 - l, 2 - t), text, fill=255, font=font)
    m = np.asarray(img, np.float32) / 255.0
    ys, xs = np.nonzero(m > 0.05)
    if len(ys) == 0:
        return np.zeros((1, 1), np.float32)
    m = m[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
    if text.isalpha() or text.isdigit():  # glyph heights differ by font: normalise the ink height
        # of the letter itself: an Ä, Ó or Ż is as tall as its A, O or Z plus its accent
        base = _base_letter(text)
        scale = height / (_ink_height(path, base, height) if base != text else m.shape[0])
        w, h = max(1, int(round(m.shape[1] * scale))), max(1, int(round(m.shape[0] * scale)))
        m = cv2.resize(m, (w, h), interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR)
    return m


def _base_letter(text: str) -> str:
    """The unaccented capitals of ``text`` (``Ä`` -> ``A``, ``Ł`` -> ``L``), to size its glyph by."""
    out = "".join(unicodedata.normalize("NFD", ch)[0] for ch in text)
    return out.replace("Ł", "L")


@functools.lru_cache(maxsize=2048)
def _ink_height(path: str, text: str, height: int) -> int:
    """Height in pixels of ``text``'s ink at the font size :func:`_glyph` draws ``height`` with."""
    font = _font(path, max(6, int(height * 1.45)))
    l, t, r, b = font.getbbox(text)
    img = Image.new("L", (r - l + 4, b - t + 4), 0)
    ImageDraw.Draw(img).text((2 - l, 2 - t), text, fill=255, font=font)
    ys = np.nonzero(np.asarray(img) > 12)[0]
    return int(ys.max() - ys.min() + 1) if len(ys) else 1


def _paste(dst: np.ndarray, mask: np.ndarray, color: np.ndarray, x: int, y: int) -> None:
    """Blend ``color`` into ``dst`` through ``mask`` with its top-left at (x, y), clipped."""
    h, w = mask.shape[:2]
    x0, y0, x1, y1 = max(x, 0), max(y, 0), min(x + w, dst.shape[1]), min(y + h, dst.shape[0])
    if x0 >= x1 or y0 >= y1:
        return
    m = mask[y0 - y:y1 - y, x0 - x:x1 - x]
    if m.ndim == 2:
        m = m[..., None]
    region = dst[y0:y1, x0:x1].astype(np.float32)
    c = color if color.ndim == 1 else color[y0 - y:y1 - y, x0 - x:x1 - x]
    dst[y0:y1, x0:x1] = (region * (1 - m) + c * m).clip(0, 255).astype(np.uint8)


@dataclass(frozen=True)
class _Faces:
    """The font files a board is drawn with (paths, or :data:`BUILTIN`)."""

    letter: str
    value: str
    label: str


@dataclass(frozen=True)
class Style:
    """How one board edition and tile set look (colours are BGR)."""

    square: tuple[int, int, int]
    line: tuple[int, int, int]
    line_width: float  # fraction of a square
    premium: dict[Premium, tuple[int, int, int]]
    label_color: tuple[int, int, int]
    label_kind: str  # "words", "short" or "none"
    frame: tuple[int, int, int]
    tile: tuple[int, int, int]
    tile_kind: str  # "wood", "plain"
    ink: tuple[int, int, int]
    letter_font: str  # catalogue font names (FONTS), found in the font directory when drawn
    value_font: str
    label_font: str
    letter_height: float  # fraction of the tile side
    tile_size: float  # fraction of a square
    show_values: bool


# Premium colours of editions seen in photos: the classic one (red, pink, dark blue, light blue),
# a modern one (orange, red, green, blue) and a muted dark one, then random palettes.
_PALETTES = (
    {Premium.TRIPLE_WORD: (60, 55, 200), Premium.DOUBLE_WORD: (175, 170, 240),
     Premium.TRIPLE_LETTER: (200, 125, 40), Premium.DOUBLE_LETTER: (235, 205, 160)},
    {Premium.TRIPLE_WORD: (40, 130, 240), Premium.DOUBLE_WORD: (50, 40, 200),
     Premium.TRIPLE_LETTER: (70, 185, 120), Premium.DOUBLE_LETTER: (195, 125, 30)},
    {Premium.TRIPLE_WORD: (55, 55, 150), Premium.DOUBLE_WORD: (150, 150, 210),
     Premium.TRIPLE_LETTER: (95, 80, 60), Premium.DOUBLE_LETTER: (170, 150, 130)},
)
_WOODS = ((120, 170, 215), (100, 150, 200), (140, 185, 225), (90, 130, 180), (155, 195, 228))
_PLAINS = ((205, 228, 238), (225, 232, 236), (185, 215, 230), (200, 200, 200), (60, 60, 60))


def jitter_colour(rng: np.random.Generator, colour: Sequence[float], spread: float = 12.0) -> tuple[int, int, int]:
    """``colour`` (BGR) moved by a normal spread on each channel, as one copy of a board or tile
    differs from the next."""
    b, g, r = (int(v) for v in np.clip(np.array(colour) + rng.normal(0, spread, 3), 0, 255))
    return b, g, r


def random_style(rng: np.random.Generator) -> Style:
    """A random board edition and tile set; its fonts named from the fixed catalogue :data:`FONTS`."""
    fonts = [f.name for f in FONTS]
    if rng.random() < 0.75:
        pal = {k: jitter_colour(rng, v, 15) for k, v in _PALETTES[rng.integers(len(_PALETTES))].items()}
    else:
        hues = rng.permutation(180)[:4]
        pal = {}
        for p, h in zip((Premium.TRIPLE_WORD, Premium.DOUBLE_WORD, Premium.TRIPLE_LETTER, Premium.DOUBLE_LETTER), hues):
            hsv = np.uint8([[[h, rng.integers(60, 230), rng.integers(120, 240)]]])
            pal[p] = tuple(int(v) for v in cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0])
    square = jitter_colour(rng, ((190, 215, 225), (235, 238, 240), (200, 225, 235), (175, 200, 210))[rng.integers(4)], 10)
    line = jitter_colour(rng, ((245, 245, 245), (140, 140, 140), (30, 30, 30), (200, 210, 215))[rng.integers(4)], 10)
    wood = rng.random() < 0.7
    tile = jitter_colour(rng, _WOODS[rng.integers(len(_WOODS))] if wood else _PLAINS[rng.integers(len(_PLAINS))], 10)
    dark_tile = sum(tile) < 300
    ink = (235, 235, 235) if dark_tile else jitter_colour(rng, (25, 25, 30), 10)
    return Style(
        square=square, line=line, line_width=float(rng.uniform(0.03, 0.14)), premium=pal,
        label_color=(245, 245, 245) if rng.random() < 0.4 else (40, 40, 40),
        label_kind=("words", "short", "none")[rng.choice(3, p=[0.7, 0.2, 0.1])],
        frame=jitter_colour(rng, ((40, 40, 170), (60, 100, 140), (30, 30, 30), (200, 200, 200))[rng.integers(4)], 20),
        tile=tile, tile_kind="wood" if wood else "plain", ink=ink,
        letter_font=fonts[rng.integers(len(fonts))], value_font=fonts[rng.integers(len(fonts))],
        label_font=fonts[rng.integers(len(fonts))], letter_height=float(rng.uniform(0.42, 0.6)),
        tile_size=float(rng.uniform(0.84, 0.97)), show_values=bool(rng.random() < 0.93),
    )


_LABELS = {Premium.TRIPLE_WORD: ("TRIPLE", "WORD", "TW"), Premium.DOUBLE_WORD: ("DOUBLE", "WORD", "DW"),
           Premium.TRIPLE_LETTER: ("TRIPLE", "LETTER", "TL"), Premium.DOUBLE_LETTER: ("DOUBLE", "LETTER", "DL")}


def _draw_square_label(canvas: np.ndarray, style: Style, faces: _Faces, prem: Premium, x: int, y: int, px: int) -> None:
    col = np.array(style.label_color, np.float32)
    if style.label_kind == "words":
        lines = [_glyph(faces.label, w, max(4, px // 9)) for w in (*_LABELS[prem][:2], "SCORE")]
        lines = [cv2.resize(m, (min(m.shape[1], int(px * 0.8)), m.shape[0])) for m in lines]
        total = sum(m.shape[0] for m in lines) + 2 * (px // 12)
        yy = y + (px - total) // 2
        for m in lines:
            _paste(canvas, m, col, x + (px - m.shape[1]) // 2, yy)
            yy += m.shape[0] + px // 12
    elif style.label_kind == "short":
        m = _glyph(faces.label, _LABELS[prem][2], px // 4)
        _paste(canvas, m, col, x + (px - m.shape[1]) // 2, y + (px - m.shape[0]) // 2)


def _star(canvas: np.ndarray, x: int, y: int, px: int, color: tuple[int, int, int]) -> None:
    c = np.array([x + px / 2, y + px / 2])
    pts = [c + (px * (0.38 if i % 2 == 0 else 0.16)) * np.array([math.sin(i * math.pi / 5), -math.cos(i * math.pi / 5)])
           for i in range(10)]
    cv2.fillPoly(canvas, [np.int32(pts)], color, cv2.LINE_AA)


@functools.lru_cache(maxsize=64)
def _grid(side: int) -> tuple[np.ndarray, np.ndarray]:
    yy, xx = np.mgrid[0:side, 0:side].astype(np.float32)
    return yy, xx


def _tile_sprite(rng: np.random.Generator, style: Style, faces: _Faces, tile: str, side: int,
                 tiles: TileSet = ENGLISH) -> np.ndarray:
    """One tile's top face, BGR float32, ``side`` pixels square: ``tile`` a face of ``tiles``
    (``A``, ``Ä``, ``CH``) with its value, or a blank (lower case or ``?``)."""
    base = np.array(style.tile, np.float32) + rng.normal(0, 6, 3)
    img = np.empty((side, side, 3), np.float32)
    img[:] = base
    if style.tile_kind == "wood":  # grain: wavy stripes along one axis
        yy, xx = _grid(side)
        ang = rng.uniform(0, math.pi)
        u = xx * math.cos(ang) + yy * math.sin(ang)
        v = -xx * math.sin(ang) + yy * math.cos(ang)
        f = rng.uniform(0.15, 0.6)
        grain = np.sin(u * f + 3 * np.sin(v * rng.uniform(0.02, 0.08) + rng.uniform(0, 6)))
        img += (grain * rng.uniform(3, 14))[..., None]
    # bevel: lit top-left edges, darker bottom-right edges
    b = max(1, side // 14)
    img[:b] *= 1.08
    img[:, :b] *= 1.05
    img[-b:] *= 0.85
    img[:, -b:] *= 0.88
    if tile.isupper():
        ink = np.array(style.ink, np.float32)
        lh = int(side * style.letter_height * rng.uniform(0.95, 1.05))
        if len(tile) > 1:  # two letters on one tile are printed smaller
            lh = int(lh * 0.8)
        letter_font = faces.letter
        if letter_font == BUILTIN and not tile.isascii():  # Pillow's own font has no accents
            letter_font = _accented_font()
        m = _glyph(letter_font, tile, max(5, lh))
        if m.shape[1] > side * 0.8:
            m = cv2.resize(m, (int(side * 0.8), m.shape[0]))
        lx = (side - m.shape[1]) // 2 - int(side * rng.uniform(0.0, 0.07))
        ly = (side - m.shape[0]) // 2 - int(side * rng.uniform(0.0, 0.06))
        _paste_f(img, m, ink, lx, ly)
        if style.show_values:
            val = str(tiles.value(tile)) if tile in tiles.letters else str(_any_value(tile))
            vm = _glyph(faces.value, val, max(3, int(side * rng.uniform(0.17, 0.24))))
            vx = int(side * rng.uniform(0.74, 0.84)) - vm.shape[1] // 2
            vy = int(side * rng.uniform(0.84, 0.9)) - vm.shape[0]
            _paste_f(img, vm, ink, min(vx, side - vm.shape[1] - b), vy)
    return img


def _accented_font() -> str:
    """The catalogue font that letters accented capitals when a style's own font cannot."""
    return font_path("DejaVu Sans Bold")


def _any_value(tile: str) -> int:
    """A face's value in the first set that has it (a board drawn without naming its set)."""
    return next((ts.value(tile) for ts in TILE_SETS.values() if tile in ts.letters), 1)


def _paste_f(dst: np.ndarray, mask: np.ndarray, color: np.ndarray, x: int, y: int) -> None:
    h, w = mask.shape
    x0, y0, x1, y1 = max(x, 0), max(y, 0), min(x + w, dst.shape[1]), min(y + h, dst.shape[0])
    if x0 < x1 and y0 < y1:
        m = mask[y0 - y:y1 - y, x0 - x:x1 - x, None]
        dst[y0:y1, x0:x1] = dst[y0:y1, x0:x1] * (1 - m) + color * m


def draw_flat(rows: Sequence[str], rng: np.random.Generator, style: Style | None = None,
              px: int = PX, border: float = 1.2, fonts: str | Path | None = None,
              tiles: TileSet | None = None, steady: int | None = None) -> tuple[np.ndarray, float]:
    """The board seen straight from above: a BGR image and the grid's offset from its top-left.

    The playing grid spans ``[off, off + 15 * px]`` in both directions. ``fonts``: the font
    directory (see :func:`font_dir`); :class:`FontMissing` when a font of the style is not there.
    ``tiles``: the set whose values the tiles show (by default each face's first set's).
    ``steady``: when given, the light the tiles stand in (their sides and shadows) comes from it
    alone, and each tile's face and how it lies from it, its square and its face: a tile put
    down stays as it was in every later state of the board, as on a real table, where only
    the new tiles change between presses. Without it all of that is drawn from ``rng``.
    """
    cells = _check_rows(rows)
    tile_set = tiles
    style = style or random_style(rng)
    faces = _Faces(font_path(style.letter_font, fonts), font_path(style.value_font, fonts),
                   font_path(style.label_font, fonts))
    off = int(round(border * px))
    size = 2 * off + N * px
    canvas = np.empty((size, size, 3), np.uint8)
    canvas[:] = style.frame
    g0, g1 = off, off + N * px
    pad = int(px * 0.25)
    canvas[g0 - pad:g1 + pad, g0 - pad:g1 + pad] = style.line
    lw = max(1, int(round(style.line_width * px)))
    for r in range(N):
        for c in range(N):
            x, y = off + c * px, off + r * px
            prem = STANDARD.premium(Square(r, c))
            color = style.premium.get(prem, style.square)
            canvas[y + lw // 2:y + px - (lw - lw // 2), x + lw // 2:x + px - (lw - lw // 2)] = color
            if prem is not Premium.NONE:
                if (r, c) == (7, 7):
                    _star(canvas, x, y, px, (30, 30, 30) if sum(color) > 380 else (235, 235, 235))
                else:
                    _draw_square_label(canvas, style, faces, prem, x, y, px)

    # Tiles stand a few millimetres high: seen at an angle their top face shifts from their base
    # and one or two sides show, darker. Every tile of a board shows the same way.
    side = int(px * style.tile_size)

    def lay(light: np.random.Generator, lie: Callable[[int, int, str], np.random.Generator]
            ) -> tuple[list[tuple[int, int, np.ndarray, float]], float, float, np.ndarray, float]:
        """The tiles as they lie (centre, top face, angle), the top face's shift from the base
        and the shadows they cast: the light from ``light``, each tile from ``lie(r, c, face)``."""
        lift = light.uniform(0.04, 0.16) * px  # never zero: a real tile always shows an edge
        lift_dir = light.uniform(0, 2 * math.pi) if light.random() < 0.5 else light.normal(-math.pi / 2, 0.5)
        shadow = np.zeros(canvas.shape[:2], np.float32)
        tiles: list[tuple[int, int, np.ndarray, float]] = []
        sdx, sdy = light.uniform(-0.12, 0.12) * px, light.uniform(-0.12, 0.12) * px
        for r, row in enumerate(cells):
            for c, ch in enumerate(row):
                if ch == ".":
                    continue
                g = lie(r, c, ch)
                s = int(side * g.uniform(0.97, 1.03))
                cx = off + (c + 0.5) * px + g.normal(0, 0.05) * px
                cy = off + (r + 0.5) * px + g.normal(0, 0.05) * px
                ang = float(np.clip(g.normal(0, 4), -15, 15))
                sprite = _tile_sprite(g, style, faces, ch, s, tile_set) if tile_set else _tile_sprite(g, style, faces, ch, s)
                tiles.append((int(cx), int(cy), sprite, ang))
                rect = ((cx + sdx, cy + sdy), (s * 1.02, s * 1.02), ang)
                cv2.fillPoly(shadow, [np.int32(cv2.boxPoints(rect))], 1.0)
        if tiles:
            k = max(3, int(px * 0.15) | 1)
            shadow = cv2.GaussianBlur(shadow, (k, k), 0) * light.uniform(0.2, 0.45)
        return tiles, lift * math.cos(lift_dir), lift * math.sin(lift_dir), shadow, light.uniform(0.55, 0.8)

    tiles, ldx, ldy, shadow, side_color_scale = lay(rng, lambda r, c, ch: rng)
    if steady is not None:
        # Drawn again, steady; ``rng`` was taken through the same draws all the same, so that a
        # seed's hand, shake and noise are the same whether the tiles stay put or not.
        tiles, ldx, ldy, shadow, side_color_scale = lay(
            np.random.default_rng(steady), lambda r, c, ch: np.random.default_rng([steady, r, c, *map(ord, ch)]))
    if tiles:
        canvas = (canvas.astype(np.float32) * (1 - shadow[..., None])).astype(np.uint8)
    for cx, cy, sprite, ang in tiles:
        s = sprite.shape[0]
        body = ((cx, cy), (s, s), ang)
        top = ((cx + ldx, cy + ldy), (s, s), ang)
        sidec = tuple(float(v) * side_color_scale for v in sprite[s // 2, s // 2])
        hull = cv2.convexHull(np.int32(np.vstack([cv2.boxPoints(body), cv2.boxPoints(top)])))
        cv2.fillPoly(canvas, [hull], sidec, cv2.LINE_AA)
        # the top face, rotated
        half = s * 0.75
        m = cv2.getRotationMatrix2D((s / 2, s / 2), -ang, 1.0)
        m[:, 2] += (half - s / 2, half - s / 2)
        big = int(2 * half) + 1
        rot = cv2.warpAffine(sprite, m, (big, big), flags=cv2.INTER_LINEAR)
        alpha = cv2.warpAffine(np.ones((s, s), np.float32), m, (big, big), flags=cv2.INTER_LINEAR)
        x0 = int(round(cx + ldx - half))
        y0 = int(round(cy + ldy - half))
        _paste(canvas, alpha, rot, x0, y0)
    return canvas, float(off)


@dataclass(frozen=True)
class Rendered:
    """A rendered frame and its truth."""

    image: np.ndarray
    """BGR uint8 camera frame."""
    corners: np.ndarray
    """4x2 float32: outer corners of the 15x15 grid, TL, TR, BR, BL as the board is seen upright."""
    occluded: np.ndarray
    """15x15 bool: squares more than a quarter hidden by the hand or arm."""
    rows: tuple[str, ...]
    fonts: tuple[str, ...] = ()
    """The catalogue fonts the board is lettered in."""


_FACES = frozenset(all_glyphs())


def _check_rows(rows: Sequence[str]) -> list[list[str]]:
    """The squares of 15 board rows (``[CH]`` one square); ValueError naming what is wrong."""
    try:
        cells = [split_row(r) for r in rows]
    except ValueError as e:
        raise ValueError(f"a board state is 15 rows of 15 squares: {e}") from None
    if len(cells) != N or any(len(r) != N for r in cells):
        raise ValueError("a board state is 15 rows of 15 squares ('.' empty, a tile's face, [CH] for a "
                         "two-letter tile)")
    bad = {ch for r in cells for ch in r if not (ch in (".", "?") or ch.upper() in _FACES)}
    if bad:
        raise ValueError(f"unknown board characters {sorted(bad)}: use '.', a tile set's faces, lower "
                         "case for a blank")
    return cells


def random_rows(rng: np.random.Generator, density: float | None = None, blanks: float = 0.05,
                tiles: TileSet = ENGLISH) -> list[str]:
    """A random board state of ``tiles``' faces (not a legal game: every face equally often, for
    training); ``blanks`` of the tiles are blanks (lower case). Two-letter tiles in brackets."""
    d = rng.uniform(0.05, 0.7) if density is None else density
    faces = list(tiles.letters) if tiles is not ENGLISH else list("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
    out = []
    for _ in range(N):
        row = ""
        for _ in range(N):
            if rng.random() >= d:
                row += "."
                continue
            blank = rng.random() < blanks  # drawn before the face, as boards were always drawn
            face = faces[int(rng.integers(len(faces)))] if tiles is not ENGLISH else str(rng.choice(faces))
            face = face.lower() if blank else face
            row += f"[{face}]" if len(face) > 1 else face
        out.append(row)
    return out


def _camera_homography(rng: np.random.Generator, src: np.ndarray, size: tuple[int, int], fill: float,
                       tilt: float, quarter_turns: int) -> np.ndarray:
    """A homography taking the flat board's corners ``src`` into a frame of ``size`` (w, h)."""
    w, h = size
    # board plane points centred at the origin, unit half-size
    ax = math.radians(rng.uniform(-tilt, tilt))
    ay = math.radians(rng.uniform(-tilt, tilt))
    az = math.radians(rng.normal(0, 4)) + quarter_turns * math.pi / 2
    rx = np.array([[1, 0, 0], [0, math.cos(ax), -math.sin(ax)], [0, math.sin(ax), math.cos(ax)]])
    ry = np.array([[math.cos(ay), 0, math.sin(ay)], [0, 1, 0], [-math.sin(ay), 0, math.cos(ay)]])
    rz = np.array([[math.cos(az), -math.sin(az), 0], [math.sin(az), math.cos(az), 0], [0, 0, 1]])
    rot = rz @ ry @ rx
    plane = np.array([[-1, -1, 0], [1, -1, 0], [1, 1, 0], [-1, 1, 0]], float)
    pts = plane @ rot.T
    dist = rng.uniform(2.5, 5.0)
    proj = pts[:, :2] / (dist + pts[:, 2:3]) * dist
    # fit into the frame: the board's extent takes ``fill`` of the frame's smaller side
    lo, hi = proj.min(0), proj.max(0)
    scale = fill * min(w, h) / max(hi - lo)
    proj = (proj - (lo + hi) / 2) * scale
    room = np.array([w, h]) - (hi - lo) * scale
    centre = np.array([w / 2, h / 2]) + rng.uniform(-0.5, 0.5, 2) * np.maximum(room, 0) * 0.8
    dst = (proj + centre).astype(np.float32)
    return cv2.getPerspectiveTransform(src.astype(np.float32), dst)


def _table_texture(rng: np.random.Generator, w: int, h: int) -> np.ndarray:
    base = rng.integers(30, 200, 3).astype(np.float32)
    small = rng.normal(0, 14, (max(2, h // 40), max(2, w // 40), 1)).astype(np.float32)
    small = small + rng.normal(0, 3, small.shape[:2] + (3,)).astype(np.float32)
    tex = cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC) + base
    return tex.clip(0, 255).astype(np.uint8)


def _hand_mask(rng: np.random.Generator, w: int, h: int, board_quad: np.ndarray) -> np.ndarray:
    """An arm from a frame edge to a hand over the board, as a soft mask."""
    mask = np.zeros((h, w), np.uint8)
    target = board_quad.mean(0) + (board_quad[rng.integers(4)] - board_quad.mean(0)) * rng.uniform(0.3, 0.9)
    edge = rng.integers(4)
    t = rng.uniform(0.2, 0.8)
    start = [(t * w, -20), (w + 20, t * h), (t * w, h + 20), (-20, t * h)][edge]
    arm_w = int(min(w, h) * rng.uniform(0.08, 0.14))
    cv2.line(mask, tuple(int(v) for v in start), tuple(int(v) for v in target), 255, arm_w, cv2.LINE_AA)
    d = np.array(target) - np.array(start)
    d /= np.linalg.norm(d) + 1e-6
    palm = (int(target[0] + d[0] * arm_w * 0.5), int(target[1] + d[1] * arm_w * 0.5))
    cv2.ellipse(mask, palm, (int(arm_w * 0.9), int(arm_w * 0.7)), math.degrees(math.atan2(d[1], d[0])), 0, 360, 255, -1,
                cv2.LINE_AA)
    for k in range(4):  # fingers
        a = math.atan2(d[1], d[0]) + (k - 1.5) * 0.3
        p2 = (int(palm[0] + math.cos(a) * arm_w * 1.6), int(palm[1] + math.sin(a) * arm_w * 1.6))
        cv2.line(mask, palm, p2, 255, max(2, arm_w // 4), cv2.LINE_AA)
    return mask


def render_board(rows: Sequence[str], seed: int = 0, size: tuple[int, int] = (1280, 960), *,
                 hand: bool | None = None, tilt: float = 20.0, fill: tuple[float, float] = (0.7, 0.95),
                 quarter_turns: int = 0, effects: bool = True, style: Style | None = None,
                 pose_seed: int | None = None, fonts: str | Path | None = None,
                 tiles: TileSet | None = None, steady: bool | None = None,
                 local_light: np.random.Generator | None = None) -> Rendered:
    """Render ``rows`` as a camera frame of ``size`` (width, height); deterministic for a seed.
    ``tiles``: the tile set whose values the tiles show (see :func:`draw_flat`).
    ``local_light``: when given, light that falls on a few squares (:func:`light_on_squares`),
    drawn from it alone, so that the frame is otherwise the seed's own.

    ``hand``: None for a hand in about a third of frames; ``tilt``: maximum camera tilt in degrees;
    ``quarter_turns``: the board turned 90 degrees that many times in the frame (the corners still
    name the board's own top-left first); ``effects``: lighting, glare, blur, noise and JPEG;
    ``pose_seed``: when given, the camera's pose, the table under the board and the room's light
    come from it alone, and, unless ``steady`` is False, each tile stays as it was put down and
    the light on the tiles and the camera's focus, noise level and compression stay too
    (:func:`draw_flat`'s ``steady``), so frames of different board states look as a fixed camera
    with frozen exposure sees them (a hand, its shadow, a shake and the sensor's noise still vary
    with ``seed``; with ``steady`` False, the tiles are laid afresh from ``seed``, their shadows
    falling another way, as under a lamp moved);
    ``fonts``: the font directory (default ``$BOARD_PI_FONT_DIR`` or ``/usr/share/fonts``).

    The fonts are the catalogue's (:data:`FONTS`), chosen by name: a seed gives the same picture
    on every machine that has the catalogue's files, whatever else is installed, and
    :class:`FontMissing` (naming the Debian package) where one it needs is absent.
    """
    rng = np.random.default_rng(seed)
    rows = tuple(rows)
    _check_rows(rows)
    style = style or random_style(rng)  # drawn from the rng first, as draw_flat would
    still = pose_seed if steady is not False else None  # the seed of what stays between frames
    flat, off = draw_flat(rows, rng, style, fonts=fonts, tiles=tiles, steady=still)
    w, h = size
    grid = np.float32([[off, off], [off + N * PX, off], [off + N * PX, off + N * PX], [off, off + N * PX]])
    full = np.float32([[0, 0], [flat.shape[1], 0], [flat.shape[1], flat.shape[0]], [0, flat.shape[0]]])
    # fill is of the grid; the frame around it (border) is larger
    scene = rng if pose_seed is None else np.random.default_rng(pose_seed)
    grid_fill = scene.uniform(*fill)
    H = _camera_homography(scene, full, size, grid_fill * flat.shape[0] / (N * PX), tilt, quarter_turns)
    corners = cv2.perspectiveTransform(grid[None], H)[0]
    bg = _table_texture(scene, w, h)
    img = cv2.warpPerspective(flat, H, (w, h), dst=bg, flags=cv2.INTER_LINEAR,
                              borderMode=cv2.BORDER_TRANSPARENT)
    occluded = np.zeros((N, N), bool)
    f = img.astype(np.float32)
    if hand if hand is not None else rng.random() < 0.33:
        mask = _hand_mask(rng, w, h, corners)
        skin = np.array([rng.uniform(60, 170), rng.uniform(90, 190), rng.uniform(130, 230)], np.float32)
        shade = cv2.GaussianBlur(rng.normal(0, 1, (h // 16 + 1, w // 16 + 1)).astype(np.float32), (0, 0), 2)
        shade = cv2.resize(shade, (w, h))[..., None] * 25
        a = cv2.GaussianBlur(mask, (7, 7), 0).astype(np.float32)[..., None] / 255
        # the hand's shadow falls beside it on the board
        sh = np.roll(np.roll(a, int(rng.uniform(10, 40)), 0), int(rng.uniform(-30, 30)), 1)
        f = f * (1 - 0.35 * sh)
        f = f * (1 - a) + (skin + shade) * a
        back = cv2.warpPerspective(mask, np.linalg.inv(H) @ np.eye(3), (flat.shape[1], flat.shape[0]))
        cells = back[int(off):int(off) + N * PX, int(off):int(off) + N * PX].reshape(N, PX, N, PX)
        occluded = (cells > 127).mean(axis=(1, 3)) > 0.25
    if effects:
        f = _light(rng if pose_seed is None else np.random.default_rng(pose_seed + 1), f, w, h)
    if local_light is not None:
        f = light_on_squares(local_light, f, corners)
    img = f.clip(0, 255).astype(np.uint8)
    if effects:
        img = _camera(rng, img, None if still is None else np.random.default_rng(still + 2))
    return Rendered(img, corners.astype(np.float32), occluded, rows, style_fonts(style))


def _light(rng: np.random.Generator, f: np.ndarray, w: int, h: int) -> np.ndarray:
    """Uneven light, colour cast, soft shadows and glare, worked on a small grid for speed."""
    gw, gh = 40, 30
    yy, xx = np.mgrid[0:gh, 0:gw].astype(np.float32)
    xx /= gw
    yy /= gh
    gain = rng.uniform(0.7, 1.2) + rng.uniform(-0.25, 0.25) * (xx - 0.5) + rng.uniform(-0.25, 0.25) * (yy - 0.5)
    for _ in range(rng.integers(0, 3)):  # soft shadows of people and things over the table
        cx, cy, r = rng.uniform(0, 1), rng.uniform(0, 1), rng.uniform(0.1, 0.4)
        gain -= rng.uniform(0.1, 0.4) * np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * r * r))
    glare = np.zeros_like(xx)
    for _ in range(rng.integers(0, 3)):  # reflections of lamps
        cx, cy, r = rng.uniform(0, 1), rng.uniform(0, 1), rng.uniform(0.03, 0.15)
        glare += rng.uniform(40, 160) * np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * r * r))
    gain = cv2.resize(np.clip(gain, 0.25, 1.5), (w, h), interpolation=cv2.INTER_LINEAR)
    glare = cv2.resize(glare, (w, h), interpolation=cv2.INTER_LINEAR)
    cast = rng.normal(1.0, 0.06, 3).astype(np.float32)
    return f * gain[..., None] * cast + glare[..., None]


def light_on_squares(rng: np.random.Generator, f: np.ndarray, corners: np.ndarray) -> np.ndarray:
    """One or two of the lights a table's lamps and players throw on a few squares rather than on
    the board, which :func:`_light`'s soft round shadows and glare do not: a lamp's streak along a
    glossy board (long and thin), a lamp's strong reflection, a body's shadow with its edge across
    the board, a strong colour cast (warm lamps, a window's blue). ``f``: the frame in floats;
    ``corners``: the grid's, so that the light falls on the board."""
    h, w = f.shape[:2]
    side = float(np.linalg.norm(corners[1] - corners[0]) + np.linalg.norm(corners[3] - corners[0])) / 2
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)

    def on_board() -> tuple[float, float]:
        u, v = rng.uniform(0.1, 0.9, 2)
        top = corners[0] + u * (corners[1] - corners[0])
        bottom = corners[3] + u * (corners[2] - corners[3])
        x, y = top + v * (bottom - top)
        return float(x), float(y)

    for kind in rng.choice(4, size=int(rng.integers(1, 3)), replace=False):
        cx, cy = on_board()
        a = rng.uniform(0, np.pi)  # drawn for a cast too, so that every kind draws the same
        if kind == 3:  # warm lamplight or a window's blue: the whole frame, no place needed
            t = rng.uniform(-1, 1)
            f = f * np.float32([1 - 0.35 * t, 1 - 0.1 * abs(t), 1 + 0.15 * t])
            continue
        along = (xx - cx) * np.cos(a) + (yy - cy) * np.sin(a)
        across = (yy - cy) * np.cos(a) - (xx - cx) * np.sin(a)
        if kind == 0:  # a streak: a lamp along a glossy board, a square or two wide
            long, thin = side * rng.uniform(0.15, 0.5), side * rng.uniform(0.01, 0.04)
            f = f + rng.uniform(100, 220) * np.exp(-(along / long) ** 2 - (across / thin) ** 2)[..., None]
        elif kind == 1:  # a strong reflection, a few squares across
            r = side * rng.uniform(0.04, 0.15)
            f = f + rng.uniform(120, 230) * np.exp(-(along / r) ** 2 - (across / (r * rng.uniform(0.6, 1.0))) ** 2)[..., None]
        else:  # a body's shadow, its edge sharp or soft
            edge = 1 / (1 + np.exp(-np.clip(across / (side * rng.uniform(0.005, 0.04)), -30, 30)))
            f = f * (1 - rng.uniform(0.15, 0.55) * edge)[..., None]
    return f



COVERS = ("sheet", "phone", "hand")
"""What :func:`lay_over` lays on a board: the back of a white sheet of paper, a phone (dark,
with a sheen), a hand or sleeve (skin coloured, unevenly shaded)."""


def lay_over(rng: np.random.Generator, image: np.ndarray, corners: np.ndarray, kind: str, *,
             centre: tuple[float, float] | None = None, size: tuple[float, float] | None = None,
             angle: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``image`` (a photo or frame of a board with grid ``corners``) with something of ``kind``
    (:data:`COVERS`) lying over part of the board: a rectangle 2-6.5 squares a side at any angle
    and place, casting a short shadow, the frame saved as JPEG of quality 85 after. Returns the
    frame and (15, 15) the share of each square it covers. ``centre`` (column, row: 7.5, 7.5 is
    the board's middle), ``size`` (squares) and ``angle`` (radians) place it instead."""
    if kind not in COVERS:
        raise ValueError(f"unknown cover {kind!r}: one of {', '.join(COVERS)}")
    h, w = image.shape[:2]
    long, short = rng.uniform(2, 6.5, 2) if size is None else size
    at, a = rng.uniform(0, N, 2), rng.uniform(0, np.pi)
    at, a = (at if centre is None else np.array(centre, float)), (a if angle is None else angle)
    turn = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    quad = (np.array([[-long, -short], [long, -short], [long, short], [-long, short]]) / 2) @ turn.T + at
    to_image = cv2.getPerspectiveTransform(np.float32([[0, 0], [N, 0], [N, N], [0, N]]), np.float32(corners))
    seen = cv2.perspectiveTransform(quad[None].astype(np.float32), to_image)[0]
    mask = np.zeros((h, w), np.uint8)
    cv2.fillConvexPoly(mask, np.round(seen).astype(np.int32), 255)
    a = cv2.GaussianBlur(mask, (3, 3), 0).astype(np.float32)[..., None] / 255
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    slope = (xx / w * rng.uniform(-1, 1) + yy / h * rng.uniform(-1, 1))[..., None]
    if kind == "sheet":
        top = np.full(3, rng.uniform(200, 250)) + rng.uniform(-10, 10, 3) + slope * 25
    elif kind == "phone":
        top = np.full(3, rng.uniform(10, 40)) + slope * 30
    else:
        shade = cv2.resize(cv2.GaussianBlur(rng.normal(0, 1, (h // 16 + 1, w // 16 + 1)).astype(np.float32), (0, 0), 2),
                           (w, h))[..., None]
        top = np.array([rng.uniform(60, 170), rng.uniform(90, 190), rng.uniform(130, 230)]) + shade * 25 + slope * 20
    top = top + rng.normal(0, 3, (h, w, 3))
    shadow = np.roll(np.roll(a, int(rng.uniform(3, 15)), 0), int(rng.uniform(-10, 10)), 1)
    f = image.astype(np.float32) * (1 - 0.3 * shadow)
    f = f * (1 - a) + top * a
    out = cv2.imdecode(cv2.imencode(".jpg", np.clip(f, 0, 255).astype(np.uint8), [cv2.IMWRITE_JPEG_QUALITY, 85])[1],
                       cv2.IMREAD_COLOR)
    fine = np.zeros((N * 20, N * 20), np.uint8)  # the share of each square, from the rectangle in grid units
    cv2.fillConvexPoly(fine, np.round(quad * 20).astype(np.int32), 255)
    return out, (fine.reshape(N, 20, N, 20) > 0).mean(axis=(1, 3))

def _camera(rng: np.random.Generator, img: np.ndarray, fixed: np.random.Generator | None = None) -> np.ndarray:
    """Lens blur, sensor noise and JPEG compression. ``fixed``: where the camera's own settings
    (its focus, the noise's strength, the JPEG quality) come from, for a fixed camera whose
    frames differ only in the noise itself and a shake now and then; by default ``rng``."""
    s = rng.uniform(0, 1.6)  # (``rng`` is drawn from all the same: the shake and noise stay a seed's)
    s = s if fixed is None else fixed.uniform(0, 1.6)
    if s > 0.3:
        img = cv2.GaussianBlur(img, (0, 0), s)
    if rng.random() < 0.15:  # a little motion blur
        k = int(rng.integers(3, 8))
        kern = np.zeros((k, k), np.float32)
        kern[k // 2] = 1 / k
        rot = cv2.getRotationMatrix2D((k / 2 - 0.5, k / 2 - 0.5), rng.uniform(0, 180), 1)
        kern = cv2.warpAffine(kern, rot, (k, k))
        img = cv2.filter2D(img, -1, kern / max(kern.sum(), 1e-6))
    sigma = rng.uniform(0, 7)
    sigma = sigma if fixed is None else fixed.uniform(0, 7)
    if sigma > 0.5:
        noise = rng.normal(0, sigma, img.shape[:2] + (1,)).astype(np.float32)
        img = (img.astype(np.float32) + noise).clip(0, 255).astype(np.uint8)
    q = int(rng.integers(35, 96))
    q = q if fixed is None else int(fixed.integers(35, 96))
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, q])
    return cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else img


SAMPLE_ROWS = (
    "...............",
    "...............",
    "...............",
    "....J..........",
    "....A..........",
    "....V..........",
    "..GALE.........",
    "...WINDY.......",
    "....N..........",
    "....O..........",
    "...............",
    "...............",
    "...............",
    "...............",
    "...............",
)
"""A board part-way through a game, for the synthetic camera when no state is given."""
