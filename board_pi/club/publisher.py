"""A table on the club's broker: its state, every event, results and whether it is online.

The publisher follows the table from outside, through what the table offers everyone: its event
bus (something changed), its snapshot (the state as the page shows it) and its journal (every
event, numbered). Nothing is kept in memory that the journal does not have: the last event the
broker acknowledged is kept in ``club.db`` beside the journal, and after a cut, a broker restart
or a table restart the publisher starts again from the first event not acknowledged. Events go
out in the journal's order, each with its sequence number and the one before it, so the hub can
drop a duplicate and notice a gap (and ask for the missing ones: the ``resend`` command).

After a reconnection paho-mqtt sends again what was in flight; nothing new is sent until that is
acknowledged, so the broker receives the events in order.

The hub's commands arrive on the table's command topic: a round's pairing (the next game's
players, who starts) and ``resend``. A pairing is applied once (its id is kept): at once when
the table has no game going, otherwise when the game ends (or at once when the hub says ``now``).
"""

from __future__ import annotations

import json
import logging
import queue
import sqlite3
import threading
import time
import uuid
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Protocol

from . import mqtt as m
from .settings import ClubSettings
from .topics import Topics

log = logging.getLogger("board_pi.club")

WINDOW = 100  # events in flight at once (paho's own in-flight limit is set to the same; the broker
# needs max_inflight_messages at least this, docs/club-night.md)
DRAIN_WAIT = 20.0  # seconds after a reconnection for paho's resent messages to be acknowledged
SAVE_EVERY = 0.5  # seconds between writes of the last acknowledged event: a crash in between only
# sends a few acknowledged events again, and the hub drops those


class Bus(Protocol):
    @property
    def last_seq(self) -> int: ...

    def wait(self, seq: int, timeout: float) -> tuple[list[Any], bool]: ...


CONTROLS = ("pause", "resume", "end")
"""What the director may do to a table from the hub (besides pairings): stop or restart its
clocks, and end its game (with a reason, as on the table's own page)."""


def table_control(table: Any, say: Callable[[str], Any] | None = None) -> Callable[[str, dict[str, Any]], None]:
    """The director's controls from the hub, done on ``table`` as on its own page (its
    ``pause``, ``resume_clock`` and ``end_game``): the ``control`` a publisher is given."""

    def control(action: str, command: dict[str, Any]) -> None:
        if action == "pause":
            table.pause()
        elif action == "resume":
            table.resume_clock()
        elif action == "end":
            table.end_game(str(command.get("reason") or "ended by the director")[:120])
        if say is not None:
            say(f"club: the director's {action} from the hub")

    return control


class TableView(Protocol):
    """What the publisher reads of a table: its bus and its snapshot."""

    bus: Bus

    def snapshot(self) -> dict[str, Any]: ...


class JournalView(Protocol):
    def events_after(self, seq: int, limit: int = 500) -> list[Any]: ...

    def last_seq(self) -> int: ...


@dataclass(frozen=True)
class Pairing:
    """The next game at a table: players in the order they start, for round ``round``."""

    id: str
    round: int
    players: tuple[str, ...]
    division: str = "A"
    now: bool = False

    @classmethod
    def from_command(cls, c: dict[str, Any]) -> "Pairing":
        players = c.get("players")
        if not isinstance(players, list) or not 2 <= len(players) <= 4 or not all(
                isinstance(p, str) and 0 < len(p.strip()) <= 40 for p in players):
            raise ValueError("a pairing names 2 to 4 players, each 1 to 40 characters")
        rnd = c.get("round")
        if not isinstance(rnd, int) or isinstance(rnd, bool) or not 1 <= rnd <= 999:
            raise ValueError("a pairing's round is a number from 1 to 999")
        return cls(str(c.get("id") or uuid.uuid4().hex), rnd, tuple(p.strip() for p in players),
                   str(c.get("division") or "A")[:8], bool(c.get("now", False)))

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "round": self.round, "players": list(self.players),
                "division": self.division, "now": self.now}


