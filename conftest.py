"""Markers every test of this repository gets from what it uses (tests/ and plugins/*/tests alike).

``scripts/check.sh --fast`` leaves both out; neither needs a list kept up to date by hand:

- ``server``: the test starts or needs a server (PostgreSQL, llama.cpp) or the local model,
  found from its fixtures;
- ``slow``: the test's module starts processes (``agi`` in a subprocess, kills, servers), found
  from its source; such tests cost seconds each, where an in-process test costs milliseconds.

``serial`` (run alone, after the parallel step of ``scripts/check.sh``): the tests that ask the
local model (the ``llm`` marker, or a llama.cpp server fixture). The model takes both cores of
the machine; beside the other workers its answers slow down until requests time out.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

import pytest

SERVER_FIXTURES = frozenset({"postgres_dsn", "agent_url", "llama_server", "llama_tool_server", "smollm2_gguf"})
MODEL_FIXTURES = frozenset({"llama_server", "llama_tool_server", "smollm2_gguf"})
PROCESS_FIXTURES = frozenset({"run_agi", "agi", "child_env"})
STARTS_PROCESSES = re.compile(r"\bsubprocess\b|\bPopen\b|\bsys\.executable\b|\bos\.fork\b|\bmultiprocessing\b")


@functools.cache
def _starts_processes(path: Path) -> bool:
    try:
        return bool(STARTS_PROCESSES.search(path.read_text(encoding="utf-8")))
    except OSError:
        return False


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        fixtures = set(getattr(item, "fixturenames", ()))
        if SERVER_FIXTURES & fixtures:
            item.add_marker(pytest.mark.server)
        if MODEL_FIXTURES & fixtures or item.get_closest_marker("llm") is not None:
            item.add_marker(pytest.mark.serial)
        if PROCESS_FIXTURES & fixtures or _starts_processes(Path(item.path)):
            item.add_marker(pytest.mark.slow)
