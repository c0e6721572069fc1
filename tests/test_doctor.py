"""`board-pi doctor` on a machine with no camera, no GPIO and no Pico: it says what is missing,
with a fix, and never crashes."""

from __future__ import annotations

import json
import os
import pty
import socket
import subprocess
import sys
from pathlib import Path

import pytest

import board_pi.cli.doctor as doctor
from board_pi.config import Config, parse_config
from board_pi.cli.doctor import FAIL, OK, SKIP, WARN, Result, format_results, run_checks

CLI = "import sys; from board_pi.cli import main; sys.exit(main(sys.argv[1:]))"


def run_doctor(*args: str, env: dict[str, str] | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", CLI, "doctor", *args], capture_output=True, text=True,
                          timeout=120, env={**os.environ, **(env or {})}, cwd=cwd)


def write(tmp_path: Path, text: str, name: str = "board-pi.toml") -> Path:
    f = tmp_path / name
    f.write_text(text + f'\n[data]\ndir = "{tmp_path / "data"}"\n')
    return f


def by_name(results: list[Result]) -> dict[str, Result]:
    return {r.name: r for r in results}


def no_hardware_env() -> dict[str, str]:
    """Environment without a pin factory chosen, so gpiozero looks for real GPIO."""
    return {k: v for k, v in os.environ.items() if k != "GPIOZERO_PIN_FACTORY"}


# ------------------------------------------------------------------ the whole command


def test_doctor_without_hardware_reports_and_fails_cleanly(tmp_path: Path) -> None:
    f = write(tmp_path, '[camera]\nsource = "/dev/video97"\n[clock]\nbackend = "serial"\n[serial]\nport = "/dev/ttyNOPE9"\n')
    r = run_doctor("--config", str(f))
    assert r.returncode == 1
    assert "Traceback" not in r.stdout + r.stderr
    lines = r.stdout.splitlines()
    cam = next(i for i, line in enumerate(lines) if line.split()[1:2] == ["camera"])
    assert lines[cam].startswith("FAIL") and "/dev/video97 does not exist" in lines[cam]
    assert lines[cam + 1].strip().startswith("fix: plug the camera in")
    clock = next(line for line in lines if line.split()[1:2] == ["clock"])
    assert clock.startswith("FAIL") and "/dev/ttyNOPE9 does not exist" in clock
    assert "required check(s) failed" in lines[-1]
    for name in ("config", "camera", "clock", "lexicon", "data", "time", "web", "service"):
        assert any(line.split()[1:2] == [name] for line in lines), name


def test_doctor_default_config_on_a_machine_without_a_pi_camera(tmp_path: Path) -> None:
    """The standard build's settings (Pi camera, GPIO) on a development machine."""
    r = run_doctor("--config", str(write(tmp_path, "")), env=no_hardware_env())
    assert r.returncode == 1 and "Traceback" not in r.stdout + r.stderr
    assert "FAIL  camera" in r.stdout
    # picamera2 comes from the Raspberry Pi archive; the fix says so.
    assert "python3-picamera2" in r.stdout or "no camera found" in r.stdout


def test_doctor_json(tmp_path: Path) -> None:
    f = write(tmp_path, '[camera]\nsource = "/dev/video97"\n[clock]\nbackend = "none"\n')
    r = run_doctor("--config", str(f), "--json")
    report = json.loads(r.stdout)
    assert report["ok"] is False and r.returncode == 1
    checks = {c["name"]: c for c in report["checks"]}
    assert checks["camera"]["status"] == FAIL and checks["camera"]["fix"]
    assert checks["clock"]["status"] == OK
    assert checks["config"]["status"] == OK and str(f) in checks["config"]["detail"]


def test_doctor_with_a_broken_config_goes_on_with_defaults(tmp_path: Path) -> None:
    f = tmp_path / "bad.toml"
    f.write_text("[camera]\nsourse = 1\n")
    r = run_doctor("--config", str(f))
    assert r.returncode == 1 and "Traceback" not in r.stdout + r.stderr
    assert "FAIL  config" in r.stdout and "did you mean 'source'?" in r.stdout
    assert "board-pi config check" in r.stdout
    assert " lexicon " in r.stdout  # the other checks still ran


