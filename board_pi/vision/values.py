"""A look at the tile's value: the small number printed at its bottom right.

The tile model has one class per face across every tile set, so it learns to read a face the same
whatever its value (a T is worth 1 in German and 2 in Polish): the printed value is no clue to it.
Yet within one set it often tells apart exactly the faces the model confuses: Polish Ł 3 against
E 1 and I 1, Ą 5 against A 1, Ż 5 against Ź 9 and Z 1; German Q 10 against O 2. A small network
of the tile model's shape (``model/values/``) reads only the value printed on a tile, or that
none is (a blank, or a set printed without values). Where the tile model doubts a tile, each of
the set's faces is weighed by how likely the value network finds that face's value in this set
(:func:`weigh_values`); the belief that the square holds a tile at all is left as it was.

>>> VALUE_CLASSES[:4]
('none', '1', '2', '3')
>>> value_label("Ł", TILE_SETS["polish"]), value_label("?", TILE_SETS["polish"])
(3, 0)
"""

from __future__ import annotations

from typing import Sequence

import cv2
import numpy as np

from board_pi.rules.tiles import TILE_SETS, TileSet
from board_pi.vision.geometry import grid_to_image

CORNER = (0.38, 0.72)
"""Where a value patch starts in its square (a share of the square from its top left, both ways)
and how much of the square it spans: the bottom right, where the value is printed, with room
for a tile lying off centre."""
VALUE_PATCH = 52
"""A value patch's side in pixels: the bottom right of a square at about twice the tile model's
resolution (72 pixels a square against 36), where the printed value is a dozen pixels tall."""



def cut() -> dict[str, float]:
    """How value patches are cut, as a value network's recipe records it (the reader refuses a
    network trained on patches cut otherwise)."""
    return {"start": CORNER[0], "span": CORNER[1], "side": VALUE_PATCH}


NO_VALUE = "none"
VALUE_CLASSES: tuple[str, ...] = (NO_VALUE,) + tuple(
    str(v) for v in sorted({v for ts in TILE_SETS.values() for _, v in ts.distribution.values()}))
"""What the value network tells apart: no value printed, or one of the values some set has."""


def value_patches(image: np.ndarray, corners: np.ndarray, squares: Sequence[tuple[int, int]],
                  side: int = VALUE_PATCH) -> np.ndarray:
    """The bottom right (:data:`CORNER`) of each of ``squares`` (row, column) of the board whose
    15x15 grid has ``corners`` (top left, top right, bottom right, bottom left) in ``image``,
    each cut straight from the image at ``side`` pixels: (n, side, side, 3)."""
    grid = grid_to_image(corners)
    start, span = CORNER
    out = np.empty((len(squares), side, side, 3), np.uint8)
    for i, (r, c) in enumerate(squares):
        # patch pixel -> grid position (pixel centres) -> image
        to_grid = np.array([[span / side, 0, c + start + span / side / 2],
                        [0, span / side, r + start + span / side / 2],
                        [0, 0, 1]])
        out[i] = cv2.warpPerspective(image, grid @ to_grid, (side, side), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                     borderMode=cv2.BORDER_REPLICATE)
    return out


def value_label(face: str, tiles: TileSet) -> int:
    """The value class (index into :data:`VALUE_CLASSES`) a tile of ``face`` shows in ``tiles``:
    a blank (``?`` or lower case) shows none."""
    if face == "?" or face != face.upper() or face not in tiles.letters:
        return 0
    return VALUE_CLASSES.index(str(tiles.value(face)))


VALUE_WEIGHT = 0.5
"""How strongly the value network's reading counts (an exponent on its likelihoods). It reads
89% of held-out tiles' values right (a 3 and a 5 a few pixels tall blur into each other): at
full weight its misreadings undo what it corrects (the tuning boards 232 squares wrong -> 242),
at half weight it corrects more than it spoils (-> 215)."""


def likelihoods(q: np.ndarray, classes: Sequence[str], tiles: TileSet) -> np.ndarray:
    """(squares, classes): how likely each square's value reading ``q`` (squares, value classes)
    is under each class of the tile model. A face of the set: its value, or none printed (the
    set may be printed without values); a blank: none; empty squares and faces not of the set: 1
    (not weighed).

    >>> q = np.array([[0.02, 0.05, 0.03, 0.9] + [0.0] * 7])   # a 3 printed
    >>> [round(float(x), 2) for x in likelihoods(q, (".", "E", "Ł", "?"), TILE_SETS["polish"])[0]]
    [1.0, 0.07, 0.92, 0.02]
    """
    out = np.ones((len(q), len(classes)), np.float64)
    for k, c in enumerate(classes):
        if c == "?":
            out[:, k] = q[:, 0]
        elif c in tiles.letters:
            out[:, k] = q[:, 0] + q[:, value_label(c, tiles)]
    return out


def weigh_values(probs: np.ndarray, q: np.ndarray, classes: Sequence[str], tiles: TileSet,
                 weight: float = VALUE_WEIGHT) -> np.ndarray:
    """``probs`` (squares, classes) with each square's belief in a tile shared out anew among
    the tile classes, in proportion to their probability times the likelihood of the value read
    (:func:`likelihoods`) to the power ``weight``; the belief in empty stays as it was.

    >>> p = np.array([[0.1, 0.5, 0.4, 0.0]])                   # ., E, Ł, ?: the model leans to E
    >>> q = np.array([[0.02, 0.05, 0.03, 0.9] + [0.0] * 7])    # but the tile shows a 3
    >>> [round(float(x), 2) for x in weigh_values(p, q, (".", "E", "Ł", "?"), TILE_SETS["polish"])[0]]
    [0.1, 0.23, 0.67, 0.0]
    """
    probs = np.asarray(probs, np.float64)
    tile = np.array([c != "." for c in classes])
    like = likelihoods(q, classes, tiles) ** weight
    mass = probs[:, tile].sum(1, keepdims=True)
    w = probs[:, tile] * like[:, tile]
    total = w.sum(1, keepdims=True)
    out = probs.copy()
    out[:, tile] = np.where(total > 0, mass * w / np.maximum(total, 1e-12), probs[:, tile])
    return out.astype(np.float32)
