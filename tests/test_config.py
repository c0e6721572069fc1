"""The configuration: template, validation messages, the `board-pi config` commands, the PIN."""

from __future__ import annotations

import doctest
import os
import re
import subprocess
import sys
import tomllib
from dataclasses import fields
from pathlib import Path

import pytest

import board_pi.config as config
from board_pi.config import (
    SECTIONS,
    Config,
    ConfigError,
    load_config,
    parse_config,
    resolve_data_dir,
    template_text,
)
from board_pi.pin import check_pin as verify_pin
from board_pi.pin import hash_pin


def problems(text: str) -> list[str]:
    with pytest.raises(ConfigError) as e:
        parse_config(text)
    return list(e.value.problems)


def board_pi(*args: str, stdin: str | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    # As the console script does (python -m board_pi.cli would load the CLI module twice).
    code = "import sys; from board_pi.cli import main; sys.exit(main(sys.argv[1:]))"
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                          input=stdin, cwd=cwd, timeout=60)


# ------------------------------------------------------------------ the template and defaults


def test_template_is_the_defaults() -> None:
    cfg = parse_config(template_text())
    assert cfg == Config(warnings=cfg.warnings)


def test_template_documents_every_setting() -> None:
    text = template_text()
    raw = tomllib.loads(text)
    lines = text.splitlines()
    for name, cls in SECTIONS.items():
        assert set(raw[name]) == {f.name for f in fields(cls)}, name
    for i, line in enumerate(lines):
        m = re.match(r"^([a-z_0-9]+)\s*=", line)
        if m:  # each setting has a comment on its line or above its group of settings
            j = i
            while j > 0 and re.match(r"^[a-z_0-9]+\s*=", lines[j - 1]) and "#" not in lines[j - 1]:
                j -= 1
            assert "#" in line or lines[j - 1].startswith("#"), f"{m.group(1)} is not documented"


def test_empty_file_gives_defaults() -> None:
    cfg = parse_config("")
    assert cfg.camera.source == "picamera2" and cfg.clock.minutes == 25
    assert cfg.clock.overtime_penalty == 10 and cfg.clock.max_overtime_minutes == 10
    assert cfg.web.port == 8080 and cfg.serial.port == "/dev/ttyACM0"
    assert len(set(cfg.gpio.pins().values())) == len(cfg.gpio.pins())


# ------------------------------------------------------------------ every kind of error


def test_unknown_key_suggests_near_spelling() -> None:
    assert problems("[camera]\nsourse = 1\n") == ["camera.sourse: unknown key; did you mean 'source'?"]
    assert problems("[game]\nchalenge_rule = 'single'\n") == ["game.chalenge_rule: unknown key; did you mean 'challenge_rule'?"]


def test_unknown_key_without_near_spelling_lists_the_known_ones() -> None:
    (msg,) = problems("[serial]\nqqq = 1\n")
    assert msg.startswith("serial.qqq: unknown key; known keys: port, baud")


def test_unknown_section_suggests() -> None:
    assert problems("[webb]\nport = 1\n") == ["[webb]: unknown section; did you mean 'web'?"]


def test_a_key_outside_any_section() -> None:
    (msg,) = problems("port = 8080\n")
    assert msg.startswith("[port]: unknown section")


def test_wrong_types_name_key_and_type() -> None:
    msgs = problems('[clock]\nminutes = "25"\n[web]\nport = true\n[game]\nchallenge_points_per_word = 1\n')
    assert "clock.minutes: must be a number, not a string ('25')" in msgs
    assert "web.port: must be a port number, not a boolean (true)" in msgs
    assert "game.challenge_points_per_word: must be true or false, not an integer (1)" in msgs


def test_port_out_of_range() -> None:
    assert problems("[web]\nport = 70000\n") == ["web.port: must be from 1 to 65535, not 70000"]
    assert problems("[web]\nport = 0\n") == ["web.port: must be from 1 to 65535, not 0"]


