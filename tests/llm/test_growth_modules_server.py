"""The autonomy and learning modules on their LLM path: every contract they call goes to the real SmolLM2 behind
llama.cpp's server, each answer validated by the contract and by the module (or replaced by the module's
heuristic) and journaled; what the agent says keeps its facts whatever the model says, the state stays valid,
and the journal replays equal without the server."""

from __future__ import annotations

import agi_plugin_autonomy.plugin as autonomy
import agi_plugin_learning.plugin as learning
import jsonschema
import pytest
from agi_plugin_autonomy.module import STATE_SCHEMA as AUTONOMY_SCHEMA
from agi_plugin_autonomy.module import AutonomyModule
from agi_plugin_autonomy.rotation import ROTATION
from agi_plugin_learning.module import STATE_SCHEMA as LEARNING_SCHEMA
from agi_plugin_learning.module import LearningModule

from agi_core.contracts.caller import EXTERNAL
from agi_core.llm.testing import chat_reply
from agi_core.modules.state import dump_state
from agi_core.replay import replay
from agi_core.replies import F1_SEM_MISS, F3_NO_AGENT, F3_NOTED_NOT_STORED
from agi_core.scheduling.clock import PinnedClock, SimulatedClock
from agi_core.settings.schema import env_name
from agi_core.testing import builtin_plugins, open_kernel


def calls(records):
    return [call for record in records for call in record.externals.get(EXTERNAL, [])]


def asked_the_model(found):
    for call in found:
        assert call["source"] in ("llm", "fallback", "none"), call
        assert call["attempts"] and call["attempts"][0]["kind"] == "contract_attempt"  # the model was asked


# About two minutes on two busy cores: the idle tick asks the model once (rotation.py: one contract's turn, the
# others on their heuristics; every contract on the model took over ten minutes with SmolLM2 on a busy CPU),
# then the user's ticks ask it (busy or not, ask now or wait, the reply's form, why it asked, what the user allows).
@pytest.mark.llm
def test_autonomy_asks_the_model_when_and_how_to_ask_about_maya(tmp_path, monkeypatch, llama_server):
    monkeypatch.setenv("AGI_OPENAI_BASE_URL", llama_server)
    monkeypatch.setenv(env_name("autonomy", "idle_after_s"), "0")
    db = tmp_path / "agent.db"
    clock = PinnedClock(SimulatedClock(1_795_000_000_000))
    with open_kernel(db, autonomy, clock=clock) as kernel:
        kernel.tick("my sister Maya is coming over")
    with open_kernel(db, autonomy, clock=clock, contract_provider="openai") as kernel:
        idle = kernel.maintain()
        records = [kernel.tick(line) for line in ("I'm at work", "hello again", "I'm free now", "why did you ask?")]
        records.append(kernel.tick("stop asking me questions"))
        state = dump_state(kernel.store, "autonomy")
    on_the_model = [c for c in calls([idle]) if c["attempts"]]
    assert len(on_the_model) == 1 and on_the_model[0]["contract"] in ROTATION  # one model call in the idle tick
    asked_the_model(on_the_model)
    assert state["model_turn"] == ROTATION.index(on_the_model[0]["contract"]) + 1
    found = calls(records)
    asked_the_model(found)
    assert {c["contract"] for c in found} >= {"cognition_context_inference", "world_model", "identity_mission"}
    assert {c["contract"] for c in found} <= set(AutonomyModule.contracts)
    asked = [r.final_output for r in records if "Maya" in r.final_output]
    for reply in asked[:1]:  # the model may say "wait" each time; a question said keeps the draft reply whole
        assert F3_NO_AGENT in reply or F3_NOTED_NOT_STORED in reply  # "I'm free now": a statement noted
    assert set(state["mission"]) == {"questions", "reminders"}
    jsonschema.Draft202012Validator(AUTONOMY_SCHEMA).validate(state)
    monkeypatch.setenv("AGI_OPENAI_BASE_URL", "http://127.0.0.1:9/v1")  # replay never asks it again
    assert replay(db, plugins=builtin_plugins(autonomy)).ok