def test_doctor_missing_config_file(tmp_path: Path) -> None:
    r = run_doctor("--config", str(tmp_path / "none.toml"))
    assert r.returncode == 1 and "no such file" in r.stdout and "Traceback" not in r.stderr


# ------------------------------------------------------------------ single checks


def test_camera_file_source_missing(tmp_path: Path) -> None:
    cfg = parse_config(f'[camera]\nsource = "{tmp_path / "photos"}"\n')
    r = doctor.check_camera(cfg)
    assert r.status == FAIL and "does not exist" in r.detail and r.fix


def test_camera_vision_stage_missing_or_working(tmp_path: Path) -> None:
    """With a source that exists, the doctor needs the vision stage; without it, it says so."""
    (tmp_path / "photos").mkdir()
    cfg = parse_config(f'[camera]\nsource = "{tmp_path / "photos"}"\n')
    r = doctor.check_camera(cfg, timeout=30)
    try:
        import board_pi.vision.frames  # noqa: F401
        import board_pi.vision.locate  # noqa: F401
    except ImportError:
        assert r.status == FAIL and r.detail.startswith("vision stage not installed") and r.fix
    else:
        assert r.status == FAIL  # an empty folder gives no frame, whatever the vision stage
        assert r.fix


def test_camera_on_a_real_photo(shared_data: Path) -> None:
    pytest.importorskip("board_pi.vision.frames")
    pytest.importorskip("board_pi.vision.locate")
    photo = sorted((shared_data / "real-boards" / "declanfinerty").glob("*.jp*g"))[0]
    r = doctor.check_camera(parse_config(f'[camera]\nsource = "{photo}"\n'), timeout=60)
    assert r.status == OK, r.detail
    assert "board found" in r.detail


def test_camera_showing_the_board_small_says_so(tmp_path: Path) -> None:
    # A camera hung too high: the board a quarter of the frame's height, its squares 15 pixels.
    # A table cannot follow it; the doctor says it is there and too small, not that it is missing.
    pytest.importorskip("board_pi.vision.frames")
    pytest.importorskip("board_pi.vision.locate")
    import cv2

    from tests.vision.drawn_boards import DrawnBoard, photograph, some_tiles

    scene = photograph(DrawnBoard(tiles=some_tiles(1)), size=(1280, 960), fill=0.3, tilt=20, spin=7, seed=1)
    cv2.imwrite(str(tmp_path / "high.png"), scene.image)
    r = doctor.check_camera(parse_config(f'[camera]\nsource = "{tmp_path / "high.png"}"\n'), timeout=60)
    assert r.status == FAIL, r.detail
    assert "the board is in it but small (squares of 15 pixels)" in r.detail and "lower the camera" in r.fix


def test_camera_giving_grainy_frames_says_so(tmp_path: Path) -> None:
    # A dim room: the camera turns its gain up, and every pixel's colours are noisy. The board is
    # still found; the doctor warns and asks for light. The same frame clean passes.
    pytest.importorskip("board_pi.vision.frames")
    pytest.importorskip("board_pi.vision.locate")
    import cv2
    import numpy as np

    from tests.vision.drawn_boards import DrawnBoard, photograph, some_tiles

    scene = photograph(DrawnBoard(tiles=some_tiles(1)), size=(1280, 960), fill=0.85, tilt=10, spin=3, seed=2)
    noisy = np.clip(scene.image * 0.7 + np.random.default_rng(0).normal(0, 25, scene.image.shape), 0, 255)
    cv2.imwrite(str(tmp_path / "clean.png"), scene.image)
    cv2.imwrite(str(tmp_path / "grainy.png"), noisy.astype(np.uint8))
    clean = doctor.check_camera(parse_config(f'[camera]\nsource = "{tmp_path / "clean.png"}"\n'), timeout=60)
    assert clean.status == OK, clean.detail
    r = doctor.check_camera(parse_config(f'[camera]\nsource = "{tmp_path / "grainy.png"}"\n'), timeout=60)
    assert r.status == WARN and "board found, but the frame is grainy" in r.detail and "light" in r.fix, r.detail


