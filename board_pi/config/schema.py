"""The configuration's schema: its sections, every key's default and its check.

The time control's keys take their defaults and limits from :class:`~board_pi.clock.TimeControl`,
the ``[gpio]`` section is :class:`~board_pi.hardware.gpio.GpioPins` itself, and the challenge
rules are :class:`~board_pi.rules.game.ChallengeRule`'s: each setting is defined once, on the
domain type it configures, and checked here through :mod:`board_pi.settings`. Each check takes
the TOML value and returns (the value to keep, None) or (the value, what is wrong with it).
"""

from __future__ import annotations

import difflib
import os
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from ..clock import TimeControl
from ..hardware.gpio import GpioPins
from ..rules.game import ChallengeRule
from ..settings import Check, Limits, boolean, checker, choice, show, type_name

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
CHALLENGE_RULES = tuple(rule.value for rule in ChallengeRule)
GAME_MODES = ("tournament", "casual")
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
    learn: bool = True
    """Learn the table's own tiles from every play (``learned-tiles.npz`` in the data directory)."""

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
    """The clock's hardware and the time control (defaults and limits: :class:`TimeControl`'s)."""

    backend: str = "gpio"
    minutes: float = TimeControl.minutes
    overtime_penalty: int = TimeControl.overtime_penalty
    max_overtime_minutes: float = TimeControl.max_overtime_minutes
    increment_seconds: float = TimeControl.increment_seconds
    delay_seconds: float = TimeControl.delay_seconds
    downtime: str = "running"

    def time_control(self) -> TimeControl:
        """The time control this section sets (the rest at TimeControl's defaults)."""
        return TimeControl(**{key: getattr(self, key) for key in TIME_CONTROL_KEYS},
                           charge_downtime=self.downtime == "running")


TIME_CONTROL_KEYS = ("minutes", "overtime_penalty", "max_overtime_minutes", "increment_seconds", "delay_seconds")
"""The [clock] keys that are :class:`TimeControl`'s settings, checked against its limits."""


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
    gpio: GpioPins = field(default_factory=GpioPins)
    serial: SerialConfig = field(default_factory=SerialConfig)
    game: GameConfig = field(default_factory=GameConfig)
    web: WebConfig = field(default_factory=WebConfig)
    data: DataConfig = field(default_factory=DataConfig)
    # [club] as written: club night's settings are defined and checked by board_pi.club.settings,
    # a layer above this one (the commands check it: run, demo, hub, config check).
    club: dict[str, Any] = field(default_factory=dict)
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

    def learned_path(self) -> Path | None:
        """Where the table keeps what it learns of its own tiles (None: it does not learn)."""
        return self.data_dir() / "learned-tiles.npz" if self.camera.learn else None

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
    "gpio": GpioPins,  # the GPIO clock's own settings, under the same names
    "serial": SerialConfig,
    "game": GameConfig,
    "web": WebConfig,
    "data": DataConfig,
}


# --------------------------------------------------------------------------- value checks

def _int(lo: int | None = None, hi: int | None = None, what: str = "") -> Check:
    return Limits(lo, hi, whole=True, what=what).check


def _str(*, empty_ok: bool = True) -> Check:
    def check(v: Any) -> tuple[Any, str | None]:
        if not isinstance(v, str):
            return v, f"must be a string, not {type_name(v)}"
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
                return v, f"{show(v, 300)}: no such user's home folder"
        if problem is None and len(v) > 4096:
            return v, f"a path of {len(v)} characters is longer than any this system takes"
        return v, problem

    return check


def _camera_source(v: Any) -> tuple[Any, str | None]:
    if isinstance(v, bool):
        return v, f"must be \"picamera2\", \"synthetic\", a webcam index, a device or a file path, not {type_name(v)}"
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
            return v, f"unknown camera {show(s)}; did you mean {near[0]!r}?"
        if s not in CAMERA_KEYWORDS and not s.isdigit():  # a device or a file: a path
            return _path(empty_ok=False)(s)
        return s, None
    return v, f"must be \"picamera2\", \"synthetic\", a webcam index, a device or a file path, not {type_name(v)}"


def _players(v: Any) -> tuple[Any, str | None]:
    if not isinstance(v, list) or len(v) != 2 or not all(isinstance(p, str) and p.strip() for p in v):
        return v, "must be a list of two non-empty names, e.g. [\"Ann\", \"Bob\"]"
    return (v[0].strip(), v[1].strip()), None


def _tile_set(v: Any) -> tuple[Any, str | None]:
    from board_pi.rules.tiles import TILE_SETS

    return choice(tuple(TILE_SETS))(v.lower() if isinstance(v, str) else v)


def _host(v: Any) -> tuple[Any, str | None]:
    v, problem = _str(empty_ok=False)(v)
    if problem is None and (len(v) > 253 or any(c.isspace() or not c.isprintable() for c in v)):
        return v, f"{show(v)} is not a host name or address (\"0.0.0.0\": every network of the Pi)"
    return v, problem


CHECKS: dict[str, dict[str, Check]] = {
    "camera": {
        "source": _camera_source,
        "width": _int(160, 9152),
        "height": _int(120, 6944),
        "calibration": _path(),
        "tiles": _path(),
        "learn": boolean,
    },
    "clock": {
        "backend": choice(CLOCK_BACKENDS),
        **{key: checker(TimeControl, key) for key in TIME_CONTROL_KEYS},
        "downtime": choice(DOWNTIME_RULES),
    },
    "gpio": {f.name: checker(GpioPins, f.name) for f in fields(GpioPins)},
    "serial": {"port": _path(empty_ok=False), "baud": _int(1, 4_000_000)},
    "game": {
        "challenge_rule": choice(CHALLENGE_RULES),
        "challenge_points_per_word": boolean,
        "lexicon": _path(empty_ok=False),
        "tile_set": _tile_set,
        "mode": choice(GAME_MODES),
        "players": _players,
    },
    "web": {"host": _host, "port": _int(1, 65535, "a port number"), "director_pin_hash": _str()},
    "data": {"dir": _path()},
}


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
