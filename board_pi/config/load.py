"""Reading a configuration: TOML text or a file, checked against the schema, every problem
at once (each naming the key), relative paths taken from the file's folder."""

from __future__ import annotations

import difflib
import os
import tomllib
from dataclasses import replace
from pathlib import Path
from typing import Any, Mapping

from ..hardware.gpio import GpioPins
from ..pin import PIN_HASH_SHAPE, pin_hash_problem
from ..settings import type_name
from .schema import (CHECKS, DEFAULT_CONFIG_PATH, MAX_CONFIG_BYTES, SECTIONS, _PIN_JOBS, CameraConfig, ClockConfig,
                     Config, ConfigError, DataConfig, GameConfig, WebConfig)


def _suggest(name: str, known: tuple[str, ...], noun: str = "keys") -> str:
    near = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
    return f"; did you mean {near[0]!r}?" if near else f"; known {noun}: {', '.join(known)}"


def parse_config(text: str, *, base_dir: Path | None = None, source: Path | None = None) -> Config:
    """Validate TOML text into a :class:`Config`; raise :class:`ConfigError` with every problem.

    Relative paths (calibration, camera files, data directory, a lexicon file) are taken relative
    to ``base_dir``, the configuration file's folder, so a file works wherever it is run from.
    """
    where = f"{source}: " if source else ""
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError([f"{where}not valid TOML: {e}"]) from None
    except RecursionError:  # tomllib recurses once per level of [[[...]]] or {a={b=...}}
        raise ConfigError([f"{where}not a configuration: values nested too deeply"]) from None
    except ValueError:  # tomllib's int() refuses integers past Python's 4,300 digits
        raise ConfigError([f"{where}not a configuration: a number with thousands of digits"]) from None
    return _build(raw, base_dir=base_dir, source=source)


def load_config(path: str | os.PathLike[str] | None = None) -> Config:
    """Read and validate a configuration file; with no path, the one :func:`find_config` finds
    (the defaults when there is none). Raises :class:`ConfigError` (also for a missing file)."""
    p = Path(path) if path is not None else find_config()
    if p is None:
        return Config()
    try:
        with open(p, "rb") as f:
            data = f.read(MAX_CONFIG_BYTES + 1)  # bounded: /dev/zero or a log given by mistake
    except FileNotFoundError:
        raise ConfigError([f"{p}: no such file (write one with `board-pi config init {p}`)"]) from None
    except IsADirectoryError:
        raise ConfigError([f"{p}: is a directory, not a configuration file"]) from None
    except PermissionError:
        raise ConfigError([f"{p}: not readable by this user (check its owner and mode)"]) from None
    except (OSError, ValueError) as e:  # a name too long, a NUL in it, a device that fails
        raise ConfigError([f"{p}: cannot be read ({getattr(e, 'strerror', None) or e})"]) from None
    if len(data) > MAX_CONFIG_BYTES:
        raise ConfigError([f"{p}: larger than {MAX_CONFIG_BYTES // 1024} KB; not a configuration file"])
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ConfigError([f"{p}: not UTF-8 text (byte {e.start}); is this the right file?"]) from None
    return parse_config(text, base_dir=p.resolve().parent, source=p)


def find_config(explicit: str | os.PathLike[str] | None = None) -> Path | None:
    """The configuration file to use: ``explicit``, else $BOARD_PI_CONFIG, else
    /etc/board-pi/board-pi.toml, else ./board-pi.toml; None when there is none (defaults apply)."""
    if explicit is not None:
        return Path(explicit)
    env = os.environ.get("BOARD_PI_CONFIG")
    if env:
        return Path(env)
    for cand in (DEFAULT_CONFIG_PATH, Path("board-pi.toml")):
        if cand.is_file():
            return cand
    return None


