"""``board-pi clock``: the standalone terminal clock, on the Pico over a pseudo-terminal pair."""

from __future__ import annotations

import json
import threading

import pytest

from board_pi.cli import main
from board_pi.cli.clock import format_time

from .harness import Cable, PicoThread, wait_for


@pytest.mark.parametrize("seconds, shown", [(1500, "25:00"), (0.2, "0:01"), (0, "0:00"), (-125.5, "-2:05")])
def test_format_time(seconds, shown):
    assert format_time(seconds) == shown


@pytest.mark.parametrize("argv, message", [
    (["clock", "--minutes", "0"], "--minutes: must be greater than 0"),
    (["clock", "--backend", "serial"], "needs --port"),
    (["clock", "--backend", "serial", "--port", "/nonexistent/tty"], "no serial port"),
    (["clock", "--backend", "gpio"], "no GPIO pins here"),
])
def test_bad_input_gets_a_message_and_exit_2(argv, message, capsys):
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_corrupt_state_file_is_refused(tmp_path, capsys):
    bad = tmp_path / "clock.json"
    bad.write_text("{not json")
    assert main(["clock", "--backend", "serial", "--port", "/dev/null", "--state", str(bad)]) == 2
    assert "cannot resume" in capsys.readouterr().err
    bad.write_text(json.dumps({"clock": {"version": 1}}))
    assert main(["clock", "--backend", "serial", "--port", "/dev/null", "--state", str(bad)]) == 2


def test_runs_on_the_pico_and_resumes_from_its_state(tmp_path, capsys):
    cable = Cable(tmp_path / "ttyPICO")
    pico = PicoThread(cable.port)
    state = tmp_path / "clock.json"
    argv = ["clock", "--backend", "serial", "--port", str(cable.path), "--state", str(state),
            "--minutes", "10", "--seconds", "4"]
    try:
        rc = []
        t = threading.Thread(target=lambda: rc.append(main(argv)))
        t.start()
        # the command has opened the port and greeted the Pico: no sleep hoping it has
        assert wait_for(lambda: pico.pico.host_version is not None, 10)
        pico.press("player0")
        t.join(10)
        assert rc == [0]
        out = capsys.readouterr().out
        assert "press 0: started" in out
        saved = json.loads(state.read_text())
        assert saved["clock"]["running"] == 1 and saved["serial"]["delivered"] == 1
        # a second run resumes: player 1's clock is still running
        rc2 = main(argv[:-2] + ["--seconds", "0.5"])
        assert rc2 == 0
        out = capsys.readouterr().out
        assert "resumed from" in out and ">player 1" in out
        assert wait_for(lambda: pico.pico.running == 1)
    finally:
        pico.stop()
        cable.close()