def test_pin_used_twice() -> None:
    (msg,) = problems("[gpio]\nbuzzer = 17\n")
    assert msg == "gpio: pin 17 is used twice (gpio.player0_button, gpio.buzzer); give each its own pin"


def test_pin_out_of_range() -> None:
    assert problems("[gpio]\nbuzzer = 40\n") == ["gpio.buzzer: must be from 0 to 27, not 40"]


def test_choice_with_typo_suggests() -> None:
    (msg,) = problems('[clock]\nbackend = "gpoi"\n')
    assert msg == "clock.backend: must be one of \"gpio\", \"serial\", \"none\", not 'gpoi'; did you mean 'gpio'?"
    (msg,) = problems('[game]\nchallenge_rule = "five"\n')
    assert msg.startswith("game.challenge_rule: must be one of")


def test_every_problem_reported_at_once() -> None:
    msgs = problems('[web]\nport = -1\n[clock]\nminutes = 0\nbackend = 3\n[gpio]\nred_light = 22\n')
    assert len(msgs) == 4
    assert any(m.startswith("clock.minutes: must be greater than 0") for m in msgs)
    assert any(m.startswith("gpio: pin 22 is used twice") for m in msgs)


def test_time_control_cross_checks() -> None:
    (msg,) = problems("[clock]\nincrement_seconds = 5\n")
    assert "tournament games have no increment" in msg
    msgs = problems('[game]\nmode = "casual"\n[clock]\nincrement_seconds = 5\ndelay_seconds = 3\n')
    assert msgs == ["clock.increment_seconds, clock.delay_seconds: choose an increment or a delay, not both"]
    cfg = parse_config('[game]\nmode = "casual"\n[clock]\nincrement_seconds = 5\nmax_overtime_minutes = 0\n')
    assert cfg.clock.increment_seconds == 5 and cfg.clock.max_overtime_minutes == 0


def test_players_must_be_two_names() -> None:
    assert problems('[game]\nplayers = ["Ann"]\n')[0].startswith("game.players: must be a list of two")
    assert parse_config('[game]\nplayers = [" Ann ", "Bob"]\n').game.players == ("Ann", "Bob")


def test_tile_set_is_checked_against_the_rules() -> None:
    assert parse_config('[game]\ntile_set = "Polish"\n').game.tile_set == "polish"
    assert problems('[game]\ntile_set = "klingon"\n')[0].startswith("game.tile_set: must be one of")


def test_plain_pin_in_hash_field_is_refused() -> None:
    (msg,) = problems('[web]\ndirector_pin_hash = "1234"\n')
    assert "never write the PIN itself" in msg


def test_warnings_do_not_refuse() -> None:
    cfg = parse_config('[web]\nport = 80\n[game]\nchallenge_points_per_word = true\n[gpio]\nbuzzer = 2\n')
    text = "\n".join(cfg.warnings)
    assert "web.port: 80 is below 1024" in text
    assert "challenge_points_per_word: only applies" in text
    assert "gpio.buzzer: pin 2 is also I2C SDA" in text


def test_corrupt_file() -> None:
    (msg,) = problems("[camera\nsource = 1\n")
    assert msg.startswith("not valid TOML:") and "line 1" in msg


# ------------------------------------------------------------------ camera sources and paths


@pytest.mark.parametrize(
    "value, source, kind",
    [
        ('"picamera2"', "picamera2", "picamera2"),
        ('"synthetic"', "synthetic", "synthetic"),
        ("1", 1, "webcam"),
        ('"0"', 0, "webcam"),
        ('"/dev/video2"', "/dev/video2", "device"),
    ],
)
def test_camera_sources(value: str, source: object, kind: str) -> None:
    cam = parse_config(f"[camera]\nsource = {value}\n").camera
    assert (cam.source, cam.source_kind) == (source, kind)