def _build(raw: Mapping[str, Any], *, base_dir: Path | None, source: Path | None) -> Config:
    errors: list[str] = []
    warnings: list[str] = []
    values: dict[str, dict[str, Any]] = {}
    club: dict[str, Any] = {}
    for section, body in raw.items():
        if section == "club" and isinstance(body, dict):
            club = dict(body)  # checked by board_pi.club.settings (see Config.club)
            continue
        if section not in SECTIONS:
            errors.append(f"[{section}]: unknown section{_suggest(section, tuple(SECTIONS), 'sections')}")
            continue
        if not isinstance(body, dict):
            errors.append(f"{section}: must be a section ([{section}]), not {type_name(body)}")
            continue
        checks = CHECKS[section]
        values[section] = {}
        for key, v in body.items():
            if key not in checks:
                errors.append(f"{section}.{key}: unknown key{_suggest(key, tuple(checks))}")
                continue
            value, problem = checks[key](v)
            if problem:
                errors.append(f"{section}.{key}: {problem}")
            else:
                values[section][key] = value

    if _pins_used_twice(values.setdefault("gpio", {}), errors):
        values["gpio"] = {k: v for k, v in values["gpio"].items() if k not in GpioPins().pins()}
    sections = {name: cls(**values.get(name, {})) for name, cls in SECTIONS.items()}
    _cross_checks(sections, raw, errors, warnings)
    if errors:
        raise ConfigError(errors)
    sections = _resolve_paths(sections, base_dir)
    return Config(**sections, club=club, source=source, warnings=tuple(warnings))


def _pins_used_twice(gpio: dict[str, Any], errors: list[str]) -> bool:
    """Whether two of the [gpio] pins (as given, the rest at their defaults) are the same; each
    such pin is an error. Checked before a GpioPins is made, which would refuse them."""
    by_pin: dict[int, list[str]] = {}
    for role, pin in {**GpioPins().pins(), **gpio}.items():
        if role in GpioPins().pins():
            by_pin.setdefault(pin, []).append(role)
    twice = [(pin, roles) for pin, roles in sorted(by_pin.items()) if len(roles) > 1]
    for pin, roles in twice:
        errors.append(f"gpio: pin {pin} is used twice ({', '.join('gpio.' + r for r in roles)}); give each its own pin")
    return bool(twice)


def _cross_checks(s: dict[str, Any], raw: Mapping[str, Any], errors: list[str], warnings: list[str]) -> None:
    """Problems that involve more than one key."""
    gpio: GpioPins = s["gpio"]
    clock: ClockConfig = s["clock"]
    game: GameConfig = s["game"]
    web: WebConfig = s["web"]
    if clock.backend == "gpio":
        for role, pin in gpio.pins().items():
            if pin in _PIN_JOBS:
                warnings.append(f"gpio.{role}: pin {pin} is also {_PIN_JOBS[pin]}; it works, but that job is lost")
    if clock.increment_seconds and clock.delay_seconds:
        errors.append("clock.increment_seconds, clock.delay_seconds: choose an increment or a delay, not both")
    if game.mode == "tournament" and (clock.increment_seconds or clock.delay_seconds):
        errors.append(
            "clock.increment_seconds/delay_seconds: tournament games have no increment or delay; "
            'set game.mode = "casual" or set them to 0'
        )
    if game.challenge_points_per_word and game.challenge_rule not in ("five_points", "ten_points"):
        warnings.append(
            f"game.challenge_points_per_word: only applies to the five_points and ten_points rules, "
            f"not {game.challenge_rule!r}; it is ignored"
        )
    if web.port < 1024:
        warnings.append(f"web.port: {web.port} is below 1024; the board-pi service user cannot listen there (8080 is usual)")
    if web.director_pin_hash:
        # An old configuration's hash is still used (until a PIN is set in the data directory):
        # one that cannot be checked (scrypt costs out of range) would lock the director out.
        problem = pin_hash_problem(web.director_pin_hash)
        if problem and not PIN_HASH_SHAPE.match(web.director_pin_hash):
            errors.append(
                "web.director_pin_hash: not a PIN hash (never write the PIN itself here); "
                "set the PIN with `board-pi config set-pin`"
            )
        elif problem:
            errors.append(f"web.director_pin_hash: {problem}; remove the line and set the PIN with `board-pi config set-pin`")
    if s["camera"].width < s["camera"].height:
        warnings.append("camera.width/height: the frame is taller than wide; is this intended?")


def _resolve_paths(s: dict[str, Any], base_dir: Path | None) -> dict[str, Any]:
    if base_dir is None:
        return s

    def resolve(p: str) -> str:
        return str((base_dir / Path(p).expanduser()).resolve()) if p and not Path(p).expanduser().is_absolute() else p

    cam: CameraConfig = s["camera"]
    src = cam.source
    if cam.source_kind == "path":
        src = resolve(str(src))
    s["camera"] = replace(cam, source=src, calibration=resolve(cam.calibration), tiles=resolve(cam.tiles))
    s["data"] = DataConfig(dir=resolve(s["data"].dir))
    lex = s["game"].lexicon
    if "/" in lex or lex.endswith(".txt"):  # a path, not a lexicon name
        s["game"] = replace(s["game"], lexicon=resolve(lex))
    return s
