"""``board-pi run``: a table with real hardware: camera, clock, journal, status page, watchdog.

Everything comes from the configuration file. An unfinished game in the journal resumes;
otherwise a new game starts with the configured players and rules. Under systemd the process
reports READY once the page is served and pings the watchdog while its loop is healthy.
"""

from __future__ import annotations

import argparse
import json
import signal
import threading
import time
from pathlib import Path
from typing import Any

from ..cli import UsageError

RESUME_FILE = "pico-resume.json"  # where the Pico link stood, so no press is taken twice


def build(cfg: Any, data: Path) -> tuple[Any, list[Any]]:
    """The table and the things to close afterwards, from a loaded configuration."""
    from ..clock import TimeControl
    from ..rules.game import ChallengeRule, GameRules
    from ..rules.judge import WordJudge
    from ..rules.lexicon import LexiconError
    from ..rules.tiles import tile_set
    from ..wordlists import load_lexicon
    from .archive import GameArchive
    from .store import Journal
    from .table import Settings, Table

    closers: list[Any] = []
    try:
        lexicon = load_lexicon(cfg.game.lexicon)
    except LexiconError as e:
        raise UsageError(f"lexicon: {e}") from None
    log = data / "adjudications.jsonl"

    def log_line(entry: Any) -> None:
        with open(log, "a", encoding="utf-8") as f:
            f.write(json.dumps({"time": entry.time, "words": list(entry.words),
                                "acceptable": entry.acceptable, "lexicon": entry.lexicon}) + "\n")

    judge = WordJudge(lexicon, clock=time.time, on_log=log_line)
    camera, reader = _vision(cfg, data)
    if camera is not None:
        closers.append(camera)
    backend = _clock_backend(cfg, data)
    if backend is not None:
        closers.append(backend)
    archive = GameArchive(data / "games")
    table = Table(Journal(data / "journal.db"), judge, camera=camera, reader=reader,
                  settings=Settings(lexicon=cfg.game.lexicon), outputs=backend,
                  on_finished=lambda gcg, meta: archive.save(gcg, meta), archive=archive)
    if not table.resume():
        c = cfg.clock
        control = TimeControl(minutes=c.minutes, overtime_penalty=c.overtime_penalty,
                              max_overtime_minutes=c.max_overtime_minutes,
                              increment_seconds=c.increment_seconds, delay_seconds=c.delay_seconds,
                              charge_downtime=c.downtime == "running")
        rules = GameRules(challenge=ChallengeRule(cfg.game.challenge_rule),
                          challenge_per_word=cfg.game.challenge_points_per_word,
                          tournament=cfg.game.mode == "tournament", tiles=tile_set(cfg.game.tile_set))
        table.new_game(list(cfg.game.players), rules, control, meta={"lexicon": cfg.game.lexicon})
    if backend is not None:
        backend.on_event = table.handle
        start = getattr(backend, "start", None)
        if start is not None:
            start()
    return table, closers


def _vision(cfg: Any, data: Path) -> tuple[Any, Any]:
    if cfg.camera.source in ("none", ""):
        return None, None
    try:
        from ..vision.frames import FrameSourceError, open_source
    except ImportError as e:
        raise UsageError(f"the camera stage is not installed: {e}") from None
    source = str(cfg.camera.source)
    if source == "picamera2" and cfg.camera.width and cfg.camera.height:
        source = f"picamera2:{cfg.camera.width}x{cfg.camera.height}"
    try:
        camera = open_source(source, repeat=True)
    except FrameSourceError as e:
        raise UsageError(f"camera: {e}") from None
    from .vision import VisionReader

    return camera, VisionReader(reader=_tile_reader(cfg), tracker=_tracker(cfg))


def _tile_reader(cfg: Any) -> Any:
    """The square reader, adapted to the table's own tiles when they have been enrolled."""
    from ..vision.read import Profile, ReadError, Reader

    path = cfg.tiles_path()
    profile = None
    if path is not None:
        from ..config import tiles_problem

        try:
            problem = tiles_problem(path)  # numpy's own errors for a damaged file vary
            if problem:
                raise ReadError(problem)
            profile = Profile.load(path)
        except ReadError as e:
            print(f"board-pi run: tile profile not used ({e}); reading with the tile model alone", flush=True)
    try:
        return Reader(profile=profile)
    except ReadError as e:
        raise UsageError(str(e)) from None


def _tracker(cfg: Any) -> Any:
    """The saved calibration, kept true to the frames (found again when the board moves)."""
    path = cfg.calibration_path()
    if path is None:
        return None
    try:
        from ..vision.calibration import Tracker, load
        return Tracker(load(path), path=path)
    except Exception as e:  # a damaged profile: find the board in each frame instead
        print(f"board-pi run: calibration {path} not used ({e}); the board is found in each frame",
              flush=True)
        return None


