"""The table's configuration: one TOML file, validated into frozen dataclasses.

Every setting has a default for the standard build (Camera Module 3 on the Pi's camera port, the
clock buttons and lights on GPIO, the default word list), so an empty file is a valid
configuration. Validation collects *every* problem at once, each naming the key and saying what
is wrong, so a volunteer fixes the file in one go:

>>> try:
...     parse_config("[camera]\\nsourse = 1\\n")
... except ConfigError as e:
...     print(e)
camera.sourse: unknown key; did you mean 'source'?
>>> parse_config("[web]\\nport = 8080\\n").web.port
8080

The commented template (every setting, its default and what it does) ships in the package as
``config_template.toml``; ``board-pi config init`` writes it.
"""

from __future__ import annotations

import difflib
import errno
import math
import os
import re
import socket
import tomllib
from dataclasses import dataclass, field, fields
from importlib import resources
from pathlib import Path
from typing import Any, Callable, Mapping

from .club.settings import ClubSettings, ClubSettingsError, club_settings

from .pin import (PIN_HASH_SHAPE, BadPin, DirectorStoreError, hash_pin, pin_hash_problem, save_pin_hash,
                  stored_pin_hash, validate_pin)

DEFAULT_CONFIG_PATH = Path("/etc/board-pi/board-pi.toml")
"""Where the installer puts the configuration and where the service reads it."""

SYSTEM_DATA_DIR = Path("/var/lib/board-pi")
"""The data directory on a Pi (systemd's ``StateDirectory=board-pi``)."""

MAX_CONFIG_BYTES = 1024**2
"""A configuration is a few KB; anything past this is the wrong file (or /dev/zero), not read on."""
MAX_PROFILE_BYTES = 256 * 1024**2
"""An enrolled tile profile is well under a MB; past this it is not one."""

CAMERA_KEYWORDS = ("picamera2", "synthetic", "none")  # none: plays are entered on the page
CLOCK_BACKENDS = ("gpio", "serial", "none")
DOWNTIME_RULES = ("running", "none")
CHALLENGE_RULES = ("void", "single", "double", "five_points", "ten_points")
GAME_MODES = ("tournament", "casual")
BCM_PINS = range(0, 28)  # GPIO 0-27 on the 40-pin header of every Pi since the B+
# Pins with another job on the header: using them works but takes that job away.
_PIN_JOBS = {
    0: "the HAT ID EEPROM (ID_SD)",
    1: "the HAT ID EEPROM (ID_SC)",
    2: "I2C SDA",
    3: "I2C SCL",
    14: "the serial console (TXD)",
    15: "the serial console (RXD)",
}


class ConfigError(ValueError):
    """The configuration cannot be used; ``problems`` lists every reason, one line each."""

    def __init__(self, problems: list[str] | tuple[str, ...]):
        self.problems = tuple(problems)
        super().__init__("\n".join(self.problems))


# --------------------------------------------------------------------------- the sections


@dataclass(frozen=True)
class CameraConfig:
    """Where frames come from and at what size."""

    source: str | int = "picamera2"
    width: int = 2304
    height: int = 1296
    calibration: str = ""
    tiles: str = ""

    @property
    def source_kind(self) -> str:
        """``picamera2``, ``synthetic``, ``webcam`` (an index), ``device`` (/dev/...) or ``path``."""
        if isinstance(self.source, int):
            return "webcam"
        if self.source in CAMERA_KEYWORDS:
            return self.source
        return "device" if self.source.startswith("/dev/") else "path"


@dataclass(frozen=True)
class ClockConfig:
    """The clock's hardware and the time control."""

    backend: str = "gpio"
    minutes: float = 25
    overtime_penalty: int = 10
    max_overtime_minutes: int = 10
    increment_seconds: float = 0
    delay_seconds: float = 0
    downtime: str = "running"


