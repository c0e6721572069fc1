"""The board read as a whole: the likeliest reading that the tile set allows.

The tile model judges each square on its own, so nothing stops it from seeing a fourth blank in
English (pale lavender squares read as blank tiles) or a tenth I. A tile set has known counts,
and the tiles already committed on the board use some of them. :func:`decode` chooses, for the
squares being read, the classes that together are likeliest under the model (the sum of the
log-probabilities) while no tile appears more often than the set holds. Only the picture's class
probabilities and the tile set are consulted, never a word list: a phony still reads as it is.

It is exact, a min-cost flow: the squares' own likeliest classes come first, then each tile too
many is moved along the cheapest chain of changes (one square to its next likeliest class, or a
square of that class to another, and so on) to a class with room, as found by a shortest path
over the classes. That is a few milliseconds for a whole board, and nothing when the squares'
own choices are already within the counts.

>>> import numpy as np
>>> classes = (".", "A", "?")
>>> p = np.array([[0.1, 0.2, 0.7], [0.3, 0.1, 0.6], [0.05, 0.05, 0.9]])
>>> [classes[k] for k in decode(p, classes, {"A": 9, "?": 2})]   # three blanks seen, two allowed
['?', '.', '?']
"""

from __future__ import annotations

from collections import Counter
from typing import Iterable, Mapping, Sequence

import cv2
import numpy as np

EMPTY = "."
BLANK = "?"
_FLOOR = 1e-6  # the least probability a class is given, so that every change has a finite cost


def tile_limits(full_bag: Mapping[str, int], committed: Iterable[str] = ()) -> dict[str, int]:
    """How many more of each tile may be read: the set's count less the tiles ``committed``.

    ``full_bag`` is a tile set's :meth:`~board_pi.rules.tiles.TileSet.full_bag` (tile -> count,
    blanks as ``?``); ``committed`` the tiles already on the board outside the squares being read,
    as the camera writes them (a blank as ``?``, or as its letter in lower case). Squares that
    hold more of a tile than the set has (a board set up by hand) leave none of it, not fewer.

    >>> tile_limits({"A": 9, "Z": 1, "?": 2}, ["Z", "a", "A", "."])
    {'A': 8, 'Z': 0, '?': 1}
    """
    used = Counter(BLANK if t.islower() else t for t in committed if t != EMPTY)
    return {t: max(0, int(n) - used[t]) for t, n in full_bag.items()}


def decode(probs: np.ndarray, classes: Sequence[str], limits: Mapping[str, int]) -> np.ndarray:
    """The class (an index into ``classes``) of each square: the likeliest reading within ``limits``.

    ``probs`` is (squares, classes), each row a square's class probabilities. ``limits`` gives,
    for each tile, how many of the squares at most may read as it; ``.`` (empty) has no limit,
    and a class the limits do not name (a glyph of another tile set) may not be read at all.
    """
    p = np.asarray(probs, np.float64)
    n, k = p.shape
    if k != len(classes):
        raise ValueError(f"{k} class probabilities per square but {len(classes)} classes")
    cap = np.array([n if c == EMPTY else int(limits.get(c, 0)) for c in classes], np.int64)
    if EMPTY not in classes:
        raise ValueError("the classes must include '.' (an empty square)")
    cost = -np.log(np.maximum(p, _FLOOR))
    choice = cost.argmin(axis=1)
    count = np.bincount(choice, minlength=k)
    # Each tile too many moves along the cheapest chain of changes to a class with room. The
    # class graph's edge a -> b costs the least extra of moving one square now read as a to b;
    # the first choices are each square's best, so no cycle of moves gains (no negative cycle),
    # and each shortest chain keeps it so: the result is the min-cost reading within the limits.
    w = np.full((k, k), np.inf)  # w[a, b]: the edge's cost, and who[a, b] the square moved
    who = np.full((k, k), -1, np.int64)
    stale = set(np.flatnonzero(count).tolist())
    while True:
        over = np.flatnonzero(count > cap)
        if len(over) == 0:
            return choice
        src = int(over[0])
        for a in stale:  # only the classes a move changed
            members = np.flatnonzero(choice == a)
            w[a], who[a] = np.inf, -1
            if len(members):
                extra = cost[members] - cost[members, a][:, None]  # (m, k)
                best = extra.argmin(axis=0)
                w[a] = extra[best, np.arange(k)]
                w[a, a] = np.inf
                who[a] = members[best]
        stale = set()
        # Bellman-Ford from the over-full class (k is small; edges may be negative after moves).
        dist = np.full(k, np.inf)
        dist[src] = 0.0
        prev = np.full(k, -1, np.int64)
        for _ in range(k - 1):
            via = dist[:, None] + w  # (a, b)
            a_best = via.argmin(axis=0)
            cand = via[a_best, np.arange(k)]
            better = cand < dist - 1e-12
            if not better.any():
                break
            dist = np.where(better, cand, dist)
            prev = np.where(better, a_best, prev)
        room = np.flatnonzero((count < cap) & np.isfinite(dist))
        if len(room) == 0:
            raise ValueError("no reading fits the tile limits")  # cannot happen: '.' has room for all
        dst = int(room[np.argmin(dist[room])])
        # Walk the chain back, moving one square along each edge.
        b = dst
        moves = []
        while b != src:
            a = int(prev[b])
            moves.append((int(who[a, b]), b))
            b = a
        for square, to in moves:
            stale.update((int(choice[square]), to))
            count[choice[square]] -= 1
            choice[square] = to
            count[to] += 1


