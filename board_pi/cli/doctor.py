"""``board-pi doctor``: is this table ready to play? Every check says what it found and, when
something is wrong, how to fix it.

The checks: the configuration, the camera (a frame captured and the board found in it), the clock
hardware (GPIO pins, or the Pico's serial port and firmware), the lexicon, the data directory and
its free space, the system clock (a Pi has no battery-backed clock, so the time comes from the
network), the status page's port, and the service user's groups.

A development machine has no camera and no GPIO: the doctor says what is missing and why, and
never crashes. The exit code is 1 when a required check fails (the table cannot run), else 0;
warnings (things that work but deserve a look) do not change it.
"""

from __future__ import annotations

import importlib
import json
import os
import shutil
import subprocess
import sys
import threading
import time
import warnings
from dataclasses import asdict, dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any, Callable

from board_pi.config import (SYSTEM_DATA_DIR, Config, ConfigError, find_config, listen_problem, load_config,
                             tiles_problem)

class Status(StrEnum):
    """A check's outcome (its value is what ``--json`` prints)."""

    OK = "ok"
    WARN = "warn"  # works, but deserves a look
    FAIL = "fail"  # the table cannot run (unless the check is not required)
    SKIP = "skip"  # not checked here (not configured, or nothing to check)


OK, WARN, FAIL, SKIP = Status.OK, Status.WARN, Status.FAIL, Status.SKIP

CAMERA_TIMEOUT = 20.0  # seconds for opening the camera, capturing a frame and finding the board
MIN_FREE_BYTES = 100 * 1024**2  # below this a game's journal may not fit: fail
LOW_FREE_BYTES = 1024**3  # below this, warn
SERVICE_USER = "board-pi"
SERVICE_GROUPS = {"video": "the camera", "gpio": "the GPIO pins", "dialout": "the serial port"}
INSTALL_HINT = "run systemd/install.sh from the board-pi checkout (it installs the system packages and the venv)"


@dataclass(frozen=True)
class Result:
    """One check's outcome: ``status`` is ok, warn, fail or skip; ``fix`` says what to do."""

    name: str
    status: Status
    detail: str
    fix: str = ""
    required: bool = True

    @property
    def failed(self) -> bool:
        return self.status == FAIL and self.required


# --------------------------------------------------------------------------- the checks


def check_config(path: str | None) -> tuple[Result, Config]:
    """The configuration file; on failure the remaining checks run with the defaults."""
    found = find_config(path)
    if found is None:
        return (
            Result("config", WARN, "no configuration file found; using the built-in defaults",
                   "write one: sudo board-pi config init (then edit /etc/board-pi/board-pi.toml)"),
            Config(),
        )
    try:
        cfg = load_config(found)
    except ConfigError as e:
        return (
            Result("config", FAIL, "; ".join(e.problems) + " (the other checks use the defaults)",
                   f"edit {found} and run: board-pi config check {found}"),
            Config(),
        )
    detail = f"{found}: valid"
    if cfg.warnings:
        return Result("config", WARN, detail + "; " + "; ".join(cfg.warnings), f"edit {found}"), cfg
    return Result("config", OK, detail), cfg


def _guarded_import(module: str) -> tuple[Any | None, str]:
    """The module, or None and why (a missing part of board-pi is reported, not raised)."""
    try:
        return importlib.import_module(module), ""
    except ImportError as e:
        return None, str(e) or type(e).__name__


