"""``board-pi hub``: the director's dashboard for the whole room, from the club's broker."""

from __future__ import annotations

import argparse
import signal
import threading
import time
from dataclasses import replace
from pathlib import Path

from .errors import UsageError
from .run import session_key


def cmd_hub(args: argparse.Namespace) -> int:
    from ..club.hub import Hub
    from ..club.hubweb import create_hub_app
    from ..club.mqtt import BrokerRefused, BrokerUnreachable, check_account
    from ..club.settings import ClubSettingsError, parse_broker_url
    from ..config import ConfigError, data_dir_problem, load_config
    from ..web.server import serve

    try:
        cfg = load_config(args.config)
    except ConfigError as e:
        raise UsageError(str(e)) from None
    from .club import configured_club

    settings = configured_club(cfg)
    if args.broker:
        try:
            settings = replace(settings, broker=parse_broker_url(args.broker, "--broker"))
        except ClubSettingsError as e:
            raise UsageError(str(e)) from None
    if settings.broker is None:
        raise UsageError("the hub needs the club's broker: [club] broker = \"mqtt://hub:PASSWORD@host:1883\" "
                         "in its configuration, or --broker URL")
    data = Path(args.data) if args.data else cfg.data_dir() / "hub"
    problem = data_dir_problem(data)
    if problem:
        raise UsageError(f"data: {problem}")
    try:
        data.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise UsageError(f"data: cannot make {data}: {e.strerror or e}") from None
    try:
        check_account(settings.broker, "board-pi-hub")
    except BrokerRefused as e:
        raise UsageError(str(e)) from None
    except BrokerUnreachable as e:
        print(f"board-pi hub: {e}; trying again in the background", flush=True)
    hub = Hub(settings, data).start()
    from ..serve.guard import PinGuard
    from ..serve.store import DirectorStore

    app = create_hub_app(hub, store=DirectorStore(data), guard=PinGuard(), secret_key=session_key(data))
    code = app.extensions["board_pi"].store.setup_code()
    port = args.port if args.port is not None else cfg.web.port
    try:
        server = serve(None, host=cfg.web.host, port=port, app=app)
    except (OSError, ValueError) as e:
        hub.stop()
        raise UsageError(f"the hub's page cannot listen on {cfg.web.host}:{port}: "
                         f"{getattr(e, 'strerror', None) or e}") from None
    print(f"board-pi hub: http://{cfg.web.host}:{server.port}/ (broker {settings.broker.display()}, "
          f"data in {data})", flush=True)
    if code is not None:
        print(f"board-pi hub: no director's PIN is set yet. Choose it on the Director page, from this "
              f"machine or from any device with the one-time code {code}", flush=True)
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    deadline = None if args.stop_after is None else time.monotonic() + args.stop_after
    try:
        while not stop.wait(0.5):
            if deadline is not None and time.monotonic() > deadline:
                break
    finally:
        server.stop()
        hub.stop()
    return 0
