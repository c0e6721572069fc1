"""``board-pi run``: a table with real hardware: camera, clock, journal, status page, watchdog.

Everything comes from the configuration file. An unfinished game in the journal resumes;
otherwise a new game starts with the configured players and rules. Under systemd the process
reports READY once the page is served and pings the watchdog while its loop is healthy.
"""

from __future__ import annotations

import argparse
import json
import sys
import signal
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

from .errors import UsageError

RESUME_FILE = "pico-resume.json"  # where the Pico link stood, so no press is taken twice


def build(cfg: Any, data: Path) -> tuple[Any, list[Any]]:
    """The table and the things to close afterwards, from a loaded configuration."""
    from ..rules.judge import WordJudge
    from ..rules.lexicon import LexiconError
    from ..rules.tiles import tile_set
    from ..wordlists import load_lexicon
    from ..table.archive import GameArchive
    from ..table.store import JournalDamaged
    from ..table.table import NotRecorded, Settings, Table

    closers: list[Any] = []
    tiles = tile_set(cfg.game.tile_set)
    try:
        # Read as the table's tiles; another set than English with no list is refused, by name.
        lexicon = load_lexicon(cfg.game.lexicon, tiles=tiles)
    except LexiconError as e:
        raise UsageError(f"lexicon: {e}") from None
    if lexicon.unspellable:  # reported, not dropped silently: the list may be for another set
        print(f"board-pi run: warning: {lexicon.unspellable} words of lexicon {lexicon.name} cannot be "
              f"spelt with the {tiles.name} tiles and are left out, such as "
              f"{', '.join(lexicon.unspellable_examples[:5])}", file=sys.stderr)
    log = data / "adjudications.jsonl"

    def log_line(entry: Any) -> None:
        with open(log, "a", encoding="utf-8") as f:
            f.write(json.dumps({"time": entry.time, "words": list(entry.words),
                                "acceptable": entry.acceptable, "lexicon": entry.lexicon}) + "\n")

    judge = WordJudge(lexicon, clock=time.time, on_log=log_line, tiles=tiles)
    camera, reader = _vision(cfg, data)
    if camera is not None:
        closers.append(camera)
    backend = _clock_backend(cfg, data)
    if backend is not None:
        closers.append(backend)
    try:
        archive = GameArchive(data)  # <data>/games, as docs/setup.md says
    except (OSError, sqlite3.Error) as e:
        raise UsageError(f"cannot keep finished games in {data / 'games'}: {e}") from None
    journal_path = data / "journal.db"
    table = Table(open_journal(journal_path), judge, camera=camera, reader=reader,
                  settings=Settings(lexicon=cfg.game.lexicon), outputs=backend,
                  on_finished=lambda gcg, meta: archive.save(gcg, meta), archive=archive)
    if reader is not None:
        reader.tell = table.tell  # what the camera shows that the players should know: on the page
    try:
        resumed = table.resume()
    except JournalDamaged as e:
        # Its games cannot be replayed: keep the file for inspection and start clean.
        table.journal.close()
        table.journal = open_journal(journal_path, damaged=e)
        resumed = False
    if not resumed:
        rules, control = game_settings(cfg)
        try:
            table.new_game(list(cfg.game.players), rules, control, meta={"lexicon": cfg.game.lexicon})
        except NotRecorded as e:
            raise UsageError(f"cannot start a game: {e}") from None
    if backend is not None:
        backend.on_event = table.handle
        start = getattr(backend, "start", None)
        if start is not None:
            start()
    return table, closers


def game_settings(cfg: Any) -> tuple[Any, Any]:
    """The configured rules and time control of a new game."""
    from ..clock import TimeControl
    from ..rules.game import ChallengeRule, GameRules
    from ..rules.tiles import tile_set

    c = cfg.clock
    control = TimeControl(minutes=c.minutes, overtime_penalty=c.overtime_penalty,
                          max_overtime_minutes=c.max_overtime_minutes,
                          increment_seconds=c.increment_seconds, delay_seconds=c.delay_seconds,
                          charge_downtime=c.downtime == "running")
    rules = GameRules(challenge=ChallengeRule(cfg.game.challenge_rule),
                      challenge_per_word=cfg.game.challenge_points_per_word,
                      tournament=cfg.game.mode == "tournament", tiles=tile_set(cfg.game.tile_set))
    return rules, control


