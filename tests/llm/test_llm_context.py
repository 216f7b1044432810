"""What the LLM brain's prompt holds: the tick's facts, memories, goal, beliefs and the
modules' proposals, in a fixed order, within a token budget."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from agi_core.brain import llm_context
from agi_core.llm.testing import FakeOpenAIServer, chat_reply
from agi_core.testing import open_kernel

OLDER = "my favorite color used to be blue"  # in the short-term memory, so not among the recalled memories
LATER = ["my favorite color is green", "I live in Lyon", "my sister is called Eve", "my name is Ada"]
LATER += ["my dog is called Rex"]
SUMMARY = '{"summary": "Your favorite color is green.", "final_confidence": 0.9, "hypothesis": {}}'


def test_sections_are_filled_in_order_until_the_budget_is_spent() -> None:
    found = {
        "recent_turns": ["user: hi", "agent: hello"],
        "long_term_memories": ["m" * 500],
        "beliefs": [{"fact": "the sky is blue", "confidence": 0.8}],
        "proposals": [{"module": "social", "reply": "Hi!", "score": 0.5}],
        "facts": [{"key": "user/person/self/name", "value": "Ada"}],
        "goal": [{"id": "g1", "description": "learn Rust"}],
    }
    context, report = llm_context.bounded(found, tokens=100)
    assert context == {
        "goal": {"id": "g1", "description": "learn Rust"},
        "facts": [{"key": "user/person/self/name", "value": "Ada"}],
        "proposals": [{"module": "social", "reply": "Hi!", "score": 0.5}],
        "beliefs": [{"fact": "the sky is blue", "confidence": 0.8}],
        "long_term_memories": [],  # cut to 300 characters, it still does not fit in what is left
        "recent_turns": ["user: hi", "agent: hello"],
    }
    assert report == {
        "sent": {
            "goal": 1,
            "facts": 1,
            "proposals": 1,
            "beliefs": 1,
            "long_term_memories": 0,
            "recent_turns": 2,
        },
        "omitted": {"long_term_memories": 1},
        "tokens": 56,  # 221 characters sent, 4 a token, rounded up
        "budget": 100,
    }
    assert llm_context.bounded(found, tokens=100) == (context, report)  # same state, same context


def test_proposals_come_from_the_context_or_the_tick_state() -> None:
    state = SimpleNamespace(proposals=[{"reply": "from the state"}])
    assert llm_context.proposals(SimpleNamespace(state=state)) == [{"reply": "from the state"}]  # type: ignore[arg-type]
    ctx = SimpleNamespace(state=state, proposals=[{"reply": "from the context"}])
    assert llm_context.proposals(ctx) == [{"reply": "from the context"}]  # type: ignore[arg-type]
    assert llm_context.proposals(SimpleNamespace(state=SimpleNamespace())) == []  # type: ignore[arg-type]


def test_the_prompt_holds_the_stored_answer_and_the_memories(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "a.db"
    with open_kernel(db, seed="ctx") as kernel:
        for line in (OLDER, *LATER):
            kernel.tick(line)
    # A fake stands in for the model: what is checked is the request the brain sends.
    with FakeOpenAIServer(lambda path, body: chat_reply(SUMMARY)) as server:
        for name, value in {
            "AGI_LLM_PROVIDER": "openai",
            "AGI_LLM_MODE": "reason",
            "AGI_OPENAI_MODEL": "fake",
            "AGI_OPENAI_BASE_URL": server.url,
        }.items():
            monkeypatch.setenv(name, value)
        with open_kernel(db, seed="ctx", brain="llm") as kernel:
            kernel.brain.rules_first = False  # R2 answers this line without the model: the prompt is checked here
            record = kernel.tick("what is my favorite color?")
        (body,) = [body for path, body in server.requests if path.endswith("/chat/completions")]
    assert record.final_output == "Your favorite color is green."
    key = "user/person/self/favorite_color"
    assert [(r["key"], r["value"]) for r in record.sem_reads] == [(key, "green")]
    assert record.evidence_items[0]["key"] == key
    sent = json.loads(body["messages"][1]["content"].removeprefix("Input:\n"))
    assert sent["question"] == "what is my favorite color?"
    context = sent["context"]
    assert context["facts"][0] == {"key": key, "value": "green", "fact": "the user's favorite color is green"}
    assert context["goal"] is None and context["proposals"] == []
    assert context["beliefs"] == [  # the tick's beliefs before it reasons: the focus entity's recalled facts
        {"key": "user/relation/dog/name", "value": "Rex", "confidence": 0.9, "source": "recalled"}  # the last line's
    ]
    said = {turn.split(": ", 1)[1] for turn in context["recent_turns"]}
    (hits,) = record.externals["ltm_recall"]  # the recorded recall: replay gets the same memories
    recalled = [hit["text"] for hit in hits if hit["text"] not in said]
    assert context["long_term_memories"] == recalled[: llm_context.MEMORIES_MAX]
    # AgentOne's 200-item short-term memory holds every turn so far; recall adds only what it does not hold
    assert f"user: {OLDER}" in context["recent_turns"] and OLDER not in context["long_term_memories"]
    assert context["recent_turns"][-2:] == ["user: my dog is called Rex", "agent: Got it: your dog's name is Rex."]
    assert record.agent_outputs["llm_brain"]["context"]["budget"] == llm_context.CONTEXT_TOKENS