def _camera_precheck(cfg: Config) -> Result | None:
    """What can be said about the camera before opening it: a missing device or library."""
    cam = cfg.camera
    kind = cam.source_kind
    if kind == "picamera2":
        mod, why = _guarded_import("picamera2")
        if mod is None:
            return Result("camera", FAIL, f"the picamera2 library is not importable ({why})",
                          "sudo apt install python3-picamera2, and use a venv made with --system-site-packages; "
                          + INSTALL_HINT)
        try:
            cams = mod.Picamera2.global_camera_info()
        except Exception as e:  # libcamera errors have no common base class
            return Result("camera", FAIL, f"libcamera could not list cameras: {e}",
                          "check the ribbon cable (contacts facing the right way, both ends latched), then reboot")
        if not cams:
            return Result("camera", FAIL, "no camera found by libcamera",
                          "check the ribbon cable and its orientation at both ends; `rpicam-hello --list-cameras` must list it")
    elif kind == "webcam":
        dev = Path(f"/dev/video{cam.source}")
        if not dev.exists():
            return Result("camera", FAIL, f"no webcam {cam.source}: {dev} does not exist",
                          "plug the webcam in (`ls /dev/video*` lists cameras) or set camera.source")
    elif kind == "device":
        dev = Path(str(cam.source))
        if not dev.exists():
            return Result("camera", FAIL, f"{dev} does not exist",
                          "plug the camera in (`ls /dev/video*` lists cameras) or set camera.source")
        if not os.access(dev, os.R_OK | os.W_OK):
            return Result("camera", FAIL, f"{dev} is not accessible by this user",
                          f"add the user to the video group: sudo usermod -aG video {_user()}, then log in again")
    elif kind == "path":
        if not Path(str(cam.source)).exists():
            return Result("camera", FAIL, f"{cam.source} does not exist", "set camera.source to an existing photo, folder or video")
    return None


def check_camera(cfg: Config, timeout: float = CAMERA_TIMEOUT) -> Result:
    """Open the configured source, capture one frame and find the board in it."""
    pre = _camera_precheck(cfg)
    if pre is not None:
        return pre
    frames, why = _guarded_import("board_pi.vision.frames")
    locate, why2 = _guarded_import("board_pi.vision.locate")
    read, _ = _guarded_import("board_pi.vision.read")
    if frames is None or locate is None or not hasattr(frames, "open_source") or not hasattr(locate, "find_board"):
        return Result("camera", FAIL, f"vision stage not installed ({why or why2 or 'open_source/find_board missing'}); "
                      f"source {cfg.camera.source!r} not tried",
                      "install the complete board-pi: pip install . in an up-to-date checkout, or rerun systemd/install.sh")

    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            t0 = time.monotonic()
            src = _open(frames.open_source, cfg)
            try:
                frame = _first_frame(src)
            finally:
                close = getattr(src, "close", None)
                if callable(close):
                    close()
            outcome["capture_s"] = time.monotonic() - t0
            outcome["shape"] = getattr(frame, "shape", None)
            outcome["board"] = locate.find_board(frame)
            if hasattr(frames, "grain") and getattr(frame, "ndim", 0) >= 2:
                outcome["grain"] = frames.grain(frames.middle_half(frame))
            board = outcome["board"]
            if not _board_missing(board) and hasattr(read, "board_washed_out"):
                outcome["burnt"] = read.board_washed_out(frame, board.corners)
            if _board_missing(board):
                # Looked for as a photo is: a board too small in the frame for a table to follow.
                outcome["far"] = locate.find_board(frame, far=True)
        except Exception as e:  # any camera or vision error becomes a report line
            outcome["error"] = f"{type(e).__name__}: {e}"

    t = threading.Thread(target=run, name="doctor-camera", daemon=True)
    t.start()
    t.join(timeout)
    if t.is_alive():
        return Result("camera", FAIL, f"no frame from {cfg.camera.source!r} within {timeout:g} s",
                      "another program may hold the camera (sudo systemctl stop board-pi); check the cable; reboot")
    if "error" in outcome:
        return Result("camera", FAIL, f"could not capture from {cfg.camera.source!r}: {outcome['error']}",
                      "check the cable and camera.source; `rpicam-hello` tests the Pi camera on its own")
    shape = outcome.get("shape")
    size = f"{shape[1]}x{shape[0]}" if shape is not None and len(shape) >= 2 else "a frame"
    far = outcome.get("far")
    if _board_missing(outcome.get("board")) and not _board_missing(far):
        return Result("camera", FAIL, f"captured {size} from {cfg.camera.source!r}: the board is in it but small "
                      f"(squares of {far.square_px:.0f} pixels), and a table follows the board only where it fills most "
                      "of the frame",
                      "lower the camera or zoom in until the board fills most of the frame (docs/camera-and-"
                      "calibration.md, where to put the camera); then run the doctor again")
    if _board_missing(outcome.get("board")):
        return Result("camera", FAIL, f"captured {size} from {cfg.camera.source!r}, but no board found in it",
                      "put the board fully in view (see docs/hardware.md for the camera height), light it evenly, "
                      "and clear the board edges; then run the doctor again")
    burnt = read.washed_out_note(outcome["burnt"]) if "burnt" in outcome else None
    if burnt:
        return Result("camera", WARN, f"captured {size} from {cfg.camera.source!r}; board found, but {burnt}",
                      "take the light down or move the lamp off the board's axis (the Pi camera, and a webcam on "
                      "Linux that lets its exposure be fixed, take theirs down by themselves when they start, "
                      "to a quarter at most); then calibrate again")
    grain = outcome.get("grain")
    if grain is not None and grain >= GRAINY_FRAME:
        return Result("camera", WARN, f"captured {size} from {cfg.camera.source!r}; board found, but the frame is grainy "
                      f"(noise of {grain:.0f} grey levels): the camera is turning its gain up for want of light",
                      "light the table better (a lamp over the board, not beside it); the reader smooths grainy frames, "
                      "but small letters and plain blanks suffer")
    return Result("camera", OK, f"captured {size} from {cfg.camera.source!r} in {outcome['capture_s']:.1f} s; board found")


