"""Ready to run? What stands between a valid configuration and a table that starts on this
machine: the data directory, the status page's address, the word list, the enrolled tiles and
the calibration. `board-pi run` and `board-pi config check` both ask here."""

from __future__ import annotations

import errno
import os
import socket
from dataclasses import dataclass
from pathlib import Path

from ..pin import DirectorStoreError, stored_pin_hash
from ..settings import show
from .schema import MAX_PROFILE_BYTES, Config

# A valid file is not yet a table that starts: the folders, the address and the files it names
# must be usable on this machine. `board-pi run` and `board-pi config check` both ask here, so
# the check passes exactly the files run starts with. The camera and clock hardware are the
# doctor's: they need the devices plugged in and free (the service stopped).


@dataclass(frozen=True)
class Readiness:
    """What stands between a valid configuration and a running table: ``errors`` stop it,
    ``warnings`` let it run (less well); each names the setting and says what to do."""

    errors: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()


def check_ready(cfg: Config, *, port: int | None = None) -> Readiness:
    """Every check :func:`board_pi.cli.run.cmd_run` depends on, without side effects: the data
    directory, the word list, the enrolled tiles, the calibration, a camera file, and the status
    page's address (``port`` overrides ``web.port``, as ``run --port`` does)."""
    errors: list[str] = []
    warnings: list[str] = []
    problem = data_dir_problem(cfg.data_dir())
    if problem:
        errors.append(f"data.dir: {problem}")
    elif cfg.data_dir().is_dir():
        # A damaged or unusable PIN hash stops run (the director would be locked out): said here.
        try:
            stored_pin_hash(cfg.data_dir(), cfg.web.director_pin_hash or None)
        except DirectorStoreError as e:
            errors.append(f"data.dir: {e}")
    problem = listen_problem(cfg.web.host, cfg.web.port if port is None else port,
                             key="web.port" if port is None else "--port")
    if problem:
        errors.append(problem)
    lexicon = cfg.game.lexicon
    problem = _not_a_file(lexicon) if "/" in lexicon or lexicon.endswith(".txt") else None
    problem = problem or _lexicon_problem(lexicon, cfg.game.tile_set)
    if problem:
        errors.append(f"game.lexicon: {problem}")
    if cfg.camera.source not in ("none", ""):
        if cfg.camera.source_kind == "path" and not os.path.exists(str(cfg.camera.source)):
            errors.append(f"camera.source: no such file or folder: {show(cfg.camera.source, 300)}")
        # A device or a folder named as a profile would be read without end (/dev/zero): refused.
        tiles, calibration = cfg.tiles_path(), cfg.calibration_path()
        for key, path in (("camera.tiles", tiles), ("camera.calibration", calibration)):
            problem = _not_a_file(str(path)) if path is not None else None
            if problem:
                errors.append(f"{key}: {problem}")
            elif path is not None and key == "camera.tiles":
                problem = tiles_problem(path)
                if problem:  # run then reads with the tile model alone, as it says
                    warnings.append(f"camera.tiles: {problem}; the tile model will read alone "
                                    "(enrol again: board-pi enrol, or remove the file)")
            elif path is not None:
                problem = _calibration_problem(path)
                if problem:  # run then finds the board in every frame
                    warnings.append(f"camera.calibration: {problem}; the board will be found in every "
                                    "frame (calibrate again: board-pi calibrate)")
    return Readiness(tuple(errors), tuple(warnings))


def _not_a_file(path: str) -> str | None:
    """None for a regular file or a missing one (reported by whoever reads it); else why not."""
    import stat

    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as e:
        return f"{show(path, 300)}: {getattr(e, 'strerror', None) or e}"
    return None if stat.S_ISREG(mode) else f"{show(path, 300)} is not a file"


def data_dir_problem(d: Path) -> str | None:
    """Why ``d`` cannot hold the journal and finished games (None: it can, or can be made)."""
    try:
        target = d
        while not target.exists() and target != target.parent:
            target = target.parent  # what mkdir -p would start from
        if not target.is_dir():
            return f"{d} cannot be a folder: {target} is a file" if target == d else \
                f"{d} cannot be made: {target} is a file, not a folder"
        if not os.access(target, os.W_OK | os.X_OK):
            made = "" if target == d else f" (it would be made in {target})"
            return f"{d} is not writable by this user{made}; set data.dir to a writable folder or fix its owner"
    except (OSError, ValueError) as e:  # a name too long, a loop of links, a NUL
        return f"{show(str(d), 300)}: {getattr(e, 'strerror', None) or e}"
    return None


