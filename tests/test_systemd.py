"""The service: the unit file (checked by systemd-analyze), the installer's dry run, and the
sd_notify messages the table sends (over a real AF_UNIX datagram socket)."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from board_pi.config import template_text
from board_pi.watchdog import Heartbeat, SystemdNotifier, WatchdogKeeper

ROOT = Path(__file__).resolve().parents[1]
UNIT = ROOT / "systemd" / "board-pi.service"
INSTALL = ROOT / "systemd" / "install.sh"


def unit_settings() -> dict[str, list[str]]:
    """Active (uncommented) settings of the unit: key -> values."""
    out: dict[str, list[str]] = {}
    for line in UNIT.read_text().splitlines():
        m = re.match(r"^([A-Za-z]+)=(.*)$", line)
        if m:
            out.setdefault(m.group(1), []).append(m.group(2))
    return out


# ------------------------------------------------------------------ the unit


def _verify(unit_text: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    exe = shutil.which("systemd-analyze")
    if exe is None:
        pytest.skip("systemd-analyze is not installed (apt-get install systemd)")
    # The installed paths: a stand-in board-pi executable under a temporary prefix, because
    # verify checks that ExecStart= names an executable.
    prefix = tmp_path / "opt" / "board-pi"
    (prefix / "venv" / "bin").mkdir(parents=True)
    stub = prefix / "venv" / "bin" / "board-pi"
    stub.write_text("#!/bin/sh\nexit 0\n")
    stub.chmod(0o755)
    unit = tmp_path / "board-pi.service"
    unit.write_text(unit_text.replace("/opt/board-pi", str(prefix)))
    return subprocess.run([exe, "verify", "--man=no", str(unit)], capture_output=True, text=True, timeout=60)


def test_unit_passes_systemd_analyze_verify(tmp_path: Path) -> None:
    r = _verify(UNIT.read_text(), tmp_path)
    assert r.returncode == 0, r.stderr
    assert (r.stdout + r.stderr).strip() == "", r.stdout + r.stderr  # not even a warning


def test_verify_catches_a_mistake(tmp_path: Path) -> None:
    """The check above can fail: a misspelt directive is reported."""
    r = _verify(UNIT.read_text().replace("ProtectHome=yes", "ProtectHom=yes"), tmp_path)
    assert "ProtectHom" in r.stdout + r.stderr


def test_unit_settings() -> None:
    s = unit_settings()
    assert s["Type"] == ["notify"] and s["NotifyAccess"] == ["main"]
    assert int(s["WatchdogSec"][0]) > 0
    assert s["Restart"] == ["on-failure"]
    assert s["User"] == ["board-pi"] and s["StateDirectory"] == ["board-pi"]
    assert s["ProtectSystem"] == ["strict"] and s["NoNewPrivileges"] == ["yes"] and s["PrivateTmp"] == ["yes"]
    assert s["WorkingDirectory"] == ["/var/lib/board-pi"]  # lgpio writes its pipes there
    # The settings that would hide the camera, the GPIO chip or the serial port are absent.
    for breaking in ("PrivateDevices", "DevicePolicy", "DeviceAllow", "ProtectClock", "PrivateUsers", "ProcSubset"):
        assert breaking not in s, breaking
    assert s["WantedBy"] == ["multi-user.target"]


def test_unit_commands_are_real_board_pi_commands(tmp_path: Path) -> None:
    """ExecStartPre's `config check` accepts the template; ExecStart's command is `run --config`."""
    s = unit_settings()
    pre = shlex.split(s["ExecStartPre"][0])
    start = shlex.split(s["ExecStart"][0])
    assert pre[0] == start[0] == "/opt/board-pi/venv/bin/board-pi"
    assert start[1:] == ["run", "--config", "/etc/board-pi/board-pi.toml"]
    assert pre[1:3] == ["config", "check"]
    conf = tmp_path / "board-pi.toml"
    conf.write_text(template_text())
    code = "import sys; from board_pi.cli import main; sys.exit(main(sys.argv[1:]))"
    r = subprocess.run([sys.executable, "-c", code, *pre[1:3], str(conf)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr


def test_unit_documentation_exists() -> None:
    for url in unit_settings()["Documentation"][0].split():
        assert (ROOT / url.removeprefix("file:///opt/board-pi/")).is_file(), url


# ------------------------------------------------------------------ the installer


def install(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", str(INSTALL), *args], capture_output=True, text=True, timeout=120)


def test_installer_syntax() -> None:
    assert subprocess.run(["bash", "-n", str(INSTALL)], capture_output=True).returncode == 0
    if shutil.which("shellcheck"):
        r = subprocess.run(["shellcheck", "-S", "warning", str(INSTALL)], capture_output=True, text=True)
        assert r.returncode == 0, r.stdout


def test_installer_dry_run_prints_every_step_and_changes_nothing(tmp_path: Path) -> None:
    prefix = tmp_path / "opt" / "board-pi"
    conf = tmp_path / "etc" / "board-pi.toml"
    r = install("--dry-run", "--prefix", str(prefix), "--config", str(conf))
    assert r.returncode == 0, r.stderr
    out = r.stdout
    for step in range(1, 7):
        assert f"==> {step}/6 " in out
    assert "1/6 Debian packages: python3-venv python3-pip python3-picamera2 python3-libcamera" in out
    if "all installed already" not in out:  # (on a dev machine picamera2 is missing: it is installed)
        assert re.search(r"\[dry-run\] env DEBIAN_FRONTEND=noninteractive apt-get install -y .*python3-picamera2", out)
    assert "[dry-run]" in out and "-m venv --system-site-packages " + str(prefix / "venv") in out
    assert f"pip install --quiet --upgrade --constraint {prefix}/constraints.txt {ROOT}" in out
    assert f"config init {conf}" in out
    assert "systemctl enable board-pi.service" in out and "systemctl restart board-pi.service" in out
    if "user board-pi exists" not in out:
        assert "useradd --system" in out
    assert "nothing was changed" in out
    assert not (tmp_path / "opt").exists() and not (tmp_path / "etc").exists()


def test_installer_dry_run_sees_what_is_already_there(tmp_path: Path) -> None:
    """Idempotent: a second run skips what the first one made, and never overwrites the config."""
    prefix = tmp_path / "opt"
    venv = prefix / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").write_text("#!/bin/sh\n")
    (venv / "bin" / "python").chmod(0o755)
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\ninclude-system-site-packages = true\n")
    conf = tmp_path / "board-pi.toml"
    conf.write_text("# mine\n")
    r = install("--dry-run", "--no-start", "--prefix", str(prefix), "--config", str(conf))
    assert r.returncode == 0, r.stderr
    assert "venv exists" in r.stdout and "-m venv" not in r.stdout
    assert "exists: kept as it is" in r.stdout and f"config init {conf}" not in r.stdout
    assert "[dry-run] systemctl restart" not in r.stdout and "--no-start" in r.stdout
    assert conf.read_text() == "# mine\n"
    # A venv that cannot see the system's packages (picamera2) is made again.
    (venv / "pyvenv.cfg").write_text("include-system-site-packages = false\n")
    r = install("--dry-run", "--prefix", str(prefix), "--config", str(conf))
    assert f"rm -rf {venv}" in r.stdout and "-m venv --system-site-packages" in r.stdout
    assert (venv / "pyvenv.cfg").exists()


def test_installer_refuses_bad_options() -> None:
    for args in (["--frobnicate"], ["--prefix"], ["--dry-run", "--prefix", "relative/dir"]):
        r = install(*args)
        assert r.returncode == 2 and "install.sh:" in r.stderr, args
    r = install("--help")
    assert r.returncode == 0 and "--dry-run" in r.stdout


def test_installer_wants_root_for_a_real_run(tmp_path: Path) -> None:
    cmd = ["bash", str(INSTALL), "--prefix", str(tmp_path / "p")]
    if os.geteuid() == 0:  # as root it would really install: run it as nobody instead
        if shutil.which("setpriv") is None:
            pytest.skip("running as root and no setpriv to drop privileges")
        cmd = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", *cmd]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    assert r.returncode == 1 and f"needs root: sudo {INSTALL} --prefix {tmp_path / 'p'}" in r.stderr
    assert not (tmp_path / "p").exists()


# ------------------------------------------------------------------ sd_notify


@pytest.fixture
def notify_socket(tmp_path: Path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    path = tmp_path / "notify"
    s.bind(str(path))
    s.settimeout(5)
    yield str(path), s
    s.close()


def received(s: socket.socket, timeout: float = 5) -> list[str]:
    s.settimeout(timeout)
    return s.recv(4096).decode().split("\n")


def drain(s: socket.socket) -> list[str]:
    out = []
    s.settimeout(0.01)
    try:
        while True:
            out.append(s.recv(4096).decode())
    except (socket.timeout, BlockingIOError):
        return out


def test_notify_messages(notify_socket: tuple[str, socket.socket]) -> None:
    path, s = notify_socket
    n = SystemdNotifier({"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "30000000"})
    assert n.enabled and n.watchdog_interval == 15.0
    assert n.ready("table 1: waiting for the first play")
    assert received(s) == ["READY=1", "STATUS=table 1: waiting for the first play"]
    assert n.watchdog() and received(s) == ["WATCHDOG=1"]
    assert n.status("ann 120 - bob 98") and received(s) == ["STATUS=ann 120 - bob 98"]
    assert n.extend_timeout(90) and received(s) == ["EXTEND_TIMEOUT_USEC=90000000"]
    assert n.stopping() and received(s) == ["STOPPING=1"]


def test_notify_abstract_socket() -> None:
    name = f"board-pi-test-{uuid.uuid4().hex}"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as s:
        s.bind("\0" + name)
        assert SystemdNotifier({"NOTIFY_SOCKET": "@" + name}).ready()
        assert received(s) == ["READY=1"]


def test_no_systemd_no_op(tmp_path: Path) -> None:
    n = SystemdNotifier({})
    assert not n.enabled and n.watchdog_interval is None
    assert not n.ready() and not n.watchdog() and not n.stopping()
    gone = SystemdNotifier({"NOTIFY_SOCKET": str(tmp_path / "nobody-listens")})
    assert gone.enabled and not gone.watchdog()  # a lost message is not an error
    other = SystemdNotifier({"NOTIFY_SOCKET": "/x", "WATCHDOG_USEC": "1000000", "WATCHDOG_PID": str(os.getpid() + 1)})
    assert other.watchdog_interval is None  # the watchdog watches another process


def test_keeper_pings_only_while_healthy(notify_socket: tuple[str, socket.socket]) -> None:
    path, s = notify_socket
    now = [1000.0]  # the heartbeat's clock, moved by the test: no sleeping past the 0.5 s guard
    beat = Heartbeat(clock=lambda: now[0])
    n = SystemdNotifier({"NOTIFY_SOCKET": path})
    keeper = WatchdogKeeper(n, healthy=lambda: beat.recent(0.5), interval=0.02)
    assert keeper.start()
    try:
        assert received(s) == ["WATCHDOG=1"]  # healthy: pings come
        now[0] += 0.6  # the main loop stopped beating: its last beat is older than 0.5 s
        missed = keeper.missed
        deadline = time.monotonic() + 10
        while keeper.missed < missed + 2 and time.monotonic() < deadline:  # two rounds of the keeper
            time.sleep(0.01)
        drain(s)  # a ping sent before the clock moved
        pings_before = keeper.pings
        while keeper.missed < missed + 5 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert drain(s) == [] and keeper.pings == pings_before and keeper.missed >= missed + 5
        beat.beat()  # the loop is back: pings resume
        assert received(s) == ["WATCHDOG=1"]
    finally:
        keeper.stop()


def test_keeper_treats_a_crashing_health_check_as_unhealthy(notify_socket: tuple[str, socket.socket]) -> None:
    path, s = notify_socket

    def broken() -> bool:
        raise RuntimeError("camera gone")

    keeper = WatchdogKeeper(SystemdNotifier({"NOTIFY_SOCKET": path}), healthy=broken, interval=0.02)
    assert keeper.start()
    try:
        time.sleep(0.2)
        assert drain(s) == [] and keeper.missed > 0 and keeper._thread is not None and keeper._thread.is_alive()
    finally:
        keeper.stop()