def start_club(cfg: Any, club: Any, table: Any, data: Path) -> Any:
    """The table on the club's broker (docs/club-night.md), if configured: the hub's pairings
    start its next game with the configured rules and time control."""
    if club is None:
        return None
    from .club import start_publisher

    def start_game(pairing: Any) -> None:
        rules, control = game_settings(cfg)
        table.new_game(list(pairing.players), rules, control,
                       meta={"lexicon": cfg.game.lexicon, "round": pairing.round, "division": pairing.division,
                             "pairing": pairing.id})

    return start_publisher(club, table, table.journal, data, lambda text: print(f"board-pi: {text}", flush=True),
                           start_game=start_game)


def open_journal(path: Path, damaged: Exception | None = None) -> Any:
    """The journal at ``path``. A damaged one (truncated, garbage, not a database, games that
    cannot be replayed) is set aside as ``journal.damaged-<time>.db`` with a line in the log
    saying where, and a clean one started; one that cannot be written is a UsageError (exit 2)."""
    from ..table.store import Journal, JournalDamaged, JournalUnwritable

    try:
        if damaged is None:
            return Journal(path)
    except JournalDamaged as e:
        damaged = e
    except JournalUnwritable as e:
        raise UsageError(f"{e}: check the data directory in the configuration and that the service's "
                         "user may write it (`board-pi doctor`)") from None
    try:
        aside = set_aside(path)
    except OSError as e:
        raise UsageError(f"{damaged}; and it cannot be set aside: {e.strerror or e}") from None
    print(f"board-pi run: {damaged}", flush=True)
    print(f"board-pi run: the damaged journal is kept as {aside}; starting a clean journal "
          "(finished games are in the games folder)", flush=True)
    try:
        return Journal(path)
    except JournalUnwritable as e:
        raise UsageError(str(e)) from None


