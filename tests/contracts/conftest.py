"""Fixtures of the contract tests: every contract, loaded through the plugin modules."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # for `import contracts_support`, in any import mode

from contracts_support import all_plugins

from agi_core.contracts import ContractRegistry, registry_from_plugins


@pytest.fixture(scope="session")
def registry() -> ContractRegistry:
    plugins = all_plugins()
    found = registry_from_plugins(plugins)
    assert plugins.failures == []
    return found
