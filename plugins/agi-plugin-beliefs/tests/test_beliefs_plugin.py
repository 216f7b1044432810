"""The beliefs plugin registers its contracts; each loads, and its example and fallback hold."""

from __future__ import annotations

from agi_core.testing import ContractPluginSuite


class TestBeliefsPlugin(ContractPluginSuite):
    plugin_module = "agi_plugin_beliefs.plugin"
    plugin_name = "beliefs"
    contracts = (
        "belief_graph_orchestrator",
        "belief_summarizer",
        "entity_linker",
        "ontology_enrichment",
    )
    fallbacks = (
        "belief_graph_orchestrator",
        "belief_summarizer",
        "entity_linker",
        "ontology_enrichment",
    )