def test_camera_source_typo_and_bad_values() -> None:
    assert problems('[camera]\nsource = "picamra2"\n') == ["camera.source: unknown camera 'picamra2'; did you mean 'picamera2'?"]
    assert problems("[camera]\nsource = -1\n") == ["camera.source: a webcam index must be 0 or more, not -1"]
    assert problems("[camera]\nsource = true\n")[0].startswith("camera.source: must be")


def test_relative_paths_are_taken_from_the_file(tmp_path: Path) -> None:
    f = tmp_path / "conf" / "board-pi.toml"
    f.parent.mkdir()
    f.write_text('[camera]\nsource = "photos/"\ncalibration = "cal.json"\n[data]\ndir = "d"\n[game]\nlexicon = "words.txt"\n')
    cfg = load_config(f)
    assert cfg.camera.source == str(tmp_path / "conf" / "photos")
    assert cfg.camera.calibration == str(tmp_path / "conf" / "cal.json")
    assert cfg.data_dir() == tmp_path / "conf" / "d"
    assert cfg.game.lexicon == str(tmp_path / "conf" / "words.txt")
    assert cfg.calibration_path() == tmp_path / "conf" / "cal.json"


def test_calibration_defaults_to_the_data_directory(tmp_path: Path) -> None:
    cfg = parse_config(f'[data]\ndir = "{tmp_path}"\n')
    assert cfg.calibration_path() is None
    (tmp_path / "calibration.json").write_text("{}")
    assert cfg.calibration_path() == tmp_path / "calibration.json"


