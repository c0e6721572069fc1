"""What an empty square looks like, so that an empty square is not read as a blank tile.

A blank tile has no letter, so the tile model tells it from an empty square by colour and by the
tile's edges alone, and it was trained on boards it has seen: on a board whose plain or premium
squares are nearly a tile's colour (pale lavender, cream) it reads empty squares as blanks, and
blank tiles standing on such a board as empty. The board itself says what empty looks like:

- in a single photo, each kind of square (plain, double and triple letter, double and triple
  word: the layout says which square is which) has one printed colour. Most squares of each kind
  are empty, and those with a letter on them the model reads surely, so the median colour of
  the rest of each kind, under a light that changes smoothly across the board (a gentle curve
  fitted to the squares: :data:`LIGHT`), is that kind's empty colour here; where the light
  departs from the curve over a few squares (a lamp's reflection, a pool of light), the empty
  squares around a square show by how much (:func:`local_light`);
- at a table, the calibration frame of the empty board gives every square's own empty colour
  under that light and camera (kept with the calibration: :meth:`EmptyLook.from_frame`).

Each square's colour is then judged against its own empty colour and against the colour of the
faces of the set's tiles (the tiles read surely as letters, their ink left out): the odds of
"blank tile" against "empty" the model gives are multiplied by how much likelier the colour is
under one than under the other. Letters keep their own probabilities; only the picture is
consulted.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, Callable

import cv2
import numpy as np

from board_pi.rules.board import Premium
from board_pi.vision.geometry import PREMIUM_KINDS

N = 15
KINDS = tuple(Premium)
KIND = PREMIUM_KINDS
"""Each square's kind (an index into :data:`KINDS`) on the standard layout."""
PLANE = np.stack([np.ones((N, N)), *(np.mgrid[0:N, 0:N].astype(np.float64) / (N - 1) - 0.5)], -1)
"""Each square's terms of a light that changes smoothly across the board: 1, its row and its
column (from -0.5 to 0.5). A plane fitted to some squares' colours, ``beta`` (3, 3) by least
squares on ``PLANE[where]``, is ``PLANE @ beta`` at every square."""

_ROW, _COL = PLANE[..., 1], PLANE[..., 2]
LIGHT = np.concatenate([PLANE, np.stack([_ROW ** 2, _COL ** 2, _ROW * _COL], -1)], -1)
"""Each square's terms of the light over the empty squares of a photo: :data:`PLANE`'s, and the
squares and product of its row and column. A lamp over the middle of the board and a lens that
sees less light at its corners darken the edges more than a plane can say: in the real tuning
photo IMG_20151016_170119 the plane put the empty square A14, at the board's edge, two spreads
from its colour and nearer the tiles' (read as a blank with 0.22 belief); the curve puts it at
its colour. Chosen (2026-11-29) on the real tuning photos (the most belief in a blank left on an
empty square 0.22 -> 0.09, the least on a blank 0.80 as before, nothing read wrong before or
after) and on 200 tuning boards a set (seeds 25,000,000 on: squares read wrong 182 -> 180, empty
squares read as blanks 21 -> 18, blanks missed 40 as before; the renderer's light is a plane
and soft shadows, so there is little for the curve to find). A plane and one term for the
fall-off from the middle, ``row² + column²``, read the photos as well but the boards worse: 184
squares wrong, 22 empty squares read as blanks, 40 blanks missed. Held out, read once after the
choice: the 2015 game's held-out photos, corners given, 99.85% -> 99.91% of squares and phantom
blanks 2 -> 1 (with the board found, 2 -> 0); the rendered held-out boards (bench_sets, 200 a
set) 196 -> 199 squares wrong, within their spread."""
CURVE_MIN = 3
"""Empty squares needed in each of the board's nine 5-by-5 blocks before the light's curve
(:data:`LIGHT`) is fitted; else a plane (:data:`PLANE`). A curve fitted to squares seen in one
part of the board bends where no square says how: fitted to the first two rows alone, the colours
it gave the far rows were off by 100 units, a plane's by 12."""

SURE_LETTER = 0.9
"""A square read as a letter with this belief is a tile for the estimates (its colour is no
empty square's, and it shows the set's tile colour)."""
MIN_SPREAD = 4.0
"""The least spread (CIELAB units) a colour is taken to have: no two photos of the same square
agree better than this (noise, JPEG, the light's small changes)."""
MAX_LOG_ODDS = 4.0
"""The most the colour may shift the blank-against-empty log-odds towards empty: the colour is
evidence, not proof (a shadow, a glare spot, a tile half off its square, a blank lit unlike the
lettered tiles it is judged against). 4.0 with :data:`MAX_SPREAD_SAY` 2.5, chosen on 200 tuning
boards a set and the real tuning photos (2026-11-27): squares read wrong over the eight sets
247 -> 243, no more empty squares read as blanks (15), and the real tuning photos' one missed
blank (a wooden tile on a grey-beige square, in IMG_20151016_170119) read; 6.0 with it reads 246.
Weighed again once blanks were judged against the tiles' faces (:func:`tile_faces`): 3.0 and 5.0,
and :data:`MAX_SPREAD_SAY` 2.0 and 3.0, read within two squares of these (of about 234), so both
stay."""
MAX_LOG_ODDS_SEEN = 8.0
"""The most where each square's empty colour was seen rather than estimated (a table's calibration
frame of the empty board, under the table's light): a square that looks as it looked empty, and
unlike the set's tiles, is stronger evidence than :data:`MAX_LOG_ODDS` allows, and the tile model
can be sure of a blank where there is none (0.98 for a plain wooden square framed by cream tiles).
Chosen at the table on the first 11 of the 22 shared games (bench_table, 2026-11-27): the wooden
edition 257 -> 258/258 plays read right, cream, lavender and the real game's re-score
(bench_rescore) as at 4.0; over all 22 games the wooden edition 464 -> 471/471 and the others as
they were."""
MAX_TOWARDS_TILE = 1.5
"""The most it may shift them towards a tile: far less, since a square unlike its empty self
(glare, a shadow) is not yet a tile, and a phantom blank costs a wrong play; it tips only squares
the model is torn on. Chosen on the tuning boards and photos: from 1.0 to 1.5 a blank of the real
2015 tuning photos (a plain wooden tile on a grey-beige square) is no longer missed, and nothing
read wrong is added; 2.0 reads as 1.5 and 3.0 worse. (Shifting less towards empty instead,
``MAX_SPREAD_SAY`` 2 or 1, misses fewer blanks but reads empty squares as blanks.)"""
MAX_SPREAD_SAY = 3.0
"""The most the two spreads alone (the empty colour's tighter than the tiles') may shift the
log-odds towards empty, for a colour that lies in both: a blank on a square of nearly its colour
(pale editions, wooden boards) is otherwise read as empty however sure the model is of its edges.
At 3.0 the real tuning photo's wooden blank, nearly three spreads from its square's empty colour
and within one of the tiles', was still read as empty: the wooden tiles' colours vary (a spread of
28 against the squares' 8), and the spreads' say outweighed the distance; 2.0 reads one more empty
square as a blank on the tuning boards, 1.5 four more.

Raised from 2.5 to 3.0 (2026-12-05) with :data:`GLARE` 0.3, beside the tile model's fifth pass
(light on a few squares on a quarter of its boards), which believes in a blank on some empty
squares under a lamp's light at 0.82-0.94, where 2.5 left them an even split. Chosen on the real
tuning photos under ``bench_conditions``' 15 lights and rendered tuning boards (squares read wrong
/ empty squares read as blanks / blanks missed; the pass with 2.5 and 0.25 -> with 3.0 and 0.3):
the photos through their corners 10 / 7 / 0 -> 4 / 0 / 1, found 9 / 6 / 0 -> 5 / 1 / 1; the
rendered boards 22 / 1 / 6 -> 23 / 1 / 7, under six lights 199 / 9 / 36 -> 203 / 9 / 40; the plain
boards of every set 83 -> 83 wrong. 2.75 read the photos 4 / 1 / 0, 3.5 5 / 0 / 2 (with 0.3); the
settings tried are in ``vision/model/README.md``, "Light on a few squares"."""
MIN_TILES = 3
"""Tiles read surely as letters needed before their colour is trusted as the set's tile colour."""
TILE_LIGHT_MIN = 8
"""Tiles read surely as letters needed before the light across them is fitted (:func:`tile_colour`).
Chosen on the tuning boards and photos: with the light fitted, 46 squares read wrong against 50
(rendered boards of the eight sets 42 -> 41, club editions 6 -> 3, real photos 2 -> 2), one more
empty square read as a blank (on a rendered board); 16 tiles read the same as 8. (The colour of
the brighter half of each square's pixels, leaving a letter's ink out, was tried with it and
without: 45 and 49 wrong, but five and three phantom blanks.) As many are needed before their
faces say where the light beside a word is lower (:meth:`EmptyLook.from_photo`)."""
TAIL = 3.0
"""Degrees of freedom of the colours' heavy-tailed spread (a Student t): few, so that one odd
square (a shadow, glare) is not taken for proof."""


