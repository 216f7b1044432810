"""The floors of ``[tool.importlinter]`` (docs/architecture.md): every part of agi_core is on one,
and ``lint-imports`` fails the build when a part imports a floor above its own."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import agi_core
from agi_core.commands import KERNEL_COMMANDS
from agi_core.memory.bookkeeping import COMMAND_NAMES

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = Path(agi_core.__file__).parent


def _layers_contract() -> dict:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    return next(c for c in config["contracts"] if c["type"] == "layers")


def _floor_members() -> set[str]:
    names: set[str] = set()
    for layer in _layers_contract()["layers"]:
        for part in layer.replace("\\", " ").replace("|", ":").split(":"):
            names.add(part.strip())
    return names


def test_every_part_of_agi_core_is_on_a_floor() -> None:
    parts = {
        f"agi_core.{path.stem if path.is_file() else path.name}"
        for path in PACKAGE.iterdir()
        if (path.suffix == ".py" and path.name != "__init__.py") or (path / "__init__.py").is_file()
    }
    assert parts - _floor_members() == set(), "add the new part to a floor in pyproject.toml [tool.importlinter]"


def test_bookkeeping_knows_every_kernel_command() -> None:
    assert set(KERNEL_COMMANDS) == COMMAND_NAMES


def _lint_imports(tmp_path: Path, contract: dict) -> subprocess.CompletedProcess[str]:
    importlinter = pytest.importorskip("importlinter", reason="pip install -e .[test] installs import-linter")
    config = tmp_path / "floors.toml"
    layers = ",\n".join(repr(layer) for layer in contract["layers"])
    ignores = ",\n".join(repr(line) for line in contract.get("ignore_imports", []))
    config.write_text(
        '[tool.importlinter]\nroot_packages = ["agi_core"]\n\n[[tool.importlinter.contracts]]\n'
        f'name = "floors"\ntype = "layers"\nlayers = [\n{layers}\n]\nignore_imports = [\n{ignores}\n]\n'
    )
    script = "import sys; from importlinter.cli import lint_imports_command; sys.exit(lint_imports_command())"
    return subprocess.run(
        [sys.executable, "-c", script, "--config", str(config), "--no-cache"],
        cwd=tmp_path,
        env={"PYTHONPATH": os.pathsep.join([str(tmp_path), str(Path(importlinter.__file__).parent.parent)])},
        capture_output=True,
        text=True,
        check=False,
    )


def test_an_upward_import_breaks_the_floors(tmp_path: Path) -> None:
    """A copy of agi_core keeps its floors; the same copy with memory importing the kernel does not."""
    shutil.copytree(PACKAGE, tmp_path / "agi_core", ignore=shutil.ignore_patterns("__pycache__"))
    contract = _layers_contract()
    kept = _lint_imports(tmp_path, contract)
    assert kept.returncode == 0, kept.stdout + kept.stderr

    keys = tmp_path / "agi_core" / "memory" / "keys.py"
    keys.write_text(keys.read_text() + "\n\ndef _upward() -> None:\n    from agi_core.kernel import Kernel  # noqa\n")
    broken = _lint_imports(tmp_path, contract)
    assert broken.returncode != 0
    assert "agi_core.memory.keys -> agi_core.kernel" in broken.stdout


def test_no_part_below_the_kernel_is_excused_to_import_the_kernel_or_brain() -> None:
    """Acting, intents, settings and RLM state ops take a TickScope: only the hook specs and their facade,
    which hand plugins the Kernel itself (the public hook API), still name its type."""
    below = _layers_contract()["layers"][5:]
    floors = {name.strip() for layer in below for name in layer.replace("|", ":").split(":")}
    excused = [
        line
        for line in _layers_contract()["ignore_imports"]
        if any(line.split(" -> ")[0] == f or line.startswith(f + ".") for f in floors)
        and line.split(" -> ")[1].startswith(("agi_core.kernel", "agi_core.brain"))
    ]
    assert excused == ["agi_core.hookspecs -> agi_core.kernel", "agi_core.plugins -> agi_core.kernel"]
