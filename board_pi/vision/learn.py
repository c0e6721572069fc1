"""A table learns its own tiles: every committed play gives labelled patches of this set under this
light, and every square that changed but stayed empty (a tile's side and shadow falling on it) an
empty patch.

The printed-layout enrolment (:mod:`~board_pi.vision.enrol`) is the quick start; this is what
comes after it. The tile model's embeddings of those patches are kept per table, across games,
in one file beside the calibration (``learned-tiles.npz``), and given to the reader as its
``memory``: a patch that looks just like a learnt one is read mostly as the players said it was
(:attr:`~board_pi.vision.read.Reader.MEMORY_WEIGHT`), one unlike anything learnt is left to the
network, so a set the model reads poorly is read better the longer the table is used.

Only what the players let stand is learnt (the committed board, after any correction on the
page), and each class keeps its most recent examples only, so a change of light or of tile set
is followed and the file stays small (at most ``per_class`` x classes embeddings, about 100 KB).

>>> memory = TableMemory(None)                    # in memory only: nothing kept on disk
>>> memory.size, memory.profile() is None
(0, True)
"""

from __future__ import annotations

import hashlib
import logging
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

import numpy as np

from ..files import replacing
from ..worker import Worker
from .read import CLASSES, Profile, Reader, _warp, patches

log = logging.getLogger(__name__)

N = 15


def model_fingerprint(model_path: str | Path) -> str:
    """Which tile model made a set of embeddings: another model's are another space."""
    return hashlib.sha256(Path(model_path).read_bytes()).hexdigest()[:16]


@dataclass
class TableMemory:
    """The patches a table has learnt, as the tile model's embeddings and their classes."""

    path: Path | None
    per_class: int = 32
    """Examples kept per class: the most recent ones."""
    embeddings: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), np.float32))
    labels: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    model: str = ""
    """The fingerprint of the tile model the embeddings came from."""
    learnt: int = 0
    """Patches learnt since this table started (a figure for the page and the benchmarks)."""

    @property
    def size(self) -> int:
        return int(len(self.labels))

    @classmethod
    def open(cls, path: str | Path | None, model: str, per_class: int = 32) -> "TableMemory":
        """The memory kept at ``path`` for the tile model with fingerprint ``model``; an empty one
        when there is none yet. A file that cannot be used (damaged, from another model) is set
        aside beside itself, said in the log, and learning starts again: it is never fatal."""
        memory = cls(Path(path) if path is not None else None, per_class, model=model)
        if memory.path is None or not memory.path.exists():
            return memory
        try:
            with np.load(memory.path, allow_pickle=False) as z:
                emb, lab, kept_model = z["embeddings"], z["labels"], str(z["model"])
            if kept_model != model:
                raise ValueError("it was learnt with another tile model")
            if emb.ndim != 2 or lab.ndim != 1 or len(emb) != len(lab) or not np.isfinite(emb).all():
                raise ValueError("its arrays do not fit together")
            if not np.issubdtype(lab.dtype, np.integer):
                raise ValueError("its labels are not class numbers")
            memory.embeddings, memory.labels = emb.astype(np.float32), lab.astype(np.int64)
        except (OSError, EOFError, KeyError, ValueError) as e:
            aside = memory.path.with_suffix(".unused.npz")
            try:
                os.replace(memory.path, aside)
            except OSError:
                pass
            log.warning("the learnt tiles in %s were not used (%s); kept as %s, learning again", memory.path, e, aside)
        return memory

    def add(self, embeddings: np.ndarray, labels: Sequence[int]) -> None:
        """Keep these examples (and, per class, only the ``per_class`` most recent)."""
        emb = np.asarray(embeddings, np.float32)
        lab = np.asarray(labels, np.int64)
        if len(lab) == 0:
            return
        if self.size == 0:
            all_emb, all_lab = emb, lab
        else:
            if emb.shape[1] != self.embeddings.shape[1]:
                raise ValueError(f"{emb.shape[1]} features per patch, the memory holds {self.embeddings.shape[1]}")
            all_emb, all_lab = np.concatenate([self.embeddings, emb]), np.concatenate([self.labels, lab])
        keep = np.zeros(len(all_lab), bool)
        for k in np.unique(all_lab):
            idx = np.flatnonzero(all_lab == k)
            keep[idx[-self.per_class:]] = True  # the newest: appended last
        self.embeddings, self.labels = all_emb[keep], all_lab[keep]
        self.learnt += len(lab)

    def save(self) -> None:
        """Write the memory beside the calibration, atomically (a crash leaves the old file)."""
        if self.path is not None and self.size:
            _write(self.path, self.embeddings, self.labels, self.model)

    def save_behind(self) -> None:
        """Have the memory as it is now written by a thread of its own, so that a press does not
        wait for the disk (a card can stall a sync for a second); :meth:`flush` waits for it. A
        write that fails is said in the log: what was learnt stays in memory and goes with the
        next one."""
        if self.path is None or self.size == 0:
            return
        path, state = self.path, (self.embeddings, self.labels, self.model)  # as it is now
        _WRITER.put(lambda: _write_logged(path, *state))

    def flush(self, timeout: float) -> bool:
        """Wait until what :meth:`save_behind` was given is on the disk; False if ``timeout``
        seconds pass first."""
        return _WRITER.join(timeout)

    def profile(self) -> Profile | None:
        """What has been learnt, as a profile for the reader's ``memory`` (None: nothing yet)."""
        return Profile(self.embeddings, self.labels) if self.size else None


def _write(path: Path, embeddings: np.ndarray, labels: np.ndarray, model: str) -> None:
    with replacing(path, binary=True) as f:
        np.savez_compressed(f, embeddings=embeddings, labels=labels, model=np.str_(model))


def _write_logged(path: Path, embeddings: np.ndarray, labels: np.ndarray, model: str) -> None:
    try:
        _write(path, embeddings, labels, model)
    except (OSError, ValueError) as e:  # a full disk: learnt, and written with the next play
        log.warning("the table's learnt tiles were not written to %s: %s", path, e)


# The one thread that writes the tables' learnt tiles, in the order they were learnt.
_WRITER = Worker(lambda write: write(), "learnt tiles")


def learn_squares(reader: Reader, memory: TableMemory, image: np.ndarray, corners: np.ndarray,
                  squares: Sequence[tuple[int, int]], rows: Sequence[Sequence[str]]) -> int:
    """Learn ``squares`` of ``image`` as the committed ``rows`` say they are (15 rows of squares
    as the camera writes them: ``.`` empty, a tile's face, ``?`` a blank tile). Returns how many
    were learnt. A tile the model has no class for is left out."""
    classes = list(getattr(reader, "classes", CLASSES))  # the model's own class list, where it has one
    chosen: list[tuple[int, int]] = []
    labels: list[int] = []
    for r, c in squares:
        ch = rows[r][c]
        if ch in classes:
            chosen.append((r, c))
            labels.append(classes.index(ch))
    if not chosen:
        return 0
    warped = _warp(np.asarray(image), np.asarray(corners, np.float32).reshape(4, 2))
    _, emb = reader.run(patches(warped, chosen))
    memory.add(emb, labels)
    return len(chosen)

