"""Club night under load: many simulated tables playing at full speed into one Mosquitto broker
and one hub, all on this machine.

Prints: event to hub page (from the moment a table's journal commits an event to the moment the
hub's page stream delivers it: median, 95th percentile (target at most 500 ms), max), the hub's
and the broker's memory and CPU, and the time for one table's backlog to arrive after its
connection was cut (two minutes by default) and mended.

    python benchmarks/bench_club.py [--tables 50] [--seconds 60] [--cut-seconds 120] [--pace 0]

Each table is a real board-pi Table with its SQLite journal (full sync) and its publisher,
acting out the bundled demo game again and again as fast as it can (no camera, no pauses): far
busier than a real room, where a table makes an event every few seconds. Tables run in a few
worker processes, the hub (with its web server) in its own process, the broker in its own. On a
Raspberry Pi as the hub the figures would be several times slower per core.

In a room each table is a Pi of its own; here fifty share two cores with the hub and the broker,
and at full speed they would take every cycle. So the tables' processes run at low priority
(``--table-nice 19``) and a table's game yields the interpreter after each action, as its own
Pi would leave the hub and broker alone. ``--table-nice 0`` shows the contest for the cores
instead (then the latency is the tables' queue for a core, not the hub's work). ``--pace S``
plays at a set pace (S seconds after each action) rather than flat out.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

HUB_PASSWORD = "bench-hub"


def password(n: int) -> str:
    return f"bench-table-{n}"


# -- the roles ------------------------------------------------------------------------------------


def run_tables(args: argparse.Namespace) -> None:
    """Worker: tables ``first``..``first+count-1`` play until ``seconds`` have passed."""
    from board_pi.club.publisher import TablePublisher
    from board_pi.club.settings import ClubSettings, parse_broker_url
    from board_pi.club.sim import RecordedTable

    # In a room every table is its own Raspberry Pi; here 50 of them share two cores with the hub
    # and the broker. The tables yield the processor to them, as if on machines of their own:
    # what is measured is the hub and the broker, not the contest for this machine's cores.
    # The same for the tables of one process among themselves: a table's publisher waits for the
    # interpreter lock behind nine other tables' games, so hand it over more often than every 5 ms.
    os.nice(args.table_nice)
    sys.setswitchinterval(0.0005)
    deadline = time.monotonic() + args.seconds
    data = Path(args.data)
    stops = []

    def one(n: int) -> None:
        sim = RecordedTable(data / f"table-{n}")
        port = args.cut_port if n == args.cut_table else args.broker_port
        settings = ClubSettings(parse_broker_url(f"mqtt://table-{n}:{password(n)}@127.0.0.1:{port}"), n)
        pub = TablePublisher(settings, sim.table, sim.table.journal, sim.data,
                             start_game=lambda p: sim.new_game(list(p.players)))
        sim.on_finished = pub.game_finished
        pub.start()
        stops.append(pub)
        game = 0
        while time.monotonic() < deadline:
            if sim.over:
                game += 1
                sim.new_game([f"T{n} Ada {game}", f"T{n} Ben {game}"])
            sim.step()
            time.sleep(args.pace)  # 0: no wait, but the table's publisher may have the lock

    threads = [threading.Thread(target=one, args=(n,)) for n in range(args.first, args.first + args.count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print("played", flush=True)
    sys.stdin.readline()  # the main process says when the publishers may stop (all delivered)
    for p in stops:
        p.stop()


def run_hub(args: argparse.Namespace) -> None:
    from board_pi.club.hub import Hub
    from board_pi.club.hubweb import create_hub_app
    from board_pi.club.settings import ClubSettings, parse_broker_url
    from board_pi.serve.guard import PinGuard
    from board_pi.serve.store import DirectorStore
    from board_pi.web.server import serve

    data = Path(args.data)
    data.mkdir(parents=True, exist_ok=True)
    hub = Hub(ClubSettings(parse_broker_url(f"mqtt://hub:{HUB_PASSWORD}@127.0.0.1:{args.broker_port}")),
              data).start()
    server = serve(None, "127.0.0.1", 0, app=create_hub_app(hub, store=DirectorStore(data), guard=PinGuard()), threads=16)
    print(f"port {server.port}", flush=True)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    stop.wait()
    server.stop()
    hub.stop()


# -- measuring ------------------------------------------------------------------------------------


class CpuMem:
    """CPU seconds and resident memory of a process, from /proc."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.t0 = self.cpu()
        self.w0 = time.monotonic()
        self.peak = 0

    def cpu(self) -> float:
        fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def rss_mb(self) -> float:
        for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return 0.0

    def sample(self) -> None:
        self.peak = max(self.peak, int(self.rss_mb()))

    def report(self) -> str:
        used = self.cpu() - self.t0
        wall = time.monotonic() - self.w0
        return f"CPU {used:.1f} s in {wall:.0f} s ({100 * used / wall:.0f}% of one core), peak memory {self.peak} MB"


