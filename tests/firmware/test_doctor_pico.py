"""`board-pi doctor` asks the Pico clock for its firmware over a real pseudo-terminal, the firmware
running under CPython as it runs on the Pico."""

from __future__ import annotations

import os
import tty

import picoclock

from board_pi.cli import doctor
from board_pi.config import parse_config
from board_pi.hardware.serial_clock import NoPico, firmware_version

from .harness import Cable, PicoThread


def test_the_pico_tells_its_firmware_version(tmp_path) -> None:
    cable = Cable(tmp_path / "ttyPICO")
    pico = PicoThread(cable.port)
    try:
        assert firmware_version(str(cable.path), timeout=5.0) == picoclock.FIRMWARE_VERSION
        cfg = parse_config(f'[clock]\nbackend = "serial"\n[serial]\nport = "{cable.path}"\n')
        r = doctor.check_clock(cfg)
        assert r.status == doctor.OK, r.detail
        assert f"firmware {picoclock.FIRMWARE_VERSION}" in r.detail
    finally:
        pico.stop()
        cable.close()


def test_a_silent_device_is_not_a_pico(tmp_path) -> None:
    master, slave = os.openpty()
    tty.setraw(slave)
    try:
        try:
            firmware_version(os.ttyname(slave), timeout=0.6)
        except NoPico as e:
            assert "no answer" in str(e)
        else:
            raise AssertionError("a silent port answered")
    finally:
        os.close(master)
        os.close(slave)
