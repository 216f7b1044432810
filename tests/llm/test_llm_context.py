"""What the LLM brain's prompt holds: the tick's facts, memories, goal, beliefs and the
modules' proposals, in a fixed order, within a token budget."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from types import SimpleNamespace

import pytest

from agi_core.brain import llm_context
from agi_core.llm.testing import FakeOpenAIServer, chat_reply
from agi_core.scheduling.clock import PinnedClock, SimulatedClock
from agi_core.scheduling.wall_time import time_text
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


START_MS = 1_795_000_000_000  # 2026-11-18


def _fake_model(monkeypatch: pytest.MonkeyPatch, server: FakeOpenAIServer, mode: str) -> None:
    for name, value in {
        "AGI_LLM_PROVIDER": "openai",
        "AGI_LLM_MODE": mode,
        "AGI_OPENAI_MODEL": "fake",
        "AGI_OPENAI_BASE_URL": server.url,
    }.items():
        monkeypatch.setenv(name, value)


def _chat_bodies(server: FakeOpenAIServer) -> list[dict]:
    return [body for path, body in server.requests if path.endswith("/chat/completions")]


@pytest.mark.parametrize("mode", ["reason", "answer"])
def test_the_prompt_holds_the_recorded_time_and_the_time_since_the_users_previous_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    """The time comes from the tick's recorded clock reading, the gap from the previous line's, in
    both modes; the brain reads no clock of its own, and replay is equal."""
    sim = SimulatedClock(START_MS)
    reply = SUMMARY if mode == "reason" else "Nothing much."
    with FakeOpenAIServer(lambda path, body: chat_reply(reply)) as server:
        _fake_model(monkeypatch, server, mode)
        with open_kernel(tmp_path / "a.db", seed="ctx", brain="llm", clock=PinnedClock(sim)) as kernel:
            kernel.brain.rules_first = False  # every line goes to the model: its prompt is what is checked
            first = kernel.tick("tell me something")
            sim.advance(3 * 60 + 5)
            kernel.config.clock.refresh()
            second = kernel.tick("and now?")
            assert kernel.replay().ok
        bodies = _chat_bodies(server)
    offset = datetime.fromtimestamp(START_MS / 1000, UTC).astimezone().utcoffset().total_seconds()
    times = [time_text(START_MS, int(offset)), time_text(START_MS + 185_000, int(offset))]
    assert [r.externals["tick_clock"] for r in (first, second)] == [[START_MS], [START_MS + 185_000]]
    if mode == "reason":
        notes = [json.loads(b["messages"][1]["content"].removeprefix("Input:\n"))["context"]["time"] for b in bodies]
        assert notes == [
            {"now": times[0], "since_last_turn": "none: this is the user's first line"},
            {"now": times[1], "since_last_turn": "3 minutes"},
        ]
    else:
        systems = [b["messages"][0]["content"] for b in bodies]
        assert systems == [
            f"Reply in one short sentence. {times[0]} "
            "The user's previous message: none: this is the user's first line.",
            f"Reply in one short sentence. {times[1]} The user's previous message came 3 minutes ago.",
        ]


def test_without_a_kernel_clock_the_prompts_time_is_one_recorded_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A kernel opened without a clock: the prompt's time is the tick's one ``wall_clock`` read,
    recorded; the next line's gap is measured from it (the episode keeps it as ``wall_ms``)."""
    with FakeOpenAIServer(lambda path, body: chat_reply(SUMMARY)) as server:
        _fake_model(monkeypatch, server, "reason")
        with open_kernel(tmp_path / "a.db", seed="ctx", brain="llm") as kernel:
            kernel.brain.rules_first = False
            first = kernel.tick("tell me something")
            second = kernel.tick("and now?")
            episodes = kernel.store.episodes(2, newest_first=True)
            assert kernel.replay().ok
        bodies = _chat_bodies(server)
    (read,) = first.externals["wall_clock"]
    assert (
        "tick_clock" not in first.externals
        and [e.context["wall_ms"] for e in episodes] == second.externals["wall_clock"] * 2
    )
    notes = [json.loads(b["messages"][1]["content"].removeprefix("Input:\n"))["context"]["time"] for b in bodies]
    assert notes[0]["now"] == time_text(read, first.externals["utc_offset"][0])
    gap = (second.externals["wall_clock"][0] - read) // 1000
    assert notes[1]["since_last_turn"] == f"{gap} second{'s' * (gap != 1)}"
