"""The renderer's font catalogue: the typefaces synthetic boards are lettered in, known by name.

A seeded board picks its fonts by position in ``fonts.txt``, never by what happens to be
installed, so a seed is one picture on every machine that has the catalogue's files (checked by
SHA-256). A font that is absent, or another version of it, raises :class:`FontMissing` naming the
Debian package to install; :data:`BUILTIN` is Pillow's own font, always there.

>>> BUILTIN in [f.name for f in FONTS], "fonts-dejavu-core" in FONT_PACKAGES
(True, True)
"""

from __future__ import annotations

import functools
import hashlib
import os
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Iterable

FONT_DIR_ENV = "BOARD_PI_FONT_DIR"
"""The environment variable naming the font directory, when it is not ``/usr/share/fonts``."""
DEFAULT_FONT_DIR = Path("/usr/share/fonts")


@dataclass(frozen=True)
class CatalogueFont:
    """One typeface of the renderer's catalogue (``fonts.txt``), known by name."""

    name: str
    package: str
    """The Debian package that installs it ("-" for Pillow's own font)."""
    version: str
    """The package version whose file ``sha256`` is of."""
    file: str
    """The file under the font directory ("-" for Pillow's own font)."""
    sha256: str
    licence: str

    @property
    def bundled(self) -> bool:
        """Pillow's own font: always there, no package needed."""
        return self.file == "-"


class FontMissing(LookupError):
    """A catalogue font is not in the font directory, or is another version of it: drawing with
    a stand-in would silently give another picture for the same seed. The message names the
    Debian package to install."""


def _read_catalogue() -> tuple[CatalogueFont, ...]:
    text = resources.files("board_pi.vision").joinpath("fonts.txt").read_text("utf-8")
    rows = [line.split("\t") for line in text.splitlines() if line.strip() and not line.startswith("#")]
    return tuple(CatalogueFont(*(v.strip() for v in row)) for row in rows)


FONTS: tuple[CatalogueFont, ...] = _read_catalogue()
"""The catalogue, in its fixed order: a seeded style picks fonts by position in it."""
BUILTIN = next(f.name for f in FONTS if f.bundled)
"""The name of Pillow's own font (``ImageFont.load_default``), which needs no package."""
FONT_PACKAGES: tuple[str, ...] = tuple(sorted({f.package for f in FONTS if not f.bundled}))
"""The Debian packages holding the catalogue's fonts (what .ci/run installs)."""
_BY_NAME = {f.name: f for f in FONTS}


def font_dir(directory: str | Path | None = None) -> Path:
    """Where the catalogue's files are looked for: ``directory`` if given, else
    ``$BOARD_PI_FONT_DIR``, else ``/usr/share/fonts``."""
    if directory is not None:
        return Path(directory)
    env = os.environ.get(FONT_DIR_ENV)
    return Path(env) if env else DEFAULT_FONT_DIR


def catalogue_font(name: str) -> CatalogueFont:
    """The catalogue entry called ``name``; ValueError for a name not in it."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise ValueError(f"no font {name!r} in the renderer's catalogue (board_pi/vision/fonts.txt)") from None


@functools.lru_cache(maxsize=64)
def _sha256(path: str, size: int, mtime_ns: int) -> str:  # size and mtime: a replaced file is hashed again
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def font_path(name: str, directory: str | Path | None = None) -> str:
    """The file to draw catalogue font ``name`` with (:data:`BUILTIN` for Pillow's own font).

    Raises :class:`FontMissing` when the file is absent from the font directory or is not the
    catalogue's file (another version draws other glyphs, so another picture)."""
    f = catalogue_font(name)
    if f.bundled:
        return BUILTIN
    d = font_dir(directory)
    p = d / f.file
    install = f"install Debian's {f.package} (sudo apt-get install {f.package}; .ci/run does)"
    try:
        st = p.stat()
        digest = _sha256(str(p), st.st_size, st.st_mtime_ns) if p.is_file() else ""
    except OSError:
        digest = None
    if digest is None or digest == "":
        raise FontMissing(f"font {f.name} ({f.file}) is not in {d}: {install}")
    if digest != f.sha256:
        raise FontMissing(f"font {f.name} in {p} is not the file board-pi draws with ({f.package} {f.version}, "
                          f"sha256 {f.sha256[:12]}...; this one is {digest[:12]}...): {install}")
    return str(p)


def missing_fonts(names: Iterable[str], directory: str | Path | None = None) -> list[str]:
    """Why each of the catalogue fonts ``names`` cannot be drawn with (empty when all can)."""
    why = []
    for name in dict.fromkeys(names):
        try:
            font_path(name, directory)
        except FontMissing as e:
            why.append(str(e))
    return why


def describe_fonts(names: Iterable[str], directory: str | Path | None = None) -> str:
    """Which catalogue fonts, from where, drawn by which Pillow and FreeType: what a benchmark
    prints so its figures can be reproduced."""
    from PIL import __version__ as pillow, features

    used = [catalogue_font(n) for n in sorted(set(names), key=lambda n: [f.name for f in FONTS].index(n))]
    listed = ", ".join(f.name + ("" if f.bundled else f" ({f.package} {f.version})") for f in used)
    return (f"{len(used)} of the catalogue's {len(FONTS)} fonts from {font_dir(directory)}: {listed}; "
            f"Pillow {pillow}, FreeType {features.version('freetype2')}")
