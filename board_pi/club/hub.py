"""The hub: every table of the room, from the broker, in one place that survives a restart.

The hub subscribes to every table's state, events, results and online topics. Events are taken
once and in order: each carries its journal sequence number and the one before it; one the hub
already has is dropped, one that comes after a gap waits until the gap is filled, and a gap
that is not filled within a second or so is asked for again (the table's ``resend`` command).
What the hub has is kept in ``hub.db`` (SQLite), so a restarted hub carries on from the last
event it took; its broker session is kept too, so the broker holds what came meanwhile.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from ..table.bus import EventBus
from . import mqtt as m
from .results import TablePairing
from .settings import ClubSettings
from .topics import Topics, all_tables, parse_table_topic

log = logging.getLogger(__name__)

GAP_WAIT = 1.0  # seconds a gap may stay open before the hub asks the table again
BUFFER_LIMIT = 20000  # events after a gap kept per table while it is filled

SCHEMA = """
CREATE TABLE IF NOT EXISTS tables (
    number INTEGER PRIMARY KEY,
    epoch TEXT,
    last INTEGER NOT NULL DEFAULT 0,
    retired TEXT NOT NULL DEFAULT '[]',
    state TEXT,
    state_time REAL,
    online INTEGER NOT NULL DEFAULT 0,
    online_time REAL
);
CREATE TABLE IF NOT EXISTS events (
    number INTEGER NOT NULL,
    epoch TEXT NOT NULL,
    seq INTEGER NOT NULL,
    game INTEGER NOT NULL,
    wall REAL NOT NULL,
    received REAL NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (number, epoch, seq)
);
CREATE TABLE IF NOT EXISTS results (
    number INTEGER NOT NULL,
    epoch TEXT NOT NULL,
    game INTEGER NOT NULL,
    round INTEGER,
    division TEXT NOT NULL,
    players TEXT NOT NULL,
    scores TEXT NOT NULL,
    first INTEGER NOT NULL DEFAULT 0,
    finished REAL NOT NULL,
    gcg TEXT NOT NULL,
    PRIMARY KEY (number, epoch, game)
);
CREATE TABLE IF NOT EXISTS pairings (
    round INTEGER NOT NULL,
    number INTEGER NOT NULL,
    division TEXT NOT NULL,
    players TEXT NOT NULL,
    numbers TEXT NOT NULL DEFAULT '[]',
    id TEXT NOT NULL,
    sent REAL,
    PRIMARY KEY (round, number)
);
"""


@dataclass
class _Follow:
    """Where the hub stands with one table's events."""

    epoch: str | None = None
    last: int = 0
    retired: set[str] = field(default_factory=set)
    waiting: dict[int, dict[str, Any]] = field(default_factory=dict)  # after a gap, by prev
    known: int = 0  # the highest sequence number the table is known to have
    progress: float = field(default_factory=time.monotonic)
    asked: float = 0.0