class ClubState:
    """What the publisher must not forget across a restart, in ``club.db`` beside the journal:
    which journal it follows (``epoch``), the last event acknowledged, results not yet
    acknowledged, the commands already applied, and the pairing waiting for the next game."""

    SCHEMA = """
    CREATE TABLE IF NOT EXISTS kv (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE IF NOT EXISTS results (game_id INTEGER PRIMARY KEY, payload TEXT NOT NULL,
                                        delivered INTEGER NOT NULL DEFAULT 0);
    CREATE TABLE IF NOT EXISTS commands (id TEXT PRIMARY KEY, applied REAL NOT NULL);
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.executescript(self.SCHEMA)

    def get(self, key: str, default: Any = None) -> Any:
        with self._lock:
            row = self._db.execute("SELECT value FROM kv WHERE key = ?", (key,)).fetchone()
        return json.loads(row[0]) if row else default

    def put(self, key: str, value: Any) -> None:
        with self._lock:
            self._db.execute("INSERT INTO kv (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET "
                             "value = excluded.value", (key, json.dumps(value)))

    def add_result(self, game_id: int, payload: dict[str, Any]) -> None:
        with self._lock:
            self._db.execute("INSERT INTO results (game_id, payload) VALUES (?, ?) ON CONFLICT(game_id) "
                             "DO UPDATE SET payload = excluded.payload, delivered = 0",
                             (game_id, json.dumps(payload)))

    def undelivered_results(self) -> list[tuple[int, dict[str, Any]]]:
        with self._lock:
            rows = self._db.execute("SELECT game_id, payload FROM results WHERE delivered = 0 "
                                    "ORDER BY game_id").fetchall()
        return [(r[0], json.loads(r[1])) for r in rows]

    def result_delivered(self, game_id: int) -> None:
        with self._lock:
            self._db.execute("UPDATE results SET delivered = 1 WHERE game_id = ?", (game_id,))

    def first_time(self, command_id: str) -> bool:
        """Record a command as applied; False when it already was (a duplicate delivery)."""
        with self._lock:
            cur = self._db.execute("INSERT OR IGNORE INTO commands (id, applied) VALUES (?, ?)",
                                   (command_id, time.time()))
        return cur.rowcount == 1

    def close(self) -> None:
        with self._lock:
            self._db.close()


class TablePublisher:
    """Publishes one table to the club's broker. ``start_game(pairing)`` starts the table's next
    game with a pairing's players (the CLI wires it to the table with the configured rules)."""

    def __init__(self, settings: ClubSettings, table: TableView, journal: JournalView, data_dir: Path,
                 *, start_game: Callable[[Pairing], None] | None = None,
                 control: Callable[[str, dict[str, Any]], None] | None = None) -> None:
        assert settings.broker is not None and settings.table is not None
        self.settings = settings
        self.number = settings.table
        self.topics = Topics(settings.prefix, settings.table)
        self.table = table
        self.journal = journal
        self.start_game = start_game
        # The director's controls from the hub (pause, resume, end): ``control(action, command)``.
        self.control = control
        self.state = ClubState(Path(data_dir) / "club.db")
        self.epoch = self._epoch()
        self.delivered = int(self.state.get("delivered", 0))
        self._cursor = self.delivered  # the last event handed to paho
        self._inflight: deque[int] = deque()  # event seqs handed to paho, not yet acknowledged
        self._acked: set[int] = set()
        self._mids: dict[int, tuple[str, Any]] = {}
        self._acks: queue.SimpleQueue[tuple[int, int]] = queue.SimpleQueue()
        self._commands: queue.SimpleQueue[dict[str, Any]] = queue.SimpleQueue()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._connected = False
        self._drain_first = False  # after a reconnection: let paho's resends be acknowledged first
        self._state_dirty = True
        self._state_inflight = False
        self._announce_online = False
        self._resend_after: int | None = None
        self.refused: list[str] = []  # publishes the broker refused (the access list): said, kept
        self.connection_problem: str | None = None
        self.client = m.make_client(settings.broker, f"board-pi-table-{self.number}")
        self.client.max_inflight_messages_set(WINDOW)
        self.client.will_set(self.topics.online, m.dumps(self._online(False)), qos=1, retain=True)
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = self._on_disconnect
        self.client.on_publish = self._on_publish
        self.client.on_message = self._on_message
        self._threads: list[threading.Thread] = []
        self._delivered_cond = threading.Condition()
        self._saved_at = 0.0
        self._connected_at = 0.0
        self._pairing_lock = threading.Lock()

    # -- the journal this publisher follows ------------------------------------------------

    def _epoch(self) -> str:
        """An id for the journal being followed. A journal started afresh (a damaged one set
        aside, a new data directory) numbers its events from 1 again: a new epoch tells the hub
        these are new events, not duplicates."""
        epoch = self.state.get("epoch")
        delivered = int(self.state.get("delivered", 0))
        if epoch is None or self.journal.last_seq() < delivered:
            epoch = uuid.uuid4().hex[:12]
            self.state.put("epoch", epoch)
            self.state.put("delivered", 0)
        return str(epoch)

    # -- running -----------------------------------------------------------------------------

    def start(self) -> "TablePublisher":
        assert self.settings.broker is not None
        m.start(self.client, self.settings.broker, persistent=True)
        for target, name in ((self._follow_bus, "bus"), (self._send_loop, "send")):
            t = threading.Thread(target=target, name=f"club-{name}-{self.number}", daemon=True)
            t.start()
            self._threads.append(t)
        self._start_waiting_pairing()  # one that came while the table was off
        return self

    def stop(self, timeout: float = 5.0) -> None:
        """Say offline and leave (what is unsent stays in the journal for next time)."""
        if self._stop.is_set():
            return
        self._stop.set()
        self._wake.set()
        for t in self._threads:
            t.join(timeout)
        self._take_acks()
        self._save_delivered()
        try:
            if self._connected:
                self.client.publish(self.topics.online, m.dumps(self._online(False)), qos=1,
                                    retain=True).wait_for_publish(timeout)
        except (RuntimeError, ValueError):
            pass
        self.client.disconnect()
        self.client.loop_stop()
        self.state.close()

    def close(self) -> None:
        """As :meth:`stop`, after a moment for what is still in flight (a table shutting down)."""
        self.flush(3.0)
        self.stop()

    @property
    def connected(self) -> bool:
        return self._connected

    @property
    def backlog(self) -> int:
        """Events in the journal the broker has not acknowledged yet."""
        return max(0, self.journal.last_seq() - self.delivered)

    def flush(self, timeout: float) -> bool:
        """Wait (at most ``timeout``) until the broker has every event and result so far: a
        table about to stop (the demo's end) leaves nothing for next time if it can."""
        last = self.journal.last_seq()
        with self._delivered_cond:
            return self._delivered_cond.wait_for(
                lambda: self.delivered >= last and not self.state.undelivered_results(), timeout=timeout)

    def wait_delivered(self, seq: int, timeout: float) -> bool:
        """Wait until every event up to ``seq`` is acknowledged (tests, a clean shutdown)."""
        deadline = time.monotonic() + timeout
        with self._delivered_cond:
            return self._delivered_cond.wait_for(lambda: self.delivered >= seq,
                                                 timeout=max(0.0, deadline - time.monotonic()))

    # -- paho's callbacks (its network thread): hand over, never block ------------------------

    def _on_connect(self, client: Any, userdata: Any, flags: Any, rc: Any, props: Any = None) -> None:
        code = m.reason_value(rc)
        if code != 0:
            self.connection_problem = m.REFUSALS.get(code, f"the broker refused the connection ({code})")
            log.error("table %s: %s", self.number, self.connection_problem)
            return
        self.connection_problem = None
        client.subscribe(self.topics.command, qos=1)
        self._connected_at = time.monotonic()
        self._connected = True
        self._announce_online = True
        self._state_dirty = True
        self._wake.set()

    def _on_disconnect(self, client: Any, userdata: Any, flags: Any, rc: Any, props: Any = None) -> None:
        self._connected = False
        self._drain_first = True
        self._wake.set()

    def _on_publish(self, client: Any, userdata: Any, mid: int, rc: Any, props: Any = None) -> None:
        self._acks.put((mid, m.reason_value(rc)))
        self._wake.set()

    def _on_message(self, client: Any, userdata: Any, msg: Any) -> None:
        command = m.loads(msg.payload)
        if isinstance(command, dict):
            self._commands.put(command)
            self._wake.set()

    # -- the bus follower: something changed at the table -------------------------------------

    def _follow_bus(self) -> None:
        seen = self.table.bus.last_seq
        while not self._stop.is_set():
            events, _ = self.table.bus.wait(seen, timeout=0.5)
            if events:
                seen = events[-1].seq
                self._state_dirty = True
                self._wake.set()
                if any(getattr(e, "type", "") == "game_over" for e in events):
                    self._start_waiting_pairing()

    # -- the sender: the one thread that talks to paho ----------------------------------------

    def _send_loop(self) -> None:
        while not self._stop.is_set():
            self._wake.wait(timeout=1.0)
            self._wake.clear()
            try:
                self._take_acks()
                self._take_commands()
                if not self._connected:
                    continue
                if self._drain_first:
                    if self._mids and time.monotonic() - self._connected_at < DRAIN_WAIT:
                        continue  # paho is sending again what was in flight
                    if self._mids:  # not acknowledged after all: send again from the last that was
                        log.warning("table %s: %d messages not acknowledged after reconnecting; sending "
                                    "again from event %d", self.number, len(self._mids), self.delivered + 1)
                        self._mids.clear()
                        self._inflight.clear()
                        self._acked.clear()
                        self._cursor = self.delivered
                        self._state_inflight = False
                        self._state_dirty = True
                    self._drain_first = False
                if self._announce_online:
                    self._announce_online = False
                    self._publish("online", self.topics.online, self._online(True), retain=True)
                self._send_events()
                self._send_results()
                self._send_state()
            except Exception:  # a fault here must not end the thread: the table plays on
                log.exception("table %s: the club publisher failed; trying again", self.number)
                self._stop.wait(1.0)
                self._wake.set()

    def _publish(self, kind: str, topic: str, payload: Any, *, retain: bool = False, key: Any = None) -> bool:
        info = self.client.publish(topic, m.dumps(payload), qos=1, retain=retain)
        if info.rc != 0:  # not connected after all: tried again on reconnection
            return False
        self._mids[info.mid] = (kind, key)
        return True

    def _take_acks(self) -> None:
        advanced = False
        while True:
            try:
                mid, rc = self._acks.get_nowait()
            except queue.Empty:
                break
            kind, key = self._mids.pop(mid, ("?", None))
            if rc >= 128:  # refused (not authorised): a misconfigured access list, said once
                text = f"the broker refused the table's {kind} message (reason {rc}): check its access list"
                if text not in self.refused:
                    self.refused.append(text)
                    log.error("table %s: %s", self.number, text)
            if kind == "event":
                self._acked.add(key)
                while self._inflight and self._inflight[0] in self._acked:
                    seq = self._inflight.popleft()
                    self._acked.discard(seq)
                    self.delivered = seq
                    advanced = True
            elif kind == "result" and rc < 128:
                self.state.result_delivered(key)
                advanced = True
            elif kind == "state":
                self._state_inflight = False
        if advanced:
            now = time.monotonic()
            if now - self._saved_at >= SAVE_EVERY or not self._inflight:
                self._save_delivered()
            self._wake.set()  # a flush() waiting on the condition re-checks
            with self._delivered_cond:
                self._delivered_cond.notify_all()

    def _save_delivered(self) -> None:
        self._saved_at = time.monotonic()
        if self.state.get("delivered") != self.delivered:
            self.state.put("delivered", self.delivered)

    def _send_events(self) -> None:
        if self._resend_after is not None and not self._inflight:
            self._cursor = min(self._cursor, self._resend_after)
            self._resend_after = None
        while len(self._inflight) < WINDOW:
            entries = self.journal.events_after(self._cursor, WINDOW - len(self._inflight))
            if not entries:
                return
            for e in entries:
                payload = {"table": self.number, "epoch": self.epoch, "seq": e.seq, "prev": self._cursor,
                           "game": e.game_id, "wall": e.wall, "event": e.event}
                if not self._publish("event", self.topics.events, payload, key=e.seq):
                    return
                self._inflight.append(e.seq)
                self._cursor = e.seq

    def _send_results(self) -> None:
        pending = {k for kind, k in self._mids.values() if kind == "result"}
        for game_id, payload in self.state.undelivered_results():
            if game_id not in pending:
                self._publish("result", self.topics.result, payload, retain=True, key=game_id)

    def _send_state(self) -> None:
        if not self._state_dirty or self._state_inflight:
            return  # only the newest state matters: one in flight at a time
        self._state_dirty = False
        payload = {"table": self.number, "epoch": self.epoch, "seq": self.journal.last_seq(),
                   "time": time.time(), "snapshot": self.table.snapshot(),
                   "next_pairing": self.state.get("next_pairing"), "pairing": self.state.get("pairing")}
        if self._publish("state", self.topics.state, payload, retain=True):
            self._state_inflight = True

    def _online(self, online: bool) -> dict[str, Any]:
        return {"table": self.number, "online": online, "time": time.time()}

    # -- results and commands -------------------------------------------------------------------

    def game_finished(self, gcg: str, meta: dict[str, Any]) -> None:
        """A game ended (the table's ``on_finished``): its result and record, kept until the
        broker has them."""
        game_id = int(meta.get("game_id") or 0)
        pairing = self.state.get("pairing") or {}
        payload = {"table": self.number, "epoch": self.epoch, "game": game_id,
                   "players": list(meta.get("players", [])), "scores": list(meta.get("scores", [])),
                   "first": 0, "round": meta.get("round", pairing.get("round")),
                   "division": meta.get("division", pairing.get("division", self.settings.division)),
                   "pairing": meta.get("pairing", pairing.get("id")),
                   "finished": time.time(), "gcg": gcg}
        self.state.add_result(game_id, payload)
        self._wake.set()

    def _take_commands(self) -> None:
        while True:
            try:
                c = self._commands.get_nowait()
            except queue.Empty:
                return
            kind = c.get("type")
            if kind == "resend":
                after = c.get("after")
                if c.get("epoch") not in (None, self.epoch) or not isinstance(after, int) or after < 0:
                    continue
                self._resend_after = after if self._resend_after is None else min(after, self._resend_after)
            elif kind == "pairing":
                try:
                    pairing = Pairing.from_command(c)
                except ValueError as e:
                    log.warning("table %s: a pairing from the hub was not taken: %s", self.number, e)
                    continue
                if not self.state.first_time(f"pairing:{pairing.id}"):
                    continue  # delivered twice
                self.state.put("next_pairing", pairing.to_dict())
                self._state_dirty = True
                self._start_waiting_pairing(force=pairing.now)
            elif kind in CONTROLS:
                cid = c.get("id")
                if not isinstance(cid, str) or not cid or len(cid) > 80 or self.control is None:
                    continue
                if not self.state.first_time(f"control:{cid}"):
                    continue  # delivered twice: a pause is not undone by its own duplicate
                try:
                    self.control(kind, c)
                except Exception as e:  # refused by the table (no game, already paused): logged
                    log.warning("table %s: the hub's %s was not done: %s", self.number, kind, e)

    def _start_waiting_pairing(self, force: bool = False) -> None:
        with self._pairing_lock:
            self._start_pairing(force)

    def _start_pairing(self, force: bool) -> None:
        waiting = self.state.get("next_pairing")
        if not waiting or self.start_game is None:
            return
        snap = self.table.snapshot()
        if not force and snap.get("game") is not None and not snap.get("over"):
            return  # the game goes on; the pairing starts the next one
        pairing = Pairing.from_command(waiting)
        self.state.put("next_pairing", None)
        self.state.put("pairing", pairing.to_dict())
        try:
            self.start_game(pairing)
        except Exception as e:  # a journal that cannot be written: the director is told on the page
            log.error("table %s: could not start the paired game: %s", self.number, e)
            self.state.put("next_pairing", pairing.to_dict())
            self.state.put("pairing", None)
        self._state_dirty = True
        self._wake.set()