def middle_lab(warped: np.ndarray, square_px: int, pad: int) -> np.ndarray:
    """(225, pixels, 3) CIELAB (uint8 0..255 scale) of every other pixel of each square's middle
    half, row by row: where a tile's letter takes a minority of the pixels and neither its edges
    nor the grid lines fall. What :func:`square_colours` and :func:`tile_faces` are taken from."""
    g = warped[pad:pad + N * square_px, pad:pad + N * square_px].reshape(N, square_px, N, square_px, 3)
    a, b = square_px // 4, square_px - square_px // 4
    inner = g[:, a:b:2, :, a:b:2].transpose(0, 2, 1, 3, 4).reshape(N * N, -1, 3)  # every other pixel: enough
    return cv2.cvtColor(np.ascontiguousarray(inner), cv2.COLOR_BGR2LAB)  # only the pixels sampled


def ring_lab(warped: np.ndarray, square_px: int, pad: int) -> np.ndarray:
    """(225, pixels, 3) CIELAB of every other pixel of the frame around each square's middle half
    (:func:`middle_lab`), from a seventh of the square in from its edge: on a tile, its face
    beside its letter, clear of its edges and of the squares around. What :func:`tile_faces`
    tells the ink's side by."""
    g = warped[pad:pad + N * square_px, pad:pad + N * square_px].reshape(N, square_px, N, square_px, 3)
    ring = g.transpose(0, 2, 1, 3, 4)[:, :, _frame(square_px)].reshape(N * N, -1, 3)
    return cv2.cvtColor(np.ascontiguousarray(ring), cv2.COLOR_BGR2LAB)


@functools.lru_cache(maxsize=4)
def _frame(square_px: int) -> np.ndarray:
    """(square_px, square_px) bool: the pixels :func:`ring_lab` takes."""
    a, b, i = square_px // 4, square_px - square_px // 4, square_px // 7
    y, x = np.mgrid[0:square_px, 0:square_px]
    inside = (y >= i) & (y < square_px - i) & (x >= i) & (x < square_px - i)
    middle = (y >= a) & (y < b) & (x >= a) & (x < b)
    return inside & ~middle & (y % 2 == 0) & (x % 2 == 0)


def square_colours(lab: np.ndarray) -> np.ndarray:
    """Each square's colour (CIELAB, float 0..255 scale, (15, 15, 3)): the per-channel median of
    its middle pixels ``lab`` (:func:`middle_lab`)."""
    return np.median(lab.reshape(N, N, -1, 3), axis=2).astype(np.float32)


def tile_faces(lab: np.ndarray, tiles: np.ndarray, ring: np.ndarray) -> np.ndarray:
    """The colour of the faces of the lettered tiles ``tiles`` (15, 15) bool, their letters' ink
    left out ((15, 15, 3) CIELAB; NaN at the other squares): of each tile's middle pixels ``lab``
    (:func:`middle_lab`), the per-channel median of the half lying away from its ink.

    A blank has no ink, so its colour is its face's; a lettered tile's median colour is pulled
    towards its ink, the more so the bolder and more blurred the letter, and a blank judged
    against it looks brighter than any tile of its set. The ink is darker than the face on pale
    tiles, lighter on dark ones; which, the tiles of a set say together, two ways, each by how far
    it puts the face from the ink: the frame around each one's middle (``ring``, :func:`ring_lab`)
    is mostly face, so it lies on the face's side of the middle's range; and the ink is the
    minority of the middle, so its pixels' tail reaches out to the ink's side (their mean beyond
    their median). Neither alone is enough. A bold letter out of focus takes nearly half of the
    middle and its tail no longer points anywhere: on the real tuning photos out of focus by 2 px
    it pointed a little the wrong way, and a wooden blank was judged against the ink, while the
    frame said so by 24-43 levels. A tile leaning off its square brings the board and its own
    bevel into the frame: on a rendered wooden board the frame said a little the wrong way, the
    tail rightly by 6 levels.
    """
    out = np.full((N, N, 3), np.nan, np.float32)
    where = np.flatnonzero(np.asarray(tiles, bool).ravel())
    if len(where) == 0:
        return out
    px = lab[where].astype(np.float32)
    lightness = px[..., 0]
    around = ring[where, :, 0].astype(np.float32)
    # How far each says the face lies above the ink (below it on dark tiles), in lightness.
    low, high = np.percentile(lightness, [10, 90], axis=1)
    by_frame = np.median(around, axis=1) - (low + high) / 2
    by_skew = np.median(lightness, axis=1) - lightness.mean(axis=1)
    dark_ink = float(np.median(by_frame) + np.median(by_skew)) >= 0
    # Stable: of pixels equally light, the same ones kept on every CPU (numpy's own sort differs).
    order = np.argsort(lightness, axis=1, kind="stable")
    half = px.shape[1] // 2
    keep = order[:, half:] if dark_ink else order[:, :px.shape[1] - half]
    out.reshape(-1, 3)[where] = np.median(np.take_along_axis(px, keep[..., None], axis=1), axis=1)
    return out