def test_camera_burning_the_board_out_says_so(tmp_path: Path) -> None:
    # A lamp close over the board, or an exposure metered on a dark table: the board's pale
    # squares come out white. The board is still found; the doctor warns, naming the share.
    pytest.importorskip("board_pi.vision.frames")
    pytest.importorskip("board_pi.vision.locate")
    import cv2
    import numpy as np

    from board_pi.vision.read import WASHED_OUT_BOARD, board_washed_out
    from tests.vision.drawn_boards import DrawnBoard, photograph, some_tiles

    scene = photograph(DrawnBoard(tiles=some_tiles(1)), size=(1280, 960), fill=0.85, tilt=10, spin=3, seed=2)
    bright = np.clip(scene.image * 1.6, 0, 255).astype(np.uint8)
    assert board_washed_out(bright, scene.corners) >= WASHED_OUT_BOARD > board_washed_out(scene.image, scene.corners)
    cv2.imwrite(str(tmp_path / "bright.png"), bright)
    r = doctor.check_camera(parse_config(f'[camera]\nsource = "{tmp_path / "bright.png"}"\n'), timeout=60)
    assert r.status == WARN and "board found, but" in r.detail and "burnt out white" in r.detail, r.detail
    assert "light" in r.fix and "exposure" in r.fix


def test_camera_synthetic(tmp_path: Path) -> None:
    pytest.importorskip("board_pi.vision.frames")
    pytest.importorskip("board_pi.vision.locate")
    r = doctor.check_camera(parse_config('[camera]\nsource = "synthetic"\n'), timeout=60)
    assert r.status == OK, r.detail


@pytest.fixture
def mock_pins():
    gpiozero = pytest.importorskip("gpiozero")
    from gpiozero.pins.mock import MockFactory

    old = gpiozero.Device.pin_factory
    gpiozero.Device.pin_factory = MockFactory()
    yield gpiozero.Device.pin_factory
    gpiozero.Device.pin_factory.reset()
    gpiozero.Device.pin_factory = old


def test_gpio_pins_on_mock_factory(mock_pins) -> None:
    r = doctor.check_clock(Config())
    assert r.status == OK and "player0_button=17" in r.detail
    # the pins were released: they can be used again
    from gpiozero import Button

    Button(5).close()


def test_gpio_button_stuck_pressed(mock_pins) -> None:
    from gpiozero.pins.mock import MockPin

    class ShortedToGround(MockPin):
        """A contact closed to ground (a held or jammed button): low whatever the pull-up says."""

        def _set_pull(self, value: str) -> None:
            super()._set_pull(value)
            self.drive_low()

    cfg = parse_config("[gpio]\nhold_button = 20\n")
    mock_pins.pin(20, pin_class=ShortedToGround)
    r = doctor.check_clock(cfg)
    assert r.status == WARN and "hold_button (GPIO20) reads pressed" in r.detail and r.fix


def test_gpio_pin_in_use(mock_pins) -> None:
    from gpiozero import LED

    other = LED(23)  # another program (here: another device) holds the red light's pin
    try:
        r = doctor.check_clock(Config())
        assert r.status == FAIL and "in use" in r.detail and "systemctl stop board-pi" in r.fix
    finally:
        other.close()