GRAINY_FRAME = 10.0
"""Sensor noise (grey levels, :func:`board_pi.vision.frames.grain` of the frame's middle half) from
which the doctor warns: the real photos here measure 1 at most, darkened 3, rendered frames up to
8. The reader smooths what it reads (:data:`board_pi.vision.read.GRAIN_FROM`), and read the tuning
photos made grainier still (about 13, then 18) 100% and 99.84%; blanks and small letters are the
first to suffer."""


def _open(open_source: Callable[..., Any], cfg: Config) -> Any:
    """The camera as `board-pi run` opens it: at the configured size (files keep their own)."""
    return open_source(str(cfg.camera.source), width=cfg.camera.width, height=cfg.camera.height)


def _first_frame(src: Any) -> Any:
    for name in ("read", "capture", "grab"):
        fn = getattr(src, name, None)
        if callable(fn):
            frame = fn()
            if isinstance(frame, tuple) and len(frame) == 2 and isinstance(frame[0], bool):  # OpenCV style
                ok, frame = frame
                if not ok:
                    raise RuntimeError("the source gave no frame")
            if frame is None:
                raise RuntimeError("the source gave no frame")
            return frame
    return next(iter(src))


def _board_missing(board: Any) -> bool:
    if board is None or board is False:
        return True
    found = getattr(board, "found", None)
    return found is False


def check_clock(cfg: Config) -> Result:
    """The clock hardware of the configured backend."""
    backend = cfg.clock.backend
    if backend == "none":
        return Result("clock", OK, "no clock hardware configured (clock.backend = \"none\"): presses come from the page")
    if backend == "gpio":
        return _check_gpio(cfg)
    return _check_serial(cfg)


def _check_gpio(cfg: Config) -> Result:
    try:
        import gpiozero  # noqa: F401  (BadPinFactory is an ImportError too: import first, alone)
    except ImportError as e:
        return Result("clock", FAIL, f"gpiozero is not importable ({e})",
                      "sudo apt install python3-gpiozero python3-lgpio; " + INSTALL_HINT)
    from gpiozero import LED, Button, Buzzer
    from gpiozero.exc import BadPinFactory, GPIOPinInUse, GPIOZeroError

    devices: list[Any] = []
    stuck: list[str] = []
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # gpiozero warns about each pin factory it falls back from
            for role, pin in cfg.gpio.pins().items():
                if role.endswith("_button"):
                    b = Button(pin, pull_up=True)
                    devices.append(b)
                    if b.is_pressed:
                        stuck.append(f"{role} (GPIO{pin})")
                elif role == "buzzer":
                    devices.append(Buzzer(pin))
                else:
                    devices.append(LED(pin))
    except BadPinFactory:
        return Result("clock", FAIL, "no GPIO on this machine (not a Raspberry Pi, or no pin library)",
                      "on a Pi: sudo apt install python3-lgpio; elsewhere set clock.backend = \"none\" or \"serial\"")
    except GPIOPinInUse as e:
        return Result("clock", FAIL, f"a pin is in use by another program: {e}",
                      "stop the service first (sudo systemctl stop board-pi), or check gpio.* for a pin another HAT uses")
    except (GPIOZeroError, OSError) as e:
        fix = f"add the user to the gpio group: sudo usermod -aG gpio {_user()}" if isinstance(e, PermissionError) \
            else "check the [gpio] pins against docs/hardware.md"
        return Result("clock", FAIL, f"GPIO error: {e}", fix)
    finally:
        for d in devices:
            d.close()
    pins = ", ".join(f"{r}={p}" for r, p in cfg.gpio.pins().items())
    if stuck:
        return Result("clock", WARN, f"GPIO pins opened, but {', '.join(stuck)} reads pressed at rest",
                      "a button wired to 3.3 V instead of ground, a stuck button, or the wrong pin: see the wiring table",
                      required=False)
    return Result("clock", OK, f"GPIO pins opened ({pins}); no button pressed at rest")


