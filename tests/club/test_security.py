"""The broker's access list and accounts, on a real Mosquitto: a table publishes only under its
own topics, only the hub sends commands, and a wrong password is a clear refusal."""

from __future__ import annotations

import shutil
import subprocess
import threading
from pathlib import Path
from typing import Any

import pytest

from board_pi.club import mqtt as m
from board_pi.club.settings import parse_broker_url

from .conftest import HUB_PASSWORD, table_password
from .helpers import wait_for


def connected_client(broker: Any, user: str, password: str, client_id: str) -> tuple[Any, dict[int, int]]:
    """A client logged in as ``user``; returns it and the reason codes of its publishes by mid."""
    address = parse_broker_url(broker.url(user, password))
    client = m.make_client(address, client_id)
    acks: dict[int, int] = {}
    up = threading.Event()
    client.on_connect = lambda c, u, f, rc, p=None: up.set() if m.reason_value(rc) == 0 else None
    client.on_publish = lambda c, u, mid, rc, p=None: acks.__setitem__(mid, m.reason_value(rc))
    m.start(client, address, persistent=False)
    assert up.wait(10), f"{user} could not log in"
    return client, acks


def listener(broker: Any, topic: str) -> tuple[Any, list[tuple[str, bytes]]]:
    got: list[tuple[str, bytes]] = []
    client, _ = connected_client(broker, "hub", HUB_PASSWORD, "listener")
    subscribed = threading.Event()
    client.on_subscribe = lambda *a: subscribed.set()
    client.on_message = lambda c, u, msg: got.append((msg.topic, msg.payload))
    client.subscribe(topic, qos=1)
    assert subscribed.wait(10)
    return client, got


def publish(client: Any, acks: dict[int, int], topic: str, payload: bytes) -> int:
    info = client.publish(topic, payload, qos=1)
    wait_for(lambda: info.mid in acks, what=f"the broker's answer to {topic}")
    return acks[info.mid]


def test_a_table_publishing_under_another_tables_topics_is_refused_by_the_broker(broker):
    hub, got = listener(broker, "board-pi/#")
    t2, acks = connected_client(broker, "table-2", table_password(2), "board-pi-table-2")
    try:
        # Its own topic: accepted (reason 0) and delivered.
        assert publish(t2, acks, "board-pi/table/2/events", b"mine") == 0
        # Table 1's events and state, and a command to table 1: refused, never delivered.
        for topic in ("board-pi/table/1/events", "board-pi/table/1/state", "board-pi/table/1/command",
                      "board-pi/table/2/command"):
            assert publish(t2, acks, topic, b"forged") == 135, topic  # 135: not authorised
        # The control: the hub's own message after them arrives, so anything forged would have too.
        hc, hacks = connected_client(broker, "hub", HUB_PASSWORD, "hub-sender")
        assert publish(hc, hacks, "board-pi/table/1/command", b"from the hub") == 0
        wait_for(lambda: any(p == b"from the hub" for _, p in got), what="the hub's command")
        assert ("board-pi/table/2/events", b"mine") in got
        assert not any(p == b"forged" for _, p in got)
        hc.disconnect()
        hc.loop_stop()
    finally:
        for c in (t2, hub):
            c.disconnect()
            c.loop_stop()


def test_a_table_reads_only_its_own_commands(broker):
    t2, _ = connected_client(broker, "table-2", table_password(2), "board-pi-table-2")
    granted: list[list[int]] = []
    done = threading.Event()

    def on_subscribe(c: Any, u: Any, mid: int, codes: list[Any], p: Any = None) -> None:
        granted.append([m.reason_value(x) for x in codes])
        done.set()

    t2.on_subscribe = on_subscribe
    t2.subscribe([("board-pi/table/2/command", 1), ("board-pi/table/1/command", 1)])
    assert done.wait(10)
    # Mosquitto grants the subscription but the access list keeps table 1's commands from it:
    hc, hacks = connected_client(broker, "hub", HUB_PASSWORD, "hub-sender")
    got: list[str] = []
    t2.on_message = lambda c, u, msg: got.append(msg.topic)
    publish(hc, hacks, "board-pi/table/1/command", b"for one")
    publish(hc, hacks, "board-pi/table/2/command", b"for two")
    wait_for(lambda: "board-pi/table/2/command" in got, what="its own command")
    assert "board-pi/table/1/command" not in got
    for c in (t2, hc):
        c.disconnect()
        c.loop_stop()