def set_aside(path: Path) -> Path:
    """Rename a damaged journal (and its -wal and -shm files) to ``<stem>.damaged-<time><suffix>``."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    n = 0
    while True:
        aside = path.with_name(f"{path.stem}.damaged-{stamp}{f'-{n}' if n else ''}{path.suffix}")
        if not any(Path(str(aside) + x).exists() for x in ("", "-wal", "-shm")):
            break
        n += 1
    # The -wal file holds committed events not yet in the main file: it goes with it.
    for extra in ("-wal", "-shm", ""):
        p = Path(str(path) + extra)
        if p.exists():
            p.rename(Path(str(aside) + extra))
    return aside


def healthy(beat: Any, backend: Any, max_age: float = 20) -> bool:
    """What the systemd watchdog asks: the main loop goes round and the clock's reader (GPIO ticker,
    Pico serial thread) still reads presses. A dead one stops the pings and systemd restarts."""
    return bool(beat.recent(max_age)) and bool(getattr(backend, "reader_alive", True))


def _vision(cfg: Any, data: Path) -> tuple[Any, Any]:
    if cfg.camera.source in ("none", ""):
        return None, None
    try:
        from ..vision.frames import FrameSourceError, open_source
    except ImportError as e:
        raise UsageError(f"the camera stage is not installed: {e}") from None
    try:
        # The size asked of a camera, the Pi's or a webcam (files keep their own).
        camera = open_source(str(cfg.camera.source), repeat=True, width=cfg.camera.width, height=cfg.camera.height)
    except FrameSourceError as e:
        raise UsageError(f"camera: {e}") from None
    from ..table.vision import VisionReader

    reader = _tile_reader(cfg)
    return camera, VisionReader(reader=reader, tracker=_tracker(cfg), memory=_memory(cfg, reader))


def _memory(cfg: Any, reader: Any) -> Any:
    """What the table has learnt of its own tiles, kept across games (None: it does not learn)."""
    path = cfg.learned_path()
    if path is None:
        return None
    from ..vision.learn import TableMemory, model_fingerprint

    return TableMemory.open(path, model_fingerprint(reader.model_path))


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
    from ..rules.tiles import tile_set

    try:
        # Only the game's own tiles are read (a German board is never read as holding a Ł).
        return Reader(profile=profile, tiles=tile_set(cfg.game.tile_set))
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
        from ..hardware.gpio import GpioClock

        try:
            return GpioClock(cfg.gpio)  # the configuration's [gpio] section is a GpioPins
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
    from .club import table_club_settings

    club = table_club_settings(args, cfg)  # a bad --broker or --table before anything starts
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
    director = _director(cfg, data)
    notifier = SystemdNotifier()
    table, closers = build(cfg, data)
    try:
        publisher = start_club(cfg, club, table, data)
    except UsageError:
        for c in closers:
            c.close()
        table.journal.close()
        raise
    if publisher is not None:
        closers.insert(0, publisher)  # stopped before the journal closes
    server = None
    try:
        from ..web import serve
        server = serve(table, host=cfg.web.host, port=port,
                       store=director, secret_key=session_key(data), lexicons=(cfg.game.lexicon,))
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
    backend = table.outputs
    keeper = WatchdogKeeper(notifier, healthy=lambda: healthy(beat, backend))
    keeper.start()
    notifier.ready("table ready")
    deadline = None if args.stop_after is None else time.monotonic() + args.stop_after
    resume_point = getattr(closers[-1] if closers else None, "resume_point", None)
    saved: Any = None
    said_dead = False
    try:
        while not stop.is_set():
            try:
                table.tick()
            except Exception:  # a camera or display fault in one tick: log it, go round again
                log_exception("the table's tick failed")
            beat.beat()
            if not said_dead and not healthy(beat, backend):
                said_dead = True
                print("board-pi: the clock's reader thread has stopped: presses are not read; the "
                      "watchdog will restart the table", flush=True)
                table.tell("the clock's buttons are not read: the table restarts")
            if resume_point is not None:
                point = resume_point()
                if point != saved:
                    try:
                        _write_json(data / RESUME_FILE, point)
                        saved = point
                    except OSError as e:  # a full disk: tried again next time round
                        if saved is not False:
                            print(f"board-pi: cannot write {data / RESUME_FILE}: {e.strerror or e}", flush=True)
                        saved = False
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
        table.close()
        table.journal.close()
    return 0


def log_exception(what: str) -> None:
    import traceback

    print(f"board-pi: {what}:\n{traceback.format_exc()}", flush=True)


def _write_json(path: Path, value: Any) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(value))
    tmp.replace(path)


def session_key(data: Path) -> bytes:
    """The key that signs the session cookies of the page (``run``) and of the hub (``hub``),
    kept in ``data`` so directors stay logged in across restarts (a new key would log everyone
    out)."""
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


def _director(cfg: Any, data: Path) -> Any:
    """The director's PIN (kept in the data directory; an old configuration's hash still counts)
    and, while there is none, the one-time code that lets a page away from the Pi choose it."""
    from ..serve.store import DirectorStore, DirectorStoreError

    try:
        store = DirectorStore(data, legacy_hash=cfg.web.director_pin_hash or None)
        code = store.setup_code()
    except DirectorStoreError as e:
        raise UsageError(str(e)) from None
    except OSError as e:
        raise UsageError(f"{data}: cannot keep the director's PIN there ({e.strerror or e})") from None
    if code is not None:
        print(f"board-pi: no director's PIN is set yet. Choose it on the Director page, from the Pi "
              f"itself or from any device with the one-time code {code}", flush=True)
    return store