def _check_serial(cfg: Config) -> Result:
    port = cfg.serial.port
    if not Path(port).exists():
        by_id = sorted(str(p) for p in Path("/dev/serial/by-id").glob("*")) if Path("/dev/serial/by-id").is_dir() else []
        seen = f" (serial devices present: {', '.join(by_id)})" if by_id else ""
        return Result("clock", FAIL, f"serial port {port} does not exist{seen}",
                      "plug the Pico clock in with a data USB cable (not a charge-only one) and check serial.port")
    try:
        import serial
    except ImportError:
        return Result("clock", FAIL, "pyserial is not importable", "pip install pyserial in the venv; " + INSTALL_HINT)
    try:
        serial.Serial(port, cfg.serial.baud, timeout=0.5, exclusive=True).close()
    except serial.SerialException as e:
        busy = "busy" in str(e).lower() or "lock" in str(e).lower()
        if isinstance(e.__cause__, PermissionError) or "ermission" in str(e):
            fix = f"add the user to the dialout group: sudo usermod -aG dialout {_user()}, then log in again"
        elif busy:
            fix = "another program holds the port: stop the service first (sudo systemctl stop board-pi)"
        else:
            fix = "unplug and replug the Pico; check serial.port"
        return Result("clock", FAIL, f"cannot open {port}: {e}", fix)
    from board_pi.hardware.serial_clock import NoPico, firmware_version

    try:
        version = firmware_version(port, cfg.serial.baud, timeout=3.0)
    except (NoPico, serial.SerialException) as e:  # a silent or foreign device on the port
        return Result("clock", FAIL, f"{port} opens, but the Pico clock did not answer: {e}",
                      "flash the board-pi firmware onto the Pico (firmware/README.md) and check serial.port")
    return Result("clock", OK, f"Pico clock on {port}, firmware {version}")


def check_lexicon(cfg: Config) -> Result:
    """The configured word list loads (through the rules engine when it is installed)."""
    name = cfg.game.lexicon
    lex, why = _guarded_import("board_pi.rules.lexicon")
    if lex is not None and hasattr(lex, "load_lexicon"):
        try:
            t0 = time.monotonic()
            loaded = lex.load_lexicon(name)
            dt = time.monotonic() - t0
        except Exception as e:  # unknown name, unreadable file, bad format: all reported
            return Result("lexicon", FAIL, f"lexicon {name!r} does not load: {e}",
                          "set game.lexicon to \"default\", a name in lexicons/, or the path of a word list")
        try:
            count = f"{len(loaded):,} words, "
        except TypeError:
            count = ""
        return Result("lexicon", OK, f"lexicon {name!r}: {count}loaded in {dt:.1f} s")
    # Without the rules engine only the file can be checked.
    if name == "default":
        try:
            from importlib import resources

            words = resources.files("kjxqz").joinpath("words.txt")
            if not words.is_file():
                raise FileNotFoundError("kjxqz/words.txt")
            n = sum(1 for line in words.read_text(encoding="utf-8").splitlines() if line.strip())
        except (ImportError, OSError) as e:
            return Result("lexicon", FAIL, f"the default word list is missing ({e})",
                          "pip install kjxqz in the venv; " + INSTALL_HINT)
        return Result("lexicon", OK, f"default word list (kjxqz): {n:,} words (file checked; rules engine not installed)")
    p = Path(name)
    if p.is_file():
        return Result("lexicon", OK, f"word list {p} exists (file checked; rules engine not installed)")
    return Result("lexicon", FAIL, f"lexicon {name!r} not found and the rules engine is not installed ({why})",
                  "install the complete board-pi, or set game.lexicon to \"default\" or a word list's path")


