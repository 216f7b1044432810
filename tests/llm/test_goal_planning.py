"""Goals planned and replanned through the planning contracts when a contract provider is configured.

The real llama.cpp server shows the path end to end (SmolLM2 may or may not satisfy the
contract: either way a plan exists, the outcome is recorded and replay never asks the model).
The scripted server (a fake: exact model output cannot be had on demand) proves which answer
becomes the plan and the revised plan, and that the prioritizer picks the next active goal.
"""

from __future__ import annotations

import json

import pytest

from agi_core.contracts.caller import EXTERNAL
from agi_core.kernel import Kernel
from agi_core.llm.testing import chat_reply
from agi_core.replay import replay
from agi_core.scheduling.goals import all_goals


@pytest.mark.llm
def test_a_new_goal_is_planned_by_the_model_and_replays_without_it(tmp_path, monkeypatch, llama_server):
    monkeypatch.setenv("AGI_OPENAI_BASE_URL", llama_server)
    with Kernel.open(tmp_path / "a.db", contract_provider="openai") as kernel:
        record = kernel.tick("my goal is to water the plants")
        [goal] = all_goals(kernel.store)
    calls = record.externals[EXTERNAL]
    assert calls[0]["contract"] == "planner_support" and calls[0]["attempts"]
    assert 1 <= len(goal.plan) <= 20 and goal.status == "active"
    if calls[0]["source"] == "llm":
        wanted = [" ".join(str(item["description"]).split())[:200] for item in calls[0]["value"]["plan"]]
        assert [step.do for step in goal.plan] == wanted[:20]
    monkeypatch.setenv("AGI_OPENAI_BASE_URL", "http://127.0.0.1:9/v1")  # nothing listens: replay must not ask
    assert replay(tmp_path / "a.db").ok


def _scripted(fake_openai, answers: dict[str, dict]) -> None:
    """Answer each contract's request with its scripted JSON (the contract name is in the prompt)."""

    def respond(path, body):
        prompt = json.dumps(body.get("messages", []))
        name = next((name for name in answers if f"contract '{name}'" in prompt.replace("\\'", "'")), None)
        return chat_reply(json.dumps(answers[name]) if name else "{}")

    fake_openai.respond = respond


def test_the_contracts_plan_revise_and_prioritize(tmp_path, monkeypatch, fake_openai):
    monkeypatch.setenv("AGI_OPENAI_BASE_URL", fake_openai.url)
    monkeypatch.setenv("AGI_OPENAI_MODEL", "fake-model")
    plan = {"plan": [{"description": "read file notes.txt"}, {"description": "list files"}]}
    _scripted(fake_openai, {"planner_support": plan})
    with Kernel.open(tmp_path / "a.db", contract_provider="openai", workspace=tmp_path / "ws") as kernel:
        kernel.tick("my goal is to sort my notes")
        [goal] = all_goals(kernel.store)
        assert [(step.do, step.assumes) for step in goal.plan] == [
            ("read file notes.txt", "the step's action succeeds"),
            ("list files", "the step's action succeeds"),
        ]
        _scripted(fake_openai, {"planner_support": {"plan": [{"description": "ask: where are the notes?"}]}})
        failed = kernel.tick("next step")  # there is no notes.txt: the tool fails, the contract revises
        assert failed.plan.replan.endswith("(revised by planner_support)")
        [goal] = all_goals(kernel.store)
        assert [(step.do, step.status) for step in goal.plan] == [
            ("read file notes.txt", "failed"),
            ("ask: where are the notes?", "todo"),
        ]
        kernel.tick("my goal is to call the bank")
        kernel.tick("my goal is to tidy the desk")
        sort, bank, _desk = (goal.id for goal in all_goals(kernel.store))
        ranking = {"priorities": [{"goal_id": sort, "priority": 0.1}, {"goal_id": bank, "priority": 0.8}]}
        _scripted(fake_openai, {"cognition_goal_prioritizer": ranking})
        kernel.tick("I finished tidying the desk")
        assert [goal.status for goal in all_goals(kernel.store)] == ["open", "active", "done"]
    assert replay(tmp_path / "a.db").ok