@dataclass(frozen=True)
class GpioConfig:
    """BCM pin numbers of the buttons, lights and buzzer (``clock.backend = "gpio"``)."""

    player0_button: int = 17
    player1_button: int = 27
    pause_button: int = 22
    challenge_button: int = 23
    hold_button: int = 24
    player0_light: int = 5
    player1_light: int = 6
    green_light: int = 13
    red_light: int = 19
    buzzer: int = 26

    def pins(self) -> dict[str, int]:
        """Every pin by its role, in the order of the wiring table."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


@dataclass(frozen=True)
class SerialConfig:
    """The Pico clock's USB serial port (``clock.backend = "serial"``)."""

    port: str = "/dev/ttyACM0"
    baud: int = 115200


@dataclass(frozen=True)
class GameConfig:
    """The rules the table plays by."""

    challenge_rule: str = "single"
    challenge_points_per_word: bool = False
    lexicon: str = "default"
    tile_set: str = "english"
    mode: str = "tournament"
    players: tuple[str, str] = ("Player 1", "Player 2")


@dataclass(frozen=True)
class WebConfig:
    """The status page."""

    host: str = "0.0.0.0"
    port: int = 8080
    director_pin_hash: str = ""


@dataclass(frozen=True)
class DataConfig:
    """Where journals, finished games and logs of adjudications are kept."""

    dir: str = ""


@dataclass(frozen=True)
class Config:
    """The whole configuration. ``source`` is the file it came from (None for the defaults)."""

    camera: CameraConfig = field(default_factory=CameraConfig)
    clock: ClockConfig = field(default_factory=ClockConfig)
    gpio: GpioConfig = field(default_factory=GpioConfig)
    serial: SerialConfig = field(default_factory=SerialConfig)
    game: GameConfig = field(default_factory=GameConfig)
    web: WebConfig = field(default_factory=WebConfig)
    data: DataConfig = field(default_factory=DataConfig)
    club: ClubSettings = field(default_factory=ClubSettings)  # [club]: defined and checked in board_pi.club
    source: Path | None = None
    warnings: tuple[str, ...] = ()

    def data_dir(self) -> Path:
        """The data directory to use: see :func:`resolve_data_dir`."""
        return resolve_data_dir(self.data.dir)

    def calibration_path(self) -> Path | None:
        """The calibration file: the configured one, else ``calibration.json`` in the data
        directory if it exists, else None (the board is then found in every frame)."""
        if self.camera.calibration:
            return Path(self.camera.calibration)
        cand = self.data_dir() / "calibration.json"
        return cand if cand.is_file() else None

    def tiles_path(self) -> Path | None:
        """The enrolled tile profile (``board-pi enrol``): the configured one, else ``tiles.npz``
        in the data directory if it exists, else None (the tile model reads alone)."""
        if self.camera.tiles:
            return Path(self.camera.tiles)
        cand = self.data_dir() / "tiles.npz"
        return cand if cand.is_file() else None


SECTIONS: dict[str, type] = {
    "camera": CameraConfig,
    "clock": ClockConfig,
    "gpio": GpioConfig,
    "serial": SerialConfig,
    "game": GameConfig,
    "web": WebConfig,
    "data": DataConfig,
}


# --------------------------------------------------------------------------- value checks
# Each check takes the TOML value and returns (value to store, problem or None).

Check = Callable[[Any], "tuple[Any, str | None]"]


def _show(v: Any, limit: int = 40) -> str:
    """A value as a message shows it: long ones cut short (a 4,000-digit number is one line)."""
    text = repr(v) if isinstance(v, str) else str(v)
    return text if len(text) <= limit else text[:limit - 10] + f"... ({len(text)} characters)"


def _type_name(v: Any) -> str:
    if isinstance(v, bool):
        return f"a boolean ({str(v).lower()})"
    if isinstance(v, int):
        return f"an integer ({_show(v)})"
    if isinstance(v, float):
        return f"a number ({v})"
    if isinstance(v, str):
        return f"a string ({_show(v)})"
    if isinstance(v, list):
        return "a list"
    if isinstance(v, dict):
        return "a table"
    return type(v).__name__