def test_gpio_on_a_machine_without_gpio(tmp_path: Path) -> None:
    pytest.importorskip("gpiozero")
    if Path("/dev/gpiochip0").exists():
        pytest.skip("this machine has a GPIO chip")
    code = ("import json, sys; from board_pi.cli.doctor import check_clock; from board_pi.config import Config;"
            "r = check_clock(Config()); print(json.dumps([r.status, r.detail, r.fix]))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env=no_hardware_env())
    status, detail, fix = json.loads(out.stdout)
    assert status == FAIL and "no GPIO on this machine" in detail and fix


def test_serial_port_that_opens_but_has_no_pico(tmp_path: Path) -> None:
    pytest.importorskip("serial")
    master, slave = pty.openpty()
    try:
        cfg = parse_config(f'[clock]\nbackend = "serial"\n[serial]\nport = "{os.ttyname(slave)}"\n')
        r = doctor.check_clock(cfg)
        # The port opens, but nothing on it answers the Pico's HELLO.
        assert r.status == FAIL and "did not answer" in r.detail, r.detail
        assert "flash the board-pi firmware" in r.fix
    finally:
        os.close(master)
        os.close(slave)


def test_lexicon_default_and_missing(tmp_path: Path) -> None:
    r = doctor.check_lexicon(Config())
    assert r.status == OK and "words" in r.detail
    cfg = parse_config(f'[game]\nlexicon = "{tmp_path / "nope.txt"}"\n')
    r = doctor.check_lexicon(cfg)
    assert r.status == FAIL and r.fix


def test_calibration_and_enrolled_tiles(tmp_path: Path) -> None:
    import numpy as np

    from board_pi.vision.calibration import calibrate, save
    from board_pi.vision.read import Profile
    from board_pi.vision.render import render_board

    cfg = parse_config(f'[camera]\nsource = "synthetic"\n[data]\ndir = "{tmp_path}"\n')
    assert doctor.check_calibration(cfg).status == WARN and "board-pi calibrate" in doctor.check_calibration(cfg).fix
    assert doctor.check_tiles(cfg).status == WARN and "board-pi enrol" in doctor.check_tiles(cfg).fix
    assert not doctor.check_tiles(cfg).failed  # advice, not a fault

    r = render_board(["." * 15] * 15, seed=3, hand=False)
    save(calibrate(r.image, r.corners, rotation=0, use_markers=False), tmp_path / "calibration.json")
    rng = np.random.default_rng(0)
    Profile(rng.normal(size=(30, 96)).astype(np.float32), rng.integers(0, 28, 30)).save(tmp_path / "tiles.npz")
    assert doctor.check_calibration(cfg).status == OK and "lens" not in doctor.check_calibration(cfg).detail
    from dataclasses import replace

    from board_pi.vision.calibration import load

    save(replace(load(tmp_path / "calibration.json"), bend=0.125), tmp_path / "calibration.json")
    c = doctor.check_calibration(cfg)
    assert c.status == OK and "straightened for a lens bend of +0.125" in c.detail, c.detail
    # Kept by a table whose first tiles said the camera's picture is a mirror image.
    mirrored = load(tmp_path / "calibration.json")
    save(replace(mirrored, corners=mirrored.corners[[1, 0, 3, 2]]), tmp_path / "calibration.json")
    c = doctor.check_calibration(cfg)
    assert c.status == WARN and "mirror image" in c.detail and "not to flip" in c.fix and not c.failed, c.detail
    save(mirrored, tmp_path / "calibration.json")
    # A grid running off the frame (saved before calibrate refused one): its edge squares unseen.
    cal = load(tmp_path / "calibration.json")
    half = float(np.ptp(cal.corners[:, 0])) / 30  # about half a square
    save(replace(cal, corners=cal.corners - np.float32([cal.corners[:, 0].min() + half, 0])), tmp_path / "calibration.json")
    c = doctor.check_calibration(cfg)
    assert c.status == WARN and "runs off the" in c.detail and "A15" in c.detail and "calibrate again" in c.fix, c.detail
    assert not c.failed
    t = doctor.check_tiles(cfg)
    assert t.status == OK and "30 examples" in t.detail

    (tmp_path / "tiles.npz").write_bytes(b"garbage")
    (tmp_path / "calibration.json").write_text("{")
    assert doctor.check_tiles(cfg).status == WARN
    assert doctor.check_calibration(cfg).status == WARN
    none = parse_config('[camera]\nsource = "none"\n')
    assert doctor.check_tiles(none).status == SKIP == doctor.check_calibration(none).status


def test_data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    r = doctor.check_data_dir(parse_config(f'[data]\ndir = "{tmp_path}"\n'))
    assert r.status == OK and "GB free" in r.detail
    r = doctor.check_data_dir(parse_config(f'[data]\ndir = "{tmp_path / "new" / "d"}"\n'))
    assert r.status == OK and "not made yet" in r.detail and not (tmp_path / "new").exists()
    blocker = tmp_path / "file"
    blocker.write_text("")
    r = doctor.check_data_dir(parse_config(f'[data]\ndir = "{blocker / "d"}"\n'))
    assert r.status == FAIL and "not a directory" in r.detail
    monkeypatch.setattr(doctor, "MIN_FREE_BYTES", 1 << 62)  # a full card
    r = doctor.check_data_dir(parse_config(f'[data]\ndir = "{tmp_path}"\n'))
    assert r.status == FAIL and "journalctl --vacuum-size" in r.fix


def test_system_clock() -> None:
    r = doctor.check_system_clock(now=946684800)  # 2000-01-01: a Pi that booted without network
    assert r.status == WARN and "cannot be right" in r.detail and "NTP" in r.fix
    now = 1_790_000_000  # 2026: a date that can be right
    r = doctor.check_system_clock(now=now)  # whatever this machine's own timedatectl says: no crash
    assert r.name == "time" and not r.required and "2026-" in r.detail


@pytest.mark.parametrize("answer,status,said", [("yes", OK, "synchronised (NTP)"),
                                                ("no", WARN, "not synchronised with a time server"),
                                                ("", WARN, "synchronisation unknown")])
def test_system_clock_as_timedatectl_reports_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, answer: str,
                                                status: str, said: str) -> None:
    # systemd's own tool, stood in for by a script that answers as it does on a Pi
    tool = tmp_path / "timedatectl"
    tool.write_text(f"#!/bin/sh\n[ \"$*\" = 'show -p NTPSynchronized --value' ] || exit 3\necho '{answer}'\n")
    tool.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    r = doctor.check_system_clock(now=1_790_000_000)
    assert r.status == status and said in r.detail, r.detail
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    r = doctor.check_system_clock(now=1_790_000_000)
    assert r.status == WARN and "no timedatectl" in r.detail


