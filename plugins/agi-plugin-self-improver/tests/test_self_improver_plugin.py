"""The self_improver plugin registers its contracts; each loads, and its example and fallback hold."""

from __future__ import annotations

from agi_core.testing import ContractPluginSuite


class TestSelfImproverPlugin(ContractPluginSuite):
    plugin_module = "agi_plugin_self_improver.plugin"
    plugin_name = "self_improver"
    contracts = ("code_evolver",)
