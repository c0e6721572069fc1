"""The page keeps answering while strangers hold connections open: on a real port, real sockets."""

from __future__ import annotations

import http.client
import json
import socket
import threading
from typing import Any, Iterator

import pytest

from board_pi.table.table import Table
from board_pi.web import serve

ATTACKERS = 130  # more than the old limit of 128 connections


def _trickle(port: int, count: int, stop: threading.Event) -> list[socket.socket]:
    """``count`` connections that start a request and then send one header line now and then,
    never finishing it (each line resets an idle timer)."""
    socks = []
    for _ in range(count):
        s = socket.create_connection(("127.0.0.1", port), timeout=5)
        s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")
        socks.append(s)

    def drip() -> None:
        n = 0
        while not stop.wait(0.3):
            n += 1
            for s in socks:
                try:
                    s.sendall(f"X-Slow-{n}: 1\r\n".encode())
                except OSError:
                    pass  # cut by the server: what it should do

    threading.Thread(target=drip, daemon=True).start()
    return socks


@pytest.fixture
def attacked(table: Table, pin_hash: str) -> Iterator[tuple[Any, list[socket.socket]]]:
    handle = serve(table, host="127.0.0.1", port=0, pin_hash=pin_hash, threads=8,
                   connection_limit=128, request_timeout=1.0, idle_timeout=60.0, cleanup_interval=0.2)
    stop = threading.Event()
    socks = _trickle(handle.port, ATTACKERS, stop)
    yield handle, socks
    stop.set()
    for s in socks:
        s.close()
    handle.stop()


def test_the_page_answers_past_connections_that_trickle_headers(attacked: tuple[Any, list[socket.socket]]) -> None:
    handle, socks = attacked
    conn = http.client.HTTPConnection("127.0.0.1", handle.port, timeout=30)  # generous: not a timing
    conn.request("GET", "/api/state")
    resp = conn.getresponse()
    assert resp.status == 200
    assert "board" in json.loads(resp.read())
    conn.close()


def test_connections_that_never_finish_a_request_are_cut(attacked: tuple[Any, list[socket.socket]]) -> None:
    _, socks = attacked
    # Each attacker's socket is closed by the server (past its request deadline, or to make
    # room): reading from it sees the end of the stream (or a reset), never blocks for long.
    # A socket left open would make recv wait out its timeout and fail the test.
    for s in socks[:10]:
        s.settimeout(30)
        try:
            while s.recv(1024):
                pass
        except ConnectionResetError:
            pass


def test_cut_settings_that_cannot_work_are_refused(table: Table) -> None:
    with pytest.raises(ValueError):
        serve(table, port=0, request_timeout=0)
    with pytest.raises(ValueError):
        serve(table, port=0, threads=8, connection_limit=4)
