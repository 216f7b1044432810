"""An agent with the self_improver plugin, a transcript of rephrased F3 inputs, and the real ``agi`` CLI."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from agi_core import Kernel, Plugins

ROOT = Path(__file__).resolve().parents[3]
PLUGIN_ROOT = Path(__file__).resolve().parents[1]

#: two F3 inputs, each rephrased by the user and then answered
REPHRASED = [
    "the capital of Japan is Tokyo",
    "the capital of France is Paris",
    "2 + 3",
    "whats the capital of Japan?",
    "what is the capital of Japan?",
    "whats the capital of France?",
    "what is the capital of France?",
]


@pytest.fixture
def rephrased() -> list[str]:
    """Two F3 inputs, each rephrased by the user and then answered (ticks 4-7)."""
    return list(REPHRASED)


def plugins() -> Plugins:
    from agi_plugin_self_improver import plugin

    found = Plugins.builtins()
    found.add_module(plugin, name="self_improver")
    return found


@pytest.fixture
def agent(tmp_path: Path):
    """``open() -> Kernel`` on one database in tmp_path, the self_improver loaded."""

    def open_agent() -> Kernel:
        return Kernel.open(tmp_path / "agent.db", seed="improve", plugins=plugins())

    return open_agent


@pytest.fixture(scope="session")
def bwrap() -> str:
    """bubblewrap, installed by scripts/install_bubblewrap.sh; the tests that need it fail where it cannot run."""
    done = subprocess.run(
        [str(ROOT / "scripts" / "install_bubblewrap.sh")], capture_output=True, text=True, timeout=600, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip().split("=", 1)[1]


@pytest.fixture
def agi(tmp_path: Path):
    """``agi(*args, stdin="", env={})``: the real ``agi --db tmp_path/agent.db`` with the self_improver loaded."""

    def run(*args: str, stdin: str = "", env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        environ = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join([str(ROOT), str(PLUGIN_ROOT)]),
            "AGI_LOAD_PLUGINS": "self_improver",
            **(env or {}),
        }
        return subprocess.run(
            [sys.executable, "-m", "agi_core", "--db", str(tmp_path / "agent.db"), *args],
            input=stdin,
            env=environ,
            capture_output=True,
            text=True,
            timeout=300,
        )

    return run