def check_calibration(cfg: Config) -> Result:
    """The saved view of the board, if there is one, can be used."""
    if cfg.camera.source in ("none", ""):
        return Result("calibration", SKIP, "no camera configured", required=False)
    path = cfg.calibration_path()
    if path is None:
        return Result("calibration", WARN, "no calibration: the board is found in every frame",
                      "for a fixed camera, calibrate once: board-pi calibrate (docs/camera-and-calibration.md)",
                      required=False)
    cal, why = _guarded_import("board_pi.vision.calibration")
    if cal is None:
        return Result("calibration", SKIP, f"{path}: not checked, the camera stage is not installed ({why})",
                      required=False)
    try:
        c = cal.load(path)
    except cal.CalibrationError as e:
        return Result("calibration", WARN, f"{e}: the board will be found in every frame instead",
                      "calibrate again: board-pi calibrate", required=False)
    geometry, _ = _guarded_import("board_pi.vision.geometry")
    cut = geometry.squares_outside(c.corners, c.frame_size) if geometry is not None else []
    if cut:  # saved before calibrate refused such a frame, or edited by hand
        return Result("calibration", WARN, f"{path}: the grid runs off the {c.frame_size[0]}x{c.frame_size[1]} frame: "
                      f"{geometry.squares_not_shown(cut, 'frame')}, and a play on them is not read",
                      "aim the camera at the whole board and calibrate again: board-pi calibrate", required=False)
    bend = getattr(c, "bend", 0.0)
    lens = f"; frames straightened for a lens bend of {bend:+.3f}" if bend else ""
    if geometry is not None and geometry.mirrored(c.corners):
        # Kept so by the table, whose first tiles read the right way round only in the mirror.
        return Result("calibration", WARN, f"{path}: the camera's picture is a mirror image of the board (it is "
                      f"read the right way round){lens}", "set the camera not to flip its picture (a webcam's "
                      "mirror setting), then calibrate again: board-pi calibrate", required=False)
    return Result("calibration", OK, f"{path}: the grid in a {c.frame_size[0]}x{c.frame_size[1]} frame, "
                  f"turned {c.rotation} degrees{lens}")


def check_tiles(cfg: Config) -> Result:
    """The enrolled tile set, if there is one, can be used (an unfamiliar set reads far better)."""
    if cfg.camera.source in ("none", ""):
        return Result("tiles", SKIP, "no camera configured", required=False)
    path = cfg.tiles_path()
    fix = "teach it your tiles: board-pi enrol --layout, then board-pi enrol PHOTO (docs/camera-and-calibration.md)"
    if path is None:
        return Result("tiles", WARN, "no enrolled tile set: the tile model reads alone", fix, required=False)
    read, why = _guarded_import("board_pi.vision.read")
    if read is None:
        return Result("tiles", SKIP, f"{path}: not checked, the camera stage is not installed ({why})",
                      required=False)
    problem = tiles_problem(path)  # the check run makes (numpy's errors for a damaged file vary)
    if problem:
        return Result("tiles", WARN, f"{problem}: the tile model will read alone", fix, required=False)
    try:
        profile = read.Profile.load(path)
    except read.ReadError as e:
        return Result("tiles", WARN, f"{e}: the tile model will read alone", fix, required=False)
    return Result("tiles", OK, f"{path}: your own tile set, {len(profile.labels)} examples")


def check_data_dir(cfg: Config) -> Result:
    """The data directory exists (or can be made), is writable, and has room."""
    # With no data.dir the service uses /var/lib/board-pi: check that one when it exists, even
    # when this user cannot write it (by hand board-pi would fall back to ./data).
    d = SYSTEM_DATA_DIR if not cfg.data.dir and SYSTEM_DATA_DIR.is_dir() else cfg.data_dir()
    # No side effects: a missing directory is reported (the service's StateDirectory= or the
    # table makes it), and only its nearest existing parent is asked for room and permission.
    target = d
    while not target.exists() and target != target.parent:
        target = target.parent
    if not target.is_dir():
        return Result("data", FAIL, f"data directory {d}: {target} is not a directory",
                      "set data.dir to a folder")
    if not os.access(target, os.W_OK | os.X_OK):
        fix = f"sudo chown -R {SERVICE_USER}: {d}, or set data.dir to a writable folder"
        if _user() != SERVICE_USER and d == SYSTEM_DATA_DIR:
            fix = f"run the doctor as the service's user: sudo -u {SERVICE_USER} board-pi doctor; if that fails too: {fix}"
        return Result("data", FAIL, f"data directory {d} is not writable by {_user()}", fix)
    d_text = f"{d}: writable" if target == d else f"{d}: not made yet ({target} is writable)"
    free = shutil.disk_usage(target).free
    text = f"{d_text}, {free / 1024**3:.1f} GB free"
    if free < MIN_FREE_BYTES:
        return Result("data", FAIL, text, "free space: sudo apt clean; sudo journalctl --vacuum-size=50M; "
                      "move old games off the card")
    if free < LOW_FREE_BYTES:
        return Result("data", WARN, text, "the SD card is nearly full: sudo apt clean; sudo journalctl --vacuum-size=50M",
                      required=False)
    return Result("data", OK, text)


