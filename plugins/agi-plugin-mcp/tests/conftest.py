"""Helpers for agi-plugin-mcp's tests: the plugin under its entry-point name, server specs, ``agi`` in a process."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

from agi_core import Kernel, Plugins
from agi_core.testing import builtin_plugins

ROOT = Path(__file__).resolve().parents[3]
PLUGIN = Path(__file__).resolve().parents[1]
FAULT_SERVER = Path(__file__).with_name("fault_server.py")


def mcp_plugins() -> Plugins:
    """The built-ins plus this plugin, registered as ``mcp`` (its entry point's name: settings are mcp.*)."""
    pytest.importorskip("mcp", reason="pip install -e plugins/agi-plugin-mcp (requirements-test.txt)")
    import agi_plugin_mcp.plugin

    plugins = builtin_plugins()
    plugins.add_module(agi_plugin_mcp.plugin, name="mcp")
    return plugins


def open_agent(db: Path, servers: dict[str, Any] | None = None, **options: Any) -> Kernel:
    """A kernel on ``db`` with the plugin and ``servers`` (the mcp setting, through its environment variable)."""
    import json

    previous = os.environ.get("AGI_PLUGIN_MCP_SERVERS")
    os.environ["AGI_PLUGIN_MCP_SERVERS"] = json.dumps(servers or {})
    try:
        return Kernel.open(db, seed="mcp", plugins=mcp_plugins(), **options)
    finally:
        if previous is None:
            os.environ.pop("AGI_PLUGIN_MCP_SERVERS", None)
        else:
            os.environ["AGI_PLUGIN_MCP_SERVERS"] = previous


def module_server(module: str, *args: str, **extra: Any) -> dict[str, Any]:
    """A stdio server spec: ``python -m module args`` with this interpreter."""
    return {"command": [sys.executable, "-m", module, *args], **extra}


def fault_server(mode: str = "ok", **extra: Any) -> dict[str, Any]:
    return {"command": [sys.executable, str(FAULT_SERVER), mode], **extra}


def _entry_point_site() -> Path:
    """A folder declaring the plugin's entry point, for a checkout where it is not pip-installed."""
    site = Path(tempfile.gettempdir()) / f"agi-mcp-entry-point-{os.getpid()}"
    info = site / "agi_plugin_mcp_checkout-0.1.0.dist-info"
    info.mkdir(parents=True, exist_ok=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: agi-plugin-mcp-checkout\nVersion: 0.1.0\n")
    (info / "entry_points.txt").write_text("[agi]\nmcp = agi_plugin_mcp.plugin\n")
    return site


def child_env(**extra: str) -> dict[str, str]:
    """The environment of an ``agi`` process with this checkout and the mcp plugin loaded."""
    from importlib.metadata import entry_points

    installed = any(ep.name == "mcp" for ep in entry_points(group="agi"))
    sites = [] if installed else [str(_entry_point_site())]
    path = os.pathsep.join([str(ROOT), str(PLUGIN), *sites, *filter(None, [os.environ.get("PYTHONPATH", "")])])
    env = {**os.environ, "PYTHONPATH": path, "AGI_LOAD_PLUGINS": "mcp", **extra}
    env.pop("AGI_PLUGIN_MCP_SERVERS", None)
    return env


def agi(db: Path, *args: str, stdin: str = "", **extra: str) -> subprocess.CompletedProcess[str]:
    """The real ``agi`` on ``db`` in its own process."""
    return subprocess.run(
        [sys.executable, "-m", "agi_core", "--db", str(db), *args],
        input=stdin,
        env=child_env(**extra),
        capture_output=True,
        text=True,
        timeout=180,
    )


@pytest.fixture
def git_repo(tmp_path: Path) -> Path:
    """A git repository with one commit and one untracked file, for mcp-server-git."""
    repo = tmp_path / "repo"
    repo.mkdir()
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org"}
    env |= {"GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.org"}
    for command in (["init", "-q", "-b", "main"], ["commit", "-q", "--allow-empty", "-m", "first"]):
        subprocess.run(["git", *command], cwd=repo, env=env, check=True)
    (repo / "notes.txt").write_text("remember the milk\n")
    return repo


@pytest.fixture
def mcp() -> Any:
    """This folder's helpers (test modules cannot import conftest under --import-mode=importlib)."""
    from types import SimpleNamespace

    return SimpleNamespace(
        plugins=mcp_plugins,
        open_agent=open_agent,
        module_server=module_server,
        fault_server=fault_server,
        agi=agi,
        child_env=child_env,
    )
