"""``board-pi config check|init|set-pin|show``: the configuration file from the command line."""

from __future__ import annotations

import sys
from dataclasses import fields
from pathlib import Path
from typing import Any

from ..config import (DEFAULT_CONFIG_PATH, SECTIONS, ConfigError, toml_value, check_ready, find_config, load_config,
                      template_text)
from ..files import write_text
from ..pin import BadPin, DirectorStoreError, hash_pin, save_pin_hash, validate_pin
from .errors import UsageError


def cmd_config(args: Any) -> int:
    """``board-pi config check|init|set-pin|show``."""
    action = args.config_command
    if action == "check":
        try:
            cfg = load_config(args.file)
        except ConfigError as e:
            for p in e.problems:
                print(f"error: {p}", file=sys.stderr)
            print(f"{args.file}: {len(e.problems)} problem(s); the table will not start with this file", file=sys.stderr)
            return 1
        ready = check_ready(cfg)  # what `board-pi run` checks before it starts
        from .club import club_problems

        errors = list(ready.errors) + club_problems(cfg)  # [club]: club night's own checks
        for p in errors:
            print(f"error: {p}", file=sys.stderr)
        warnings = cfg.warnings + ready.warnings
        for w in warnings:
            print(f"warning: {w}", file=sys.stderr)
        if errors:
            print(f"{args.file}: {len(errors)} problem(s); the table will not start with this file "
                  "on this machine", file=sys.stderr)
            return 1
        print(f"{args.file}: OK" + (f" ({len(warnings)} warning(s))" if warnings else "")
              + "; the camera and clock hardware: board-pi doctor")
        return 0
    if action == "init":
        path = Path(args.path) if args.path else DEFAULT_CONFIG_PATH
        if path.exists() and not args.force:
            print(f"{path}: already exists; left as it is (use --force to overwrite)")
            return 0
        try:
            write_text(path, template_text(), mode=0o644)  # the service's user reads it
        except OSError as e:
            raise UsageError(f"cannot write {path}: {e.strerror or e}") from None
        print(f"wrote {path}")
        return 0
    if action == "set-pin":
        # The hash goes to the data directory (the service's own state directory), the one
        # place the installed service can write: the page keeps a PIN chosen there too.
        path = find_config(args.config) or DEFAULT_CONFIG_PATH
        if not path.is_file():
            raise UsageError(f"{path}: no such file (write one with `board-pi config init {path}`)")
        try:
            cfg = load_config(path)
        except ConfigError as e:  # the data directory is named there: it must be readable
            raise UsageError(f"{path} has problems; fix them first:\n" + "\n".join(e.problems)) from None
        pin = _read_pin(args.pin_stdin)
        data = cfg.data_dir()
        try:
            data.mkdir(parents=True, exist_ok=True)
            kept = save_pin_hash(data, hash_pin(pin))
        except (OSError, DirectorStoreError) as e:
            raise UsageError(f"cannot keep the PIN in {data}: {getattr(e, 'strerror', None) or e}; nothing changed") from None
        print(f"director PIN set in {kept} (restart the service: sudo systemctl restart board-pi)")
        if cfg.web.director_pin_hash:
            print(f"note: the old web.director_pin_hash in {path} is no longer used; the line may go")
        return 0
    if action == "show":
        try:
            cfg = load_config(args.config)
        except ConfigError as e:
            raise UsageError("\n".join(e.problems)) from None
        print(f"# from {cfg.source or 'the built-in defaults'}; data directory: {cfg.data_dir()}")
        for name in SECTIONS:
            print(f"\n[{name}]")
            for f in fields(getattr(cfg, name)):
                v = getattr(getattr(cfg, name), f.name)
                if f.name == "director_pin_hash" and v:
                    v = "(set)"
                print(f"{f.name} = {toml_value(v)}")
        return 0
    raise UsageError(f"unknown config command {action!r}")


def _read_pin(from_stdin: bool) -> str:
    import getpass
    if from_stdin:
        pin = sys.stdin.readline().rstrip("\r\n")
    else:
        if not sys.stdin.isatty():
            raise UsageError("no terminal to ask for the PIN; pipe it in with --pin-stdin")
        pin = getpass.getpass("Director PIN: ")
        if getpass.getpass("Again: ") != pin:
            raise UsageError("the two PINs differ; nothing changed")
    try:
        return validate_pin(pin)  # the page's rules, the one definition
    except BadPin as e:
        raise UsageError(f"{e}; nothing changed") from None
