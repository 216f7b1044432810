"""The beliefs and social modules on their LLM path: every contract they call goes to the real SmolLM2
behind llama.cpp's server, each answer validated (or replaced by the fallback) and journaled; the facts of
each reply survive whatever the model says, and the journal replays equal without the server."""

from __future__ import annotations

import agi_plugin_beliefs.plugin as beliefs
import agi_plugin_social.plugin as social
import pytest

from agi_core.contracts.caller import EXTERNAL
from agi_core.replay import replay
from agi_core.testing import builtin_plugins, open_kernel


# Over a minute (73 s alone on two cores, 3 min beside other jobs): three ticks, each asking the real
# model for every contract of both modules (about ten calls a tick); the point is that each of those
# calls is validated and journaled.
@pytest.mark.llm
def test_the_modules_ask_the_model_for_each_contract_and_keep_the_facts(tmp_path, monkeypatch, llama_server):
    monkeypatch.setenv("AGI_OPENAI_BASE_URL", llama_server)
    db = tmp_path / "agent.db"
    with open_kernel(db, beliefs, social, contract_provider="openai") as kernel:
        kernel.tick("my favorite color is teal")
        changed = kernel.tick("my favorite color is red")
        sure = kernel.tick("are you sure about my favourite colour?")
    assert "You told me earlier your favorite color was teal; I now have red." in changed.final_output
    said = changed.final_output.lower()  # the model's rewrite may change the case: the form, not the fact
    assert "got it: your favorite color is red." in said or "understood: your favorite color is red." in said
    assert "red" in sure.final_output and "0.9" in sure.final_output
    calls = [call for record in (changed, sure) for call in record.externals.get(EXTERNAL, [])]
    asked = {call["contract"] for call in calls}
    assert {"belief_graph_orchestrator", "social_adaptive_lexicon", "social_interaction_outcome"} <= asked
    for call in calls:
        assert call["source"] in ("llm", "fallback") and call["value"] is not None
        assert call["attempts"] and call["attempts"][0]["kind"] == "contract_attempt"  # the model was asked
    monkeypatch.setenv("AGI_OPENAI_BASE_URL", "http://127.0.0.1:9/v1")  # replay never asks it again
    assert replay(db, plugins=builtin_plugins(beliefs, social)).ok
