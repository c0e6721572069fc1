"""A real Mosquitto broker for the club tests: a fresh process on a free port, with a generated
configuration (a password file made by mosquitto_passwd, an access list). Skipped, with the
reason, where Mosquitto is not installed (.ci/run installs it)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Iterator

import pytest

pytest.importorskip("paho.mqtt", reason="paho-mqtt is not installed (pip install -e '.[test]')")

from board_pi.club.broker import LocalBroker, access_list, mosquitto_path, table_user  # noqa: E402

TABLES = range(1, 7)
HUB_PASSWORD = "hub-secret"


def table_password(n: int) -> str:
    return f"pw-{n}-table"


def accounts() -> dict[str, str]:
    return {"hub": HUB_PASSWORD, **{table_user(n): table_password(n) for n in TABLES}}


def _need_mosquitto() -> None:
    if mosquitto_path() is None or shutil.which("mosquitto_passwd") is None:
        pytest.skip("Mosquitto is not installed (Debian: apt-get install mosquitto; .ci/run installs it)")


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[LocalBroker]:
    """A broker for one test, with the club's accounts and access list."""
    _need_mosquitto()
    b = LocalBroker(tmp_path / "broker", accounts=accounts(), acl=access_list(TABLES))
    b.start()
    yield b
    b.kill()
