"""Enrolment, "teach it your tiles": one photo of your own tile set, laid out as printed here.

The user lays one tile of each letter and two blanks on the board in the pattern
:data:`LAYOUT` (``board-pi enrol --layout`` prints it), photographs it, and ``board-pi enrol
PHOTO`` stores the network's embeddings of those tiles, and of the empty squares around them, as a
profile. The reader then mixes the network's answer with the nearest enrolled neighbours' (see
:class:`board_pi.vision.read.Reader`), which is what makes an unfamiliar tile set read well.

>>> sum(ch != "." for row in LAYOUT for ch in row)
28
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

import numpy as np

from board_pi.rules.board import split_row
from board_pi.vision.geometry import squares_named, squares_outside
from board_pi.vision.read import N, Profile, ReadError, Reader, _warp, check_corners, label_of, patches

DEFAULT_PROFILE = Path("calibration") / "tiles.npz"


def _layout() -> tuple[str, ...]:
    """Tiles on alternate squares of rows 2, 4, 6 and 8, so no tile touches another."""
    tiles = list("ABCDEFGHIJKLMNOPQRSTUVWXYZ??")
    rows = [["."] * N for _ in range(N)]
    k = 0
    for r in (1, 3, 5, 7):
        for c in range(1, N, 2):
            rows[r][c] = tiles[k]
            k += 1
    return tuple("".join(r) for r in rows)


LAYOUT: tuple[str, ...] = _layout()
"""Where each tile goes: ``?`` a blank, ``.`` a square left empty."""

JITTERS = 6  # re-cuts of the photo with slightly moved corners, so neighbours cover small misplacements


def layout_text() -> str:
    """The layout as the user reads it, with instructions."""
    cols = "   " + " ".join("ABCDEFGHIJKLMNO")
    lines = [f"{r + 1:>2} " + " ".join(row) for r, row in enumerate(LAYOUT)]
    return "\n".join([
        "Lay out one tile of each letter and two blanks (?) like this, the board upright,",
        "then photograph the whole board from where the camera will be and run",
        "`board-pi enrol PHOTO` (add --corners if the board is not found by itself).",
        "",
        cols, *lines,
    ])


def enrol(image: np.ndarray, corners: np.ndarray, reader: Reader | None = None, seed: int = 0,
          layout: Sequence[str] = LAYOUT) -> Profile:
    """Build a profile from a photo of ``layout`` (by default :data:`LAYOUT`; any board whose
    squares are known will do, such as a photo labelled by hand) whose grid has ``corners``.

    Raises :class:`ReadError` when the photo does not look like the layout (tiles missing where
    they should be, or tiles where none should be), or does not show all of it.
    """
    reader = reader or Reader()
    corners = np.asarray(corners, np.float32).reshape(4, 2)
    check_corners(corners)
    cut = squares_outside(corners, (image.shape[1], image.shape[0]))
    if cut:
        raise ReadError(f"the photo does not show {len(cut)} of the layout's squares ({squares_named(cut)}): "
                        "photograph the whole board")
    rng = np.random.default_rng(seed)
    squares = [(r, c) for r in range(N) for c in range(N)]
    cells = [split_row(row) for row in layout]
    labels = np.array([label_of(cells[r][c], reader.classes) for r, c in squares])
    # sanity check with the plain network: a tile where the layout has one, none elsewhere
    probs, _ = reader.run(patches(_warp(image, corners), squares))
    empty = reader.classes.index(".")
    seen_tile = probs.argmax(1) != empty
    want_tile = labels != empty
    if (seen_tile & want_tile).sum() < 0.8 * want_tile.sum() or (seen_tile & ~want_tile).sum() > 8:
        raise ReadError(f"the photo does not match the layout: {int((seen_tile & want_tile).sum())} of "
                        f"{int(want_tile.sum())} tiles seen where expected, {int((seen_tile & ~want_tile).sum())} "
                        "elsewhere (print it with `board-pi enrol --layout`)")
    side = float(np.linalg.norm(corners[1] - corners[0])) / N
    embs, labs = [], []
    for j in range(JITTERS):
        c = corners if j == 0 else (corners + rng.normal(0, 0.06 * side, corners.shape)).astype(np.float32)
        _, e = reader.run(patches(_warp(image, c), squares))
        keep = want_tile | (rng.random(len(squares)) < 0.25)  # every tile, a quarter of the empties
        embs.append(e[keep])
        labs.append(labels[keep])
    return Profile(np.concatenate(embs).astype(np.float32), np.concatenate(labs).astype(np.int64))
