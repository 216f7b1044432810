"""The autonomy plugin registers its contracts; each loads, and its example and fallback hold."""

from __future__ import annotations

from agi_core.testing import ContractPluginSuite


class TestAutonomyPlugin(ContractPluginSuite):
    plugin_module = "agi_plugin_autonomy.plugin"
    plugin_name = "autonomy"
    contracts = (
        "auto_evolution",
        "auto_signal_derivation",
        "auto_signal_keywords",
        "auto_signal_registration",
        "autonomy_core",
    )
    fallbacks = ("auto_signal_derivation", "auto_signal_keywords", "auto_signal_registration", "autonomy_core")