SURE_EMPTY = 0.5
"""A square read as empty with at least this belief counts as empty beside a lone tile."""


def lone_tiles(tiles: np.ndarray, sure_empty: np.ndarray) -> np.ndarray:
    """The squares of ``tiles`` (15x15, True where a tile is read or stands) that no game can
    leave as they are: a tile with no tile beside it (above, below, left or right), every square
    beside it surely empty (``sure_empty``). A play is two tiles or more in a line, and every
    later play touches the tiles already down, so on a board in play every tile has a
    neighbour; a lone one is the print of a premium square, a reflection or a stray mark read
    as a tile. Only the rules of placement are used, never a word list.

    >>> t = np.zeros((15, 15), bool); t[7, 6:9] = True; t[1, 1] = True   # a word, and one stray
    >>> [tuple(map(int, q)) for q in zip(*np.nonzero(lone_tiles(t, ~t)))]
    [(1, 1)]
    >>> bool(lone_tiles(t, np.zeros((15, 15), bool)).any())  # a doubtful neighbour: kept
    False
    """
    tiles = np.asarray(tiles, bool)
    n = tiles.shape[0]
    padded_tiles = np.pad(tiles, 1)
    padded_empty = np.pad(np.asarray(sure_empty, bool), 1, constant_values=True)  # off the board
    neighbour_tile = np.zeros_like(tiles)
    all_empty = np.ones_like(tiles)
    for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
        neighbour_tile |= padded_tiles[1 + dr:1 + dr + n, 1 + dc:1 + dc + n]
        all_empty &= padded_empty[1 + dr:1 + dr + n, 1 + dc:1 + dc + n]
    return tiles & ~neighbour_tile & all_empty


def islands(tiles: np.ndarray) -> list[list[tuple[int, int]]]:
    """The groups of ``tiles`` (15x15, True where a tile is read or stands) cut off from the
    largest group, each as its squares: no game leaves them so. Every play after the first
    touches the tiles already down, so a game's tiles are one group, joined above, below, left
    and right; two groups on a photo of a game mean a tile between them was not seen (a blank
    read as empty, a hand over it), or tiles were read where none stand. Only the rules of
    placement are used.

    >>> t = np.zeros((15, 15), bool); t[7, 4:9] = True; t[3:6, 8] = True   # a word, and 3 beyond a gap
    >>> islands(t)
    [[(3, 8), (4, 8), (5, 8)]]
    >>> t[6, 8] = True   # the gap filled: one group
    >>> islands(t)
    []
    """
    t = np.asarray(tiles, bool)
    n, groups = cv2.connectedComponents(t.astype(np.uint8), connectivity=4)
    if n <= 2:
        return []
    sizes = np.bincount(groups.ravel(), minlength=n)
    sizes[0] = 0
    main = int(sizes.argmax())
    return [[(int(r), int(c)) for r, c in zip(*np.nonzero(groups == g))] for g in range(1, n) if g != main]


HAND_PATCH = 4
"""Squares touching one another (diagonally too) that each look like a blank or are in doubt,
this many or more, are a hand or an arm over the board rather than blank tiles: a set holds two
blanks, and a hand over the board reads to the model as a patch of letterless tiles."""


def hand_patches(blank_like: np.ndarray, doubtful: np.ndarray, least: int = HAND_PATCH) -> np.ndarray:
    """(15, 15) bool: the squares of ``blank_like`` (15x15 bool, the squares read with some belief
    in a blank) that lie in a patch of at least ``least`` squares, each blank-like or
    ``doubtful``, touching one another across a side or a corner.

    >>> b = np.zeros((15, 15), bool); d = np.zeros((15, 15), bool)
    >>> b[0, 0] = b[7, 7] = True; d[6, 6] = d[6, 7] = d[8, 8] = True   # a blank, and a hand
    >>> [tuple(map(int, q)) for q in zip(*np.nonzero(hand_patches(b, d)))]
    [(7, 7)]
    """
    blank_like = np.asarray(blank_like, bool)
    patch = (blank_like | np.asarray(doubtful, bool)).astype(np.uint8)
    _, label, stats, _ = cv2.connectedComponentsWithStats(patch, connectivity=8)
    return blank_like & (stats[label, cv2.CC_STAT_AREA] >= least)