def _median(x: np.ndarray, axis: int = 0) -> np.ndarray:
    """``np.median(x, axis=axis)``, or ``np.nanmedian`` where ``x`` holds NaN (every line along
    ``axis`` must hold a number), by one sort: the same value to the bit (the middle one, or the
    two middle ones' mean), without numpy's general machinery, which costs more than the sort at
    these sizes (``from_photo`` takes ten of them at every read, ``local_light`` one a ring).

    >>> _median(np.array([[3.0, np.nan, 1.0, 2.0], [4.0, 1.0, np.nan, np.nan]]), axis=1)
    array([2. , 2.5])
    """
    s = np.sort(x, axis=axis)  # NaN last
    n = np.isfinite(x).sum(axis=axis, keepdims=True)
    return ((np.take_along_axis(s, (n - 1) // 2, axis) + np.take_along_axis(s, n // 2, axis)) / 2).squeeze(axis)


LOCAL_REACH = 2
"""How far (squares each way) the squares reach that say how the light over a square departs
from the board's gentle curve (:func:`local_light`), the nearer ring first. Chosen (2026-12-01) on
the 30 real tuning photos with a lamp's reflection laid over them (a soft spot five squares
across, 60 and 90 levels bright; a small one, 200; a streak), and on rendered tuning boards (the
five club editions, 40 each, seeds 37,000,000 on; 80 English boards, seeds 25,000,000 on):
phantom blanks on the photos 37 -> 16 (none before or after without the glare), squares read
wrong on the boards 35 -> 30 and phantom blanks there 6 -> 1. Tried on the way: each square's
own kind only, within 2 (22 on the photos; beside a hand it took the hand's colour for the
light), every kind within 2 at once (27), within 1 (23 on the photos, two phantoms on the boards
at their edges). Only squares not read as letters say it: with every square not read surely as
a letter, two wooden tiles read in doubt beside the tuning photo 170119's A14 (enrolled on
170032) made the light there 30 levels darker, and A14 a blank; with only the squares read as
empty, a square under glare the model reads half as a blank no longer said it (19 on the photos)."""
LOCAL_MIN = 3
"""Squares within reach, not read as letters and lit as light lights them, needed before they say it."""
LIGHT_LIKE = 10.0
"""How far (CIELAB units) a square's colour may lie from its curve's colour washed towards white
or darkened towards black, and still count as lit otherwise rather than covered: a hand, a tile
or a coloured shadow moves a colour elsewhere (a hand over a plain square 34 units)."""
ROOM = 20.0
"""The least way (units of lightness) a square's colour is taken to have to white or black when
the light over its neighbours is carried to it (:func:`local_light`): a white square in a board
of white squares, whose neighbours' tints the curve puts a little off, is otherwise moved by
their tints to a blank tile's."""
WHITE = np.array([255.0, 128.0, 128.0])
BLACK = np.array([0.0, 128.0, 128.0])


def light_shift(fit: np.ndarray, residual: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each square's colour ``fit + residual`` as its colour ``fit`` washed towards white (a
    glare's share of white, ``t`` > 0) or darkened towards black (``t`` < 0), ``t`` in -1..1,
    and how far (CIELAB units) the colour lies from that: (t, off), each (15, 15).

    >>> fit = np.full((15, 15, 3), [200.0, 140.0, 150.0])
    >>> t, off = light_shift(fit, 0.25 * (WHITE - fit))          # a quarter of the way to white
    >>> round(float(t[0, 0]), 3), round(float(off[0, 0]), 3)
    (0.25, 0.0)
    >>> t, off = light_shift(fit, np.broadcast_to([0.0, 30.0, 0.0], fit.shape))  # redder: no light
    >>> round(float(off[0, 0]), 1)
    30.0
    """
    out_t = np.zeros(fit.shape[:2])
    out_off = np.full(fit.shape[:2], np.inf)
    for sign, towards in ((1.0, WHITE), (-1.0, BLACK)):
        d = towards - fit
        t = np.clip(np.sum(residual * d, axis=-1) / np.maximum(np.sum(d * d, axis=-1), 1e-6), 0.0, 1.0)
        off = np.linalg.norm(residual - t[..., None] * d, axis=-1)
        better = off < out_off
        out_t = np.where(better, sign * t, out_t)
        out_off = np.where(better, off, out_off)
    return out_t, out_off


def local_light(fit: np.ndarray, residual: np.ndarray, free: np.ndarray, reach: int = LOCAL_REACH,
                least: int = LOCAL_MIN) -> tuple[np.ndarray, np.ndarray]:
    """(15, 15, 3): how the light over each square departs from the curve fitted across the board
    (``fit``, each square's colour under it), as the squares around it say: within ``reach``, not
    itself, ``free`` of tiles, and lit as light lights them (their colours ``fit + residual``
    washed towards white or darkened towards black, within :data:`LIGHT_LIKE`; :func:`light_shift`).
    The median of how far that moved their lightness, where ``least`` of them or more say it (the
    nearest ring of squares that does), moves the square's own colour as far towards white (or
    black); else it stays at the curve's. With it, (15, 15): the share of the way to white it
    moves each colour (0 where it darkens it or leaves it; :attr:`EmptyLook.glare`).

    A glare spot, a lamp's pool of light or a shadow over part of the board is smaller than the
    curve can follow: the empty squares under it are paler (or darker) than their kind's colour
    there, as pale as a blank tile on a pale board. The squares around them lie under it too, and
    say so, whatever their kind: a glare makes each of them about as much lighter. A hand or a
    tile of another colour among them moves its colour elsewhere and does not count; a blank tile
    on a square is unlike its empty neighbours, and one among them does not move their median.

    >>> fit = np.full((15, 15, 3), [200.0, 140.0, 150.0])
    >>> res = np.zeros((15, 15, 3)); res[5:10, 5:10] = 0.3 * (WHITE - fit[5:10, 5:10])  # a glare spot
    >>> res[1, 1] = 0.3 * (WHITE - fit[1, 1])                                          # and one pale square
    >>> res[12:15, 10:15] = [-60.0, 30.0, -10.0]                                       # a hand
    >>> loc, glare = local_light(fit, res, np.ones((15, 15), bool))
    >>> [round(float(x), 1) for x in loc[7, 7]], float(abs(loc[1, 1]).max()), float(abs(loc[13, 12]).max())
    ([16.5, -3.6, -6.6], 0.0, 0.0)
    >>> round(float(glare[7, 7]), 3), float(glare[1, 1]), float(glare[13, 12])
    (0.3, 0.0, 0.0)
    """
    if reach < 1:
        return np.zeros((N, N, 3)), np.zeros((N, N))
    t, off = light_shift(fit, residual)
    say = free & (off <= LIGHT_LIKE)
    # Each says by how much the light moved its lightness: a share of the way to white is a
    # longer way on a dark square than on a pale one, and a photo's noise, a few units of
    # lightness, is a large share of a pale square's short way, which carried to a dark square's
    # long way would move it further than the noise ever did.
    lightness = fit[..., 0]
    moved = t * np.where(t > 0, WHITE[0] - lightness, lightness)
    padded = np.pad(np.where(say, moved, np.nan), reach, constant_values=np.nan)
    rows, cols = np.mgrid[0:N, 0:N]
    lift = np.zeros((N, N))  # of the lightness, up or down
    told = np.zeros((N, N), bool)
    # The nearest ring that says it enough: a glare spot is brightest in its middle.
    for ring in range(1, reach + 1):
        offsets = np.array([(dr, dc) for dr in range(-ring, ring + 1) for dc in range(-ring, ring + 1)
                            if (dr, dc) != (0, 0)])
        near = padded[rows[..., None] + reach + offsets[:, 0], cols[..., None] + reach + offsets[:, 1]]
        enough = ~told & (np.isfinite(near).sum(axis=2) >= least)
        if enough.any():
            lift[enough] = _median(near[enough], axis=1)
        told |= enough
    paler = lift > 0
    # A square nearly white has little way to go, and a lift of the neighbours' lightness would
    # move it all the way (its colour too, not only its lightness): at least ROOM is its way.
    own = np.clip(np.abs(lift) / np.maximum(np.where(paler, WHITE[0] - lightness, lightness), ROOM), 0.0, 1.0)
    return own[..., None] * np.where(paler[..., None], WHITE - fit, BLACK - fit), np.where(paler, own, 0.0)


@dataclass(frozen=True, eq=False)
class EmptyLook:
    """Every square's colour when empty (``colour``, CIELAB (15, 15, 3); NaN where unknown) and how
    far a square's colour strays from it on an empty square (``spread``, per square, CIELAB units).

    ``glare``: where the colour was estimated from a photo, the share of the way to white by
    which the squares around moved it (:func:`local_light`) from ``unlit``, its colour under the
    board's gentle light alone (where they darken it instead, ``unlit`` is ``colour`` and
    ``glare`` 0); both None for a colour seen (a table's empty board). ``curve_spread``, where
    estimated from a photo: how far the empty squares stray from the board's gentle light
    alone, as a rule wider than ``spread``, for squares whose neighbours cannot say the light
    on them (several together under something lying over the board, :mod:`~board_pi.vision.cover`)."""

    colour: np.ndarray
    spread: np.ndarray
    unlit: np.ndarray | None = None
    glare: np.ndarray | None = None
    curve_spread: np.ndarray | None = None

    @classmethod
    def from_photo(cls, colours: np.ndarray, tiles: np.ndarray, reach: int = LOCAL_REACH,
                   unlettered: np.ndarray | None = None, faces: np.ndarray | None = None) -> "EmptyLook":
        """Each kind's empty colour in this photo, under a light that changes smoothly.

        ``colours`` from :func:`square_colours`; ``tiles`` (15, 15) bool, the squares known to
        hold tiles (read surely as letters), left out. Each kind's colour is the median of its
        squares (most are empty, so a blank tile or a shadow does not move it), the light a gentle
        curve across the board (:data:`LIGHT`) fitted to what is left once each kind's colour is
        taken away, and the kinds' colours taken again from the squares with the light taken away.
        Where the light departs from the curve over a few squares (glare, a lamp's pool of light),
        the squares within ``reach`` say how (:func:`local_light`; 0: the curve alone): those of
        ``unlettered`` ((15, 15) bool, the squares not read as letters, even in doubt), when
        known, else every square not among ``tiles``. (A tile the model doubts can look like its
        square in shadow: a wooden tile on a grey-beige square.) The faces of the tiles
        (``faces``, :func:`tile_faces`, where :data:`TILE_LIGHT_MIN` or more are known) say it
        too, each against the tiles' own colour, where they say the light is lower than the empty
        squares alone do: beside a word, where few empty squares lie around a square, they follow
        a body's shadow whose edge the empty squares a ring further out do not; but a tile's own
        shadow falls on the squares beside it, not on its face. Each kind's ``spread`` is how far
        its empty squares lie from their colours so estimated, the light around each one taken in.
        """
        colour = np.full((N, N, 3), np.nan, np.float32)
        spread = np.full((N, N), np.nan, np.float32)
        free = ~tiles
        kinds = [k for k in range(len(KINDS)) if int((free & (KIND == k)).sum()) >= 2]
        if not kinds or int(free.sum()) < 10:
            return cls(colour, spread)  # a board covered in tiles: nothing to go by
        c = colours.astype(np.float64)
        light = np.zeros((N, N, 3))
        terms = LIGHT if int(free.reshape(3, 5, 3, 5).sum(axis=(1, 3)).min()) >= CURVE_MIN else PLANE
        for _ in range(2):
            flat = c - light
            mid = np.zeros((N, N, 3))
            for k in kinds:
                mid[KIND == k] = _median(flat[free & (KIND == k)])
            known = np.isin(KIND, kinds)
            res = c - mid
            use = free & known
            # The light: least squares on the squares that fit their kind (not blanks, shadows).
            dev = np.linalg.norm(res - light, axis=2)
            use &= dev <= max(float(np.percentile(dev[use], 80)), MIN_SPREAD)
            beta, *_ = np.linalg.lstsq(terms[use], res[use], rcond=None)
            beta[0] = 0  # the kinds' medians carry the level
            light = terms @ beta
        unlit = mid + light
        say = free if unlettered is None else free & unlettered
        moved, share = local_light(unlit, c - unlit, say, reach)
        faced = np.zeros((N, N), bool) if faces is None else tiles & np.isfinite(faces).all(axis=2)
        if int(faced.sum()) >= TILE_LIGHT_MIN:
            # The faces say it too, each against the tiles' own colour under the curve: beside a
            # word, where the empty squares that say it lie a ring out, they follow a shadow's
            # edge that those do not. Only where they say darker than the empty squares do: a
            # tile's own shadow falls on the squares beside it, never on its face, so faces
            # lighter than those squares say nothing of the light on them.
            ref, seen = unlit.copy(), c.copy()
            ref[faced] = _median((faces - light)[faced]) + light[faced]
            seen[faced] = faces[faced]
            with_faces, with_share = local_light(ref, seen - ref, say | faced, reach)
            darker = with_faces[..., 0] < moved[..., 0]
            moved = np.where(darker[..., None], with_faces, moved)
            share = np.where(darker, with_share, share)
        fit = unlit + moved
        # (Measured from the light as estimated at each square: from the gentle curve alone, a
        # shadow's edge across the board, which the curve cannot follow, widened the plain
        # squares' spread from 4 to 13 and the empty colour said little.)
        dev = np.linalg.norm(c - fit, axis=2)
        by_curve = np.linalg.norm(c - unlit, axis=2)
        curve_spread = spread.copy()
        for k in kinds:
            m = free & (KIND == k)
            colour[KIND == k] = fit[KIND == k]
            # Robust: a few tiles among them do not count.
            spread[KIND == k] = max(1.4826 * float(_median(dev[m])), MIN_SPREAD)
            curve_spread[KIND == k] = max(1.4826 * float(_median(by_curve[m])), MIN_SPREAD)
        share = np.where(np.isfinite(colour).all(axis=2), share, 0.0)
        # Where the squares around darken it (a shadow), the wash starts from the colour as moved.
        start = np.where((share > 0)[..., None], unlit, colour)
        return cls(colour, spread, start.astype(np.float32), share, curve_spread)

    @classmethod
    def from_frame(cls, colours: np.ndarray) -> "EmptyLook":
        """Every square's own empty colour, from a frame of the empty board (a table's calibration
        frame): shadows, glare and the light's fall-off are each square's own, and stay so while
        the camera and the lamp do. Its colour is known to within one frame's noise."""
        colour = colours.astype(np.float32).copy()
        return cls(colour, np.where(np.isfinite(colour).all(axis=2), MIN_SPREAD, np.nan).astype(np.float32))

    def seen_in(self, colours: np.ndarray, tiles: np.ndarray, unlettered: np.ndarray | None = None) -> "EmptyLook":
        """This look in a frame whose squares have ``colours``, where ``tiles`` hold tiles: the
        colours as the frame's light and camera show them now (:func:`relit`: the camera started
        again since the calibration and settled on other light, a lamp switched on), judged by
        the empty squares known; squares whose empty colour is not known take the frame's own
        estimate (:meth:`from_photo`, with ``unlettered``)."""
        free = ~tiles & np.isfinite(self.colour).all(axis=2)
        colour = self.colour.copy()
        if free.sum() >= 10:
            colour = relit(self.colour, colours, free)
        unknown = ~np.isfinite(colour).all(axis=2)
        spread = self.spread.copy()
        if unknown.any():
            own = EmptyLook.from_photo(colours, tiles, unlettered=unlettered)
            colour[unknown], spread[unknown] = own.colour[unknown], own.spread[unknown]
        return EmptyLook(colour, spread)

    def turned(self, quarter_turns: int) -> "EmptyLook":
        """This look through the same grid's corners rolled by ``quarter_turns``
        (``np.roll(corners, -quarter_turns, axis=0)``, the board taken a quarter turn further
        each): every square's look goes with the square it was seen on."""
        return self._moved(lambda a: np.rot90(a, quarter_turns, axes=(0, 1)))

    def mirrored(self) -> "EmptyLook":
        """This look through the same grid's corners taken the other way round (A1, O1, O15, A15:
        :func:`~board_pi.vision.geometry.handed_as`), each row's squares the other way along."""
        return self._moved(lambda a: a[:, ::-1])

    def _moved(self, how: Callable[[np.ndarray], np.ndarray]) -> "EmptyLook":
        def moved(a: np.ndarray | None) -> np.ndarray | None:
            return None if a is None else np.ascontiguousarray(how(a))

        return EmptyLook(moved(self.colour), moved(self.spread), moved(self.unlit), moved(self.glare),
                         moved(self.curve_spread))

    def to_json(self) -> dict[str, Any]:
        return {"colour": [[None if not np.isfinite(v[0]) else [round(float(x), 1) for x in v] for v in row]
                           for row in self.colour],
                "spread": [[None if not np.isfinite(v) else round(float(v), 2) for v in row] for row in self.spread]}

    @classmethod
    def from_json(cls, data: Any) -> "EmptyLook":
        """The inverse of :meth:`to_json`; ValueError when ``data`` is not one."""
        try:
            colour = np.array([[[np.nan] * 3 if v is None else v for v in row] for row in data["colour"]], np.float32)
            spread = np.array([[np.nan if v is None else v for v in row] for row in data["spread"]], np.float32)
        except (TypeError, KeyError, ValueError) as e:
            raise ValueError(f"not an empty board's appearance ({e})") from None
        if colour.shape != (N, N, 3) or spread.shape != (N, N):
            raise ValueError("an empty board's appearance has 15 x 15 squares of 3 colour values and a spread")
        ok = np.isfinite(colour).all(axis=2)
        if (np.abs(colour[ok]) > 1000).any() or not (spread[ok] > 0).all() or (spread[ok] > 1000).any():
            raise ValueError("an empty board's appearance holds colours or spreads out of range")
        return cls(colour, spread)


CLIPPED = 0.95
"""A colour channel's linear light (0..1) at or above which a square is taken as burnt out: what
the camera clips says nothing of how much more light fell there."""
DARK = 0.01
"""A channel's linear light below which a square's says nothing of a gain (noise, the camera's
black level)."""
KIND_MIN = 3
"""Empty squares of a kind needed before that kind's own colour change is taken (:func:`relit`);
fewer, and the change over all the empty squares."""


def _linear(lab: np.ndarray) -> np.ndarray:
    """CIELAB on the 8-bit scale (as :func:`middle_lab`) as linear BGR light, 0..1."""
    f = np.ascontiguousarray(lab.reshape(1, -1, 3), np.float32) * np.float32([100 / 255, 1, 1]) - np.float32([0, 128, 128])
    return cv2.cvtColor(f, cv2.COLOR_Lab2LBGR).reshape(lab.shape)


def _lab(linear: np.ndarray) -> np.ndarray:
    """Linear BGR light as CIELAB on the 8-bit scale: :func:`_linear`'s inverse."""
    f = cv2.cvtColor(np.ascontiguousarray(linear.reshape(1, -1, 3), np.float32), cv2.COLOR_LBGR2Lab)
    return ((f + np.float32([0, 128, 128])) * np.float32([255 / 100, 1, 1])).reshape(linear.shape)


def relit(before: np.ndarray, now: np.ndarray, free: np.ndarray) -> np.ndarray:
    """The colours ``before`` ((15, 15, 3) CIELAB, 8-bit scale) in the light of the frame whose
    squares have the colours ``now``, judged by the squares ``free`` (empty in both).

    A camera that settled again (a restart, the evening's lamps after an afternoon's calibration)
    changes its exposure and white balance: each channel of the light scaled by one gain. So
    each channel's gain is the median ratio of the free squares' linear light, what it takes past
    white is clipped at white as the camera clips it, and each kind of square is then moved by
    the median of its own free squares' difference left (the camera's tone curve is not quite
    sRGB's), where :data:`KIND_MIN` of them are free, else by all the free squares' median.
    A square's colour moved by one amount for all (as before 2026-12-03) put a plain green
    square right under 0.6 of the light and the premium squares 25 to 45 units off, enough to
    read a blank on a double letter as empty; this is 1 to 3 off, and 2 to 6 where the light was
    raised until the board burnt out in places.

    >>> before = np.full((15, 15, 3), [200.0, 128.0, 128.0], np.float32)  # a pale grey board
    >>> now = _lab(_linear(before) * 0.5)                                 # in half the light
    >>> np.round(relit(before, now, np.ones((15, 15), bool))[0, 0])
    array([150., 128., 128.], dtype=float32)
    """
    known = np.isfinite(before).all(axis=2)
    lin_before = _linear(np.where(known[..., None], before, 0))
    lin_now = _linear(np.where(np.isfinite(now).all(axis=2)[..., None], now, 0))
    use = free[..., None] & (lin_now < CLIPPED) & (lin_before > DARK) & (lin_before < CLIPPED)
    ratio = lin_now / np.maximum(lin_before, DARK)
    # A channel burnt out on most squares (a pale board in bright light) takes the exposure's
    # change from the channels that are not.
    overall = float(_median(ratio[use])) if use.sum() >= KIND_MIN else 1.0
    gain = np.float32([_median(ratio[..., ch][use[..., ch]]) if use[..., ch].sum() >= 10 else overall
                       for ch in range(3)])
    colour = _lab(np.minimum(lin_before * gain, 1.0))
    rest = now - colour
    left = _median(rest[free])
    for k in range(len(KINDS)):
        mine = free & (KIND == k)
        colour[KIND == k] += _median(rest[mine]) if mine.sum() >= KIND_MIN else left
    return np.where(known[..., None], colour, np.nan).astype(np.float32)


def tile_colour(colours: np.ndarray, tiles: np.ndarray) -> tuple[np.ndarray, float] | None:
    """The set's tile colour at each square ((15, 15, 3): under the light that falls there) and
    its spread, from the squares ``tiles`` read surely as letters, ``colours`` their faces'
    (:func:`tile_faces`); None with fewer than :data:`MIN_TILES` of them.

    The tiles are lit as the squares are, brighter on the lamp's side: with :data:`TILE_LIGHT_MIN`
    tiles or more, a plane across the board is fitted to their colours (least squares on the
    four fifths that fit it best, so a tile in a shadow or glare does not tilt it), and a blank
    is judged against the tiles' colour where it stands, not against their average."""
    n = int(tiles.sum())
    if n < MIN_TILES:
        return None
    c = colours[tiles].astype(np.float64)
    mu = np.median(c, axis=0)
    field = np.broadcast_to(mu, (N, N, 3)).copy()
    if n >= TILE_LIGHT_MIN:
        X = PLANE[tiles]
        use = np.ones(n, bool)
        for _ in range(2):
            beta, *_ = np.linalg.lstsq(X[use], c[use], rcond=None)
            dev = np.linalg.norm(c - X @ beta, axis=1)
            use = dev <= np.percentile(dev, 80)
        field = PLANE @ beta
    spread = 1.4826 * float(np.median(np.linalg.norm(c - field[tiles], axis=1)))
    return field.astype(np.float32), max(spread, MIN_SPREAD)


GLARE = 0.3
"""How far (a share of the way to white) an empty square's colour may be washed beyond or short
of what the squares around show (:attr:`EmptyLook.glare`) for the cost of one spread
(:func:`washed_distance`): a lamp's reflection washes colours towards white, and the squares
around say how much only roughly, least well at the reflection's edge, where the light falls off
faster than they can follow. A tile's colour is not washed.

The colours of those phantom blanks, on the 30 real tuning photos under a lamp's reflection laid
over them (``bench_conditions``: +120 soft, +200 small spot, +150 streak), the board found:
brighter than their empty colour as estimated, along its way to white, and far from both it (24
spreads) and the wooden tiles' (darker; 8 of their wider spreads). Far from both, the heavy tails
favoured the wider of the two, the tiles', by the most the colour may say. Measured along the way
to white, they lie on the square's own. Chosen (2026-12-01) on those photos, the same photos dim,
shadowed and as JPEG of quality 30, and rendered tuning boards (the five club editions, 40 each,
seeds 37,000,000 on; English, 200 from seed 25,000,000), squares read wrong before -> after:

- the photos under the three reflections: phantom blanks 5, 5 and 9 -> 0, 0 and 0 (GLARE 0.1
  leaves one; 0.2 and 0.3 none); without a reflection, under the +60 one, dim, shadowed and as
  JPEG, as before (none; the one wooden blank at O10 missed dim and shadowed, as before);
- the club editions 24 -> 25 (a blank on a green board under a glare spot the renderer clipped
  to white, read as empty); English 15 -> 17 (three blanks more missed, one phantom fewer).

Tried and not kept:
- the tile's colour washed as an empty square's is (from its own colour): the grey-beige
  squares of the real photos lie on the darker wooden tiles' way to white, and the photos dim,
  shadowed or as JPEG read 4 phantom blanks (none before); the rendered boards 25 and 16;
- the tile washed as much as the squares around (the glare falls on a tile too): the
  reflections' phantoms 0 -> 7 (half as much: 8). At a reflection's edge the squares around are
  lit more than the square, and a darker tile washed by their light looks like the square;
- the wash told by the lightness alone: the photos as chosen, English 18 (two phantoms);
- the wash from the colour the squares around give rather than from the unlit one: 7-11 of the
  reflections' phantoms left (GLARE 0.1-0.35).

Raised from 0.15 to 0.25 (2026-12-03) on the harsher lights of ``bench_conditions`` (a lamp's
reflection of +180, a streak of +150 across the photo's lower half and one of +200, warm light
with a body's shadow), where a narrow streak lights a square more than the squares around it
show (they are tiles, or lie outside it). Over those four and six more (none, dim, shadowed,
JPEG of quality 30, the +120 reflection and the +150 streak), the 30 tuning photos, the board
found: squares read wrong 26 -> 18, phantom blanks 19 -> 12, blanks missed 2 -> 1; the rendered
tuning boards (English, 200 from seed 25,000,000; four club editions, 40 each, seeds 37,000,000
on) 30 -> 31, one English blank more missed. 0.2 read 21 and 31; 0.3, 17 and 31 (a wooden blank
more missed on the photos); 0.4, 15 and 33. The warm light with a body's shadow read its 4
phantoms at every value: there the squares are darkened, not washed. (Since the tiles' faces say
where the light is lower beside a word, :meth:`EmptyLook.from_photo`, it reads none, and the ten
conditions 10 squares wrong, 4 phantom blanks, 1 blank missed.) Also tried: a colour's
pull towards a tile capped at what the tile explains better than the square washed freely
(any wash, at no cost): photos 18 (as 0.25), rendered boards 34 (four blanks more missed).

Raised from 0.25 to 0.3 (2026-12-05) with :data:`MAX_SPREAD_SAY`, beside the tile model's fifth
pass: see there. With 0.25 the pass read the real tuning photos through their corners with 5
squares wrong and 2 phantom blanks (under reflection-180); with 0.35 as with 0.3 (4 / 0 / 1), but
the rendered boards in the renderer's light 25 / 1 / 9.

A colour seen on the empty board (a table's calibration frame) has the table's glare in it
already, and is washed by nothing (:meth:`~board_pi.vision.read.Reader.weigh_colour`)."""


UNLIKE_TILE = 1.0
"""How far (in the tiles' spreads, and at least :data:`LIGHT_LIKE`) a square's colour must lie
from every colour a light gives the set's tiles before it may say more than :data:`MAX_LOG_ODDS`
that the square holds no blank (:func:`colour_log_odds`, up to :data:`MAX_LOG_ODDS_SEEN`). The
cap is there for colours a light or a tile half off its square may give a blank; a colour that
is no tile's colour under any light (a dark green square, whose colour no shadow gives a cream
tile) is none of those, and the tile model alone can be sure of a blank there (0.95 on a green
board's square beside a tile's shadow, which the cap left a blank by a hair). On boards of nearly
the tiles' colour (the real photos' grey-beige squares and wooden tiles) a darker tile is a square
in shadow, and the cap stays.

Chosen (2026-12-04) on the tuning data (squares read wrong / empty squares read as blanks /
blanks missed):
- the rendered tuning boards, through their corners (the five club editions, 40 each, seeds
  37,000,000 on; English, 120 from seed 25,000,000): 28 / 1 / 8 -> 27 / 0 / 8;
- the same boards, 15 of each, under six of ``bench_conditions``' lights (warm, shadow-55,
  warm-shadow-55, reflection-180, streak-150-low, streak-200): 244 / 16 / 42 -> 238 / 11 / 41
  (the green board's reflection and streaks, a wooden board's streak);
- the 30 real tuning photos under ``bench_conditions``' 15 lights, through their corners (9 / 3
  / 1) and found: as before;
- the plain boards of every set (``bench_sets --tuning``, 100 a set): as before, square for
  square (104 wrong).

1.5 read 239 / 12 / 41 under the lights, 2.0 241 / 14 / 41, 3.0 as before (the real photos
through their corners as before at each); a cap of 12 rather than 8 read as 8."""


UNLIKE_EMPTY = 3.0
"""How far (in the empty colour's spreads, and at least :data:`LIGHT_LIKE`) a square's colour must
lie from every colour a white light gives its empty square, every square around it not read as a
letter looking as its empty self, before it may say more than :data:`MAX_TOWARDS_TILE` that a
tile stands there (:func:`colour_log_odds`, up to :data:`MAX_LOG_ODDS`). The cap is there for a
square unlike its empty self under glare or a shadow, which are no tiles; a glare or a coloured
light falls on the squares around too, and a tile stands on its square alone. A cream blank on a
green board the tile model reads as empty (0.79), a blank's colour to within a spread, was left
empty by the cap; and a light letter on a dark tournament tile read as empty can be read as
a tile at least. Where a coloured lamp washes the squares towards its own colour rather than
white, the squares around show it, and the cap stays (the colour alone, without the squares
around, read two empty wooden squares under warm light as blanks).

Chosen (2026-12-04) on the tuning data as :data:`UNLIKE_TILE` was, with it (squares read wrong /
empty squares read as blanks / blanks missed):
- the rendered tuning boards, through their corners: 27 / 0 / 8 -> 22 / 0 / 6 (green 1, English
  1, tournament tiles 3);
- the same under six lights: 238 / 11 / 41 -> 233 / 11 / 41 (tournament tiles);
- the real tuning photos under the 15 lights, through their corners and found: as before;
- the plain boards of every set (100 a set): 104 -> 103 wrong (an English blank read).

Without the squares around, 3.0 read 22 / 1 / 6 and 236 / 17 / 41 (the wooden boards' warm
light); with three quarters of them (at least two) rather than all, 21 / 0 / 6 and 232 / 11 / 41."""


def washed_distance(colours: np.ndarray, centre: np.ndarray, spread: np.ndarray | float,
                    glare: float = GLARE, start: np.ndarray | float = 0.0) -> np.ndarray:
    """(15, 15): the squared distance, in spreads, of each of ``colours`` (CIELAB, (15, 15, 3))
    from ``centre`` washed towards white by the share ``t`` that explains it best, plus
    ``((t - start) / glare)²``: a glare adds white light to whatever it falls on, so a colour
    paler than ``centre`` along its way to white is near it, the nearer the less wash it needs
    beyond ``start`` (the wash the squares around show, :attr:`EmptyLook.glare`, which is free;
    a wash short of it costs as much). ``glare`` 0: the plain distance.

    >>> c = np.full((15, 15, 3), [160.0, 130.0, 135.0]); white = np.array([255.0, 128.0, 128.0])
    >>> round(float(washed_distance(c, c, 4.0)[0, 0]), 3)                         # on its centre
    0.0
    >>> washed = c + 0.5 * (white - c)                                             # half way to white
    >>> round(float(washed_distance(washed, c, 4.0, 0.0)[0, 0]), 1), round(float(washed_distance(washed, c, 4.0)[0, 0]), 1)
    (141.8, 2.7)
    """
    r = colours - centre
    s2 = np.square(spread)
    if glare <= 0:
        return np.sum(r * r, axis=-1) / s2
    d = WHITE - centre
    t = np.clip((np.sum(r * d, axis=-1) / s2 + start / glare ** 2) / (np.sum(d * d, axis=-1) / s2 + 1.0 / glare ** 2),
                0.0, 1.0)
    off = r - t[..., None] * d
    return np.sum(off * off, axis=-1) / s2 + np.square((t - start) / glare)


def colour_log_odds(colours: np.ndarray, look: EmptyLook, tile: tuple[np.ndarray, float] | None,
                    towards_empty: float = MAX_LOG_ODDS, glare: float | None = None,
                    letters: np.ndarray | None = None) -> np.ndarray:
    """(15, 15): the log of how much likelier each square's colour is on a tile than on its empty
    square, clipped to ``towards_empty`` (:data:`MAX_LOG_ODDS`, or :data:`MAX_LOG_ODDS_SEEN` for an
    empty colour seen) and :data:`MAX_TOWARDS_TILE`; 0 where the empty colour is unknown.

    Each colour is taken as spread about its centre with heavy tails (a Student t in CIELAB with
    :data:`TAIL` degrees of freedom): a square far from both (a shadow, the light at the board's
    edge) is not much likelier one than the other. With no tile colour known (fewer than
    :data:`MIN_TILES` tiles read surely), a colour near its empty one still counts for empty, but
    nothing counts for a tile. An empty colour estimated from the photo is measured along its way
    to white (``glare``, by default :data:`GLARE`; 0 for none): a square washed out by a lamp's
    reflection is still its own square.

    The clips give way where the colour leaves no doubt: towards empty up to
    :data:`MAX_LOG_ODDS_SEEN` where no light gives the set's tiles that colour
    (:data:`UNLIKE_TILE`); towards a tile up to :data:`MAX_LOG_ODDS` where no white light gives
    the empty square that colour and the squares around not among ``letters`` ((15, 15) bool,
    the squares read surely as letters; None: not judged) look as their empty selves
    (:data:`UNLIKE_EMPTY`).
    """
    def log_density(d2: np.ndarray) -> np.ndarray:
        return -(TAIL + 3) / 2 * np.log1p(d2 / TAIL)

    glare = GLARE if glare is None else glare
    if glare > 0 and look.unlit is not None and look.glare is not None:
        # The squares around say how much glare falls here, not to the last unit: from the colour
        # under the board's gentle light, a wash more or less than theirs costs (GLARE).
        d2 = washed_distance(colours, look.unlit, look.spread, glare, look.glare)
    else:
        d2 = washed_distance(colours, look.colour, look.spread, glare)
    lowest: np.ndarray | float = -towards_empty
    highest: np.ndarray | float = MAX_TOWARDS_TILE
    if tile is None:
        log_odds = np.minimum(log_density(np.full_like(d2, 9.0)) - log_density(d2), 0.0)
    else:
        mu, s = tile
        t2 = washed_distance(colours, mu, s, 0.0)  # a tile is not washed: see GLARE
        # The tighter spread makes its centre the denser; the tiles' spread is the lettered
        # tiles' (their ink, the light across the board), wider than a blank's own, so how much
        # that alone may say is bounded. It never counts for a tile: tiles of one colour on
        # squares of nearly the same (white on white) are told apart by their edges, not by the
        # empty squares' wider spread (on the tuning boards, 3 empty squares read as blanks less).
        spreads = np.clip(3.0 * np.log(look.spread / s), -MAX_SPREAD_SAY, 0.0)
        log_odds = log_density(t2) - log_density(d2) + spreads
        # A colour no light gives the set's tiles is no tile's, whatever the tile model makes of
        # the square's edges: it may say as much as a colour seen on the empty board.
        lowest = np.where(_unlike_tiles(colours, mu, s), -max(towards_empty, MAX_LOG_ODDS_SEEN), lowest)
        # And a colour no light gives its empty square, where the empty squares around look as
        # theirs do, is something standing on it, lit as they are: it may say as much for a tile.
        if letters is not None:
            highest = np.where(_standing_out(colours, look, letters), MAX_LOG_ODDS, highest)
    return np.clip(np.nan_to_num(log_odds, nan=0.0), lowest, highest).astype(np.float32)


def _standing_out(colours: np.ndarray, look: EmptyLook, letters: np.ndarray) -> np.ndarray:
    """(15, 15) bool: where a colour lies further than :data:`UNLIKE_EMPTY` from every colour a
    white light gives its empty square (``look``'s colour washed towards white or darkened towards
    black: :func:`light_shift`), and each square around it not among ``letters`` (the squares
    read surely as letters), one at least, within :data:`LIGHT_LIKE` of its own.

    >>> look = EmptyLook(np.full((15, 15, 3), [80.0, 100.0, 140.0], np.float32), np.full((15, 15), 4.0, np.float32))
    >>> colours = look.colour.copy(); colours[7, 7] = [150.0, 130.0, 140.0]     # a cream blank
    >>> colours[2:5, 2:5] = [150.0, 130.0, 140.0]                              # a glare's colour
    >>> out = _standing_out(colours, look, np.zeros((15, 15), bool))
    >>> bool(out[7, 7]), bool(out[3, 3]), int(out.sum())
    (True, False, 1)
    """
    c = colours.astype(np.float64)
    empty = look.colour.astype(np.float64)
    off = light_shift(empty, c - empty)[1]
    far = off > np.maximum(UNLIKE_EMPTY * look.spread, LIGHT_LIKE)
    # Around each square: how many of the squares not read as letters are, and how many look
    # as their empty selves.
    free = ~letters & np.isfinite(off)
    like = free & (off <= LIGHT_LIKE)
    ring = np.ones((3, 3), np.float32)
    ring[1, 1] = 0
    count = cv2.filter2D(free.astype(np.float32), -1, ring, borderType=cv2.BORDER_CONSTANT)
    alike = cv2.filter2D(like.astype(np.float32), -1, ring, borderType=cv2.BORDER_CONSTANT)
    return far & (count >= 1) & (alike == count)


def _unlike_tiles(colours: np.ndarray, tile: np.ndarray, spread: float) -> np.ndarray:
    """(15, 15) bool: where a colour lies further than :data:`UNLIKE_TILE` from every colour a
    light gives the set's tiles (``tile``, :func:`tile_colour`, washed towards white or darkened
    towards black: :func:`light_shift`), both there and in the middle of the board: the light
    fitted across the tiles is carried beyond them, and far from a few tiles it strays (by 20
    units of b* at the edge of a test board whose 15 tiles lie in its upper middle).

    >>> cream = np.array([215.0, 128.0, 140.0])
    >>> green = np.full((15, 15, 3), [80.0, 100.0, 140.0])            # a green board's square
    >>> shade = np.full((15, 15, 3), 0.6 * cream + 0.4 * BLACK)       # a cream tile in shadow
    >>> bool(_unlike_tiles(green, cream, 6.0)[0, 0]), bool(_unlike_tiles(shade, cream, 6.0)[0, 0])
    (True, False)
    """
    c = colours.astype(np.float64)
    far = max(UNLIKE_TILE * spread, LIGHT_LIKE)
    out = np.ones(c.shape[:2], bool)
    field = np.broadcast_to(np.asarray(tile, np.float64), c.shape)
    for mu in (field, np.broadcast_to(field[N // 2, N // 2], c.shape)):
        out &= light_shift(mu, c - mu)[1] > far
    return out


def weigh_blank_against_empty(probs: np.ndarray, log_odds: np.ndarray, empty: int, blank: int) -> np.ndarray:
    """``probs`` (n, classes) with the mass the model gives to empty and blank shared anew between
    them by the colour's ``log_odds`` (n,); every other class keeps its probability."""
    p = np.array(probs, np.float64, copy=True)
    pe, pb = p[:, empty], p[:, blank]
    both = pe + pb
    z = np.log(np.maximum(pb, 1e-9)) - np.log(np.maximum(pe, 1e-9)) + log_odds
    share = 1.0 / (1.0 + np.exp(-z))
    p[:, blank] = both * share
    p[:, empty] = both * (1 - share)
    return p.astype(np.float32)
