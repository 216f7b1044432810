"""The retrieval module on its LLM path: its three contracts go to the real SmolLM2 behind llama.cpp's
server, each answer validated (or replaced by the fallback) and journaled; the reply cites only memories
recalled in the tick (the council approves), and the journal replays equal without the server."""

from __future__ import annotations

import json

import agi_plugin_retrieval.plugin as retrieval
import pytest

from agi_core.contracts.caller import EXTERNAL
from agi_core.longterm import ingest_file
from agi_core.replay import replay
from agi_core.testing import builtin_plugins, open_kernel


@pytest.mark.llm
def test_the_retrieval_module_asks_the_model_and_cites_only_recalled_memories(tmp_path, monkeypatch, llama_server):
    monkeypatch.setenv("AGI_OPENAI_BASE_URL", llama_server)
    notes = tmp_path / "notes.jsonl"
    notes.write_text(
        json.dumps(
            {"text": "My sister Lena plays the cello in an orchestra.", "speaker": "Ann", "timestamp": "2023-06-14"}
        )
        + "\n"
    )
    db = tmp_path / "agent.db"
    with open_kernel(db, retrieval, contract_provider="openai") as kernel:
        ingest_file(kernel.long_term, notes, progress=False)
        kernel.store.conn.commit()
        answered = kernel.tick("What instrument does Lena play?")
    calls = answered.externals.get(EXTERNAL, [])
    assert {call["contract"] for call in calls} == {
        "retrieval_orchestrator",
        "memory_retrieval_ranking",
        "memory_index_optimizer",  # its boosts order the recalled memories
        "retrieval_answer",
    }
    for call in calls:
        assert call["source"] in ("llm", "fallback") and call["value"] is not None
        assert call["attempts"] and call["attempts"][0]["kind"] == "contract_attempt"  # the model was asked
    recalled = {item["id"] for item in answered.evidence_items if item["source"] == "ltm"}
    if answered.claims:  # an answer (the model's or the heuristics'), each citation a recalled memory
        assert {claim["evidence"] for claim in answered.claims} <= recalled
        assert {vote["vote"] for vote in answered.council_votes} == {"approve"}
        assert "[ltm-" in answered.final_output
    monkeypatch.setenv("AGI_OPENAI_BASE_URL", "http://127.0.0.1:9/v1")  # replay never asks it again
    assert replay(db, plugins=builtin_plugins(retrieval)).ok
