"""Board editions seen at club tables, as renderer styles: the modern green board, pale (sage and
lavender) editions and wooden boards, besides the cream boards of :func:`render.random_style`.

A reader trained on cream boards only takes a green or lavender plain square for a blank tile;
training draws these editions too (:mod:`board_pi.vision.train`), and the benchmarks read them
apart (``bench_read``).

>>> import numpy as np
>>> edition_style(np.random.default_rng(1), "green").label_color
(245, 245, 245)
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from board_pi.rules.board import Premium
from board_pi.vision.fonts import FONTS
from board_pi.vision.render import Style, jitter_colour

BGR = tuple[int, int, int]

# Premium colours (BGR) of the editions: red and pink word squares, dark and light blue letter squares.
_CLASSIC = {Premium.TRIPLE_WORD: (45, 45, 205), Premium.DOUBLE_WORD: (165, 150, 240),
            Premium.TRIPLE_LETTER: (185, 100, 35), Premium.DOUBLE_LETTER: (230, 200, 140)}
_PALE = {Premium.TRIPLE_WORD: (130, 120, 225), Premium.DOUBLE_WORD: (200, 190, 240),
         Premium.TRIPLE_LETTER: (210, 150, 120), Premium.DOUBLE_LETTER: (235, 210, 180)}
_MUTED = {Premium.TRIPLE_WORD: (40, 45, 130), Premium.DOUBLE_WORD: (90, 100, 170),
          Premium.TRIPLE_LETTER: (90, 70, 40), Premium.DOUBLE_LETTER: (150, 130, 100)}

_CREAM_PLASTIC = ((205, 228, 238), (215, 235, 242), (195, 220, 232))
_WOOD_TILES = ((120, 170, 215), (100, 150, 200), (140, 185, 225))


def _pick(rng: np.random.Generator, options: tuple) -> BGR:
    return options[int(rng.integers(len(options)))]


def _style(rng: np.random.Generator, square: BGR, line: BGR, premium: dict, frame: BGR, label: BGR,
           tile: BGR, tile_kind: str) -> Style:
    fonts = [f.name for f in FONTS]
    dark_tile = sum(tile) < 300
    return Style(
        square=jitter_colour(rng, square, 10), line=jitter_colour(rng, line, 8), line_width=float(rng.uniform(0.04, 0.12)),
        premium={k: jitter_colour(rng, v, 12) for k, v in premium.items()}, label_color=label,
        label_kind=("words", "short", "none")[rng.choice(3, p=[0.7, 0.2, 0.1])],
        frame=jitter_colour(rng, frame, 15), tile=jitter_colour(rng, tile, 10), tile_kind=tile_kind,
        ink=(235, 235, 235) if dark_tile else jitter_colour(rng, (25, 25, 30), 10),
        letter_font=fonts[rng.integers(len(fonts))], value_font=fonts[rng.integers(len(fonts))],
        label_font=fonts[rng.integers(len(fonts))], letter_height=float(rng.uniform(0.42, 0.6)),
        tile_size=float(rng.uniform(0.84, 0.97)), show_values=True,
    )


def _green(rng: np.random.Generator) -> Style:
    """The modern board: dark green plain squares, pale raised lines, white labels, cream plastic tiles."""
    square = _pick(rng, ((60, 110, 30), (85, 105, 25), (70, 125, 55), (50, 90, 35)))
    plastic = rng.random() < 0.75
    return _style(rng, square, _pick(rng, ((215, 230, 235), (190, 205, 200), (150, 170, 160))), _CLASSIC,
                  _pick(rng, ((40, 40, 150), (40, 70, 30), (30, 30, 30))), (245, 245, 245),
                  _pick(rng, _CREAM_PLASTIC if plastic else _WOOD_TILES), "plain" if plastic else "wood")


def _sage(rng: np.random.Generator) -> Style:
    """Older pale green boards."""
    return _style(rng, _pick(rng, ((170, 205, 190), (160, 200, 175), (185, 215, 200))),
                  _pick(rng, ((240, 240, 240), (60, 70, 60))), _CLASSIC, _pick(rng, ((40, 40, 170), (60, 100, 140))),
                  (40, 40, 40), _pick(rng, _WOOD_TILES + _CREAM_PLASTIC), "wood" if rng.random() < 0.6 else "plain")


def _lavender(rng: np.random.Generator) -> Style:
    """Pale editions: lavender plain squares and pale premiums, as pale as the tiles."""
    return _style(rng, _pick(rng, ((230, 205, 215), (235, 215, 225), (220, 200, 215))),
                  _pick(rng, ((248, 248, 248), (200, 190, 195))), _PALE, _pick(rng, ((170, 120, 140), (220, 220, 225))),
                  _pick(rng, ((245, 245, 245), (90, 70, 80))), _pick(rng, _CREAM_PLASTIC + _WOOD_TILES),
                  "plain" if rng.random() < 0.6 else "wood")


def _wooden(rng: np.random.Generator) -> Style:
    """Wooden boards: squares the colour of the tiles, dark lines, muted premiums."""
    return _style(rng, _pick(rng, ((95, 145, 195), (110, 160, 205), (80, 125, 170))),
                  _pick(rng, ((40, 55, 70), (25, 30, 35))), _MUTED, _pick(rng, ((40, 70, 110), (30, 45, 60))),
                  (220, 225, 230), _pick(rng, _WOOD_TILES + _CREAM_PLASTIC[:1]), "wood")


_TOURNAMENT_TILES = ((90, 35, 20), (45, 25, 110), (100, 25, 70), (30, 30, 30), (40, 80, 25), (110, 100, 25),
                     (60, 60, 60), (45, 45, 170), (35, 110, 220), (150, 90, 215))
"""Tournament tile colours (BGR): navy, maroon, purple, black, dark green, teal, grey, red, orange, pink."""
_TOURNAMENT_INK = ((240, 240, 240), (60, 205, 240), (30, 30, 30))
"""Their letters: white, yellow, or black on the brighter colours."""


def tournament_tiles(rng: np.random.Generator, style: Style) -> Style:
    """``style`` with tournament tiles: smooth plastic in a strong colour (navy, maroon, purple,
    black, ...), lettered in white or yellow (black on the brighter colours), as many clubs and
    tournaments play with. The dark ones are darker than any square and than most grid lines'
    shadows, which a reader trained on cream and wooden tiles reads as empty squares.

    >>> from board_pi.vision.render import random_style
    >>> rng = np.random.default_rng(3)
    >>> tournament_tiles(rng, random_style(rng)).tile_kind
    'plain'
    """
    from dataclasses import replace

    tile = jitter_colour(rng, _pick(rng, _TOURNAMENT_TILES), 12)
    bright = sum(tile) > 330
    ink = _TOURNAMENT_INK[2] if bright and rng.random() < 0.6 else _TOURNAMENT_INK[int(rng.random() < 0.4)]
    return replace(style, tile=tile, tile_kind="plain", ink=jitter_colour(rng, ink, 8))


EDITIONS: dict[str, Callable[[np.random.Generator], Style]] = {
    "green": _green, "sage": _sage, "lavender": _lavender, "wooden": _wooden,
}
"""Edition name -> a random style of it."""


def edition_style(rng: np.random.Generator, name: str | None = None) -> Style:
    """A random style of the edition ``name`` (one of :data:`EDITIONS`; any of them when None)."""
    if name is None:
        name = list(EDITIONS)[int(rng.integers(len(EDITIONS)))]
    return EDITIONS[name](rng)