def _int(lo: int | None = None, hi: int | None = None, what: str = "an integer") -> Check:
    def check(v: Any) -> tuple[Any, str | None]:
        if isinstance(v, bool) or not isinstance(v, int):
            return v, f"must be {what}, not {_type_name(v)}"
        if (lo is not None and v < lo) or (hi is not None and v > hi):
            rng = f"from {lo} to {hi}" if hi is not None else f"at least {lo}"
            return v, f"must be {rng}, not {_show(v)}"
        return v, None

    return check


def _number(lo: float, hi: float, *, lo_open: bool = False) -> Check:
    def check(v: Any) -> tuple[Any, str | None]:
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            return v, f"must be a number, not {_type_name(v)}"
        if not math.isfinite(v):  # TOML has nan and inf, and 1e400 reads as inf
            return v, f"must be a number, not {v}"
        if (v <= lo if lo_open else v < lo) or v > hi:
            low = f"greater than {lo:g}" if lo_open else f"at least {lo:g}"
            return v, f"must be {low} and at most {hi:g}, not {_show(v)}"
        return v, None

    return check


def _choice(options: tuple[str, ...]) -> Check:
    def check(v: Any) -> tuple[Any, str | None]:
        if not isinstance(v, str):
            return v, f"must be one of {_quoted(options)}, not {_type_name(v)}"
        if v not in options:
            near = difflib.get_close_matches(v.lower(), options, n=1)
            hint = f"; did you mean {near[0]!r}?" if near else ""
            return v, f"must be one of {_quoted(options)}, not {_show(v)}{hint}"
        return v, None

    return check


def _str(*, empty_ok: bool = True) -> Check:
    def check(v: Any) -> tuple[Any, str | None]:
        if not isinstance(v, str):
            return v, f"must be a string, not {_type_name(v)}"
        if not empty_ok and not v.strip():
            return v, "must not be empty"
        if "\0" in v:
            return v, "must not hold a NUL character"
        return v, None

    return check


def _path(*, empty_ok: bool = True) -> Check:
    """A file or folder name: a string that names a path on this machine (``~`` allowed)."""
    as_str = _str(empty_ok=empty_ok)

    def check(v: Any) -> tuple[Any, str | None]:
        v, problem = as_str(v)
        if problem is None and v.startswith("~"):
            try:
                Path(v).expanduser()
            except RuntimeError:  # ~someone who has no account here
                return v, f"{_show(v, 300)}: no such user's home folder"
        if problem is None and len(v) > 4096:
            return v, f"a path of {len(v)} characters is longer than any this system takes"
        return v, problem

    return check


def _bool(v: Any) -> tuple[Any, str | None]:
    if not isinstance(v, bool):
        return v, f"must be true or false, not {_type_name(v)}"
    return v, None


def _camera_source(v: Any) -> tuple[Any, str | None]:
    if isinstance(v, bool):
        return v, f"must be \"picamera2\", \"synthetic\", a webcam index, a device or a file path, not {_type_name(v)}"
    if isinstance(v, int):
        return (v, None) if v >= 0 else (v, f"a webcam index must be 0 or more, not {v}")
    if isinstance(v, str):
        s = v.strip()
        if not s:
            return v, "must not be empty (use \"picamera2\" for the Pi's camera)"
        if s.isascii() and s.isdigit() and len(s) < 6:  # "0" written as a string still means the first webcam
            return int(s), None
        near = difflib.get_close_matches(s.lower(), CAMERA_KEYWORDS, n=1, cutoff=0.75)
        if near and s != near[0] and "/" not in s and "." not in s:
            return v, f"unknown camera {_show(s)}; did you mean {near[0]!r}?"
        if s not in CAMERA_KEYWORDS and not s.isdigit():  # a device or a file: a path
            return _path(empty_ok=False)(s)
        return s, None
    return v, f"must be \"picamera2\", \"synthetic\", a webcam index, a device or a file path, not {_type_name(v)}"


def _players(v: Any) -> tuple[Any, str | None]:
    if not isinstance(v, list) or len(v) != 2 or not all(isinstance(p, str) and p.strip() for p in v):
        return v, "must be a list of two non-empty names, e.g. [\"Ann\", \"Bob\"]"
    return (v[0].strip(), v[1].strip()), None