class HubStore:
    """``hub.db``: the tables as last seen, every event once, results, pairings."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._lock = threading.RLock()
        self._db = sqlite3.connect(str(self.path), check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(SCHEMA)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def execute(self, sql: str, args: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        with self._lock:
            return self._db.execute(sql, args).fetchall()

    def transaction(self, statements: list[tuple[str, tuple[Any, ...]]]) -> None:
        with self._lock:
            self._db.execute("BEGIN")
            try:
                for sql, args in statements:
                    self._db.execute(sql, args)
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise

    def follows(self) -> dict[int, _Follow]:
        return {n: _Follow(epoch, last, set(json.loads(retired)))
                for n, epoch, last, retired in self.execute("SELECT number, epoch, last, retired FROM tables")}

    def events(self, number: int, epoch: str | None = None) -> list[dict[str, Any]]:
        """A table's events as the hub took them, in order (of the current journal by default)."""
        if epoch is None:
            row = self.execute("SELECT epoch FROM tables WHERE number = ?", (number,))
            epoch = row[0][0] if row else None
        rows = self.execute("SELECT seq, game, wall, data FROM events WHERE number = ? AND epoch = ? "
                            "ORDER BY seq", (number, epoch))
        return [{"seq": s, "game": g, "wall": w, "event": json.loads(d)} for s, g, w, d in rows]

    def results(self) -> list[dict[str, Any]]:
        rows = self.execute("SELECT number, epoch, game, round, division, players, scores, first, finished, gcg "
                            "FROM results ORDER BY finished, number")
        return [{"table": r[0], "epoch": r[1], "game": r[2], "round": r[3], "division": r[4],
                 "players": json.loads(r[5]), "scores": json.loads(r[6]), "first": r[7], "finished": r[8],
                 "gcg": r[9]} for r in rows]

    def tables(self) -> list[dict[str, Any]]:
        rows = self.execute("SELECT number, state, state_time, online, online_time, last FROM tables "
                            "ORDER BY number")
        return [{"table": r[0], "state": json.loads(r[1]) if r[1] else None, "state_time": r[2],
                 "online": bool(r[3]), "online_time": r[4], "last": r[5]} for r in rows]

    def pairings(self, round_: int | None = None) -> list[dict[str, Any]]:
        sql = "SELECT round, number, division, players, numbers, id, sent FROM pairings"
        rows = self.execute(sql + (" WHERE round = ?" if round_ is not None else "") + " ORDER BY round, number",
                            (round_,) if round_ is not None else ())
        return [{"round": r[0], "table": r[1], "division": r[2], "players": json.loads(r[3]),
                 "numbers": json.loads(r[4]), "id": r[5], "sent": r[6]} for r in rows]