def test_web_port_in_use() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        r = doctor.check_web_port(parse_config(f'[web]\nhost = "127.0.0.1"\nport = {port}\n'))
        assert r.status == WARN and "cannot listen" in r.detail and not r.required
    r = doctor.check_web_port(parse_config(f'[web]\nhost = "127.0.0.1"\nport = {port}\n'))
    assert r.status == OK


def test_service_user_that_is_not_there_means_no_service_installed() -> None:
    r = doctor.check_service_user("board-pi-nobody-here")
    assert r.status == SKIP and "systemd/install.sh" in r.fix and not r.required


def test_service_user_outside_the_device_groups_is_told_the_usermod() -> None:
    import grp
    import pwd

    try:
        members = grp.getgrnam("dialout").gr_mem
    except KeyError:
        pytest.skip("no dialout group on this system")
    user = next((u.pw_name for u in pwd.getpwall() if u.pw_name not in members and u.pw_gid != grp.getgrnam("dialout").gr_gid), None)
    if user is None:
        pytest.skip("every user is in dialout")
    r = doctor.check_service_user(user)
    assert r.status == FAIL and "dialout (the serial port)" in r.detail and "sudo usermod -aG" in r.fix and user in r.fix


def test_report_format() -> None:
    results = [Result("camera", FAIL, "no camera", "plug it in"), Result("time", WARN, "unsynced", "ntp", required=False),
               Result("lexicon", OK, "fine")]
    text = format_results(results)
    assert text.splitlines()[0] == "FAIL  camera   no camera"
    assert text.splitlines()[1].strip() == "fix: plug it in"
    assert text.splitlines()[-1].startswith("1 required check(s) failed")
    assert format_results(results[1:]).splitlines()[-1] == "ready to play (1 warning(s))."


def test_run_checks_in_process(tmp_path: Path) -> None:
    f = write(tmp_path, '[camera]\nsource = "/dev/video97"\n[clock]\nbackend = "none"\n')
    results = by_name(run_checks(str(f)))
    assert results["camera"].failed and not results["clock"].failed
    assert [r.name for r in run_checks(str(f))][:2] == ["config", "camera"]


def test_an_empty_tile_profile_is_advice_not_a_crash(tmp_path: Path) -> None:
    (tmp_path / "tiles.npz").write_bytes(b"")
    r = doctor.check_tiles(parse_config(f'[camera]\nsource = "synthetic"\n[data]\ndir = "{tmp_path}"\n'))
    assert r.status == WARN and "is not a tile profile" in r.detail and "board-pi enrol" in r.fix


def test_web_address_that_cannot_be_had_fails() -> None:
    r = doctor.check_web_port(parse_config('[web]\nhost = "no-such-host.invalid"\n'))
    assert r.status == FAIL and r.required and "unknown host" in r.detail
    r = doctor.check_web_port(parse_config('[web]\nhost = "192.0.2.1"\n'))  # nobody's address
    assert r.status == FAIL and "not an address of this machine" in r.detail
