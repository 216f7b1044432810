"""The learning plugin registers its contracts; each loads, and its example and fallback hold."""

from __future__ import annotations

from agi_core.testing import ContractPluginSuite


class TestLearningPlugin(ContractPluginSuite):
    plugin_module = "agi_plugin_learning.plugin"
    plugin_name = "learning"
    contracts = (
        "experiential_learning_cycle",
        "learning_auto_curriculum",
        "learning_curiosity_update",
        "learning_curriculum_planner",
        "learning_meta_controller",
        "learning_reinforcement_policy",
        "learning_self_assessment",
        "learning_transfer_mapping",
    )
    fallbacks = (
        "experiential_learning_cycle",
        "learning_curriculum_planner",
        "learning_reinforcement_policy",
    )
