"""A closer look at the accents: letters that differ only by a mark (A Ą Ä, Z Ź Ż, O Ó Ö, L Ł).

At 36 pixels a square, a Polish Ź and Ż differ by a few pixels above the letter, and the tile model,
which tells 45 faces apart, sees each accented face far less often than the plain letters. A
second, small network of the same shape (``model/accents/``) tells apart only the faces of such
families, trained on boards dense with them. Where the tile model reads a square as one face of
a family the tile set holds more than one of, the family's share of the square's belief stays the
tile model's (which letter shape it is) and the accents network shares it out among the family
(which mark it bears), the tile model's own share still weighing in a little
(:data:`OWN_SHARE_WEIGHT`).

>>> families(TILE_SETS["polish"])["Z"]
('Z', 'Ź', 'Ż')
>>> families(TILE_SETS["english"])
{}
>>> base_letter("Ł"), base_letter("Ä"), base_letter("CH")
('L', 'A', 'CH')
"""

from __future__ import annotations

import unicodedata
from typing import Iterable, Sequence

import numpy as np

from board_pi.rules.tiles import TILE_SETS, TileSet, all_glyphs

_NOT_DECOMPOSED = {"Ł": "L"}  # letters with a stroke have no decomposition in Unicode


def base_letter(face: str) -> str:
    """The plain letter under a one-letter face's mark (``Ź`` -> ``Z``); other faces as they are."""
    if len(face) != 1:
        return face
    return _NOT_DECOMPOSED.get(face, unicodedata.normalize("NFD", face)[0])


def families(tiles: TileSet) -> dict[str, tuple[str, ...]]:
    """Each face of ``tiles`` that shares its plain letter with another face of the set -> all the
    set's faces of that letter (in the order of :func:`~board_pi.rules.tiles.all_glyphs`)."""
    groups: dict[str, list[str]] = {}
    for face in all_glyphs([tiles]):
        groups.setdefault(base_letter(face), []).append(face)
    return {face: tuple(group) for group in groups.values() if len(group) > 1 for face in group}


def accent_classes(sets: Iterable[TileSet] | None = None) -> tuple[str, ...]:
    """Every face of a family in some tile set: what the accents network tells apart."""
    sets = list(TILE_SETS.values()) if sets is None else list(sets)
    faces = {face for ts in sets for face in families(ts)}
    return tuple(g for g in all_glyphs(sets) if g in faces)


ACCENT_CLASSES = accent_classes()


OWN_SHARE_WEIGHT = 0.5
"""How much the tile model's own share within the family still counts beside the accents
network's (an exponent: the product of the accents network's probabilities and the square root
of the tile model's). It carries what a table has learnt of its own tiles (:mod:`.learn`) into
the closer look; on the tuning boards it reads as many squares right as the accents network
alone (21 wrong on the Polish and German boards, either way)."""


def share_out(probs: np.ndarray, top: Sequence[int], members: Sequence[Sequence[int]],
              accents: Sequence[np.ndarray], own: float = OWN_SHARE_WEIGHT) -> np.ndarray:
    """``probs`` (squares, classes) with each square's belief in its family (``members``: the
    class indices of the family of its likeliest class ``top``) shared out anew: in proportion to
    ``accents`` (per square, the accents network's probabilities of the same members) times the
    square's own share of each member in ``probs`` to the power ``own``.

    >>> p = np.array([[0.1, 0.6, 0.3]])      # ., Z, Ź: the tile model leans to Z
    >>> [round(float(x), 2) for x in share_out(p, [1], [[1, 2]], [np.array([0.2, 0.8])], own=0)[0]]
    [0.1, 0.18, 0.72]
    >>> [round(float(x), 2) for x in share_out(p, [1], [[1, 2]], [np.array([0.2, 0.8])])[0]]
    [0.1, 0.24, 0.66]
    """
    out = np.array(probs, np.float32, copy=True)
    for i, (k, fam) in enumerate(zip(top, members)):
        fam = list(fam)
        mass = float(out[i, fam].sum())
        q = np.asarray(accents[i], np.float64)
        if mass > 0:
            q = q * (out[i, fam] / mass) ** own
        q = q / q.sum() if q.sum() > 0 else np.full(len(fam), 1.0 / len(fam))
        out[i, fam] = mass * q
    return out
