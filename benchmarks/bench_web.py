"""How fast a table event reaches the status page, and how many viewers one table serves.

Prints:
- the time from a table event (a play entered) to its tile appearing in a page open in
  headless Chromium (when Debian's chromium and Playwright are installed);
- the time the page takes to answer while 130 strangers hold connections open, each sending a
  header line now and then and never finishing its request (the server's default settings, as
  ``board-pi run`` serves; it allows 128 connections);
- for growing numbers of live viewers (event streams on 127.0.0.1, read by one selector loop so
  the client costs little), the time from the event to its arrival at every viewer, and the
  largest number of viewers for which the 95th percentile stays within the target.

Target: at most 200 ms from event to page. Everything runs against 127.0.0.1 only; every loop is
bounded in count and time. Run: ``.venv/bin/python benchmarks/bench_web.py [--max-viewers N]``.
"""

from __future__ import annotations

import argparse
import os
import selectors
import socket
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from board_pi.rules.judge import WordJudge  # noqa: E402
from board_pi.table.store import Journal  # noqa: E402
from board_pi.table.table import Table  # noqa: E402
from board_pi.web import serve  # noqa: E402
from board_pi.wordlists import load_lexicon  # noqa: E402

TARGET_MS = 200.0
PLAYS = ["8D WINDY", "8D QUITE", "8G ZAX"]
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def percentile(values: list[float], p: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(round(p / 100 * (len(s) - 1))))]


def change(table: Table, i: int) -> str:
    """One table event: a play on an empty board (undoing the previous one first). Returns the play."""
    if table.game is not None and table.game.events:
        table.undo()
    play = PLAYS[i % len(PLAYS)]
    table.enter_play(0, play)
    return play.split()[1]


class Viewers:
    """``n`` raw event-stream connections, all read by one selector loop."""

    def __init__(self, port: int, n: int) -> None:
        self.sel = selectors.DefaultSelector()
        self.socks: list[socket.socket] = []
        self.bufs: dict[int, bytes] = {}
        self.refused = 0
        for _ in range(n):
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
            s.sendall(b"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n")
            s.setblocking(False)
            self.sel.register(s, selectors.EVENT_READ, len(self.socks))
            self.bufs[len(self.socks)] = b""
            self.socks.append(s)
        # Wait until every stream has sent its first state (or was refused).
        self.wait_for(b'"board"', timeout=30)
        for buf in self.bufs.values():
            if not buf.startswith(b"HTTP/1.1 200"):
                self.refused += 1

    def wait_for(self, marker: bytes, timeout: float) -> dict[int, float]:
        """Read until every viewer's buffer holds ``marker``; when each got it."""
        got: dict[int, float] = {i: time.perf_counter() for i, b in self.bufs.items() if marker in b}
        end = time.monotonic() + timeout
        while len(got) < len(self.socks) and time.monotonic() < end:
            for key, _ in self.sel.select(timeout=0.05):
                i = key.data
                try:
                    chunk = key.fileobj.recv(1 << 16)  # type: ignore[union-attr]
                except BlockingIOError:
                    continue
                if not chunk:
                    self.sel.unregister(key.fileobj)
                    got.setdefault(i, float("nan"))
                    continue
                self.bufs[i] = (self.bufs[i] + chunk)[-20000:]
                if i not in got and marker in self.bufs[i]:
                    got[i] = time.perf_counter()
        return got

    def clear(self) -> None:
        for i in self.bufs:
            self.bufs[i] = b""

    def close(self) -> None:
        for s in self.socks:
            try:
                self.sel.unregister(s)
            except (KeyError, ValueError):
                pass
            s.close()


def measure_viewers(table: Table, port: int, n: int, rounds: int) -> tuple[list[float], int]:
    viewers = Viewers(port, n)
    lat: list[float] = []
    try:
        for r in range(rounds):
            viewers.clear()
            t0 = time.perf_counter()
            word = change(table, r)
            got = viewers.wait_for(f'"moves":[{{"player":0,"text":"{PLAYS[r % len(PLAYS)]}'.encode(), timeout=5)
            lat += [(t - t0) * 1000 for t in got.values() if t == t]
            lat += [float("inf")] * (n - len(got))
            time.sleep(0.1)
            del word
        return lat, viewers.refused
    finally:
        viewers.close()


