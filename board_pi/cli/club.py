"""A table on the club's broker: the ``--broker`` and ``--table`` options of ``run`` and ``demo``
over ``[club]`` in the configuration, and the table's publisher, started and stopped with it."""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable

from .errors import UsageError


def club_problems(cfg: Any) -> list[str]:
    """What is wrong with the configuration's [club], one line each (none: it can be used)."""
    from ..club.settings import ClubSettingsError, club_settings

    try:
        club_settings(cfg.club, need_table=False)
    except ClubSettingsError as e:
        return str(e).splitlines()
    return []


def configured_club(cfg: Any = None, *, need_table: bool = False) -> Any:
    """The configuration's [club] as settings (the defaults without one); a UsageError says
    every problem."""
    from ..club.settings import ClubSettings, ClubSettingsError, club_settings

    if cfg is None or not cfg.club:
        return ClubSettings()
    try:
        return club_settings(cfg.club, need_table=need_table)
    except ClubSettingsError as e:
        raise UsageError(str(e)) from None


def table_club_settings(args: argparse.Namespace, cfg: Any = None) -> Any:
    """The club settings for a table: the configuration's [club], with the command line's on
    top; None for a table on its own. A bad URL or table number is a UsageError (exit 2)."""
    from ..club.settings import ClubSettingsError, parse_broker_url, table_number

    settings = configured_club(cfg)
    try:
        if getattr(args, "broker", None):
            settings = replace(settings, broker=parse_broker_url(args.broker, "--broker"))
        if getattr(args, "table", None) is not None:
            settings = replace(settings, table=table_number(args.table, "--table"))
    except ClubSettingsError as e:
        raise UsageError(str(e)) from None
    if settings.broker is None:
        if getattr(args, "table", None) is not None:
            raise UsageError("--table needs a broker: give --broker URL (or [club] broker in the configuration)")
        return None
    if settings.table is None:
        raise UsageError("a table on the club's broker needs its number: --table N (or [club] table)")
    return settings


def start_publisher(settings: Any, table: Any, journal: Any, data_dir: Path, say: Callable[[str], Any],
                    start_game: Callable[[Any], None] | None = None) -> Any:
    """Check the account, then publish ``table`` in the background. A broker that refuses the
    account is a UsageError; one that is not there yet is said, and the table plays on."""
    from ..club.mqtt import BrokerRefused, BrokerUnreachable, check_account
    from ..club.publisher import TablePublisher, table_control

    try:
        check_account(settings.broker, f"board-pi-table-{settings.table}")
    except BrokerRefused as e:
        raise UsageError(str(e)) from None
    except BrokerUnreachable as e:
        say(f"club: {e}; the table plays on and sends its events when the broker is back")
    publisher = TablePublisher(settings, table, journal, data_dir, start_game=start_game,
                               control=table_control(table, say))
    before = table.on_finished

    def finished(gcg: str, meta: dict[str, Any]) -> None:
        if before is not None:
            before(gcg, meta)
        publisher.game_finished(gcg, meta)

    table.on_finished = finished
    publisher.start()
    say(f"club: table {settings.table} publishing to {settings.broker.display()}")
    return publisher