def check_director(cfg: Config) -> Result:
    """The director's PIN: where it is kept, or (none set yet) the one-time code with which a
    page away from the Pi may choose it, the same code the running service printed."""
    from board_pi.config import DEFAULT_CONFIG_PATH
    from board_pi.pin import DirectorStoreError, setup_code, stored_pin_hash

    d = cfg.data_dir()
    fix = f"sudo board-pi config set-pin --config {cfg.source or DEFAULT_CONFIG_PATH}"
    try:
        stored, where = stored_pin_hash(d, cfg.web.director_pin_hash or None)
    except DirectorStoreError as e:
        return Result("director", FAIL, str(e), fix)
    if stored is not None:
        return Result("director", OK, f"the director's PIN is set ({where})")
    if not d.is_dir():
        return Result("director", WARN, "no director's PIN is set yet; the service makes a one-time code "
                      "for choosing it when it starts", fix + ", or choose it on the Director page")
    try:
        code = setup_code(d)
    except OSError as e:
        return Result("director", WARN, f"no director's PIN is set yet; the one-time code in {d} cannot be "
                      f"read by {_user()} ({e.strerror or e})",
                      f"run the doctor as the service's user (sudo -u {SERVICE_USER} board-pi doctor), or: " + fix)
    return Result("director", WARN, "no director's PIN is set yet: choose it on the Director page, from the "
                  f"Pi itself or from any device with the one-time code {code}", "or: " + fix)


def check_system_clock(now: float | None = None) -> Result:
    """The system time: synchronised over the network? (A Pi has no battery-backed clock.)"""
    now = time.time() if now is None else now
    stamp = time.strftime("%Y-%m-%d %H:%M %Z", time.localtime(now))
    if time.gmtime(now).tm_year < 2025:
        return Result("time", WARN, f"the system clock says {stamp}, which cannot be right",
                      "connect the Pi to a network so it can set its clock (NTP), or: sudo date -s 'YYYY-MM-DD HH:MM'",
                      required=False)
    exe = shutil.which("timedatectl")
    if exe is None:
        return Result("time", WARN, f"{stamp}; cannot tell whether it is synchronised (no timedatectl)",
                      "check the date by eye; a Pi sets its clock from the network", required=False)
    try:
        out = subprocess.run([exe, "show", "-p", "NTPSynchronized", "--value"], capture_output=True,
                             text=True, timeout=5)
    except (OSError, subprocess.TimeoutExpired) as e:
        return Result("time", WARN, f"{stamp}; timedatectl did not answer ({e})", "check the date by eye", required=False)
    value = out.stdout.strip()
    if out.returncode != 0 or value not in ("yes", "no"):
        why = (out.stderr.strip().splitlines() or ["no answer"])[-1]
        return Result("time", WARN, f"{stamp}; synchronisation unknown ({why})", "check the date by eye", required=False)
    if value == "no":
        return Result("time", WARN, f"{stamp}; not synchronised with a time server",
                      "connect the Pi to a network; sudo timedatectl set-ntp true. Game times and record dates "
                      "depend on it (the game clocks do not)", required=False)
    return Result("time", OK, f"{stamp}; synchronised (NTP)")


