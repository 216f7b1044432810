"""The contract caller kernel code uses: heuristics without a provider, the model with one,
and the outcome recorded so replay serves it back."""

from __future__ import annotations

import copy
import math

import pytest
from contracts_support import echo_contract
from hypothesis import given, settings
from hypothesis import strategies as st

from agi_core.contracts import ContractRegistry, UnknownContract, validate_and_normalize
from agi_core.contracts.caller import EXTERNAL, ContractCaller, ContractOutcome
from agi_core.contracts.frozen import plain_copy
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


def _echo() -> ContractRegistry:
    registry = ContractRegistry()
    registry.add(echo_contract())
    return registry


def _deep(depth: int) -> object:
    value: object = "bottom"
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize(
    "output",
    [
        {"items": []},  # the schema requires a summary
        {"summary": 3, "items": []},
        {"summary": "s", "items": [math.nan]},
        {"summary": "s", "items": [], "extra": -math.inf},
        {"summary": "s", "items": [{"x": math.nan}]},
        {"summary": "s", "items": [{1, 2}]},
        {"summary": "\ud800", "items": []},
        {"summary": "s", "items": [{1: "a key that is not a string"}]},
        {"summary": "s", "items": [], "\udfff": "a key that is not valid Unicode"},
        {"summary": "s", "items": ["x\ud800"]},
        {"summary": "s", "items": _deep(100)},
        "not json",
    ],
    ids=[
        "missing",
        "type",
        "nan_item",
        "inf_value",
        "nan_value",
        "set",
        "surrogate",
        "int_key",
        "surrogate_key",
        "surrogate_item",
        "too_deep",
        "text",
    ],
)
def test_a_heuristic_output_that_is_refused_gives_none_with_the_reasons_and_is_recorded(output):
    externals = Externals()
    outcome = ContractCaller(_echo(), externals).call("echo", {"output": output})
    reasons = validate_and_normalize(echo_contract(), output).errors  # the reference: a model's output checked
    assert reasons
    assert (outcome.source, outcome.value) == ("none", None)
    assert outcome.errors == [f"fallback output refused: {reason}" for reason in reasons]
    assert externals.log[EXTERNAL] == [outcome.to_dict()]


def test_a_heuristic_output_is_normalized_checked_and_recorded_as_plain_data():
    externals = Externals()
    output = {"summary": "s", "items": ({"what": "call"}, 2.5, True, None, 2**70)}
    outcome = ContractCaller(_echo(), externals).call("echo", {"output": output})
    expected = {"summary": "s", "items": [{"what": "call"}, 2.5, True, None, 2**70]}
    assert (outcome.source, outcome.value, outcome.errors) == ("fallback", expected, [])
    assert externals.log[EXTERNAL] == [outcome.to_dict()]
    assert type(externals.log[EXTERNAL][0]["value"]["items"]) is list  # plain, as the journal writes it


def test_the_callers_copy_is_its_own_and_the_journal_keeps_what_was_recorded(registry):
    output = {"summary": "s", "items": [{"what": "call"}]}
    externals = Externals()
    outcome = ContractCaller(_echo(), externals).call("echo", {"output": output})
    kept = copy.deepcopy(externals.log[EXTERNAL])
    outcome.value["items"][0]["what"] = "changed by the caller"
    outcome.value["summary"] = "changed too"
    output["items"][0]["what"] = "changed in the heuristic's input, which it returned"
    assert externals.log[EXTERNAL] == kept

    recorded = copy.deepcopy(kept)
    served = ContractCaller(_echo(), Externals({EXTERNAL: recorded})).call("echo", {"output": output})
    served.value["items"].append("changed by the replayed caller")
    assert recorded == kept

    provider = ScriptedProvider(["not json", "still not json"])  # a fake: garbage is hard to get on demand
    externals = Externals()
    outcome = ContractCaller(registry, externals, lambda: provider).call("planner_support", GOAL)
    kept = copy.deepcopy(externals.log[EXTERNAL])
    outcome.value["plan"].clear()
    outcome.attempts[0]["errors"].append("changed by the caller")
    assert externals.log[EXTERNAL] == kept


JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(2**64, 2**80)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20).filter(lambda text: not any("\ud800" <= c <= "\udfff" for c in text)),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)


def _same(a: object, b: object) -> bool:
    """Equal with the same types all the way down, floats bit for bit (-0.0 is not 0.0)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return a.hex() == b.hex() if isinstance(a, float) else a == b


def _containers(value: object) -> list[int]:
    if isinstance(value, dict):
        return [id(value), *(i for item in value.values() for i in _containers(item))]
    if isinstance(value, list):
        return [id(value), *(i for item in value for i in _containers(item))]
    return []


@settings(max_examples=300, deadline=None, derandomize=True)
@given(JSON)
def test_the_callers_copy_is_exact_and_shares_no_container(value):
    copied = plain_copy(value)
    assert _same(copied, value)
    assert not set(_containers(copied)) & set(_containers(value))


def test_a_provider_found_unreachable_is_said_once_and_not_asked_again_in_the_tick(tmp_path, monkeypatch, capsys):
    """A real connection refused (nothing listens on the port): the tick's first call asks the server (and
    the openai client's retries), the tick's later calls go to their heuristics at once, saying why; one
    warning line for the whole run; the next tick asks again; the journal replays equal."""
    import agi_plugin_social.plugin as social

    from agi_core.llm import OpenAIProvider
    from agi_core.llm.testing import free_port
    from agi_core.replay import replay
    from agi_core.testing import builtin_plugins, open_kernel

    url = f"http://127.0.0.1:{free_port()}/v1"
    monkeypatch.setenv("AGI_OPENAI_BASE_URL", url)
    OpenAIProvider.forget_negotiated()
    with open_kernel(tmp_path / "agent.db", social, contract_provider="openai") as kernel:
        records = [kernel.tick("hello, I'm Sam"), kernel.tick("my sister Maya lives in Lyon")]
    for record in records:
        first, *later = record.externals[EXTERNAL]
        assert len(later) >= 2  # social asks several contracts a tick
        assert [(a["kind"], a["outcome"]) for a in first["attempts"]] == [
            ("contract_attempt", "provider"),
            ("contract_fallback", "ok"),
        ]
        assert first["source"] == "fallback" and first["value"] is not None
        assert first["errors"] == [
            f"$: provider failed: ProviderError: cannot reach the OpenAI-compatible server at {url} ([Errno 111] "
            "Connection refused); start the server (scripts/llama_server.sh runs a local one) or set "
            "AGI_OPENAI_BASE_URL to its URL"
        ]
        for call in later:
            assert call["attempts"] == [] and call["source"] == "fallback" and call["value"] is not None
            assert call["errors"] == [first["errors"][0].replace("$: provider failed:", "model not asked:")]
    assert capsys.readouterr().err == (
        "agi: warning: plugin 'contracts' failed in contract provider 'openai': "
        f"{first['errors'][0].removeprefix('$: provider failed: ')}; "
        "the contracts' heuristics answer for the rest of the tick\n"
    )
    assert replay(tmp_path / "agent.db", plugins=builtin_plugins(social)).ok