def test_data_dir_resolution(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("STATE_DIRECTORY", raising=False)
    assert resolve_data_dir(str(tmp_path / "x")) == tmp_path / "x"
    monkeypatch.setattr(config.schema, "SYSTEM_DATA_DIR", tmp_path / "missing")
    monkeypatch.chdir(tmp_path)
    assert resolve_data_dir() == tmp_path / "data"
    monkeypatch.setattr(config.schema, "SYSTEM_DATA_DIR", tmp_path)
    assert resolve_data_dir() == tmp_path
    monkeypatch.setenv("STATE_DIRECTORY", "/var/lib/board-pi:/var/lib/other")
    assert resolve_data_dir() == Path("/var/lib/board-pi")


def test_load_errors_name_the_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no such file"):
        load_config(tmp_path / "nope.toml")
    with pytest.raises(ConfigError, match="is a directory"):
        load_config(tmp_path)
    bad = tmp_path / "latin1.toml"
    bad.write_bytes(b'[game]\nplayers = ["J\xf6rg", "Bob"]\n')
    with pytest.raises(ConfigError, match="not UTF-8"):
        load_config(bad)


def test_find_config_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    f = tmp_path / "c.toml"
    f.write_text("[web]\nport = 9000\n")
    monkeypatch.setenv("BOARD_PI_CONFIG", str(f))
    assert load_config().web.port == 9000
    assert config.find_config(tmp_path / "explicit.toml") == tmp_path / "explicit.toml"


# ------------------------------------------------------------------ the PIN


def test_pin_hash_round_trip() -> None:
    h = hash_pin("2468")
    assert "2468" not in h
    assert verify_pin("2468", h) and not verify_pin("2469", h)
    assert hash_pin("2468") != h  # salted
    assert parse_config(f'[web]\ndirector_pin_hash = "{h}"\n').web.director_pin_hash == h
    assert not verify_pin("2468", "") and not verify_pin("2468", "scrypt$1$2$3$!!$??")
    with pytest.raises(ValueError):
        hash_pin("12")


def test_pin_hash_with_out_of_range_costs_is_refused() -> None:
    """A hash that could never be checked (n=2**40 never finishes) would lock the director out."""
    good = hash_pin("2468").split("$")
    for n, r, p in ((2 ** 40, 8, 1), (3, 8, 1), (2 ** 14, 10 ** 6, 1), (2 ** 14, 8, 10 ** 6), (2 ** 20, 32, 1)):
        bad = "$".join(["scrypt", str(n), str(r), str(p), *good[4:]])
        (msg,) = problems(f'[web]\ndirector_pin_hash = "{bad}"\n')
        assert msg.startswith("web.director_pin_hash:") and "set-pin" in msg, msg


# ------------------------------------------------------------------ the commands


def test_cli_check_refuses_bad_file_without_traceback(tmp_path: Path) -> None:
    f = tmp_path / "bad.toml"
    f.write_text("[camera]\nsourse = 1\n")
    r = board_pi("config", "check", str(f))
    assert r.returncode != 0
    assert "camera.sourse: unknown key; did you mean 'source'?" in r.stderr
    assert "Traceback" not in r.stderr + r.stdout


def test_cli_check_refuses_corrupt_and_missing_files(tmp_path: Path) -> None:
    f = tmp_path / "corrupt.toml"
    f.write_bytes(b"\x00\xff[[[ not toml")
    for path in (f, tmp_path / "missing.toml"):
        r = board_pi("config", "check", str(path))
        assert r.returncode != 0 and r.stderr.strip()
        assert "Traceback" not in r.stderr + r.stdout


def test_cli_init_then_check(tmp_path: Path) -> None:
    f = tmp_path / "etc" / "board-pi.toml"
    r = board_pi("config", "init", str(f))
    assert r.returncode == 0 and f.read_text() == template_text()
    r = board_pi("config", "check", str(f))
    assert r.returncode == 0 and "OK" in r.stdout
    f.write_text("# mine\n")
    r = board_pi("config", "init", str(f))
    assert r.returncode == 0 and "already exists" in r.stdout and f.read_text() == "# mine\n"
    r = board_pi("config", "init", "--force", str(f))
    assert r.returncode == 0 and f.read_text() == template_text()


def test_cli_set_pin(tmp_path: Path) -> None:
    from board_pi.pin import PIN_FILE, stored_pin_hash

    data = tmp_path / "data"
    f = tmp_path / "board-pi.toml"
    f.write_text(f'# the club\'s table\n[web]\nport = 9000\n[data]\ndir = "{data}"\n')
    os.chmod(f, 0o440)
    before = f.read_text()
    r = board_pi("config", "set-pin", "--config", str(f), "--pin-stdin", stdin="80085\n")
    assert r.returncode == 0, r.stderr
    # Kept in the data directory, private; the configuration is not touched.
    assert f.read_text() == before and f.stat().st_mode & 0o777 == 0o440
    stored, where = stored_pin_hash(data)
    assert where == str(data / PIN_FILE) and verify_pin("80085", stored)
    assert (data / PIN_FILE).stat().st_mode & 0o777 == 0o600
    assert "80085" not in (data / PIN_FILE).read_text()
    r = board_pi("config", "set-pin", "--config", str(f), stdin="")  # no terminal, no --pin-stdin
    assert r.returncode == 2 and "--pin-stdin" in r.stderr and "Traceback" not in r.stderr


@pytest.mark.parametrize("pin,why", [("12", "4 to 64"), ("x" * 65, "4 to 64"), ("x" * 5000, "4 to 64"),
                                     (" 2468", "space"), ("2468 ", "space"), ("24\x0768", "control"),
                                     ("24\t68", "control"), ("24\x7f68", "control")])
def test_cli_set_pin_refuses_a_bad_pin(tmp_path: Path, pin: str, why: str) -> None:
    from board_pi.pin import PIN_FILE

    data = tmp_path / "data"
    f = tmp_path / "board-pi.toml"
    f.write_text(f'[data]\ndir = "{data}"\n')
    r = board_pi("config", "set-pin", "--config", str(f), "--pin-stdin", stdin=pin + "\n")
    assert r.returncode == 2 and why in r.stderr and "nothing changed" in r.stderr, r.stderr
    assert "Traceback" not in r.stderr and not (data / PIN_FILE).exists()


def test_cli_show_hides_the_hash(tmp_path: Path) -> None:
    f = tmp_path / "board-pi.toml"
    f.write_text(f'[web]\nport = 9001\ndirector_pin_hash = "{hash_pin("4444")}"\n')
    r = board_pi("config", "show", "--config", str(f))
    assert r.returncode == 0
    assert "port = 9001" in r.stdout and 'director_pin_hash = "(set)"' in r.stdout and "scrypt" not in r.stdout
    shown = tomllib.loads(r.stdout.replace('"(set)"', '""'))
    assert set(shown) == set(SECTIONS)


def test_doctests() -> None:
    assert doctest.testmod(config).failed == 0


# ------------------------------------------------------------------ anything at all: a message, never a crash

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_values = st.one_of(
    st.integers(-10**6, 10**6), st.booleans(), st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=12).map(lambda s: '"' + s.replace("\\", "").replace('"', "").replace("\n", "") + '"'),
    st.lists(st.integers(0, 30), max_size=3),
)
_keys = st.sampled_from([(s, f.name) for s, cls in SECTIONS.items() for f in fields(cls)] + [("camera", "sourse"), ("gpio", "buzer")])


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(_keys, _values), max_size=12))
def test_any_assignment_is_accepted_or_explained(assignments: list) -> None:
    by_section: dict[str, dict[str, object]] = {}
    for (section, key), value in assignments:
        by_section.setdefault(section, {})[key] = value
    text = "".join(f"[{s}]\n" + "".join(f"{k} = {config.toml_value(v) if not isinstance(v, str) else v}\n"
                                        for k, v in body.items()) for s, body in by_section.items())
    try:
        cfg = parse_config(text)
    except ConfigError as e:
        # Every problem names a section the text has, first thing on its line (or the text is
        # not TOML at all: a control character in a string).
        assert e.problems and all(re.split(r"[.:]", p, maxsplit=1)[0] in by_section
                                  or p.startswith("not valid TOML") for p in e.problems), e.problems
    else:
        # Taken: every number and true/false given is kept as it was written.
        for section, body in by_section.items():
            for key, value in body.items():
                if isinstance(value, (bool, int, float)):
                    assert getattr(getattr(cfg, section), key) == value, (section, key, value)


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=200))
def test_any_text_is_accepted_or_explained(text: str) -> None:
    try:
        parse_config(text)
    except ConfigError as e:
        assert e.problems