def check_web_port(cfg: Config) -> Result:
    """The status page's port is free (or held by the running service)."""
    host, port = cfg.web.host, cfg.web.port
    problem = listen_problem(host, port)  # resolved and bound as run's server does
    if problem is None:
        return Result("web", OK, f"{host}:{port} is free for the status page")
    if " is in use " in problem:  # the running service holds it: expected while it plays
        return Result("web", WARN, f"cannot listen on {host}:{port}: it is in use",
                      "if the board-pi service is running this is expected; otherwise choose another web.port "
                      "or stop the program using it (sudo ss -ltnp)", required=False)
    return Result("web", FAIL, problem, f"edit web.host/web.port in {cfg.source or 'the configuration'}")


def check_service_user(service_user: str = SERVICE_USER) -> Result:
    """The service's user exists and is in the groups reaching the camera, GPIO and serial port."""
    try:
        import grp
        import pwd
    except ImportError:
        return Result("service", SKIP, "not a Unix system", required=False)
    try:
        user = pwd.getpwnam(service_user)
    except KeyError:
        return Result("service", SKIP, f"no {service_user} user: the service is not installed here",
                      "on the table's Pi: sudo systemd/install.sh", required=False)
    missing = []
    for group, what in SERVICE_GROUPS.items():
        try:
            g = grp.getgrnam(group)
        except KeyError:
            continue  # no such group on this system (gpio exists on Raspberry Pi OS only)
        if service_user not in g.gr_mem and user.pw_gid != g.gr_gid:
            missing.append(f"{group} ({what})")
    if missing:
        return Result("service", FAIL, f"user {service_user} is not in: {', '.join(missing)}",
                      f"sudo usermod -aG {','.join(m.split()[0] for m in missing)} {service_user}; "
                      "sudo systemctl restart board-pi")
    return Result("service", OK, f"user {service_user} is in the groups for the camera, GPIO and serial port")


def _user() -> str:
    try:
        import pwd

        return pwd.getpwuid(os.geteuid()).pw_name
    except (ImportError, KeyError):
        return "$USER"


# --------------------------------------------------------------------------- running them


def run_checks(config_path: str | None = None) -> list[Result]:
    """Every check, in order; a check that crashes becomes a failed line, never a traceback."""
    cfg_result, cfg = check_config(config_path)
    results = [cfg_result]
    checks: list[tuple[str, Callable[[], Result]]] = [
        ("camera", lambda: check_camera(cfg)),
        ("calibration", lambda: check_calibration(cfg)),
        ("tiles", lambda: check_tiles(cfg)),
        ("clock", lambda: check_clock(cfg)),
        ("lexicon", lambda: check_lexicon(cfg)),
        ("data", lambda: check_data_dir(cfg)),
        ("director", lambda: check_director(cfg)),
        ("time", check_system_clock),
        ("web", lambda: check_web_port(cfg)),
        ("service", check_service_user),
    ]
    for name, check in checks:
        try:
            results.append(check())
        except Exception as e:  # the doctor must report, not crash
            results.append(Result(name, FAIL, f"the check itself failed: {type(e).__name__}: {e}",
                                  "please report this with the output of board-pi doctor"))
    return results


_LABEL = {OK: "ok", WARN: "warn", FAIL: "FAIL", SKIP: "skip"}


def format_results(results: list[Result]) -> str:
    """The report as lines for a terminal."""
    lines = []
    width = max([8] + [len(r.name) for r in results])
    for r in results:
        label = _LABEL[r.status] if r.required or r.status != FAIL else "fail"
        lines.append(f"{label:<5} {r.name:<{width}} {r.detail}")
        if r.fix and r.status in (WARN, FAIL):
            lines.append(f"{'':<5} {'':<{width}} fix: {r.fix}")
    failed = sum(r.failed for r in results)
    warned = sum(r.status == WARN or (r.status == FAIL and not r.required) for r in results)
    if failed:
        lines.append(f"{failed} required check(s) failed: the table cannot run until they are fixed.")
    else:
        lines.append("ready to play" + (f" ({warned} warning(s))" if warned else "") + ".")
    return "\n".join(lines)


def cmd_doctor(args: Any) -> int:
    """``board-pi doctor [--config FILE] [--json]``: exit 1 when a required check fails."""
    results = run_checks(args.config)
    if args.json:
        print(json.dumps({"ok": not any(r.failed for r in results),
                          "checks": [asdict(r) for r in results]}))
    else:
        print(format_results(results))
    sys.stdout.flush()
    return 1 if any(r.failed for r in results) else 0
