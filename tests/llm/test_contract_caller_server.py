"""A contract call made by kernel code reaches the real llama.cpp server when a provider is configured."""

from __future__ import annotations

from agi_core.contracts.caller import EXTERNAL
from agi_core.externals import Externals
from agi_core.kernel import Kernel


# Seconds alone, over a minute beside other jobs: real model calls of a structured contract, with repairs.
def test_a_configured_provider_is_asked_and_its_answer_recorded(tmp_path, monkeypatch, llama_server):
    monkeypatch.setenv("AGI_OPENAI_BASE_URL", llama_server)
    externals = Externals()
    with Kernel.open(tmp_path / "a.db", contract_provider="openai") as kernel:
        outcome = kernel.contract_caller(externals).call("planner_support", {"goal": "water the plants"})
    first = outcome.attempts[0]
    assert first["kind"] == "contract_attempt" and isinstance(first["text"], str) and first["text"]
    assert outcome.source in ("llm", "fallback") and outcome.value is not None
    assert externals.log[EXTERNAL] == [outcome.to_dict()]
