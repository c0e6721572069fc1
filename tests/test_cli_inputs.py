"""Every ``board-pi`` command given bad input: a message and exit 2 (1 where documented: `config
check` and `doctor` report problems with 1), never a traceback, never a run on some other port."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path
import pytest

from board_pi.cli import main

ROOT = Path(__file__).resolve().parents[1]
CLI = "import sys; from board_pi.cli import main; sys.exit(main(sys.argv[1:]))"


def board_pi(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", CLI, *args], capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT, stdin=subprocess.DEVNULL)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def files(tmp_path: Path) -> dict[str, str]:
    """Bad inputs of every kind, as files on disk."""
    (tmp_path / "a-file").write_text("")
    (tmp_path / "a-dir").mkdir()
    (tmp_path / "damaged.json").write_text("{not json")
    (tmp_path / "deep.json").write_text("[" * 100_000 + "]" * 100_000)
    (tmp_path / "not-a-clock.json").write_text(json.dumps({"clock": 5}))
    (tmp_path / "bad-resume.json").write_text(json.dumps({"clock": {}, "serial": {"pico_boot": 1}}))
    (tmp_path / "text.txt").write_text("hello\n")

    def toml(name: str, text: str) -> str:
        (tmp_path / name).write_text(text)
        return str(tmp_path / name)

    good = (f'[camera]\nsource = "none"\n[clock]\nbackend = "none"\n[web]\nhost = "127.0.0.1"\n'
            f'port = {free_port()}\n[data]\ndir = "{tmp_path / "data"}"\n')
    return {
        "tmp": str(tmp_path),
        "file": str(tmp_path / "a-file"),
        "dir": str(tmp_path / "a-dir"),
        "missing": str(tmp_path / "missing" / "x"),
        "damaged": str(tmp_path / "damaged.json"),
        "deep": str(tmp_path / "deep.json"),
        "not-a-clock": str(tmp_path / "not-a-clock.json"),
        "bad-resume": str(tmp_path / "bad-resume.json"),
        "text": str(tmp_path / "text.txt"),
        "nan.toml": toml("nan.toml", good.replace('backend = "none"', 'backend = "none"\nminutes = nan')),
        "inf.toml": toml("inf.toml", good.replace('backend = "none"', 'backend = "none"\nminutes = 1e400')),
        "deep.toml": toml("deep.toml", "x = " + "[" * 10_000 + "]" * 10_000 + "\n"),
        "digits.toml": toml("digits.toml", good.replace("[web]\n", "[web]\n") + "[serial]\nbaud = " + "9" * 5000 + "\n"),
        "datafile.toml": toml("datafile.toml", good.replace(str(tmp_path / "data"), str(tmp_path / "a-file"))),
        "host.toml": toml("host.toml", good.replace('"127.0.0.1"', '"no-such-host.invalid"')),
        "nul.toml": toml("nul.toml", good + '[game]\nlexicon = "a\\u0000b"\n'),
        "home.toml": toml("home.toml", good.replace(f'dir = "{tmp_path / "data"}"', 'dir = "~nosuchuser-xyz/d"')),
        "lexicon.toml": toml("lexicon.toml", good + '[game]\nlexicon = "/dev/zero"\n'),
        "good.toml": toml("good.toml", good),
    }


# (argv with {placeholders} for files, exit code, a fragment of the message on stderr)
BATTERY: list[tuple[list[str], int, str]] = [
    ([], 2, "required"),
    (["no-such-command"], 2, "invalid choice"),
    # demo: the page's port, the pace, the data directory
    *[(["demo", "--no-web", "--port", p], 2, "port") for p in ("-1", "70000", "65536", "eighty", "8e3", "9" * 5000)],
    *[(["demo", "--no-web", "--speed", s], 2, "--speed")
      for s in ("1e-300", "0", "-1", "nan", "inf", "-inf", "1e400", "fast", "0.01", "1e9", "")],
    (["demo", "--no-web", "--data", "{file}"], 2, "--data"),
    (["demo", "--no-web", "--data", "{file}/journal"], 2, "--data"),
    (["demo", "--no-web", "--game", "{dir}"], 2, "cannot read"),
    (["demo", "--no-web", "--game", "{missing}"], 2, "cannot read"),
    (["demo", "--no-web", "--tiles", "klingon"], 2, "--tiles"),
    # rescore: frames, players, tile set
    (["rescore", "{missing}", "{missing}"], 2, "missing"),
    (["rescore", "{file}"], 2, "one photo per press"),
    (["rescore", "--players", "Ann", "{file}", "{file}"], 2, "--players"),
    (["rescore", "--tiles", "klingon", "{file}", "{file}"], 2, "--tiles"),
    (["rescore", "{file}", "{file}"], 2, "rescore"),
    # club night: the broker's address and the table's number (demo, run), the hub's own inputs
    (["demo", "--no-web", "--broker", "http://127.0.0.1", "--table", "1"], 2, "not an MQTT address"),
    (["demo", "--no-web", "--broker", "mqtt://127.0.0.1", "--table", "0"], 2, "table number from 1 to 999"),
    (["demo", "--no-web", "--table", "3"], 2, "--table needs a broker"),
    (["run", "--config", "{good.toml}", "--broker", "mqtt://127.0.0.1:99999", "--table", "1"], 2, "--broker"),
    (["hub", "--port", "70000"], 2, "port"),
    (["hub", "--config", "{missing}"], 2, "no such file"),
    (["hub", "--config", "{good.toml}"], 2, "needs the club's broker"),
    (["hub", "--config", "{good.toml}", "--broker", "mqtt:/nohost"], 2, "names no host"),
    (["hub", "--config", "{good.toml}", "--broker", "mqtt://127.0.0.1", "--data", "{file}"], 2, "data:"),
    # run: its port and its configuration
    *[(["run", "--config", "{good.toml}", "--port", p], 2, "port") for p in ("-1", "0", "70000", "x")],
    *[(["run", "--config", "{good.toml}", "--stop-after", s], 2, "--stop-after") for s in ("nan", "-1", "inf")],
    (["run", "--config", "{dir}"], 2, "is a directory"),
    (["run", "--config", "{missing}"], 2, "no such file"),
    (["run", "--config", "/dev/zero"], 2, "larger than 1024 KB"),
    (["run", "--config", "{nan.toml}"], 2, "clock.minutes: must be a number, not nan"),
    (["run", "--config", "{inf.toml}"], 2, "clock.minutes: must be a number, not inf"),
    (["run", "--config", "{deep.toml}"], 2, "nested too deeply"),
    (["run", "--config", "{digits.toml}"], 2, "thousands of digits"),
    (["run", "--config", "{datafile.toml}"], 2, "data.dir:"),
    (["run", "--config", "{host.toml}"], 2, "web.host: unknown host"),
    (["run", "--config", "{nul.toml}"], 2, "game.lexicon: must not hold a NUL"),
    (["run", "--config", "{home.toml}"], 2, "no such user's home folder"),
    (["run", "--config", "{lexicon.toml}"], 2, "game.lexicon: '/dev/zero' is not a file"),
    # config: check reports problems with 1 (documented), the rest is bad input
    (["config"], 2, "required"),
    (["config", "check", "{dir}"], 1, "is a directory"),
    (["config", "check", "{missing}"], 1, "no such file"),
    (["config", "check", "/dev/zero"], 1, "larger than 1024 KB"),
    (["config", "check", "{text}"], 1, "not valid TOML"),
    (["config", "check", "{nan.toml}"], 1, "clock.minutes: must be a number, not nan"),
    (["config", "check", "{inf.toml}"], 1, "clock.minutes"),
    (["config", "check", "{deep.toml}"], 1, "nested too deeply"),
    (["config", "check", "{digits.toml}"], 1, "thousands of digits"),
    (["config", "check", "{datafile.toml}"], 1, "data.dir:"),
    (["config", "check", "{host.toml}"], 1, "web.host: unknown host"),
    (["config", "check", "{nul.toml}"], 1, "NUL"),
    (["config", "check", "{home.toml}"], 1, "no such user's home folder"),
    (["config", "check", "{lexicon.toml}"], 1, "is not a file"),
    (["config", "show", "--config", "/dev/zero"], 2, "larger than 1024 KB"),
    (["config", "show", "--config", "{deep.toml}"], 2, "nested too deeply"),
    (["config", "set-pin", "--config", "{missing}", "--pin-stdin"], 2, "no such file"),
    # clock: the time control, its state file, its port
    *[(["clock", opt, v], 2, f"{opt}: must be") for opt, v in (
        ("--minutes", "nan"), ("--minutes", "inf"), ("--minutes", "-1"), ("--minutes", "0"), ("--minutes", "1e308"),
        ("--minutes", "-0"), ("--penalty", "-1"), ("--penalty", "1001"), ("--max-overtime", "-1"),
        ("--max-overtime", "nan"), ("--max-overtime", "601"), ("--increment", "-1"),
        ("--increment", "nan"), ("--increment", "601"), ("--delay", "inf"), ("--delay", "-0.5"))],
    *[(["clock", opt, v], 2, f"{opt}: must be {what}, not") for opt, v, what in (
        ("--minutes", "ten", "a number"), ("--penalty", "1.5", "a whole number"), ("--penalty", "x", "a whole number"))],
    (["clock", "--increment", "5", "--delay", "5"], 2, "not both"),
    *[(["clock", "--seconds", s], 2, "--seconds") for s in ("nan", "-1", "inf")],
    *[(["clock", "--backend", "serial", "--port", "/dev/null", "--state", "{" + f + "}"], 2, msg) for f, msg in (
        ("dir", "is a folder"), ("damaged", "cannot resume"), ("deep", "cannot resume"),
        ("not-a-clock", "no clock in it"), ("bad-resume", "cannot resume"), ("missing", "cannot be written"))],
    (["clock", "--backend", "serial", "--port", "/dev/null", "--state", "/dev/zero"], 2, "too large"),
    (["clock", "--backend", "serial", "--port", "{dir}"], 2, "not a serial port"),
    (["clock", "--backend", "serial", "--port", "{missing}"], 2, "no serial port"),
    (["clock", "--backend", "serial"], 2, "needs --port"),
    (["clock", "--backend", "keyboard"], 2, "needs a terminal"),
    # the other areas' commands, as far as they already hold
    (["judge"], 2, "required"),
    (["judge", ""], 2, "not a word"),
    (["judge", "CAT", "--lexicon", "{missing}"], 2, "lexicon"),
    (["replay", "{missing}"], 2, "cannot read"),
    (["replay", "{dir}"], 2, "cannot read"),
    (["replay", "{text}"], 2, "line 1"),
    (["lexicon", "{missing}"], 2, "lexicon"),
    (["read", "{missing}"], 2, "no such file"),
    (["read", "{text}"], 2, "not an image"),
    (["enrol", "{text}"], 2, "not an image"),
    (["label", "{file}"], 2, "required"),
    (["label", "{missing}", "--labels", "{tmp}/l.json"], 2, "no such file"),
    (["label", "{text}", "--labels", "{tmp}/l.json"], 2, "not an image"),
    (["label", "{file}", "--labels", "{damaged}"], 2, "not a label file"),
    (["label", "{file}", "--labels", "{dir}"], 2, "not a label file"),
    (["label", "{file}", "--labels", "{deep}"], 2, "not a label file"),
    (["label", "{file}", "--labels", "{tmp}/l.json", "--corners", "{deep}"], 2, "not a corners file"),
    (["label", "{file}", "--labels", "{tmp}/l.json", "--tiles", "klingon"], 2, "--tiles"),
    (["calibrate", "{missing}"], 2, "no such"),
    (["calibrate", "--corners", "1,2", "{text}"], 2, "eight numbers"),
]


def fill(argv: list[str], files: dict[str, str]) -> list[str]:
    out = []
    for a in argv:
        for name, path in files.items():
            a = a.replace("{" + name + "}", path)
        out.append(a)
    return out


@pytest.mark.parametrize("argv, code, message", BATTERY, ids=[" ".join(a)[:60] for a, _, _ in BATTERY])
def test_bad_input_gets_a_message_and_its_exit_code(argv: list[str], code: int, message: str,
                                                    files: dict[str, str], capsys: pytest.CaptureFixture[str],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    monkeypatch.setattr(sys, "stdin", io.StringIO(""))  # no terminal, no PIN typed
    rc = main(fill(argv, files))  # an exception here is the traceback a user would see
    out = capsys.readouterr()
    assert rc == code, out.err
    assert message in out.err
    assert "Traceback" not in out.err + out.out


@pytest.mark.parametrize("argv, code, message", [
    (["demo", "--port", "70000"], 2, "a port is from 0 to 65535, not 70000"),
    (["demo", "--no-web", "--speed", "1e-300"], 2, "--speed must be a number from 0.1 to 10000"),
    (["run", "--port", "-1"], 2, "a port is from 1 to 65535, not -1"),
    (["config", "check", "/dev/zero"], 1, "larger than 1024 KB"),
    (["clock", "--minutes", "nan"], 2, "--minutes: must be a number, not a string ('nan')"),
    (["run", "--config", "{datafile.toml}"], 2, "data.dir:"),
])
def test_bad_input_as_the_console_command(argv: list[str], code: int, message: str, files: dict[str, str]) -> None:
    r = board_pi(*fill(argv, files))
    assert r.returncode == code and message in r.stderr
    assert "Traceback" not in r.stderr + r.stdout


# ------------------------------------------------------------------ run refuses what check refuses


@pytest.mark.parametrize("name", ["datafile.toml", "host.toml", "lexicon.toml", "port in use"])
def test_run_refuses_with_the_message_config_check_gives(name: str, files: dict[str, str]) -> None:
    other = socket.socket()
    try:
        if name == "port in use":  # another program holds the page's port
            other.bind(("127.0.0.1", 0))
            other.listen()
            text = Path(files["good.toml"]).read_text()
            path = Path(files["tmp"]) / "busy.toml"
            path.write_text(text.replace(text.split("port = ")[1].split("\n")[0], str(other.getsockname()[1])))
        else:
            path = Path(files[name])
        check = board_pi("config", "check", str(path))
        errors = [line.removeprefix("error: ") for line in check.stderr.splitlines() if line.startswith("error: ")]
        assert check.returncode == 1 and errors, check.stderr
        run = board_pi("run", "--config", str(path), "--stop-after", "0")
        assert run.returncode == 2 and "Traceback" not in run.stderr
        for e in errors:
            assert e in run.stderr
    finally:
        other.close()
    assert not (Path(files["tmp"]) / "data").exists()  # refused before anything was written


def test_run_with_a_port_given_checks_that_port(files: dict[str, str]) -> None:
    with socket.socket() as other:
        other.bind(("127.0.0.1", 0))
        other.listen()
        r = board_pi("run", "--config", files["good.toml"], "--port", str(other.getsockname()[1]),
                     "--stop-after", "0")
    assert r.returncode == 2 and "--port: 127.0.0.1:" in r.stderr and "is in use" in r.stderr
    r = board_pi("run", "--config", files["good.toml"], "--stop-after", "0")
    assert r.returncode == 0, r.stderr


def test_an_empty_tile_profile_is_not_used_and_the_table_reads_on(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    from board_pi.config import load_config
    from board_pi.cli.run import _tile_reader

    (tmp_path / "tiles.npz").write_bytes(b"")
    cfg = tmp_path / "board-pi.toml"
    cfg.write_text(f'[camera]\nsource = "synthetic"\n[data]\ndir = "{tmp_path}"\n')
    reader = _tile_reader(load_config(cfg))
    assert reader.profile is None
    assert "tile profile not used" in capsys.readouterr().out


def test_every_command_is_in_the_battery() -> None:
    from board_pi.cli import build_parser

    sub = next(a for a in build_parser()._actions if a.dest == "command")
    covered = {a[0] for a, _, _ in BATTERY if a}
    assert set(sub.choices) - {"doctor"} <= covered  # doctor's bad input: tests/test_doctor.py