def _clock_backend(cfg: Any, data: Path) -> Any:
    kind = cfg.clock.backend
    if kind == "none":
        return None
    if kind == "gpio":
        from ..hardware.gpio import GpioClock, GpioPins

        g = cfg.gpio
        pins = GpioPins(player0=g.player0_button, player1=g.player1_button, pause=g.pause_button,
                        challenge=g.challenge_button, hold=g.hold_button, light0=g.player0_light,
                        light1=g.player1_light, green=g.green_light, red=g.red_light, buzzer=g.buzzer)
        try:
            return GpioClock(pins)
        except Exception as e:  # no GPIO here (not a Pi, or no lgpio): say so, keep the table
            raise UsageError(f"GPIO clock: {e} (run `board-pi doctor` for the fix)") from None
    if kind == "serial":
        from ..hardware.serial_clock import SerialClock

        # Where the link to the Pico stood: a restarted Pi must not take a press twice.
        resume = None
        try:
            resume = json.loads((data / RESUME_FILE).read_text())
        except (OSError, ValueError):
            pass
        try:
            return SerialClock(cfg.serial.port, cfg.serial.baud, resume=resume)
        except ValueError:
            return SerialClock(cfg.serial.port, cfg.serial.baud)
    raise UsageError(f"unknown clock backend {kind!r}")


def cmd_run(args: argparse.Namespace) -> int:
    from ..config import ConfigError, check_ready, load_config
    from ..watchdog import Heartbeat, SystemdNotifier, WatchdogKeeper

    try:
        cfg = load_config(args.config)
    except ConfigError as e:
        raise UsageError(str(e)) from None
    port = args.port if args.port is not None else cfg.web.port
    ready = check_ready(cfg, port=args.port)  # the same checks as `board-pi config check`
    if ready.errors:
        raise UsageError("\n".join(ready.errors))
    for w in ready.warnings:
        print(f"board-pi run: warning: {w}", flush=True)
    data = cfg.data_dir()
    try:
        data.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise UsageError(f"data.dir: cannot make {data}: {e.strerror or e}") from None
    notifier = SystemdNotifier()
    table, closers = build(cfg, data)
    server = None
    try:
        from ..web import serve
        server = serve(table, host=cfg.web.host, port=port,
                       pin_hash=cfg.web.director_pin_hash or None, secret_key=_secret_key(data),
                       on_pin_set=lambda h: _keep_pin(cfg, h))
        print(f"board-pi: status page on http://{cfg.web.host}:{server.port}/", flush=True)
    except ImportError as e:
        print(f"board-pi: the status page is not installed ({e})", flush=True)
    except (OSError, ValueError) as e:  # taken since the check a moment ago
        for c in closers:
            c.close()
        table.journal.close()
        raise UsageError(f"the status page cannot listen on {cfg.web.host}:{port}: "
                         f"{getattr(e, 'strerror', None) or e}") from None
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    beat = Heartbeat()
    keeper = WatchdogKeeper(notifier, healthy=lambda: beat.recent(20))
    keeper.start()
    notifier.ready("table ready")
    deadline = None if args.stop_after is None else time.monotonic() + args.stop_after
    resume_point = getattr(closers[-1] if closers else None, "resume_point", None)
    saved: Any = None
    try:
        while not stop.is_set():
            table.tick()
            beat.beat()
            if resume_point is not None:
                point = resume_point()
                if point != saved:
                    _write_json(data / RESUME_FILE, point)
                    saved = point
            if deadline is not None and time.monotonic() > deadline:
                break
            stop.wait(0.2)
    finally:
        notifier.stopping("stopping")
        keeper.stop()
        if server is not None:
            server.stop()
        for c in closers:
            try:
                c.close()
            except Exception:
                pass
        table.journal.close()
    return 0


def _write_json(path: Path, value: Any) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(value))
    tmp.replace(path)


def _secret_key(data: Path) -> bytes:
    """The key that signs the page's session cookies, kept so directors stay logged in across
    restarts (a new key would log everyone out)."""
    import os

    path = data / "session.key"
    try:
        key = path.read_bytes()
        if len(key) >= 32:
            return key
    except OSError:
        pass
    key = os.urandom(32)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(key)
    return key


def _keep_pin(cfg: Any, pin_hash: str) -> None:
    """A PIN set on the page on first start goes into the configuration file, hashed."""
    from ..config import replace_file, set_pin_in_text

    if cfg.source is None:
        print("board-pi: the director's PIN was set on the page; no configuration file to keep it in",
              flush=True)
        return
    path = Path(cfg.source)
    try:
        replace_file(path, set_pin_in_text(path.read_text(encoding="utf-8"), pin_hash))
    except OSError as e:  # the page then refuses the new PIN rather than lose it at the restart
        raise RuntimeError(f"cannot write {path}: {e.strerror or e}") from None