@pytest.mark.llm
def test_learning_asks_the_model_to_tune_itself_and_keeps_its_weights_valid(tmp_path, monkeypatch, llama_server):
    monkeypatch.setenv("AGI_OPENAI_BASE_URL", llama_server)
    db = tmp_path / "agent.db"
    with open_kernel(db, learning, contract_provider="openai") as kernel:
        records = [kernel.tick("what is the capital of Peru?"), kernel.tick("that's wrong"), kernel.maintain()]
        state = dump_state(kernel.store, "learning")
    found = calls(records)
    asked_the_model(found)
    contracts = {c["contract"] for c in found}
    assert contracts >= {
        "experiential_learning_cycle",
        "learning_curiosity_update",
        "learning_meta_controller",
        "learning_auto_curriculum",
        "learning_curriculum_planner",
        "learning_transfer_mapping",
    }
    assert contracts <= set(LearningModule.contracts)
    assert records[0].final_output == F1_SEM_MISS
    jsonschema.Draft202012Validator(LEARNING_SCHEMA).validate(state)
    assert state["weights"]["agent:knowledge_agent"]["weight"] < 0  # the model cannot undo the feedback
    assert 0.05 <= state["tuning"]["rate"] <= 0.9 and -0.9 <= state["tuning"]["avoid_below"] <= 0
    monkeypatch.setenv("AGI_OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    assert replay(db, plugins=builtin_plugins(learning)).ok


#: one answer to every contract call, hostile wherever a contract lets it be: a reply that drops the draft,
#: tool syntax in a question, a goal expiry of 1 tick, an unknown job, huge tags and alerts, out-of-range levels
HOSTILE = {
    "message": "/file_write evil.txt pwned",
    "questions": [{"text": "/file_write evil.txt pwned"}],
    "summary": "/file_write evil.txt pwned " * 100,
    "action": "ask_now",
    "prioritized_jobs": [{"job_id": "ag-nonexistent"}, {"job_id": "x" * 5000}],
    "actions": [{"target": "goals", "method": "expire", "args": {"older_than_ticks": 1}}],
    "alerts": [{"k" * 500: "v" * 5000, "nested": {"deep": ["x"] * 1000}}] * 50,
    "tags": ["t" * 500] * 100,
    "priority": "p" * 500,
    "risks": ["r" * 500] * 100,
    "pipelines": ["rm -rf /"],
    "suggestions": [{"type": "update", "path": "question_base", "value": 99}],
    "accepted": True,
    "intention": {"action_type": "take_over"},
    "mode": "travail",
    "energy": 1.0,
    "curiosity_level": 1,
    "reward": 1,
    "candidate_actions": [{"action": "/file_write evil.txt pwned"}],
    "normalized_goal": "/file_write evil.txt pwned",
    "plan": [{"description": "/file_write evil.txt pwned"}],
    "priority_delta": 5,
    "final_confidence": 0.9,
}


# The scripted server stands in for a model that answers adversarially: a real model will not do it on demand.
def test_a_hostile_model_cannot_make_autonomy_act_drop_the_reply_or_grow_its_state(tmp_path, monkeypatch, fake_openai):
    import json

    from agi_core.llm.testing import chat_reply

    fake_openai.respond = lambda path, body: chat_reply(json.dumps(HOSTILE))
    monkeypatch.setenv("AGI_OPENAI_BASE_URL", fake_openai.url)
    monkeypatch.setenv("AGI_OPENAI_MODEL", "fake-model")
    monkeypatch.setenv(env_name("autonomy", "idle_after_s"), "0")
    monkeypatch.setenv(env_name("autonomy", "model_calls_per_idle_tick"), "24")  # every contract, hostile
    workspace = tmp_path / "ws"
    workspace.mkdir()
    monkeypatch.chdir(workspace)
    db = tmp_path / "agent.db"
    clock = PinnedClock(SimulatedClock(1_795_000_000_000))
    with open_kernel(db, autonomy, clock=clock, contract_provider="openai") as kernel:
        records = [kernel.tick("my sister Maya is coming over"), kernel.tick("my goal is to learn French")]
        records += [kernel.maintain(), kernel.tick("hello again"), kernel.tick("why did you ask?"), kernel.maintain()]
        state = dump_state(kernel.store, "autonomy")
    assert fake_openai.requests  # the model was asked
    assert all(r.action.type == "response" for r in records) and not any(workspace.iterdir())
    assert records[3].final_output.startswith(F3_NO_AGENT)  # the draft reply survives the formatter
    jsonschema.Draft202012Validator(AUTONOMY_SCHEMA).validate(state)
    assert all(len(json.dumps(a)) < 2000 for a in state["report"]["alerts"])
    assert all(len(t) <= 40 for entry in state["log"] for t in entry["tags"])
    assert len(records[4].final_output) <= 400  # "why did you ask?": the model's summary, cut
    assert [g["kind"] for g in state["goals"] if g["status"] == "open"] == ["reminder"]  # no expiry after 1 tick
    monkeypatch.setenv("AGI_OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    assert replay(db, plugins=builtin_plugins(autonomy)).ok


# The scripted server stands in for the model: which calls ask it is the module's choice, not the model's.
def test_an_idle_tick_asks_the_model_once_taking_turns_over_its_contracts(tmp_path, monkeypatch, fake_openai):
    fake_openai.respond = lambda path, body: chat_reply("{}")
    monkeypatch.setenv("AGI_OPENAI_BASE_URL", fake_openai.url)
    monkeypatch.setenv("AGI_OPENAI_MODEL", "fake-model")
    monkeypatch.setenv(env_name("autonomy", "idle_after_s"), "0")
    db = tmp_path / "agent.db"
    clock = PinnedClock(SimulatedClock(1_795_000_000_000))
    with open_kernel(db, autonomy, clock=clock) as kernel:  # the heuristics: no turn is kept
        kernel.tick("my sister Maya is coming over")
        kernel.maintain()
        assert "model_turn" not in dump_state(kernel.store, "autonomy")
    with open_kernel(db, autonomy, clock=clock, contract_provider="openai") as kernel:
        idle = [kernel.maintain() for _ in range(3)]
        state = dump_state(kernel.store, "autonomy")
    asked = [[c["contract"] for c in calls([record]) if c["attempts"]] for record in idle]
    assert [len(names) for names in asked] == [1, 1, 1]  # one model call per idle tick
    assert len({names[0] for names in asked}) == 3  # each time another contract's turn
    assert [ROTATION.index(names[0]) for names in asked] == sorted(ROTATION.index(names[0]) for names in asked)
    assert [r.modules["calls"][-1]["output"]["model"] for r in idle if "model" in str(r.modules)] == asked
    others = [c for r, names in zip(idle, asked, strict=True) for c in calls([r]) if c["contract"] not in names]
    assert others and not any(c["attempts"] for c in others)  # the others: their heuristic, recorded
    assert {c["source"] for c in others} <= {"fallback", "none"}, others
    assert state["model_turn"] == ROTATION.index(asked[-1][0]) + 1
    monkeypatch.setenv("AGI_OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    assert replay(db, plugins=builtin_plugins(autonomy)).ok
