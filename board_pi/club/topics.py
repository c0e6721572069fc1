"""The topics of a club night, under one prefix (``board-pi`` by default).

Per table ``N``:

- ``<prefix>/table/N/state``: the table's state, as its page shows it (retained, so a hub that
  starts late sees every table at once);
- ``<prefix>/table/N/events``: every event of the table's journal, in order, each with its
  journal sequence number (QoS 1; the hub drops what it already has);
- ``<prefix>/table/N/result``: the last finished game's result and GCG record (retained);
- ``<prefix>/table/N/online``: ``online``, or ``offline`` (the table's last will, retained);
- ``<prefix>/table/N/command``: what the hub asks of the table (pairings, a resend).

>>> Topics("board-pi", 7).events
'board-pi/table/7/events'
>>> parse_table_topic("board-pi", "board-pi/table/7/state")
(7, 'state')
"""

from __future__ import annotations

from dataclasses import dataclass

# What a table publishes (each under its own number); the access list is written from this.
TABLE_WRITES = ("state", "events", "result", "online")
KINDS = TABLE_WRITES + ("command",)


@dataclass(frozen=True)
class Topics:
    prefix: str
    table: int

    def _t(self, kind: str) -> str:
        return f"{self.prefix}/table/{self.table}/{kind}"

    @property
    def state(self) -> str:
        return self._t("state")

    @property
    def events(self) -> str:
        return self._t("events")

    @property
    def result(self) -> str:
        return self._t("result")

    @property
    def online(self) -> str:
        return self._t("online")

    @property
    def command(self) -> str:
        return self._t("command")


def all_tables(prefix: str, kind: str) -> str:
    """The subscription for ``kind`` of every table: ``<prefix>/table/+/<kind>``."""
    return f"{prefix}/table/+/{kind}"


def parse_table_topic(prefix: str, topic: str) -> tuple[int, str] | None:
    """``(table, kind)`` of a table's topic, or None for anything else."""
    parts = topic.split("/")
    head = prefix.split("/")
    if len(parts) != len(head) + 3 or parts[:len(head)] != head or parts[len(head)] != "table":
        return None
    number, kind = parts[len(head) + 1], parts[len(head) + 2]
    if not number.isdigit() or kind not in KINDS:
        return None
    return int(number), kind