def test_a_hash_from_before_the_pin_module_still_opens() -> None:
    """A PIN file or web.director_pin_hash written by an earlier board-pi (this exact text) still
    verifies and passes the configuration's check: the format is kept."""
    old = "scrypt$16384$8$1$Ym9hcmQtcGktc2FsdC0xNg$hTF97JkfUs0qn8luwjizYqFLEsYjcDfdZHvq_Lt8oqg"
    assert verify_pin("2468", old) and not verify_pin("2469", old)
    assert parse_config(f'[web]\nport = 9001\ndirector_pin_hash = "{old}"\n').web.director_pin_hash == old


# ------------------------------------------------------------------ values TOML allows that no table can use


@pytest.mark.parametrize("value", ["nan", "+nan", "-nan", "inf", "-inf", "1e400", "-0.0", "0.0"])
def test_minutes_that_are_not_a_time_are_refused(value: str) -> None:
    (msg,) = problems(f"[clock]\nminutes = {value}\n")
    assert msg.startswith("clock.minutes: must be")


@pytest.mark.parametrize("key", ["increment_seconds", "delay_seconds"])
@pytest.mark.parametrize("value", ["nan", "inf"])
def test_seconds_that_are_not_a_time_are_refused(key: str, value: str) -> None:
    msgs = problems(f'[game]\nmode = "casual"\n[clock]\n{key} = {value}\n')
    assert msgs[0] == f"clock.{key}: must be a number, not {value}"


