"""The layers of board_pi, as pyproject.toml's import-linter contracts write them down.

import-linter reads the ``import`` statements. A module loaded by name at run time
(``importlib.import_module("board_pi.vision.render")``) is an import it cannot see, so the second
test finds those too and holds them to the same layers and the same rule against cycles.
"""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "board_pi"

# Imports by name that break a rule today, each with the room that removes it (and then this line).
KNOWN_DYNAMIC: set[tuple[str, str]] = set()  # an import by name a room still has to remove


def test_the_import_contracts_hold(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    lint = pytest.importorskip("importlinter.cli")
    monkeypatch.chdir(ROOT)  # where pyproject.toml is
    status = lint.lint_imports(config_filename=str(ROOT / "pyproject.toml"), no_cache=True, no_logo=True)
    out = capsys.readouterr().out
    assert status == 0, out
    assert "0 broken" in out and "BROKEN" not in out, out


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _dynamic_imports() -> set[tuple[str, str]]:
    """(importer, imported) for every call in board_pi given a board_pi module's name as a string."""
    modules = {_module_name(p) for p in PACKAGE.rglob("*.py")}
    found = set()
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                for arg in node.args:
                    if (isinstance(arg, ast.Constant) and isinstance(arg.value, str)
                            and re.fullmatch(r"board_pi(\.\w+)+", arg.value) and arg.value in modules):
                        importer = _module_name(path)
                        # itself or its own package: a logger's name, resources
                        if importer != arg.value and not importer.startswith(arg.value + "."):
                            found.add((importer, arg.value))
    return found


def _layer_of() -> dict[str, int]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]
    (layers,) = [c for c in config["contracts"] if c["type"] == "layers"]
    rank = {}
    for i, layer in enumerate(layers["layers"]):
        for name in re.split(r"[|:]", layer):
            rank["board_pi." + name.strip().strip("()")] = i  # 0 is the top
    return rank


def test_imports_by_name_follow_the_layers_and_make_no_cycle() -> None:
    grimp = pytest.importorskip("grimp")
    graph = grimp.build_graph("board_pi", cache_dir=None)
    rank = _layer_of()
    found = _dynamic_imports()
    assert ("board_pi.cli.main", "board_pi.cli.rules") in found  # the search finds what is there
    broken = []
    for importer, imported in sorted(found - KNOWN_DYNAMIC):
        top_a, top_b = (".".join(m.split(".")[:2]) for m in (importer, imported))
        if top_a != top_b and rank[top_a] > rank[top_b]:
            broken.append(f"{importer} -> {imported}: {top_a} is below {top_b}")
        if graph.chain_exists(importer=imported, imported=importer):
            broken.append(f"{importer} -> {imported}: and {imported} imports {importer} (a cycle)")
    assert not broken, "\n".join(broken)
    stale = [pair for pair in KNOWN_DYNAMIC if pair not in found]
    assert not stale, f"no longer imported by name, remove from KNOWN_DYNAMIC: {stale}"