def _tile_set(v: Any) -> tuple[Any, str | None]:
    from board_pi.rules.tiles import TILE_SETS

    return _choice(tuple(TILE_SETS))(v.lower() if isinstance(v, str) else v)


def _host(v: Any) -> tuple[Any, str | None]:
    v, problem = _str(empty_ok=False)(v)
    if problem is None and (len(v) > 253 or any(c.isspace() or not c.isprintable() for c in v)):
        return v, f"{_show(v)} is not a host name or address (\"0.0.0.0\": every network of the Pi)"
    return v, problem


_pin = _int(BCM_PINS.start, BCM_PINS.stop - 1, "a BCM GPIO number")

CHECKS: dict[str, dict[str, Check]] = {
    "camera": {
        "source": _camera_source,
        "width": _int(160, 9152),
        "height": _int(120, 6944),
        "calibration": _path(),
        "tiles": _path(),
    },
    "clock": {
        "backend": _choice(CLOCK_BACKENDS),
        "minutes": _number(0, 600, lo_open=True),
        "overtime_penalty": _int(0, 1000),
        "max_overtime_minutes": _int(0, 600),
        "increment_seconds": _number(0, 600),
        "delay_seconds": _number(0, 600),
        "downtime": _choice(DOWNTIME_RULES),
    },
    "gpio": {f.name: _pin for f in fields(GpioConfig)},
    "serial": {"port": _path(empty_ok=False), "baud": _int(1, 4_000_000)},
    "game": {
        "challenge_rule": _choice(CHALLENGE_RULES),
        "challenge_points_per_word": _bool,
        "lexicon": _path(empty_ok=False),
        "tile_set": _tile_set,
        "mode": _choice(GAME_MODES),
        "players": _players,
    },
    "web": {"host": _host, "port": _int(1, 65535, "a port number"), "director_pin_hash": _str()},
    "data": {"dir": _path()},
}


def _quoted(options: tuple[str, ...]) -> str:
    return ", ".join(f'"{o}"' for o in options)


def _suggest(name: str, known: tuple[str, ...], noun: str = "keys") -> str:
    near = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
    return f"; did you mean {near[0]!r}?" if near else f"; known {noun}: {', '.join(known)}"


# --------------------------------------------------------------------------- parsing


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
    club = ClubSettings()
    for section, body in raw.items():
        if section == "club" and isinstance(body, dict):
            try:
                club = club_settings(body, need_table=False)  # a hub's [club] has no table
            except ClubSettingsError as e:
                errors.extend(str(e).splitlines())
            continue
        if section not in SECTIONS:
            errors.append(f"[{section}]: unknown section{_suggest(section, tuple(SECTIONS), 'sections')}")
            continue
        if not isinstance(body, dict):
            errors.append(f"{section}: must be a section ([{section}]), not {_type_name(body)}")
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

    sections = {name: cls(**values.get(name, {})) for name, cls in SECTIONS.items()}
    _cross_checks(sections, raw, errors, warnings)
    if errors:
        raise ConfigError(errors)
    sections = _resolve_paths(sections, base_dir)
    return Config(**sections, club=club, source=source, warnings=tuple(warnings))


def _cross_checks(s: dict[str, Any], raw: Mapping[str, Any], errors: list[str], warnings: list[str]) -> None:
    """Problems that involve more than one key."""
    gpio: GpioConfig = s["gpio"]
    clock: ClockConfig = s["clock"]
    game: GameConfig = s["game"]
    web: WebConfig = s["web"]
    by_pin: dict[int, list[str]] = {}
    for role, pin in gpio.pins().items():
        by_pin.setdefault(pin, []).append(role)
    for pin, roles in sorted(by_pin.items()):
        if len(roles) > 1:
            errors.append(f"gpio: pin {pin} is used twice ({', '.join('gpio.' + r for r in roles)}); give each its own pin")
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
    s["camera"] = CameraConfig(source=src, width=cam.width, height=cam.height, calibration=resolve(cam.calibration),
                               tiles=resolve(cam.tiles))
    s["data"] = DataConfig(dir=resolve(s["data"].dir))
    lex = s["game"].lexicon
    if "/" in lex or lex.endswith(".txt"):  # a path, not a lexicon name
        from dataclasses import replace

        s["game"] = replace(s["game"], lexicon=resolve(lex))
    return s


