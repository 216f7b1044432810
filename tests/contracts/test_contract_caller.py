"""The contract caller kernel code uses: heuristics without a provider, the model with one,
and the outcome recorded so replay serves it back."""

from __future__ import annotations

import pytest

from agi_core.contracts import UnknownContract
from agi_core.contracts.caller import EXTERNAL, ContractCaller, ContractOutcome
from agi_core.contracts.testing import ScriptedProvider
from agi_core.errors import ConfigError, ReplayMismatch
from agi_core.externals import Externals
from agi_core.kernel import Kernel

GOAL = {"goal": "plan a trip to Lyon"}
PLAN = '{"plan": [{"id": "s1", "description": "Book the train", "action_type": "act"}]}'


def test_without_a_provider_the_heuristic_answers_and_the_outcome_is_recorded(registry):
    externals = Externals()
    outcome = ContractCaller(registry, externals).call("planner_support", GOAL)
    assert outcome.source == "fallback"
    assert outcome.value == {
        "plan": [
            {
                "id": "llm_step_1",
                "description": "Ask the user to clarify the goal: plan a trip to Lyon",
                "action_type": "ask",
            }
        ]
    }
    assert externals.log[EXTERNAL] == [outcome.to_dict()]


def test_replay_serves_the_recorded_outcome_without_calling_anything(registry):
    recorded = ContractOutcome("planner_support", {"plan": []}, "llm").to_dict()
    provider = ScriptedProvider([])  # a fake: it raises if asked anything
    caller = ContractCaller(registry, Externals({EXTERNAL: [recorded]}), lambda: provider)
    assert caller.call("planner_support", GOAL).value == {"plan": []}
    assert provider.requests == []


def test_replay_of_another_contract_is_a_mismatch(registry):
    recorded = ContractOutcome("goal_interpreter", {"candidate_actions": []}, "fallback").to_dict()
    with pytest.raises(ReplayMismatch, match="recorded 'goal_interpreter'"):
        ContractCaller(registry, Externals({EXTERNAL: [recorded]})).call("planner_support", GOAL)


def test_a_valid_model_output_is_the_value(registry):
    provider = ScriptedProvider([PLAN])  # a fake for the exact text; the real server is in tests/llm
    outcome = ContractCaller(registry, Externals(), lambda: provider).call("planner_support", GOAL)
    assert (outcome.source, outcome.value["plan"][0]["description"]) == ("llm", "Book the train")
    assert [a["outcome"] for a in outcome.attempts] == ["ok"]


def test_model_false_gets_the_heuristic_with_a_provider_configured_and_records_it(registry):
    provider = ScriptedProvider([])  # a fake: it raises if asked anything
    externals = Externals()
    outcome = ContractCaller(registry, externals, lambda: provider).call("planner_support", GOAL, model=False)
    assert (outcome.source, outcome.attempts) == ("fallback", [])
    assert outcome.value["plan"][0]["action_type"] == "ask"
    assert provider.requests == [] and externals.log[EXTERNAL] == [outcome.to_dict()]


def test_refused_model_output_falls_back_with_the_errors(registry):
    provider = ScriptedProvider(["not json", "still not json"])  # a fake: garbage is hard to get on demand
    outcome = ContractCaller(registry, Externals(), lambda: provider).call("planner_support", GOAL)
    assert outcome.source == "fallback"
    assert outcome.value["plan"][0]["action_type"] == "ask"
    assert [a["kind"] for a in outcome.attempts] == ["contract_attempt", "contract_attempt", "contract_fallback"]
    assert outcome.errors


def test_a_contract_without_fallback_and_no_provider_gives_none(registry):
    name = next(n for n in registry if not registry[n].fallback)
    outcome = ContractCaller(registry, Externals()).call(name, {})
    assert (outcome.source, outcome.value) == ("none", None)
    assert "has no fallback" in outcome.errors[0]


def test_an_unknown_contract_is_refused_in_one_line(registry):
    with pytest.raises(UnknownContract, match="no contract named 'nope'"):
        ContractCaller(registry, Externals()).call("nope", {})


def test_the_kernel_names_an_unknown_contract_provider(tmp_path):
    with Kernel.open(tmp_path / "a.db", contract_provider="nope") as kernel:
        with pytest.raises(ConfigError, match="no LLM provider named 'nope' for contract calls"):
            kernel.contract_caller(Externals())


def test_the_kernel_caller_uses_heuristics_by_default(tmp_path):
    with Kernel.open(tmp_path / "a.db") as kernel:
        assert kernel.contract_caller(Externals()).call("planner_support", GOAL).source == "fallback"
