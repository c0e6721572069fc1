"""Hand labels of real photos: what lies on each square, as a person checked it.

Real photos are the only check that the synthetic world is close enough, and they come
unlabelled. ``board-pi label`` (:mod:`board_pi.cli.label`) proposes a reading of each photo, draws
it over the rectified board (:func:`label_sheet`) and takes a person's corrections
(:func:`apply_corrections`) until they accept it; :class:`LabelFile` keeps the result in the
format :func:`~board_pi.vision.evaluate.hand_labelled` reads (``tests/data/jheidel_labels.json``).

A label row is board text: ``.`` empty, a tile's face (``[CH]`` for a two-letter tile), ``?`` a
blank tile whose letter the photo cannot tell, a lower-case face a blank played as that letter.

>>> rows = ["." * 15] * 15
>>> apply_corrections(rows, "H8 q, I8 A", ("A", "Q"))[7]
'.......qA......'
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

import cv2
import numpy as np

from board_pi.files import write_json
from board_pi.rules.board import COLUMNS, BadCoordinate, Square, split_row
from board_pi.vision.geometry import warp_grid
from board_pi.vision.read import row_text

N = 15
SHEET_SQUARE = 60
"""Pixels per square on the sheet: enough to see a tile's letter and its value at once."""
SHEET_MARGIN = 28
"""Room for the column letters and row numbers round the sheet."""


class LabelError(ValueError):
    """A correction or a label file that cannot be taken: the message says what is wrong."""


def apply_corrections(rows: Sequence[str], text: str, faces: Sequence[str]) -> list[str]:
    """``rows`` with the corrections in ``text`` made: ``SQUARE WHAT`` pairs (``H8 Q``, ``O10 ?``,
    ``K4 .``, ``B2 ch`` for a blank played as CH), separated by commas or spaces. ``WHAT`` must be
    ``.``, ``?`` or one of ``faces`` (a blank's in lower case). Nothing is changed when any pair is
    wrong; the :class:`LabelError` names it."""
    words = text.replace(",", " ").split()
    if len(words) % 2:
        raise LabelError(f"{words[-1]!r} has nothing to set it to: write pairs like H8 Q")
    upper = {f.upper(): f for f in faces}
    cells = [split_row(r) for r in rows]
    for name, what in zip(words[::2], words[1::2]):
        try:
            sq = Square.parse(name, N)
        except BadCoordinate as e:
            raise LabelError(str(e)) from None
        if what in (".", "?"):
            cells[sq.row][sq.col] = what
        elif what.upper() in upper:
            face = upper[what.upper()]
            # A face written in lower case is a blank played as that letter.
            cells[sq.row][sq.col] = face.lower() if what == what.lower() and what != what.upper() else face
        else:
            raise LabelError(f"{what!r} on {sq} is not a tile of this set (., ?, or one of {' '.join(faces)})")
    return [row_text(row) for row in cells]


def check_rows(rows: Sequence[str], faces: Sequence[str]) -> None:
    """Raise :class:`LabelError` unless ``rows`` is a 15x15 board of ``faces``, ``.`` and ``?``."""
    if len(rows) != N:
        raise LabelError(f"a label has {N} rows, this one {len(rows)}")
    allowed = set(faces) | {f.lower() for f in faces} | {".", "?"}
    for r, row in enumerate(rows):
        try:
            cells = split_row(row)
        except ValueError as e:
            raise LabelError(f"row {r + 1}: {e}") from None
        if len(cells) != N:
            raise LabelError(f"row {r + 1} has {len(cells)} squares, not {N}: {row!r}")
        bad = [c for c in cells if c not in allowed]
        if bad:
            raise LabelError(f"row {r + 1}: {bad[0]!r} is not a tile of this set")


def differences(before: Sequence[str], after: Sequence[str]) -> list[tuple[Square, str, str]]:
    """(square, before, after) for every square that differs, in reading order."""
    out = []
    for r, (a, b) in enumerate(zip(before, after)):
        for c, (x, y) in enumerate(zip(split_row(a), split_row(b))):
            if x != y:
                out.append((Square(r, c), x, y))
    return out