def test_values_nested_past_reason_are_refused() -> None:
    for text in ("x = " + "[" * 10000 + "]" * 10000, "x = " + "{a = " * 3000 + "1" + "}" * 3000):
        (msg,) = problems(text)
        assert msg == "not a configuration: values nested too deeply"


def test_numbers_of_thousands_of_digits_are_refused_in_a_line() -> None:
    (msg,) = problems("[web]\nport = " + "9" * 5000 + "\n")
    assert msg == "not a configuration: a number with thousands of digits"
    (msg,) = problems("[web]\nport = " + "9" * 4000 + "\n")  # readable, and shown cut short
    assert msg.startswith("web.port: must be from 1 to 65535, not 999") and len(msg) < 100


def test_strings_that_name_no_path_are_refused(tmp_path: Path) -> None:
    f = tmp_path / "board-pi.toml"
    f.write_text('[data]\ndir = "~nosuchuser-of-board-pi/games"\n[camera]\ntiles = "a\\u0000b"\n')
    with pytest.raises(ConfigError) as e:
        load_config(f)
    assert e.value.problems == ("data.dir: '~nosuchuser-of-board-pi/games': no such user's home folder",
                                "camera.tiles: must not hold a NUL character")


def test_a_camera_named_by_other_digits_is_a_path_not_a_crash() -> None:
    assert parse_config('[camera]\nsource = "\u00b2"\n').camera.source_kind == "path"
    assert parse_config('[camera]\nsource = "\u0663"\n').camera.source_kind == "path"


