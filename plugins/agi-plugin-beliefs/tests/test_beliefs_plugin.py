"""The beliefs plugin registers its contracts; each loads, and its example and fallback hold."""

from __future__ import annotations

import pytest

from agi_core.contracts import registry_from_plugins, validate_and_normalize
from agi_core.plugins import Plugins

EXPECTED = ["belief_graph_orchestrator", "belief_summarizer", "entity_linker", "ontology_enrichment"]


@pytest.fixture(scope="module")
def registry():
    plugins = Plugins()
    assert plugins.add_module("agi_plugin_beliefs.plugin", name="beliefs")
    found = registry_from_plugins(plugins)
    assert plugins.failures == []
    return found


def test_registers_exactly_its_contracts(registry):
    assert sorted(registry) == EXPECTED
    assert {registry.plugin_of(name) for name in registry} == {"beliefs"}


@pytest.mark.parametrize("name", EXPECTED)
def test_example_validates(registry, name):
    contract = registry[name]
    result = validate_and_normalize(contract, dict(contract.prompt.example))
    assert result.ok, result.errors
