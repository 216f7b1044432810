"""The memory upkeep of the retrieval module on its LLM path: every upkeep contract goes to the real
SmolLM2 behind llama.cpp's server, each answer validated (or replaced by the heuristic) and
journaled; what the agent then says for "what have we talked about?" comes from those outcomes
(the model's narrative, or nothing kept), and the journal replays equal without the server."""

from __future__ import annotations

import agi_plugin_retrieval.plugin as retrieval
import pytest
from agi_plugin_retrieval.module import NO_DIGEST

from agi_core.contracts.caller import EXTERNAL
from agi_core.modules.state import dump_state
from agi_core.replay import replay
from agi_core.testing import builtin_plugins, open_kernel


def asked_the_model(calls):
    for call in calls:
        assert call["source"] in ("llm", "fallback") and call["value"] is not None, call
        assert call["attempts"] and call["attempts"][0]["kind"] == "contract_attempt"  # the model was asked


# About two minutes on two busy cores: the upkeep asks the model five to eight times.
@pytest.mark.llm
def test_the_upkeep_asks_the_model_and_says_what_its_outcomes_made(tmp_path, monkeypatch, llama_server):
    monkeypatch.setenv("AGI_OPENAI_BASE_URL", llama_server)
    db = tmp_path / "agent.db"
    with open_kernel(db, retrieval, contract_provider="openai") as kernel:
        kernel.tick("my dog is called Rex")
        kernel.tick("I walk my dog in the park every morning")
        upkept = kernel.maintain()
        told = kernel.tick("what have we talked about?")
        state = dump_state(kernel.store, "retrieval")
    calls = upkept.externals.get(EXTERNAL, [])
    asked = [call["contract"] for call in calls]
    assert asked[:3] == ["semantic_memory_manager", "memory_store_strategy", "memory_store_strategy"]
    asked_the_model(calls)
    assert state["schedule"]["next_run"] > 0
    narrative = state["digest"].get("narrative")
    if narrative:  # the statements the model's strategy and bridge kept, digested and told
        assert {"memory_long_term_digest", "memory_system_narrative"} <= set(asked)
        assert told.final_output.startswith(narrative)
    else:  # the model ranked both low (or lost their ids): nothing kept, nothing told
        assert told.final_output.startswith(NO_DIGEST)
    monkeypatch.setenv("AGI_OPENAI_BASE_URL", "http://127.0.0.1:9/v1")  # replay never asks it again
    assert replay(db, plugins=builtin_plugins(retrieval)).ok