def grid_text(rows: Sequence[str]) -> str:
    """The board with column letters and row numbers, for a terminal."""
    cells = [split_row(r) for r in rows]
    width = max(2, max(len(c) for row in cells for c in row) + 1)
    head = "    " + "".join(f"{COLUMNS[c]:<{width}}" for c in range(N))
    return "\n".join([head] + [f"{r + 1:>2}  " + "".join(f"{c:<{width}}" for c in row) for r, row in enumerate(cells)])


def label_sheet(image: np.ndarray, corners: np.ndarray, rows: Sequence[str],
                doubtful: Sequence[tuple[int, int]] = (), changed: Sequence[tuple[int, int]] = ()) -> np.ndarray:
    """The board rectified top-down with ``rows`` written small in each square's top-left
    corner (the tile's own letter stays visible beside it) and the grid drawn over it: a grid
    line off the squares' edges shows corners placed wrong. Squares in ``doubtful`` (the
    reader's belief low) are outlined orange, those in ``changed`` (against the photo before)
    blue."""
    from PIL import Image, ImageDraw, ImageFont

    s, m = SHEET_SQUARE, SHEET_MARGIN
    warped = warp_grid(image, np.asarray(corners, np.float32), s, 0, interpolation=cv2.INTER_AREA)
    sheet = np.full((N * s + 2 * m, N * s + 2 * m, 3), 255, np.uint8)
    sheet[m:m + N * s, m:m + N * s] = warped
    for k in range(N + 1):
        cv2.line(sheet, (m + k * s, m), (m + k * s, m + N * s), (0, 200, 0), 1)
        cv2.line(sheet, (m, m + k * s), (m + N * s, m + k * s), (0, 200, 0), 1)
    for (r, c), colour in [*((sq, (0, 140, 255)) for sq in doubtful), *((sq, (255, 80, 0)) for sq in changed)]:
        cv2.rectangle(sheet, (m + c * s + 2, m + r * s + 2), (m + (c + 1) * s - 2, m + (r + 1) * s - 2), colour, 2)
    # Pillow's own font draws every face of every set (Ä, Ñ, Ł ...), which cv2.putText cannot.
    pil = Image.fromarray(sheet[:, :, ::-1])
    draw = ImageDraw.Draw(pil)
    small, big = ImageFont.load_default(13), ImageFont.load_default(16)
    for k in range(N):
        draw.text((m + k * s + s // 2 - 4, 5), COLUMNS[k], fill=(0, 0, 0), font=big)
        draw.text((3, m + k * s + s // 2 - 8), f"{k + 1}", fill=(0, 0, 0), font=big)
    for r, row in enumerate(rows):
        for c, face in enumerate(split_row(row)):
            if face == ".":
                continue
            x, y = m + c * s + 3, m + r * s + 3
            w = 9 * len(face) + 4
            draw.rectangle((x, y, x + w, y + 16), fill=(255, 255, 255))
            draw.text((x + 2, y + 1), face, fill=(220, 0, 0), font=small)
    return np.asarray(pil)[:, :, ::-1].copy()


SHARED = 0o644
"""Label and corner files are kept in a project's working tree and shared: readable by all."""


@dataclass
class LabelFile:
    """A JSON file of hand labels: ``{"about": ..., "photos": {name: [15 rows]}}``. Written
    whole to a temporary file and moved over the old one, so a failed write loses nothing."""

    path: Path
    about: str = ""
    photos: dict[str, list[str]] = field(default_factory=dict)

    @classmethod
    def load(cls, path: str | Path) -> "LabelFile":
        """The file at ``path``, or an empty one if there is none. A file that is not a label
        file raises :class:`LabelError` (it is never overwritten)."""
        p = Path(path)
        if not p.exists():
            return cls(p)
        try:
            data = json.loads(p.read_text(encoding="utf-8"))
            photos = data["photos"]
            if not isinstance(photos, dict) or not all(
                    isinstance(v, list) and all(isinstance(r, str) for r in v) for v in photos.values()):
                raise TypeError("photos must map each photo's name to its 15 rows")
        except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError, KeyError, TypeError) as e:
            raise LabelError(f"{p} is not a label file ({e})") from None
        return cls(p, str(data.get("about", "")), dict(photos))

    def save(self) -> None:
        write_json(self.path, {"about": self.about, "photos": dict(sorted(self.photos.items()))}, mode=SHARED)
