"""Test setup: no third-party entry-point plugins unless a test asks for them."""

from __future__ import annotations

import os
import tempfile

os.environ["AGI_LOAD_PLUGINS"] = ""
# The MiniLM ONNX export is cached outside the user's cache (tests that test the export use their own).
os.environ.setdefault("AGI_CACHE_DIR", os.path.join(tempfile.gettempdir(), "agi-core-test-cache"))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.pop("AGI_DISABLE_PLUGINS", None)
os.environ.pop("AGI_TRACE_PLUGINS", None)

import pytest

from agi_core import plugins as plugins_module


@pytest.fixture(autouse=True)
def _fresh_default_plugins():
    """Each test sees a freshly loaded default plugin set."""
    plugins_module.reset_plugins()
    yield
    plugins_module.reset_plugins()