def test_a_wrong_password_is_a_refusal_and_a_missing_broker_is_unreachable(broker):
    with pytest.raises(m.BrokerRefused, match="user name or password"):
        m.check_account(parse_broker_url(broker.url("table-2", "wrong")), "t")
    m.check_account(parse_broker_url(broker.url("table-2", table_password(2))), "t")  # the control
    with pytest.raises(m.BrokerRefused):
        m.check_account(parse_broker_url(broker.url("nobody", "x")), "t")
    port = broker.port
    broker.stop()
    with pytest.raises(m.BrokerUnreachable, match=f"127.0.0.1:{port}"):
        m.check_account(parse_broker_url(f"mqtt://hub:x@127.0.0.1:{port}"), "t")


def make_certificates(d: Path) -> tuple[Path, Path, Path]:
    """A club's own certificate authority and the broker's certificate for 127.0.0.1 (openssl)."""
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed")
    d.mkdir(parents=True, exist_ok=True)
    ca_key, ca, key, csr, cert = (d / n for n in ("ca.key", "ca.crt", "broker.key", "broker.csr", "broker.crt"))
    ext = d / "ext.cnf"
    ext.write_text("subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\n")

    def run(*args: str) -> None:
        subprocess.run(["openssl", *args], check=True, capture_output=True)

    run("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(ca_key), "-out", str(ca), "-days", "2",
        "-subj", "/CN=board-pi test club CA")
    run("req", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(csr), "-subj", "/CN=127.0.0.1")
    run("x509", "-req", "-in", str(csr), "-CA", str(ca), "-CAkey", str(ca_key), "-CAcreateserial", "-out",
        str(cert), "-days", "2", "-extfile", str(ext))
    return ca, cert, key


def test_tls_carries_a_tables_events_and_an_untrusted_certificate_is_refused(tmp_path):
    from board_pi.club.broker import LocalBroker, access_list, mosquitto_path
    from board_pi.club.hub import Hub
    from board_pi.club.publisher import TablePublisher
    from board_pi.club.settings import club_settings

    from .conftest import TABLES, accounts
    from .helpers import SimTable

    if mosquitto_path() is None:
        pytest.skip("Mosquitto is not installed (.ci/run installs it)")
    ca, cert, key = make_certificates(tmp_path / "certs")
    broker = LocalBroker(tmp_path / "broker", accounts=accounts(), acl=access_list(TABLES), tls=(cert, key)).start()
    try:
        assert broker.url().startswith("mqtts://")
        hub_settings = club_settings({"broker": broker.url("hub", HUB_PASSWORD), "ca_file": str(ca)},
                                     need_table=False)
        (tmp_path / "hub").mkdir()
        hub = Hub(hub_settings, tmp_path / "hub").start()
        sim = SimTable(tmp_path / "t1")
        pub = TablePublisher(club_settings({"broker": broker.url("table-1", table_password(1)), "table": 1,
                                            "ca_file": str(ca)}), sim.table, sim.table.journal, sim.data).start()
        sim.play(6)
        wait_for(lambda: hub.last_seq(1) == sim.table.journal.last_seq(), bus=hub.bus, what="events over TLS")
        pub.stop()
        hub.stop()
        # Without the club's certificate authority the broker's certificate is not trusted.
        with pytest.raises(m.BrokerRefused, match="not trusted"):
            m.check_account(parse_broker_url(broker.url("hub", HUB_PASSWORD)), "t")
    finally:
        broker.kill()