class Hub:
    """The hub's connection to the broker and what it keeps of every table."""

    def __init__(self, settings: ClubSettings, data_dir: Path, *, client_id: str = "board-pi-hub",
                 clock: Callable[[], float] = time.monotonic) -> None:
        assert settings.broker is not None
        self.settings = settings
        self.prefix = settings.prefix
        self.store = HubStore(Path(data_dir) / "hub.db")
        self.bus = EventBus(keep=5000)  # the hub's pages follow this (Server-Sent Events)
        self.now = clock
        self._follow = self.store.follows()
        self._lock = threading.RLock()
        self._stop = threading.Event()
        self.connected = False
        self.connection_problem: str | None = None
        self.duplicates = 0  # events dropped because the hub had them
        self.resends = 0  # times a table was asked to send again
        self.client = m.make_client(settings.broker, client_id)
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = self._on_disconnect
        self.client.on_message = self._on_message
        self._checker: threading.Thread | None = None

    def start(self) -> "Hub":
        assert self.settings.broker is not None
        m.start(self.client, self.settings.broker, persistent=True)
        self._checker = threading.Thread(target=self._check_gaps, name="hub-gaps", daemon=True)
        self._checker.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._checker is not None:
            self._checker.join(5)
        self.client.disconnect()
        self.client.loop_stop()
        self.store.close()

    # -- the broker -------------------------------------------------------------------------

    def _on_connect(self, client: Any, userdata: Any, flags: Any, rc: Any, props: Any = None) -> None:
        code = m.reason_value(rc)
        if code != 0:
            self.connection_problem = m.REFUSALS.get(code, f"the broker refused the connection ({code})")
            log.error("hub: %s", self.connection_problem)
            return
        self.connection_problem = None
        self.connected = True
        client.subscribe([(all_tables(self.prefix, k), 1) for k in ("state", "events", "result", "online")])
        self.bus.publish("hub", {"connected": True})

    def _on_disconnect(self, client: Any, userdata: Any, flags: Any, rc: Any, props: Any = None) -> None:
        self.connected = False
        self.bus.publish("hub", {"connected": False})

    def _on_message(self, client: Any, userdata: Any, msg: Any) -> None:
        where = parse_table_topic(self.prefix, msg.topic)
        body = m.loads(msg.payload)
        if where is None or not isinstance(body, dict):
            return
        number, kind = where
        try:
            if kind == "events":
                self._take_event(number, body)
            elif kind == "state":
                self._take_state(number, body)
            elif kind == "result":
                self._take_result(number, body)
            elif kind == "online":
                self._take_online(number, body)
        except (KeyError, TypeError, ValueError) as e:  # a malformed message: dropped, said
            log.warning("hub: table %s sent a %s message that cannot be used: %s", number, kind, e)

    # -- events: once, in order ---------------------------------------------------------------

    def _table(self, number: int) -> _Follow:
        f = self._follow.get(number)
        if f is None:
            f = self._follow[number] = _Follow()
            self.store.execute("INSERT OR IGNORE INTO tables (number) VALUES (?)", (number,))
        return f

    def _switch_epoch(self, number: int, f: _Follow, epoch: str) -> bool:
        """A message of another journal: a new one starts (the old one retires), an old one is
        ignored. Returns whether the message belongs to the current journal."""
        if epoch == f.epoch:
            return True
        if epoch in f.retired:
            return False
        if f.epoch is not None:
            f.retired.add(f.epoch)
        f.epoch, f.last, f.waiting, f.known = epoch, 0, {}, 0
        f.progress = self.now()
        self.store.execute("UPDATE tables SET epoch = ?, last = 0, retired = ? WHERE number = ?",
                           (epoch, json.dumps(sorted(f.retired)), number))
        return True

    def _take_event(self, number: int, body: dict[str, Any]) -> None:
        seq, prev, epoch = int(body["seq"]), int(body["prev"]), str(body["epoch"])
        with self._lock:
            f = self._table(number)
            if not self._switch_epoch(number, f, epoch):
                return
            f.known = max(f.known, seq)
            if seq <= f.last:
                self.duplicates += 1
                return
            if prev != f.last:
                if len(f.waiting) < BUFFER_LIMIT:
                    f.waiting[prev] = body
                return
            taken = [body]
            last = seq
            while last in f.waiting:
                nxt = f.waiting.pop(last)
                taken.append(nxt)
                last = int(nxt["seq"])
            now = time.time()
            self.store.transaction(
                [("INSERT OR IGNORE INTO events (number, epoch, seq, game, wall, received, data) "
                  "VALUES (?, ?, ?, ?, ?, ?, ?)",
                  (number, epoch, int(b["seq"]), int(b.get("game") or 0), float(b.get("wall") or now), now,
                   json.dumps(b.get("event")))) for b in taken]
                + [("UPDATE tables SET last = ? WHERE number = ?", (last, number))])
            f.last = last
            f.progress = self.now()
            # Stale entries (already covered) leave the buffer.
            f.waiting = {p: b for p, b in f.waiting.items() if int(b["seq"]) > last}
        for b in taken:
            self.bus.publish("event", {"table": number, "seq": int(b["seq"]), "wall": b.get("wall"),
                                       "event": b.get("event")})

    def _check_gaps(self) -> None:
        while not self._stop.wait(GAP_WAIT / 2):
            with self._lock:
                asks = []
                now = self.now()
                for number, f in self._follow.items():
                    behind = f.known > f.last or bool(f.waiting)
                    if behind and f.epoch is not None and now - f.progress >= GAP_WAIT \
                            and now - f.asked >= GAP_WAIT:
                        f.asked = now
                        asks.append((number, f.epoch, f.last))
            for number, epoch, last in asks:
                if self.connected:
                    self.resends += 1
                    self.command(number, {"type": "resend", "epoch": epoch, "after": last})

    # -- state, results, online ---------------------------------------------------------------

    def _take_state(self, number: int, body: dict[str, Any]) -> None:
        if not isinstance(body.get("snapshot"), dict):
            raise ValueError("no snapshot")
        with self._lock:
            f = self._table(number)
            if self._switch_epoch(number, f, str(body.get("epoch"))):
                f.known = max(f.known, int(body.get("seq") or 0))
            self.store.execute("UPDATE tables SET state = ?, state_time = ? WHERE number = ?",
                               (json.dumps(body), time.time(), number))
        self.bus.publish("state", {"table": number, "seq": body.get("seq")})

    def _take_result(self, number: int, body: dict[str, Any]) -> None:
        players, scores = body["players"], body["scores"]
        if not isinstance(players, list) or not isinstance(scores, list) or not isinstance(body.get("gcg"), str):
            raise ValueError("a result has players, scores and a GCG record")
        self.store.execute(
            "INSERT INTO results (number, epoch, game, round, division, players, scores, first, finished, gcg) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(number, epoch, game) DO UPDATE SET "
            "round = excluded.round, division = excluded.division, players = excluded.players, "
            "scores = excluded.scores, first = excluded.first, finished = excluded.finished, gcg = excluded.gcg",
            (number, str(body["epoch"]), int(body["game"]), body.get("round"), str(body.get("division") or "A"),
             json.dumps(players), json.dumps(scores), int(body.get("first") or 0),
             float(body.get("finished") or time.time()), body["gcg"]))
        self.bus.publish("result", {"table": number, "game": body["game"]})

    def _take_online(self, number: int, body: dict[str, Any]) -> None:
        with self._lock:
            self._table(number)
            self.store.execute("UPDATE tables SET online = ?, online_time = ? WHERE number = ?",
                               (1 if body.get("online") else 0, time.time(), number))
        self.bus.publish("online", {"table": number, "online": bool(body.get("online"))})

    # -- commands --------------------------------------------------------------------------------

    def command(self, number: int, body: dict[str, Any]) -> bool:
        """Send ``body`` to table ``number`` (QoS 1: the broker keeps it for a table that is away)."""
        info = self.client.publish(Topics(self.prefix, number).command, m.dumps(body), qos=1)
        return info.rc == 0

    def control(self, number: int, action: str, reason: str = "") -> dict[str, Any]:
        """The director's control of one table (``pause``, ``resume`` or ``end``), sent with an id
        so that a table applies it once however often the broker delivers it."""
        body: dict[str, Any] = {"type": action, "id": f"{action}-t{number}-{uuid.uuid4().hex[:12]}"}
        if reason:
            body["reason"] = reason
        return {**body, "table": number, "sent": self.command(number, body)}

    def send_pairings(self, round_: int, pairings: list[TablePairing], *, now: bool = False,
                      division: str | None = None) -> list[dict[str, Any]]:
        """Record a round's pairings (per table, the players in the order they start) and send
        each table its own. A table starts the game when its current one ends (``now``: at once)."""
        division = division or self.settings.division
        sent = []
        for p in pairings:
            number, players = p.table, list(p.players)
            pid = f"{division}-r{round_}-t{number}-{uuid.uuid4().hex[:8]}"
            body = {"type": "pairing", "id": pid, "round": round_, "division": division, "players": players,
                    "now": now}
            ok = self.command(number, body)
            self.store.execute("INSERT INTO pairings (round, number, division, players, numbers, id, sent) "
                               "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT(round, number) DO UPDATE SET "
                               "division = excluded.division, players = excluded.players, "
                               "numbers = excluded.numbers, id = excluded.id, sent = excluded.sent",
                               (round_, number, division, json.dumps(players), json.dumps(list(p.numbers)), pid,
                                time.time() if ok else None))
            sent.append({**body, "table": number, "sent": ok})
        self.bus.publish("pairings", {"round": round_})
        return sent

    # -- views -----------------------------------------------------------------------------------

    def behind(self, number: int) -> int:
        """How many events of table ``number`` the hub knows of but has not taken yet."""
        with self._lock:
            f = self._follow.get(number)
            return 0 if f is None else max(0, f.known - f.last)

    def last_seq(self, number: int) -> int:
        with self._lock:
            f = self._follow.get(number)
            return 0 if f is None else f.last
