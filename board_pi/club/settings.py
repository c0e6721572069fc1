"""The club settings (``[club]`` in the configuration, ``--broker`` and ``--table`` on the command
line), defined once here with their limits; the configuration and the command line both check
through :func:`club_settings`, so they say the same things.

>>> s = club_settings({"broker": "mqtt://table-3:secret@10.0.0.2", "table": 3})
>>> (s.broker.host, s.broker.port, s.broker.username, s.broker.tls, s.table)
('10.0.0.2', 1883, 'table-3', False, 3)
>>> parse_broker_url("mqtts://hub@broker.club:8883").port
8883
>>> try:
...     parse_broker_url("http://broker")
... except ClubSettingsError as e:
...     print(e)
broker: 'http://broker' is not an MQTT address: write mqtt://host:1883 (or mqtts:// for TLS)
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Mapping
from urllib.parse import unquote, urlsplit

DEFAULT_PORT = {"mqtt": 1883, "mqtts": 8883}
TABLES = range(1, 1000)  # table numbers as a director writes them on the cards
PREFIX_RE = re.compile(r"^[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)*$")
KEYS = ("broker", "table", "username", "password", "prefix", "ca_file", "division", "hub_user")


class ClubSettingsError(ValueError):
    """A club setting cannot be used; the message names the setting and says why."""


@dataclass(frozen=True)
class BrokerAddress:
    """Where the broker is and how to log in (credentials may come in the URL)."""

    host: str
    port: int
    tls: bool = False
    username: str | None = None
    password: str | None = field(default=None, repr=False)
    ca_file: str | None = None  # the club's own certificate authority (TLS); None: the system's

    def display(self) -> str:
        """The address without the password, for logs and pages."""
        user = f"{self.username}@" if self.username else ""
        return f"{'mqtts' if self.tls else 'mqtt'}://{user}{self.host}:{self.port}"


def parse_broker_url(url: str, key: str = "broker") -> BrokerAddress:
    """``mqtt://[user[:password]@]host[:port]`` or ``mqtts://...`` (TLS)."""
    text = str(url).strip()
    shown = text if len(text) <= 60 else text[:57] + "..."
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError as e:
        raise ClubSettingsError(f"{key}: {shown!r} is not a broker address: {e}") from None
    if parts.scheme not in DEFAULT_PORT:
        raise ClubSettingsError(f"{key}: {shown!r} is not an MQTT address: write mqtt://host:1883 "
                                "(or mqtts:// for TLS)")
    if not parts.hostname:
        raise ClubSettingsError(f"{key}: {shown!r} names no host: write mqtt://host:1883")
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        raise ClubSettingsError(f"{key}: {shown!r}: a broker address has no path or query, only "
                                "mqtt://host:port")
    if port == 0:
        raise ClubSettingsError(f"{key}: {shown!r}: a port is from 1 to 65535")
    return BrokerAddress(parts.hostname, port or DEFAULT_PORT[parts.scheme], parts.scheme == "mqtts",
                         unquote(parts.username) if parts.username else None,
                         unquote(parts.password) if parts.password is not None else None)


@dataclass(frozen=True)
class ClubSettings:
    """A table's (or the hub's) place in the club night. ``broker`` None: a table on its own."""

    broker: BrokerAddress | None = None
    table: int | None = None
    prefix: str = "board-pi"
    division: str = "A"
    hub_user: str = "hub"

    @property
    def enabled(self) -> bool:
        return self.broker is not None


def table_number(value: Any, key: str = "table") -> int:
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise ClubSettingsError(f"{key}: a table number from {TABLES.start} to {TABLES.stop - 1}, "
                                f"not {value!r}")
    try:
        n = int(str(value).strip(), 10)
    except ValueError:
        raise ClubSettingsError(f"{key}: a table number from {TABLES.start} to {TABLES.stop - 1}, "
                                f"not {str(value)[:40]!r}") from None
    if n not in TABLES:
        raise ClubSettingsError(f"{key}: a table number from {TABLES.start} to {TABLES.stop - 1}, not {n}")
    return n


def club_settings(raw: Mapping[str, Any], *, need_table: bool = True) -> ClubSettings:
    """Check ``[club]`` (or the command line's ``--broker`` and ``--table``) into settings.

    Every problem is collected, one line each, in the one ClubSettingsError raised.
    """
    problems: list[str] = []
    for k in raw:
        if k not in KEYS:
            problems.append(f"club.{k}: unknown key (known: {', '.join(KEYS)})")
    broker = None
    url = raw.get("broker", "")
    if not isinstance(url, str):
        problems.append(f"club.broker: a text such as \"mqtt://host:1883\", not {url!r}")
    elif url.strip():
        try:
            broker = parse_broker_url(url, "club.broker")
        except ClubSettingsError as e:
            problems.append(str(e))
    for k in ("username", "password", "ca_file", "prefix", "division", "hub_user"):
        v = raw.get(k)
        if v is not None and not isinstance(v, str):
            problems.append(f"club.{k}: a text, not {v!r}")
    if broker is not None:
        if isinstance(raw.get("username"), str) and raw["username"]:
            if broker.username and broker.username != raw["username"]:
                problems.append("club.username: differs from the user in club.broker; give it once")
            broker = replace(broker, username=raw["username"])
        if isinstance(raw.get("password"), str) and raw["password"]:
            broker = replace(broker, password=raw["password"])
        ca = raw.get("ca_file")
        if isinstance(ca, str) and ca:
            if not broker.tls:
                problems.append("club.ca_file: a certificate authority is for TLS: write the broker "
                                "as mqtts://")
            elif not Path(ca).is_file():
                problems.append(f"club.ca_file: {ca} is not a file")
            broker = replace(broker, ca_file=ca)
    table = None
    if raw.get("table") is not None and raw.get("table") != "":
        try:
            table = table_number(raw["table"], "club.table")
        except ClubSettingsError as e:
            problems.append(str(e))
    elif broker is not None and need_table:
        problems.append("club.table: a table on a broker needs its number (club.table or --table)")
    prefix = raw.get("prefix") or "board-pi"
    if isinstance(prefix, str) and not PREFIX_RE.match(prefix):
        problems.append(f"club.prefix: letters, digits, '.', '_', '-' and '/' between them, not {prefix[:40]!r}")
    division = raw.get("division") or "A"
    if isinstance(division, str) and not re.fullmatch(r"[A-Za-z0-9]{1,8}", division):
        problems.append(f"club.division: up to 8 letters or digits, not {division[:40]!r}")
    if problems:
        raise ClubSettingsError("\n".join(problems))
    return ClubSettings(broker, table, str(prefix), str(division), str(raw.get("hub_user") or "hub"))
