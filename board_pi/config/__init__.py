"""The table's configuration: one TOML file, validated into frozen dataclasses.

Every setting has a default for the standard build (Camera Module 3 on the Pi's camera port, the
clock buttons and lights on GPIO, the default word list), so an empty file is a valid
configuration. Validation collects *every* problem at once, each naming the key and saying what
is wrong, so a volunteer fixes the file in one go:

>>> try:
...     parse_config("[camera]\\nsourse = 1\\n")
... except ConfigError as e:
...     print(e)
camera.sourse: unknown key; did you mean 'source'?
>>> parse_config("[web]\\nport = 8080\\n").web.port
8080

The commented template (every setting, its default and what it does) ships in the package as
``config_template.toml``; ``board-pi config init`` writes it.

Split by job: :mod:`.schema` (the sections, from the domain types' settings), :mod:`.load`
(reading and checking a file), :mod:`.ready` (what a valid file still needs on this machine),
:mod:`.template` (the template and how a value is written in it).
"""

from __future__ import annotations

from .load import find_config, load_config, parse_config
from .ready import Readiness, check_ready, data_dir_problem, listen_problem, tiles_problem
from .schema import (CAMERA_KEYWORDS, CHALLENGE_RULES, CHECKS, CLOCK_BACKENDS, DEFAULT_CONFIG_PATH, DOWNTIME_RULES,
                     GAME_MODES, MAX_CONFIG_BYTES, MAX_PROFILE_BYTES, SECTIONS, SYSTEM_DATA_DIR, TIME_CONTROL_KEYS,
                     CameraConfig, ClockConfig, Config, ConfigError, DataConfig, GameConfig, SerialConfig, WebConfig,
                     resolve_data_dir)
from .template import template_text, toml_value

__all__ = ["CAMERA_KEYWORDS", "CHALLENGE_RULES", "CHECKS", "CLOCK_BACKENDS", "DEFAULT_CONFIG_PATH", "DOWNTIME_RULES",
           "GAME_MODES", "MAX_CONFIG_BYTES", "MAX_PROFILE_BYTES", "SECTIONS", "SYSTEM_DATA_DIR", "TIME_CONTROL_KEYS",
           "CameraConfig", "ClockConfig", "Config", "ConfigError", "DataConfig", "GameConfig", "Readiness",
           "SerialConfig", "WebConfig", "check_ready", "data_dir_problem", "find_config", "listen_problem",
           "load_config", "parse_config", "resolve_data_dir", "template_text", "tiles_problem", "toml_value"]