class PageStream(threading.Thread):
    """The hub's page stream, as a browser would follow it: notes when each event arrives."""

    def __init__(self, port: int, cut_table: int) -> None:
        super().__init__(daemon=True)
        self.port = port
        self.cut_table = cut_table  # its events wait out the cut: timed apart
        self.first_after: float | None = None
        self.mended: float | None = None
        self.latencies: list[float] = []
        self.last: dict[int, int] = {}
        self.cond = threading.Condition()
        self.ready = threading.Event()

    def run(self) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", self.port)
        conn.request("GET", "/api/events")
        resp = conn.getresponse()
        self.ready.set()
        kind = ""
        while True:
            line = resp.readline()
            if not line:
                return
            text = line.decode().rstrip("\n")
            if text.startswith("event: "):
                kind = text[7:]
            elif text.startswith("data: ") and kind == "event":
                d = json.loads(text[6:])
                now = time.time()
                with self.cond:
                    if d["table"] == self.cut_table:
                        if self.mended is not None and self.first_after is None:
                            self.first_after = time.monotonic()
                    elif d.get("wall"):
                        self.latencies.append(now - float(d["wall"]))
                    self.last[d["table"]] = max(self.last.get(d["table"], 0), d["seq"])
                    self.cond.notify_all()

    def wait_for(self, table: int, seq: int, timeout: float) -> bool:
        with self.cond:
            return self.cond.wait_for(lambda: self.last.get(table, 0) >= seq, timeout)


