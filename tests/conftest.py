"""Test setup: no third-party entry-point plugins unless a test asks for them."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

os.environ["AGI_LOAD_PLUGINS"] = ""
# The MiniLM ONNX export is cached outside the user's cache (tests that test the export use their own).
os.environ.setdefault("AGI_CACHE_DIR", os.path.join(tempfile.gettempdir(), "agi-core-test-cache"))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.pop("AGI_DISABLE_PLUGINS", None)
os.environ.pop("AGI_TRACE_PLUGINS", None)
os.environ.pop("AGI_JOURNAL_KEY", None)
os.environ.pop("AGI_FAULT", None)

import pytest

from agi_core import plugins as plugins_module


@pytest.fixture(autouse=True)
def _fresh_default_plugins():
    """Each test sees a freshly loaded default plugin set."""
    plugins_module.reset_plugins()
    yield
    plugins_module.reset_plugins()


@pytest.fixture
def plugin_site(tmp_path):
    """``install(name, source) -> folder``: a real entry-point plugin, installed by putting ``folder`` on PYTHONPATH.

    The folder holds the module ``agi_plugin_<name>.py`` and a ``.dist-info`` declaring it in
    the entry-point group ``agi`` under ``name``, which is all ``importlib.metadata`` needs.
    """

    def install(name: str, source: str, version: str = "1.0") -> Path:
        site = tmp_path / f"site-{name}"
        site.mkdir()
        (site / f"agi_plugin_{name}.py").write_text(source, encoding="utf-8")
        info = site / f"agi_plugin_{name}-{version}.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(
            f"Metadata-Version: 2.1\nName: agi-plugin-{name}\nVersion: {version}\n", encoding="utf-8"
        )
        (info / "entry_points.txt").write_text(f"[agi]\n{name} = agi_plugin_{name}\n", encoding="utf-8")
        return site

    return install


@pytest.fixture
def run_agi():
    """``run(db, *args, site=None, plugins="", stdin="")``: the real ``agi`` in a subprocess, this checkout first.

    ``site`` is a folder from :func:`plugin_site` to put on PYTHONPATH; ``plugins`` the
    ``AGI_LOAD_PLUGINS`` allow list.
    """
    root = Path(__file__).resolve().parent.parent

    def run(db: Path, *args: str, site: Path | None = None, plugins: str = "", stdin: str = ""):
        env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join([str(root), *([str(site)] if site else [])]),
            "AGI_LOAD_PLUGINS": plugins,
        }
        return subprocess.run(
            [sys.executable, "-m", "agi_core", "--db", str(db), *args],
            input=stdin,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )

    return run
