"""Markers every test of this repository gets from what it uses (tests/ and plugins/*/tests alike).

``server``: the test starts or needs a server (PostgreSQL, llama.cpp) or the local model, found
from its fixtures, so ``scripts/check.sh --fast`` can leave it out without a list to keep up to date.
"""

from __future__ import annotations

import pytest

SERVER_FIXTURES = frozenset({"postgres_dsn", "agent_url", "llama_server", "llama_tool_server", "smollm2_gguf"})


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if SERVER_FIXTURES.intersection(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.server)
