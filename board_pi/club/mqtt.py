"""One way to make a paho-mqtt client for a club night, and the broker's refusals in words.

paho-mqtt 2 (``CallbackAPIVersion.VERSION2``), MQTT 5: the broker answers a publish it refuses
(the access list) with a reason code, so a table publishing where it may not is told, not ignored.
Tables and the hub keep their sessions (``clean_start=False``, a long session expiry), so commands
for a table that is away, and events for a hub that restarts, wait at the broker.
"""

from __future__ import annotations

import json
import ssl
import threading
from typing import Any

from .settings import BrokerAddress

SESSION_EXPIRY_SECONDS = 7 * 24 * 3600  # a club night and then some: queued messages wait this long
KEEPALIVE_SECONDS = 15  # a cut connection is noticed within about 1.5 x this


class BrokerRefused(RuntimeError):
    """The broker will not have us (wrong password, not authorised): retrying will not help."""


class BrokerUnreachable(RuntimeError):
    """No broker answered at the address (down, or the network is not there): try again later."""


# CONNACK reasons that mean the account is wrong, not that the broker is away.
REFUSALS = {134: "the broker refused the user name or password",
            135: "the broker refused the account (not authorised: a wrong user name or password?)",
            133: "the broker refused the client id",
            138: "the broker has banned this client"}


def make_client(address: BrokerAddress, client_id: str) -> Any:
    """A paho-mqtt client for ``address`` (not yet connected)."""
    import paho.mqtt.client as mqtt
    from paho.mqtt.enums import CallbackAPIVersion

    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id, protocol=mqtt.MQTTv5)
    if address.username is not None:
        client.username_pw_set(address.username, address.password)
    if address.tls:
        client.tls_set(ca_certs=address.ca_file, cert_reqs=ssl.CERT_REQUIRED,
                       tls_version=ssl.PROTOCOL_TLS_CLIENT)
    # Tried again every 1, 2, 2... seconds: a table is back on the broker soon after its Wi-Fi.
    client.reconnect_delay_set(min_delay=1, max_delay=2)
    return client


def connect_properties(persistent: bool) -> Any:
    from paho.mqtt.packettypes import PacketTypes
    from paho.mqtt.properties import Properties

    props = Properties(PacketTypes.CONNECT)
    props.SessionExpiryInterval = SESSION_EXPIRY_SECONDS if persistent else 0
    return props


def start(client: Any, address: BrokerAddress, persistent: bool = True) -> None:
    """Connect in the background and keep reconnecting (the network may come and go)."""
    client.connect_async(address.host, address.port, keepalive=KEEPALIVE_SECONDS,
                         clean_start=not persistent, properties=connect_properties(persistent))
    client.loop_start()


def reason_value(rc: Any) -> int:
    value = getattr(rc, "value", rc)
    try:
        return int(value)
    except (TypeError, ValueError):
        return -1


def check_account(address: BrokerAddress, client_id: str, timeout: float = 5.0) -> None:
    """Log in once, to tell a wrong password (BrokerRefused) from a broker that is not there
    (BrokerUnreachable) before a table or the hub starts; then log out."""
    import paho.mqtt.client as mqtt
    from paho.mqtt.enums import CallbackAPIVersion

    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id + "-check", protocol=mqtt.MQTTv5)
    if address.username is not None:
        client.username_pw_set(address.username, address.password)
    if address.tls:
        client.tls_set(ca_certs=address.ca_file, cert_reqs=ssl.CERT_REQUIRED,
                       tls_version=ssl.PROTOCOL_TLS_CLIENT)
    answered = threading.Event()
    outcome: dict[str, int] = {}

    def on_connect(c: Any, userdata: Any, flags: Any, rc: Any, props: Any = None) -> None:
        outcome["rc"] = reason_value(rc)
        answered.set()

    client.on_connect = on_connect
    try:
        client.connect(address.host, address.port, keepalive=KEEPALIVE_SECONDS)
    except ssl.SSLCertVerificationError as e:
        raise BrokerRefused(f"{address.display()}: the broker's TLS certificate is not trusted "
                            f"({e.verify_message}): name the club's certificate authority in club.ca_file") from None
    except ssl.SSLError as e:
        raise BrokerUnreachable(f"{address.display()}: TLS failed: {e.reason or e}") from None
    except (OSError, ValueError) as e:
        raise BrokerUnreachable(f"no broker at {address.display()}: {getattr(e, 'strerror', None) or e}") from None
    client.loop_start()
    try:
        if not answered.wait(timeout):
            raise BrokerUnreachable(f"the broker at {address.display()} did not answer within {timeout:g} s")
    finally:
        client.disconnect()
        client.loop_stop()
    rc = outcome["rc"]
    if rc != 0:
        why = REFUSALS.get(rc, f"the broker refused the connection (reason {rc})")
        raise BrokerRefused(f"{address.display()}: {why}")


def dumps(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":")).encode("utf-8")


def loads(payload: bytes) -> Any:
    """A message's JSON, or None when it is not JSON (anything may be published on a broker)."""
    try:
        return json.loads(payload.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