def journal_last(path: Path) -> int:
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return int(db.execute("SELECT MAX(seq) FROM events").fetchone()[0] or 0)
    finally:
        db.close()


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", type=int, default=50)
    ap.add_argument("--per-process", type=int, default=10, help="tables per worker process")
    ap.add_argument("--seconds", type=float, default=None,
                    help="how long the tables play (default: the cut and 20 s more)")
    ap.add_argument("--cut-seconds", type=float, default=120.0, help="how long table 1 is cut off")
    ap.add_argument("--pace", type=float, default=0.0,
                    help="seconds a table waits after each action (default 0: full speed, every core busy)")
    ap.add_argument("--table-nice", type=int, default=19,
                    help="niceness of the simulated tables' processes (0: compete with the hub as equals)")
    ap.add_argument("--role", choices=("main", "tables", "hub"), default="main", help=argparse.SUPPRESS)
    for a in ("--first", "--count", "--broker-port", "--cut-port", "--cut-table"):
        ap.add_argument(a, type=int, default=0, help=argparse.SUPPRESS)
    ap.add_argument("--data", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.role == "tables":
        run_tables(args)
        return 0
    if args.role == "hub":
        run_hub(args)
        return 0

    from board_pi.club.broker import LocalBroker, TcpCut, access_list, mosquitto_path, table_user

    if mosquitto_path() is None:
        print("bench_club: Mosquitto is not installed (apt-get install mosquitto)")
        return 1
    seconds = args.seconds if args.seconds is not None else args.cut_seconds + 20
    tables = range(1, args.tables + 1)
    tmp = Path(tempfile.mkdtemp(prefix="bench-club-"))
    broker = LocalBroker(tmp / "broker", accounts={"hub": HUB_PASSWORD, **{table_user(n): password(n) for n in tables}},
                         acl=access_list(tables)).start()
    me = [sys.executable, __file__]
    hub = subprocess.Popen(me + ["--role", "hub", "--broker-port", str(broker.port), "--data", str(tmp / "hub")],
                           stdout=subprocess.PIPE, text=True)
    port = int(hub.stdout.readline().split()[1])  # type: ignore[union-attr]
    cut_table = 1
    stream = PageStream(port, cut_table)
    stream.start()
    stream.ready.wait(10)
    cut = TcpCut(broker.port)
    print(f"{args.tables} tables, {seconds:.0f} s at full speed; table {cut_table} cut off for "
          f"{args.cut_seconds:.0f} s; {os.cpu_count()} cores (shared), load before: "
          f"{os.getloadavg()[0]:.1f}", flush=True)
    hub_use, broker_use = CpuMem(hub.pid), CpuMem(broker.pid() or 0)
    workers = []
    for first in range(1, args.tables + 1, args.per_process):
        count = min(args.per_process, args.tables + 1 - first)
        workers.append(subprocess.Popen(
            me + ["--role", "tables", "--first", str(first), "--count", str(count), "--broker-port", str(broker.port),
                  "--cut-port", str(cut.port), "--cut-table", str(cut_table), "--seconds", str(seconds),
                  "--table-nice", str(args.table_nice), "--pace", str(args.pace),
                  "--data", str(tmp / "tables")], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True))
    t_start = time.monotonic()
    time.sleep(5)  # the cut comes once the room is busy
    cut.cut()
    t_cut = time.monotonic()
    while time.monotonic() - t_cut < args.cut_seconds:
        hub_use.sample()
        broker_use.sample()
        time.sleep(1)
    journal = tmp / "tables" / f"table-{cut_table}" / "journal.db"
    target = journal_last(journal)
    behind = target - stream.last.get(cut_table, 0)
    stream.mended = t_mend = time.monotonic()
    cut.mend()
    arrived = stream.wait_for(cut_table, target, timeout=600)
    backlog_seconds = time.monotonic() - t_mend
    while time.monotonic() - t_start < seconds:
        hub_use.sample()
        broker_use.sample()
        time.sleep(1)
    for w in workers:
        w.stdout.readline()  # type: ignore[union-attr]  # "played"
    played = time.monotonic() - t_start
    hub_report, broker_report = hub_use.report(), broker_use.report()
    # Everything the tables made reaches the page.
    lasts = {n: journal_last(tmp / "tables" / f"table-{n}" / "journal.db") for n in tables}
    all_in = all(stream.wait_for(n, s, timeout=300) for n, s in lasts.items())
    events = sum(lasts.values())
    for w in workers:
        w.stdin.write("\n")  # type: ignore[union-attr]
        w.stdin.flush()  # type: ignore[union-attr]
        w.wait(60)
    lat = stream.latencies
    print(f"events: {events} in {played:.0f} s ({events / played:.0f}/s across the room); every one at the hub: "
          f"{'yes' if all_in else 'NO'}")
    print(f"event to hub page: median {pct(lat, 50) * 1000:.0f} ms, 95th percentile {pct(lat, 95) * 1000:.0f} ms "
          f"(target <= 500 ms), max {max(lat) * 1000:.0f} ms, over {len(lat)} events of the tables not cut off")
    print(f"hub (MQTT client, SQLite, web server): {hub_report}")
    print(f"broker (mosquitto): {broker_report}")
    back = (stream.first_after - t_mend) if stream.first_after is not None else float("nan")
    print(f"table {cut_table}'s backlog after a {args.cut_seconds:.0f} s cut: {behind} events; the first at the hub "
          f"{back:.1f} s after the network came back (the table's next reconnection attempt), all of them "
          f"{backlog_seconds:.1f} s after" + ("" if arrived else " (NOT all arrived)"))
    print(f"load average at the end: {os.getloadavg()[0]:.1f}")
    hub.send_signal(signal.SIGTERM)
    hub.wait(30)
    cut.close()
    broker.stop()
    return 0 if all_in and arrived else 1


if __name__ == "__main__":
    sys.exit(main())