def resolve_data_dir(configured: str = "") -> Path:
    """The data directory: the configured one; else systemd's $STATE_DIRECTORY (the service);
    else /var/lib/board-pi when it exists and is writable (a Pi); else ./data (a checkout)."""
    if configured:
        return Path(configured)
    state = os.environ.get("STATE_DIRECTORY")
    if state:
        return Path(state.split(":")[0])
    if SYSTEM_DATA_DIR.is_dir() and os.access(SYSTEM_DATA_DIR, os.W_OK | os.X_OK):
        return SYSTEM_DATA_DIR
    return Path.cwd() / "data"


# --------------------------------------------------------------------------- ready to run?
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
    problem = problem or _lexicon_problem(lexicon)
    if problem:
        errors.append(f"game.lexicon: {problem}")
    if cfg.camera.source not in ("none", ""):
        if cfg.camera.source_kind == "path" and not os.path.exists(str(cfg.camera.source)):
            errors.append(f"camera.source: no such file or folder: {_show(cfg.camera.source, 300)}")
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
        return f"{_show(path, 300)}: {getattr(e, 'strerror', None) or e}"
    return None if stat.S_ISREG(mode) else f"{_show(path, 300)} is not a file"


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
        return f"{_show(str(d), 300)}: {getattr(e, 'strerror', None) or e}"
    return None


def listen_problem(host: str, port: int, *, key: str = "web.port") -> str | None:
    """Why the status page cannot listen on ``host``:``port`` (None: it can). Resolves and binds
    as waitress does (every address the name has, SO_REUSEADDR), then lets go."""
    try:
        infos = socket.getaddrinfo(None if host == "*" else host, port, socket.AF_UNSPEC,
                                   socket.SOCK_STREAM, socket.IPPROTO_TCP, socket.AI_PASSIVE)
    except (socket.gaierror, UnicodeError, ValueError, OSError) as e:
        why = e.strerror if isinstance(e, OSError) and e.strerror else str(e)
        return (f"web.host: unknown host {_show(host)} ({why}); use \"0.0.0.0\" for every network "
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
            return f"web.host: {_show(host)} is not an address of this machine; use \"0.0.0.0\" or \"127.0.0.1\""
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
        return f"{path} is not a tile profile ({type(e).__name__}: {_show(str(e))})"
    if emb.ndim != 2 or labels.ndim != 1 or len(emb) != len(labels) or len(labels) == 0 \
            or emb.dtype.kind != "f" or labels.dtype.kind not in "iu":
        return f"{path} is not a tile profile (embeddings {emb.shape}, labels {labels.shape})"
    if not np.isfinite(emb).all():
        return f"{path} is damaged (embeddings that are not numbers)"
    return None


def _lexicon_problem(spec: str) -> str | None:
    from .rules.lexicon import LexiconError
    from .wordlists import load_lexicon

    try:
        load_lexicon(spec)
    except LexiconError as e:
        return str(e)
    except OSError as e:  # the compiled copy cannot be written (a read-only home)
        return f"cannot load {spec!r}: {e.strerror or e}"
    return None


def _calibration_problem(path: Path) -> str | None:
    try:
        from .vision.calibration import CalibrationError, load
    except ImportError:
        return None  # no camera stage here: run will say so itself
    try:
        load(path)
    except CalibrationError as e:
        return str(e)
    except (ValueError, RecursionError) as e:  # JSON nested or shaped beyond reason
        return f"{path} is not a calibration ({_show(str(e))})"
    return None


# --------------------------------------------------------------------------- the template


def template_text() -> str:
    """The commented configuration template (every setting, its default, what it does)."""
    return resources.files("board_pi").joinpath("config_template.toml").read_text(encoding="utf-8")


def _toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    return '"' + str(v).replace("\\", "\\\\").replace('"', '\\"') + '"'
