"""The autonomy plugin registers its contracts; each loads, and its example and fallback hold."""

from __future__ import annotations

import pytest

from agi_core.contracts import registry_from_plugins, run_fallback, validate_and_normalize
from agi_core.plugins import Plugins

EXPECTED = [
    "auto_evolution",
    "auto_signal_derivation",
    "auto_signal_keywords",
    "auto_signal_registration",
    "autonomy_core",
]
FALLBACKS = ["autonomy_core"]


@pytest.fixture(scope="module")
def registry():
    plugins = Plugins()
    assert plugins.add_module("agi_plugin_autonomy.plugin", name="autonomy")
    found = registry_from_plugins(plugins)
    assert plugins.failures == []
    return found


def test_registers_exactly_its_contracts(registry):
    assert sorted(registry) == EXPECTED
    assert {registry.plugin_of(name) for name in registry} == {"autonomy"}


@pytest.mark.parametrize("name", EXPECTED)
def test_example_validates(registry, name):
    contract = registry[name]
    result = validate_and_normalize(contract, dict(contract.prompt.example))
    assert result.ok, result.errors


@pytest.mark.parametrize("name", FALLBACKS)
def test_fallback_is_valid(registry, name):
    assert registry[name].fallback.startswith("agi_plugin_autonomy.fallbacks:")
    assert run_fallback(registry[name], {}).ok
    assert run_fallback(registry[name], {"text": 3, "goal": None, "actions": "x", "modules": [1]}).ok
