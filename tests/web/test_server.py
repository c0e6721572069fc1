"""The status page on a real port under waitress: the event stream, catching up, heartbeats,
the viewer limit, and stopping."""

from __future__ import annotations

import http.client
import json
import time
import urllib.request
from typing import Any, Iterator

import pytest

from board_pi.table.table import Table
from board_pi.web import serve


class Stream:
    """A Server-Sent Events client: reads whole events off a real socket."""

    def __init__(self, port: int, path: str = "/api/events", headers: dict[str, str] | None = None) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        self.conn.request("GET", path, headers=headers or {})
        self.resp = self.conn.getresponse()
        self.buf = b""

    def events(self, deadline: float = 10.0) -> Iterator[dict[str, Any]]:
        end = time.monotonic() + deadline
        while time.monotonic() < end:
            while b"\n\n" in self.buf:
                raw, self.buf = self.buf.split(b"\n\n", 1)
                ev: dict[str, Any] = {}
                for line in raw.decode().splitlines():
                    key, _, value = line.partition(": ")
                    ev[key] = value
                if "event" in ev:
                    ev["data"] = json.loads(ev.get("data", "null"))
                    yield ev
            chunk = self.resp.fp.read1(65536)
            if not chunk:
                return
            self.buf += chunk
        raise AssertionError("no event in time")

    def next_state(self, where: Any = lambda s: True) -> dict[str, Any]:
        for ev in self.events():
            if ev["event"] == "state" and where(ev["data"]):
                return ev
        raise AssertionError("the stream ended")

    def close(self) -> None:
        # The response holds the socket (a streamed answer is read to the connection's end):
        # closing the connection alone would leave it open.
        self.resp.close()
        self.conn.close()


def get_json(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=10) as r:
        return json.loads(r.read())


def test_state_over_a_real_port(server: Any, table: Table) -> None:
    table.new_game(["Ann", "Bob"])
    s = get_json(server.url + "api/state")
    assert [p["name"] for p in s["players"]] == ["Ann", "Bob"]
    with urllib.request.urlopen(server.url, timeout=10) as r:
        assert r.headers["Server"] == "board-pi"  # waitress, not the development server
        assert b"board-pi" in r.read()


def test_stream_sends_the_state_then_each_change(server: Any, table: Table) -> None:
    table.new_game(["Ann", "Bob"])
    stream = Stream(server.port)
    try:
        assert stream.resp.status == 200
        assert stream.resp.headers["Content-Type"].startswith("text/event-stream")
        first = stream.next_state()
        assert first["data"]["players"][0]["score"] == 0
        table.enter_play(0, "8D WINDY")
        ev = stream.next_state(lambda s: s["moves"])
        assert ev["data"]["board"][7] == "...WINDY......." and ev["data"]["players"][0]["score"] == 32
        assert int(ev["id"]) == table.bus.last_seq
    finally:
        stream.close()


def test_catch_up_after_a_dropped_connection(server: Any, table: Table) -> None:
    table.new_game(["Ann", "Bob"])
    seen = table.bus.last_seq
    table.enter_play(0, "8D WINDY")
    table.enter_play(1, "E5 MoA")
    # Reconnecting with Last-Event-ID (what the browser sends) or ?since= replays what was missed.
    for headers, path in (({"Last-Event-ID": str(seen)}, "/api/events"), ({}, f"/api/events?since={seen}")):
        stream = Stream(server.port, path, headers)
        try:
            types = []
            for ev in stream.events():
                types.append(ev["event"])
                if ev["event"] == "state":
                    break
            assert "play" in types
            assert ev["data"]["moves"][-1]["text"] == "E5 MoA(I)"
            assert types.count("state") == 1  # only the newest state of what was missed
        finally:
            stream.close()


def test_too_old_or_future_event_numbers_get_the_whole_state(server: Any, table: Table) -> None:
    table.new_game(["Ann", "Bob"])
    stream = Stream(server.port, "/api/events?since=999999")
    try:
        assert stream.next_state()["data"]["players"][1]["name"] == "Bob"
    finally:
        stream.close()
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
    conn.request("GET", "/api/events?since=abc")
    assert conn.getresponse().status == 400


def test_heartbeat_keeps_a_quiet_stream_alive(server: Any, table: Table) -> None:
    stream = Stream(server.port)
    try:
        stream.next_state()
        ev = next(stream.events(deadline=6))  # heartbeat is 2 s in the fixture
        assert ev["event"] == "ping" and "id" not in ev
    finally:
        stream.close()


def test_viewers_past_the_limit_are_told_to_poll(table: Table, pin_hash: str) -> None:
    handle = serve(table, port=0, threads=6, pin_hash=pin_hash, heartbeat=1.0)  # 2 streams at most
    streams = []
    try:
        for _ in range(2):
            s = Stream(handle.port)
            s.next_state()
            streams.append(s)
        conn = http.client.HTTPConnection("127.0.0.1", handle.port, timeout=5)
        conn.request("GET", "/api/events")
        r = conn.getresponse()
        assert r.status == 503 and "poll" in json.loads(r.read())["error"]
        # The state is still served while every stream is taken.
        assert get_json(handle.url + "api/state")["board"][0] == "." * 15
    finally:
        for s in streams:
            s.close()
        handle.stop()


def test_the_feeds_and_the_page_share_one_limit_of_live_streams(table: Table, pin_hash: str) -> None:
    handle = serve(table, port=0, threads=6, pin_hash=pin_hash, heartbeat=1.0)  # 2 streams at most
    try:
        page = Stream(handle.port)
        page.next_state()
        feed = Stream(handle.port, "/feed/events")
        assert next(feed.events())["event"] == "fields"
        for path in ("/api/events", "/feed/events"):  # a third of either kind is refused
            conn = http.client.HTTPConnection("127.0.0.1", handle.port, timeout=5)
            conn.request("GET", path)
            assert conn.getresponse().status == 503
            conn.close()
        feed.close()  # its place is given back once the server notices it gone
        deadline = time.monotonic() + 10
        while True:
            again = Stream(handle.port, "/feed/events")
            if again.resp.status == 200:
                break
            again.close()
            assert time.monotonic() < deadline, "a closed feed kept its place"
            time.sleep(0.2)
        assert next(again.events())["event"] == "fields"
        again.close()
        page.close()
    finally:
        handle.stop()


def test_stop_ends_streams_and_frees_the_port(table: Table, pin_hash: str) -> None:
    handle = serve(table, port=0, pin_hash=pin_hash, heartbeat=5.0)
    stream = Stream(handle.port)
    stream.next_state()
    handle.stop()
    assert not handle.running
    stream.close()
    again = serve(table, port=handle.port, pin_hash=pin_hash)  # the port is free again
    try:
        assert get_json(again.url + "api/state")["game"] is None
    finally:
        again.stop()


def test_a_taken_port_is_an_error(table: Table, server: Any) -> None:
    with pytest.raises(OSError):
        serve(table, port=server.port)
