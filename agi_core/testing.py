"""pytest plugin for plugin authors (entry point ``pytest11``): fixtures for a real kernel.

``agi_plugins`` is a fresh :class:`~agi_core.plugins.Plugins` with the built-ins only;
``agi_kernel`` opens a real kernel on a SQLite file in ``tmp_path``. Register the plugin
under test with ``agi_plugins.add_module(my_plugin)`` before asking for ``agi_kernel``,
or use :func:`open_kernel` with the plugin modules you want.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agi_core.kernel import Kernel
from agi_core.plugins import Plugins


def builtin_plugins(*extra: Any) -> Plugins:
    """Built-in plugins plus ``extra`` plugin modules or objects; no entry points."""
    return Plugins.builtins(*extra)


def open_kernel(path: Path, *plugin_modules: Any, seed: str = "test", **options: Any) -> Kernel:
    """A kernel on ``path`` with the built-ins and ``plugin_modules`` registered."""
    return Kernel.open(path, seed=seed, plugins=builtin_plugins(*plugin_modules), **options)


@pytest.fixture
def agi_plugins() -> Plugins:
    """A fresh plugin set with the built-in plugins only."""
    return builtin_plugins()


@pytest.fixture
def agi_kernel(tmp_path: Path, agi_plugins: Plugins) -> Iterator[Kernel]:
    """A kernel on ``tmp_path/agent.db`` with seed ``test``, closed after the test."""
    kernel = Kernel.open(tmp_path / "agent.db", seed="test", plugins=agi_plugins, workspace=tmp_path / "workspace")
    yield kernel
    kernel.close()
