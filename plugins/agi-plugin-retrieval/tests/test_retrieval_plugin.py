"""The retrieval plugin registers its contracts; each loads, and its example and fallback hold."""

from __future__ import annotations

from agi_core.testing import ContractPluginSuite


class TestRetrievalPlugin(ContractPluginSuite):
    plugin_module = "agi_plugin_retrieval.plugin"
    plugin_name = "retrieval"
    contracts = (
        "retrieval_answer",
        "retrieval_orchestrator",
    )
    fallbacks = (
        "retrieval_answer",
        "retrieval_orchestrator",
    )
