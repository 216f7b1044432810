"""The social plugin registers its contracts; each loads, and its example and fallback hold."""

from __future__ import annotations

from agi_core.testing import ContractPluginSuite


class TestSocialPlugin(ContractPluginSuite):
    plugin_module = "agi_plugin_social.plugin"
    plugin_name = "social"
    contracts = (
        "social_adaptive_lexicon",
        "social_conversation_analysis",
        "social_conversation_rewrite",
        "social_interaction_context",
        "social_interaction_miner",
        "social_interaction_outcome",
        "social_rule_self_evaluation",
        "social_rule_update",
        "social_simulation_score",
        "social_tactic_selector",
    )
    fallbacks = (
        "social_adaptive_lexicon",
        "social_conversation_rewrite",
        "social_interaction_context",
        "social_interaction_outcome",
        "social_rule_update",
        "social_tactic_selector",
    )
