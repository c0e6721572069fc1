"""Finding and loading lexicons from disk: the default list, club lists, the compiled cache.

The default lexicon is the word list of the ``kjxqz`` package (about 188,000 words, a North
American list, Apache-2.0), read from the installed package. A club's own list (NWL, CSW or any
list they hold) is a plain text file, one word per line, given by path or dropped into a
``lexicons/`` folder and named by its file name. Each list is compiled once into a compact file
in the cache folder, keyed by the list's content and the tile set, so later starts read it in
milliseconds.

A list is compiled for a tile set: its words (UTF-8) are read as that set's tiles, and the words
the set cannot spell are counted, not dropped silently (``board-pi lexicon`` reports them). The
default list is English: another set with no list configured is :class:`NoLexicon`, a message
that names the setting to set.

The project ships one small list of its own, ``german-demo`` (a few hundred common German words,
written for board-pi, GPL like the rest of the project): enough for the demo's move generator to
compose a German game, far too small to judge one.
"""

from __future__ import annotations

import hashlib
import os
import re
from importlib import resources
from pathlib import Path

from .files import write_bytes
from .rules.lexicon import MAGICS, Lexicon, LexiconError, parse_word_list
from .rules.tiles import ENGLISH, TileSet

DEFAULT = "default"
DEFAULT_NAMES = {"default", "kjxqz"}
DEFAULT_TILES = ENGLISH  # the default list is English: other sets need a list configured
PROJECT_LEXICONS = Path(__file__).resolve().parents[1] / "lexicons"
PACKAGE_LEXICONS = Path(__file__).resolve().parent / "lexicons"  # shipped with the package
SETTING = "game.lexicon"  # the configuration's setting that names the word list


class LexiconNotFound(LexiconError):
    """No lexicon by that name or path."""


class NoLexicon(LexiconError):
    """A tile set with no word list configured (the default list is for English tiles only)."""


def search_dirs() -> list[Path]:
    """Where named lexicons are looked for: $BOARD_PI_LEXICONS, ./lexicons, the project's lexicons/,
    and the data directory's lexicons/."""
    dirs = []
    env = os.environ.get("BOARD_PI_LEXICONS")
    if env:
        dirs += [Path(p) for p in env.split(os.pathsep) if p]
    dirs += [Path("lexicons"), PROJECT_LEXICONS, PACKAGE_LEXICONS]
    data = os.environ.get("BOARD_PI_DATA")
    if data:
        dirs.append(Path(data) / "lexicons")
    seen, out = set(), []
    for d in dirs:
        key = d.resolve()
        if key not in seen:
            seen.add(key)
            out.append(d)
    return out


def cache_dir() -> Path:
    base = os.environ.get("BOARD_PI_CACHE") or os.environ.get("XDG_CACHE_HOME")
    return (Path(base) if base else Path.home() / ".cache") / "board-pi" / "lexicons"


def available() -> list[str]:
    """Names of the lexicons that can be loaded by name."""
    names = {DEFAULT}
    for d in search_dirs():
        if d.is_dir():
            names |= {p.stem for p in d.glob("*.txt")} | {p.stem for p in d.glob("*.lex")}
    return sorted(names)


def resolve(spec: str | None) -> tuple[str, Path | None]:
    """(name, path of the source list) for a name or path; the default list has no path."""
    if spec is None or spec.strip().lower() in DEFAULT_NAMES:
        return DEFAULT, None
    p = Path(spec).expanduser()
    if p.is_file():
        return p.stem, p
    if not re.fullmatch(r"[\w.-]+", spec):
        raise LexiconNotFound(f"no lexicon file {spec}")
    for d in search_dirs():
        for ext in (".txt", ".lex", ""):
            cand = d / f"{spec}{ext}"
            if cand.is_file():
                return spec, cand
    raise LexiconNotFound(f"no lexicon named {spec!r}: put {spec}.txt in lexicons/ or give a path "
                          f"(known: {', '.join(available())})")


MAX_LIST_BYTES = 100_000_000
"""The largest word lists (Polish, every inflected form) are some 40 MB; past this is not a list."""


def _source_bytes(path: Path | None, name: str) -> bytes:
    if path is None:
        return resources.files("kjxqz").joinpath("words.txt").read_bytes()
    with open(path, "rb") as f:
        # Refused before reading when the size is known, and read bounded when it is not (a
        # device or a pipe): a disk image or /dev/zero named as a lexicon must not fill the memory.
        too_big = os.fstat(f.fileno()).st_size > MAX_LIST_BYTES
        data = b"" if too_big else f.read(MAX_LIST_BYTES + 1)
    if too_big or len(data) > MAX_LIST_BYTES:
        raise LexiconError(f"lexicon {name} is larger than {MAX_LIST_BYTES // 1_000_000} MB: not a word list")
    return data


def load_lexicon(spec: str | None = None, use_cache: bool = True, tiles: TileSet | None = None) -> Lexicon:
    """Load a lexicon by name or path, compiling it into the cache on first use.

    With ``tiles``, the list's words are read as that set's tiles (``Lexicon.unspellable``
    counts those it cannot spell); without, letter by letter as before. The default list is
    English: asking for it with another set is :class:`NoLexicon`.
    """
    name, path = resolve(spec)
    if path is None and tiles is not None and tiles.name != DEFAULT_TILES.name:
        raise NoLexicon(f"no word list is configured for the {tiles.name} tile set (the default list "
                        f"is English): set {SETTING} in the configuration, or give --lexicon, to a "
                        f"{tiles.name} word list (a text file, one word per line, UTF-8)")
    try:
        data = _source_bytes(path, name)
    except (OSError, ModuleNotFoundError) as e:
        raise LexiconNotFound(f"cannot read lexicon {name}: {e}") from None
    if data.startswith(MAGICS):
        lex = Lexicon.from_bytes(data)
        if tiles is not None and lex.tiles and lex.tiles != tiles.name:
            raise LexiconError(f"lexicon {name} was compiled for the {lex.tiles} tile set, not {tiles.name}")
        return lex
    digest = hashlib.sha1(data).hexdigest()[:16]
    cached = cache_dir() / f"{name}-{tiles.name if tiles else 'letters'}-{digest}.lex"
    if use_cache and cached.is_file():
        try:
            return Lexicon.from_bytes(cached.read_bytes())
        except (OSError, LexiconError):
            pass  # a damaged cache is rebuilt below
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = data.decode("latin-1")
    lex = Lexicon.from_words(parse_word_list(text), name=name, tiles=tiles)
    if len(lex) == 0:
        spelt = (f" the {tiles.name} tiles can spell ({lex.unspellable} words cannot be spelt, such as "
                 f"{', '.join(lex.unspellable_examples[:3])})") if tiles is not None and lex.unspellable else ""
        raise LexiconError(f"lexicon {name} has no words{spelt}")
    if use_cache:
        _write_atomic(cached, lex.to_bytes())
    return lex


def compile_lexicon(source: str, out: Path, tiles: TileSet | None = None) -> Lexicon:
    """Compile a list into ``out`` (for shipping a ready-made file to a table)."""
    lex = load_lexicon(source, use_cache=False, tiles=tiles)
    _write_atomic(out, lex.to_bytes())
    return lex


def _write_atomic(path: Path, data: bytes) -> None:
    try:
        write_bytes(path, data)
    except OSError:
        pass  # no writable cache: compile in memory next time too