def measure_page(url: str, table: Table, rounds: int) -> list[float] | str:
    """Event to tile in a real page: a MutationObserver in the page stamps the moment it is drawn."""
    chromium = "/usr/bin/chromium"
    if not os.path.exists(chromium):
        return "skipped: no /usr/bin/chromium (apt-get install chromium)"
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return "skipped: playwright is not installed (pip install -e '.[test]')"
    out: list[float] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        # The page's own policy forbids injected scripts; the benchmark's observer needs one.
        context = browser.new_context(bypass_csp=True, viewport={"width": 1280, "height": 800})
        page = context.new_page()
        page.add_init_script("""
            window.__seen = {};
            new MutationObserver(() => {
              const t = document.querySelector('.sq[data-square="H8"] .tile .letter');
              const key = t ? t.textContent : '';
              if (key && !(key in window.__seen)) window.__seen[key] = performance.timeOrigin + performance.now();
              if (!t) window.__seen = {};
            }).observe(document, {subtree: true, childList: true, characterData: true});
        """)
        page.goto(url)
        page.wait_for_selector("#link.up")
        for r in range(rounds):
            play = PLAYS[r % len(PLAYS)]
            word = play.split()[1]
            letter_on_h8 = word[7 - (ord(play[1]) - ord("A"))]  # the letter the play puts on H8
            if table.game is not None and table.game.events:
                table.undo()
                page.wait_for_selector('.sq[data-square="H8"] .prem')
            t0 = time.time()
            table.enter_play(0, play)
            page.wait_for_selector('.sq[data-square="H8"] .tile')
            seen = page.evaluate(f"window.__seen[{letter_on_h8!r}]")
            if seen is not None:
                out.append(seen - t0 * 1000)
            time.sleep(0.05)
        context.close()
        browser.close()
    return out


TRICKLERS = 130


def measure_tricklers(table: Table, rounds: int) -> list[float]:
    """Milliseconds for ``/api/state`` while :data:`TRICKLERS` connections trickle headers at the
    server of ``board-pi run`` (its default limits and timeouts)."""
    import http.client
    import threading

    handle = serve(table, host="127.0.0.1", port=0)
    stop = threading.Event()
    socks = []
    try:
        for _ in range(TRICKLERS):
            s = socket.create_connection(("127.0.0.1", handle.port), timeout=5)
            s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")
            socks.append(s)

        def drip() -> None:
            n = 0
            while not stop.wait(1.0):
                n += 1
                for s in socks:
                    try:
                        s.sendall(f"X-Slow-{n}: 1\r\n".encode())
                    except OSError:
                        pass  # cut by the server

        threading.Thread(target=drip, daemon=True).start()
        times = []
        for _ in range(rounds):
            t0 = time.perf_counter()
            conn = http.client.HTTPConnection("127.0.0.1", handle.port, timeout=120)
            conn.request("GET", "/api/state")
            resp = conn.getresponse()
            resp.read()
            conn.close()
            if resp.status == 200:
                times.append((time.perf_counter() - t0) * 1000)
            time.sleep(0.5)
        return times
    finally:
        stop.set()
        for s in socks:
            s.close()
        handle.stop()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--max-viewers", type=int, default=300)
    ap.add_argument("--rounds", type=int, default=8)
    args = ap.parse_args()
    steps = [n for n in (1, 10, 25, 50, 100, 150, 200, 300, 400) if n <= args.max_viewers]

    with tempfile.TemporaryDirectory() as tmp:
        table = Table(Journal(Path(tmp) / "bench.db"), WordJudge(load_lexicon()))
        table.new_game(["Ann", "Bob"])
        handle = serve(table, host="127.0.0.1", port=0, threads=max(steps) + 12, heartbeat=15.0)
        try:
            page = measure_page(handle.url, table, rounds=max(10, args.rounds))
            if isinstance(page, str):
                print(f"event -> tile drawn in Chromium: {page}")
            else:
                print(f"event -> tile drawn in Chromium ({len(page)} events): median {statistics.median(page):.1f} ms, "
                      f"max {max(page):.1f} ms (target <= {TARGET_MS:.0f} ms)")
            slow = measure_tricklers(table, rounds=args.rounds)
            print(f"/api/state with {TRICKLERS} connections trickling headers ({len(slow)} of {args.rounds} "
                  f"answered): median {statistics.median(slow):.1f} ms, max {max(slow):.1f} ms"
                  if slow else f"/api/state with {TRICKLERS} connections trickling headers: never answered")
            print(f"{'viewers':>8} {'median ms':>10} {'p95 ms':>8} {'max ms':>8} {'refused':>8}")
            held = 0
            web = handle.app.extensions["board_pi"]
            for n in steps:
                end = time.monotonic() + 15  # let the last step's streams notice they were closed
                while web.streams > 0 and time.monotonic() < end:
                    time.sleep(0.1)
                lat, refused = measure_viewers(table, handle.port, n, args.rounds)
                p95 = percentile(lat, 95)
                print(f"{n:>8} {statistics.median(lat):>10.1f} {p95:>8.1f} {max(lat):>8.1f} {refused:>8}")
                if p95 <= TARGET_MS and refused == 0:
                    held = n
                else:
                    break
            print(f"viewers served with the event at every page within {TARGET_MS:.0f} ms (p95): {held}"
                  + (f" (the largest step tried: {max(steps)})" if held == max(steps) else ""))
        finally:
            handle.stop()
            table.journal.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
