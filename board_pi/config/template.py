"""The configuration's template (``board_pi/config_template.toml``: every setting, its default
and what it does), and how a value is written in it."""

from __future__ import annotations

from importlib import resources
from typing import Any



def template_text() -> str:
    """The commented configuration template (every setting, its default, what it does)."""
    return resources.files("board_pi").joinpath("config_template.toml").read_text(encoding="utf-8")


def toml_value(v: Any) -> str:
    """``v`` as TOML writes it (``config show`` prints the settings so)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    return '"' + str(v).replace("\\", "\\\\").replace('"', '\\"') + '"'