def listen_problem(host: str, port: int, *, key: str = "web.port") -> str | None:
    """Why the status page cannot listen on ``host``:``port`` (None: it can). Resolves and binds
    as waitress does (every address the name has, SO_REUSEADDR), then lets go."""
    try:
        infos = socket.getaddrinfo(None if host == "*" else host, port, socket.AF_UNSPEC,
                                   socket.SOCK_STREAM, socket.IPPROTO_TCP, socket.AI_PASSIVE)
    except (socket.gaierror, UnicodeError, ValueError, OSError) as e:
        why = e.strerror if isinstance(e, OSError) and e.strerror else str(e)
        return (f"web.host: unknown host {show(host)} ({why}); use \"0.0.0.0\" for every network "
                "of the Pi or \"127.0.0.1\" for the Pi alone")
    held: list[socket.socket] = []
    try:
        for family, kind, proto, _, address in dict.fromkeys((i[0], i[1], i[2], "", i[4]) for i in infos):
            s = socket.socket(family, kind, proto)
            held.append(s)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6:
                s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            s.bind(address)
    except OSError as e:
        where = f"{host}:{port}"
        if e.errno == errno.EADDRINUSE:
            return (f"{key}: {where} is in use by another program; if that is the board-pi service "
                    "itself, stop it first (sudo systemctl stop board-pi); sudo ss -ltnp shows who holds it")
        if e.errno == errno.EACCES:
            return f"{key}: {port} is below 1024 and needs root, which the service does not have; use 8080"
        if e.errno == errno.EADDRNOTAVAIL:
            return f"web.host: {show(host)} is not an address of this machine; use \"0.0.0.0\" or \"127.0.0.1\""
        return f"{key}: cannot listen on {where}: {e.strerror or e}"
    finally:
        for s in held:
            s.close()
    return None


def tiles_problem(path: Path) -> str | None:
    """Why ``path`` is not an enrolled tile profile (None: it is one). Read with numpy alone, no
    pickles; a stand-in until the vision stage has a loader that says the same."""
    import zipfile

    import numpy as np

    try:
        size = os.stat(path).st_size
        if size > MAX_PROFILE_BYTES:
            return f"{path} is {size // 1024**2} MB, too large for a tile profile"
        with np.load(path, allow_pickle=False) as z:
            if not hasattr(z, "files") or not {"embeddings", "labels"} <= set(z.files):
                return f"{path} is not a tile profile (no embeddings and labels in it)"
            emb, labels = z["embeddings"], z["labels"]
    except FileNotFoundError:
        return f"no such file: {path}"
    except (OSError, ValueError, EOFError, zipfile.BadZipFile, KeyError, RuntimeError) as e:
        # numpy raises any of these for an empty, cut-short or foreign file
        return f"{path} is not a tile profile ({type(e).__name__}: {show(str(e))})"
    if emb.ndim != 2 or labels.ndim != 1 or len(emb) != len(labels) or len(labels) == 0 \
            or emb.dtype.kind != "f" or labels.dtype.kind not in "iu":
        return f"{path} is not a tile profile (embeddings {emb.shape}, labels {labels.shape})"
    if not np.isfinite(emb).all():
        return f"{path} is damaged (embeddings that are not numbers)"
    return None


def _lexicon_problem(spec: str, tiles: str = "english") -> str | None:
    from ..rules.lexicon import LexiconError
    from ..rules.tiles import UnknownTileSet, tile_set
    from ..wordlists import load_lexicon

    try:
        # As run loads it: read as the table's tiles (another set than English needs a list).
        load_lexicon(spec, tiles=tile_set(tiles))
    except UnknownTileSet:
        return None  # game.tile_set reports that itself
    except LexiconError as e:
        return str(e)
    except OSError as e:  # the compiled copy cannot be written (a read-only home)
        return f"cannot load {spec!r}: {e.strerror or e}"
    return None


def _calibration_problem(path: Path) -> str | None:
    try:
        from ..vision.calibration import CalibrationError, load
    except ImportError:
        return None  # no camera stage here: run will say so itself
    try:
        load(path)
    except CalibrationError as e:
        return str(e)
    except (ValueError, RecursionError) as e:  # JSON nested or shaped beyond reason
        return f"{path} is not a calibration ({show(str(e))})"
    return None
