"""Files written whole or not at all: a calibration, a clock's state, a table's learnt tiles.

The new contents go to a temporary file beside the old one, are flushed to the disk, and only
then take its name (a rename is atomic). A crash, a full SD card or a power cut mid-write leaves
the old file as it was, never half of the new one, and no temporary file behind.

>>> import tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> write_json(d / "state.json", {"turn": 1}).read_text()
'{\\n "turn": 1\\n}\\n'
>>> with replacing(d / "state.json") as f:
...     _ = f.write("{half")
...     raise OSError("disk full")
Traceback (most recent call last):
OSError: disk full
>>> (d / "state.json").read_text(), sorted(p.name for p in d.iterdir())
('{\\n "turn": 1\\n}\\n', ['state.json'])
"""

from __future__ import annotations

import json
import os
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any, Iterator

PRIVATE = 0o600
"""A new file's permissions unless told otherwise: its owner's only (a table's state is the
service's own)."""


@contextmanager
def replacing(path: str | Path, binary: bool = False, mode: int = PRIVATE) -> Iterator[IO[Any]]:
    """A file to write ``path``'s new contents to (text in UTF-8, or ``binary``); it takes the
    place of ``path`` once the block ends and it is on the disk. If the block raises, ``path``
    is as it was. The folders above ``path`` are made if missing; ``mode``: its permissions."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=p.parent, prefix=f".{p.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb" if binary else "w", **({} if binary else {"encoding": "utf-8"})) as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        if mode != PRIVATE:
            os.chmod(tmp, mode)
        os.replace(tmp, p)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_text(path: str | Path, text: str, mode: int = PRIVATE) -> Path:
    """``text`` (UTF-8) as the whole of ``path``, written atomically; returns the path."""
    with replacing(path, mode=mode) as f:
        f.write(text)
    return Path(path)


def write_bytes(path: str | Path, data: bytes, mode: int = PRIVATE) -> Path:
    """``data`` as the whole of ``path``, written atomically; returns the path."""
    with replacing(path, binary=True, mode=mode) as f:
        f.write(data)
    return Path(path)


def write_json(path: str | Path, data: Any, indent: int | None = 1, mode: int = PRIVATE) -> Path:
    """``data`` as JSON (UTF-8, letters beyond ASCII as themselves, a final newline), written
    atomically; returns the path."""
    return write_text(path, json.dumps(data, ensure_ascii=False, indent=indent) + "\n", mode=mode)