def test_a_file_past_the_size_limit_is_not_read_on(tmp_path: Path) -> None:
    f = tmp_path / "huge.toml"
    f.write_text("# comment\n" * (config.MAX_CONFIG_BYTES // 10 + 1))  # valid TOML, far too big
    with pytest.raises(ConfigError, match="larger than 1024 KB"):
        load_config(f)


def test_a_device_is_read_no_further_than_the_limit() -> None:
    r = board_pi("config", "check", "/dev/zero")
    assert r.returncode == 1 and "larger than 1024 KB" in r.stderr and "Traceback" not in r.stderr


# ------------------------------------------------------------------ what run needs beyond a valid file


def ready(text: str) -> config.Readiness:
    return config.check_ready(parse_config(text))


def base(tmp_path: Path, extra: str = "") -> str:
    """A table that starts here: no camera, no clock, a free port, a data directory."""
    return (f'[camera]\nsource = "none"\n[clock]\nbackend = "none"\n[web]\nhost = "127.0.0.1"\n'
            f'port = {free_port()}\n[data]\ndir = "{tmp_path / "data"}"\n' + extra)


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_table_that_starts_is_ready(tmp_path: Path) -> None:
    assert ready(base(tmp_path)) == config.Readiness()
    assert not (tmp_path / "data").exists()  # the check makes nothing


def test_a_data_directory_that_is_a_file_or_cannot_be_made(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    r = ready(base(tmp_path).replace(str(tmp_path / "data"), str(tmp_path / "file")))
    assert r.errors == (f"data.dir: {tmp_path / 'file'} cannot be a folder: {tmp_path / 'file'} is a file",)
    r = ready(base(tmp_path).replace(str(tmp_path / "data"), str(tmp_path / "file" / "d")))
    assert r.errors == (f"data.dir: {tmp_path / 'file' / 'd'} cannot be made: {tmp_path / 'file'} is a file, "
                        "not a folder",)


def test_a_damaged_director_pin_stops_run_and_is_said_by_check(tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "director-pin").write_text("scrypt$not-a-hash\n")
    (msg,) = ready(base(tmp_path)).errors
    assert msg.startswith(f"data.dir: {tmp_path / 'data' / 'director-pin'}: the director's PIN hash cannot be used")
    assert "board-pi config set-pin" in msg


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write anywhere")
def test_a_data_directory_that_is_not_writable(tmp_path: Path) -> None:
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    try:
        r = ready(base(tmp_path).replace(str(tmp_path / "data"), str(locked / "data")))
        (msg,) = r.errors
        assert msg.startswith(f"data.dir: {locked / 'data'} is not writable") and f"made in {locked}" in msg
    finally:
        locked.chmod(0o700)


def test_an_unknown_host_or_one_not_of_this_machine(tmp_path: Path) -> None:
    r = ready(base(tmp_path).replace('"127.0.0.1"', '"no-such-host.invalid"'))
    (msg,) = r.errors
    assert msg.startswith("web.host: unknown host 'no-such-host.invalid'") and '"0.0.0.0"' in msg
    r = ready(base(tmp_path).replace('"127.0.0.1"', '"192.0.2.1"'))  # TEST-NET-1: nobody's address
    assert r.errors == ('web.host: \'192.0.2.1\' is not an address of this machine; use "0.0.0.0" or "127.0.0.1"',)


@pytest.mark.parametrize("host", ["127.0.0.1", "0.0.0.0"])
def test_a_port_in_use_is_an_error_that_names_the_service(tmp_path: Path, host: str) -> None:
    import socket

    with socket.socket() as other:  # another program (or the service) listening
        other.bind(("127.0.0.1", 0))
        other.listen()
        port = other.getsockname()[1]
        text = base(tmp_path).replace('"127.0.0.1"', f'"{host}"')
        text = re.sub(r"port = \d+", f"port = {port}", text)
        (msg,) = ready(text).errors
        assert msg.startswith(f"web.port: {host}:{port} is in use") and "sudo systemctl stop board-pi" in msg
        # run --port elsewhere is what run would use, and what is checked
        assert config.check_ready(parse_config(text), port=free_port()).errors == ()


def test_a_word_list_that_does_not_load(tmp_path: Path) -> None:
    (msg,) = ready(base(tmp_path, f'[game]\nlexicon = "{tmp_path / "nope.txt"}"\n')).errors
    assert msg.startswith("game.lexicon:") and "nope.txt" in msg
    (msg,) = ready(base(tmp_path, '[game]\nlexicon = "/dev/zero"\n')).errors  # never read: not a file
    assert msg == "game.lexicon: '/dev/zero' is not a file"


def test_a_camera_file_that_is_not_there(tmp_path: Path) -> None:
    text = base(tmp_path).replace('source = "none"', f'source = "{tmp_path / "photos"}"')
    (msg,) = ready(text).errors
    assert msg == f"camera.source: no such file or folder: {str(tmp_path / 'photos')!r}"


def test_an_empty_or_damaged_tile_profile_is_named(tmp_path: Path) -> None:
    import numpy as np

    data = tmp_path / "data"
    data.mkdir()
    text = base(tmp_path).replace('source = "none"', 'source = "synthetic"')
    assert ready(text).warnings == ()
    for content in (b"", b"garbage", b"PK\x03\x04 cut short"):
        (data / "tiles.npz").write_bytes(content)
        r = ready(text)
        assert r.errors == ()
        (msg,) = r.warnings
        assert msg.startswith(f"camera.tiles: {data / 'tiles.npz'} is not a tile profile") and "board-pi enrol" in msg
    np.savez(data / "tiles.npz", embeddings=np.zeros((3, 4), np.float32), labels=np.zeros(2, np.int64))
    assert "is not a tile profile (embeddings (3, 4), labels (2,))" in ready(text).warnings[0]
    np.savez(data / "tiles.npz", embeddings=np.ones((3, 4), np.float32), labels=np.arange(3))
    assert ready(text) == config.Readiness()
    (tmp_path / "zero.toml").write_text(text.replace('source = "synthetic"', 'source = "synthetic"\ntiles = "/dev/zero"'))
    assert ready((tmp_path / "zero.toml").read_text()).errors == ("camera.tiles: '/dev/zero' is not a file",)


def test_a_damaged_calibration_is_a_warning(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "calibration.json").write_text("{")
    (msg,) = ready(base(tmp_path).replace('source = "none"', 'source = "synthetic"')).warnings
    assert msg.startswith("camera.calibration:") and "board-pi calibrate" in msg


def test_cli_check_runs_what_run_checks(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    f = tmp_path / "board-pi.toml"
    f.write_text(base(tmp_path).replace(str(tmp_path / "data"), str(tmp_path / "file"))
                 .replace('"127.0.0.1"', '"no-such-host.invalid"'))
    r = board_pi("config", "check", str(f))
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert "error: data.dir:" in r.stderr and "error: web.host: unknown host" in r.stderr
    assert "2 problem(s); the table will not start" in r.stderr
    f.write_text(base(tmp_path))
    r = board_pi("config", "check", str(f))
    assert r.returncode == 0 and "OK" in r.stdout and "board-pi doctor" in r.stdout


# ------------------------------------------------------------------ the template, mutated: refused or ready, never a crash

_NASTY = ["nan", "-nan", "inf", "-inf", "1e400", "-0.0", "0", "-1", "99999999999999999999999", "9" * 5000,
          "[" * 3000 + "]" * 3000, "{a = 1}", '"\\u0000"', '"~nosuchuser-xyz/x"', '"\u00b2"', '"\u0663"', '""',
          '" "', '"' + "x" * 5000 + '"', "true", "[]", '["a"]', '"none"', '"synthetic"', '"/dev/zero"',
          "1979-05-27T07:32:00Z", "'literal'", '"""two\nlines"""', '"../.."', '"*"', '"::1"', '"localhost"']
_TEMPLATE_LINES = template_text().splitlines()


@st.composite
def _mutated_template(draw: st.DrawFn) -> str:
    lines = list(_TEMPLATE_LINES)
    for _ in range(draw(st.integers(1, 6))):
        i = draw(st.integers(0, len(lines) - 1))
        how = draw(st.sampled_from(["value", "value", "value", "delete", "duplicate", "insert", "cut"]))
        if how == "value" and "=" in lines[i] and not lines[i].startswith("#"):
            value = draw(st.one_of(st.sampled_from(_NASTY), st.integers().map(str),
                                   st.floats().map(lambda f: repr(f).replace("e+", "e"))))
            lines[i] = lines[i].split("=")[0] + "= " + value
        elif how == "delete":
            del lines[i]
        elif how == "duplicate":
            lines.insert(i, lines[i])
        elif how == "insert":
            lines.insert(i, draw(st.text(max_size=30)))
        elif how == "cut":
            lines[i] = lines[i][: draw(st.integers(0, len(lines[i])))]
        if not lines:
            lines = [""]
    return "\n".join(lines) + "\n"


@settings(max_examples=120, deadline=None, derandomize=True)
@given(text=st.one_of(_mutated_template(), st.text(max_size=300)))
def test_any_configuration_is_refused_or_ready_never_a_crash(text: str) -> None:
    import io
    import tempfile
    from contextlib import redirect_stderr, redirect_stdout

    from board_pi.cli import main

    try:
        cfg = parse_config(text)
    except ConfigError as e:
        assert e.problems and all(isinstance(p, str) and p for p in e.problems)
    else:
        r = config.check_ready(cfg)
        assert all(isinstance(p, str) and p for p in r.errors + r.warnings)
    with tempfile.TemporaryDirectory() as d:
        f = Path(d) / "board-pi.toml"
        f.write_text(text, encoding="utf-8")
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            rc = main(["config", "check", str(f)])  # an exception fails the test: no traceback allowed
    assert rc in (0, 1)
    assert (rc == 1) == ("problem(s)" in err.getvalue())
