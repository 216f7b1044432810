"""The contract call: retries with errors fed back, budgets, truncation, fallback, journal, replay."""

from __future__ import annotations

import inspect
import json

import attrs
import pytest

from agi_core.contracts import (
    Budget,
    Completion,
    ContractViolation,
    Provider,
    RecordedProvider,
    ReplayExhausted,
    call_contract,
    thaw,
)
from agi_core.contracts.prompt import build_messages, estimate_tokens
from agi_core.contracts.testing import ScriptedProvider
from agi_core.errors import ReplayMismatch

OK = '{"intent": {"label": "greet", "confidence": 0.9}}'
BAD = '{"intent": {"label": "greet", "confidence": "very"}}'


@pytest.fixture
def intent(registry):
    return registry["intent_ingestion"]


def test_first_answer_ok(intent):
    provider = ScriptedProvider([Completion(OK, prompt_tokens=300, completion_tokens=20)])
    call = call_contract(intent, provider, {"text": "hello"}, budget=Budget())
    assert thaw(call.value) == {"intent": {"label": "GREET", "confidence": 0.9}}
    assert (call.attempts, call.tokens) == (1, 320)
    request = provider.requests[0]
    assert request["schema"] == dict(intent.output_schema) and request["schema"] is not intent.output_schema
    assert (request["max_tokens"], request["temperature"], request["seed"]) == (512, 0.0, None)
    system, user = request["messages"]
    assert (
        system["role"] == "system"
        and '"intent"' in system["content"]
        and "Example of a valid answer" in system["content"]
    )
    assert user == {"role": "user", "content": 'Input:\n{\n  "text": "hello"\n}'}


def test_retry_feeds_the_errors_back(intent):
    provider = ScriptedProvider([BAD, OK])
    call = call_contract(intent, provider, {"text": "hello"}, budget=Budget(attempts=2))
    assert call.attempts == 2
    retry = provider.requests[1]["messages"]
    assert retry[:2] == provider.requests[0]["messages"]
    assert retry[2] == {"role": "assistant", "content": BAD}
    assert retry[3]["content"] == (
        "Your answer does not satisfy the contract:\n- $.intent.confidence: expected "
        "number, got string\nAnswer again with the corrected JSON object only."
    )


def test_attempts_exhausted_gives_a_violation_with_the_fallback(intent):
    provider = ScriptedProvider([BAD, "no json here", BAD])
    with pytest.raises(ContractViolation) as info:
        call_contract(intent, provider, {"text": "what time is it?"}, budget=Budget(attempts=3))
    violation = info.value
    assert (violation.reason, violation.attempts, violation.contract) == ("schema", 3, "intent_ingestion")
    assert [str(e) for e in violation.errors] == ["$.intent.confidence: expected number, got string"]
    assert violation.path == "$.intent.confidence"
    assert thaw(violation.fallback)["intent"]["label"] == "QUESTION"
    assert str(violation) == (
        "contract 'intent_ingestion' violated after 3 attempt(s) (schema): "
        "$.intent.confidence: expected number, got string; a fallback result is attached"
    )


def test_fallback_can_be_turned_off(intent):
    with pytest.raises(ContractViolation) as info:
        call_contract(intent, ScriptedProvider([BAD]), {}, budget=Budget(attempts=1), fallback=False)
    assert info.value.fallback is None


def test_no_fallback_declared(registry):
    contract = registry["semantic_memory_maintenance"]
    with pytest.raises(ContractViolation) as info:
        call_contract(contract, ScriptedProvider(["{}"]), {}, budget=Budget(attempts=1))
    assert info.value.fallback is None and info.value.fallback_error is None
    assert [e.path for e in info.value.errors] == ["$.run_concepts", "$.run_summaries"]


def test_token_budget_stops_before_an_attempt_it_cannot_afford(intent):
    provider = ScriptedProvider([Completion(BAD, prompt_tokens=900, completion_tokens=100)] * 5)
    with pytest.raises(ContractViolation) as info:
        call_contract(intent, provider, {"text": "x"}, budget=Budget(attempts=5, tokens=1500))
    assert len(provider.requests) == 1
    assert info.value.reason == "budget" and info.value.attempts == 1
    assert info.value.errors[0].message == "expected number, got string"


def test_a_prompt_larger_than_the_budget_makes_no_call(intent):
    provider = ScriptedProvider([OK])
    with pytest.raises(ContractViolation) as info:
        call_contract(intent, provider, {"text": "x"}, budget=Budget(tokens=50))
    assert provider.requests == [] and info.value.attempts == 0
    assert str(info.value.errors[0]) == "$: token budget of 50 exhausted (0 spent)"


def test_truncated_answer_fails_fast_when_the_limit_cannot_grow(intent):
    prompt = estimate_tokens(build_messages(intent, {}))
    provider = ScriptedProvider([Completion('{"intent": {"label": "gre', finish_reason="length")] * 3)
    with pytest.raises(ContractViolation) as info:
        call_contract(intent, provider, {}, budget=Budget(attempts=3, tokens=2 * prompt + 520, max_tokens=512))
    assert info.value.reason == "truncated" and len(provider.requests) == 1
    assert str(info.value.errors[0]).startswith("$: the JSON object is cut off")


def test_truncated_answer_is_retried_once_with_a_larger_limit(intent):
    provider = ScriptedProvider([Completion('{"intent": {"label": "gre', finish_reason="length"), OK])
    call = call_contract(intent, provider, {}, budget=Budget(attempts=3, tokens=20000, max_tokens=100))
    assert call.attempts == 2
    assert [r["max_tokens"] for r in provider.requests] == [100, 200]
    assert provider.requests[1]["messages"][-1]["content"].startswith("Your previous answer was cut off after 100")


def test_length_finish_with_a_valid_object_is_accepted(intent):
    call = call_contract(intent, ScriptedProvider([Completion(OK, finish_reason="length")]), {}, budget=Budget())
    assert call.attempts == 1


def test_provider_failure_goes_to_the_fallback(intent):
    provider = ScriptedProvider([ConnectionError("server down")])
    with pytest.raises(ContractViolation) as info:
        call_contract(intent, provider, {"text": "hi"}, budget=Budget())
    assert info.value.reason == "provider" and info.value.attempts == 1
    assert str(info.value.errors[0]) == "$: provider failed: ConnectionError: server down"
    assert info.value.fallback is not None


def test_a_broken_fallback_is_reported_not_raised(intent, monkeypatch):
    intent._cache["fallback"] = lambda variables: {"intent": "nope"}
    try:
        with pytest.raises(
            ContractViolation,
            match=r"the fallback failed too: the fallback returned an invalid "
            r"object: \$.intent: expected object, got string",
        ):
            call_contract(intent, ScriptedProvider([BAD]), {}, budget=Budget(attempts=1))
    finally:
        del intent._cache["fallback"]


def test_journal_records_every_attempt_as_plain_json(intent):
    journal: list[dict] = []
    with pytest.raises(ContractViolation):
        call_contract(
            intent,
            ScriptedProvider([BAD, '```json\n{"intent": 3,}\n```']),
            {"text": "hi"},
            budget=Budget(attempts=2),
            journal=journal.append,
        )
    assert [(r["kind"], r.get("attempt"), r["outcome"]) for r in journal] == [
        ("contract_attempt", 1, "schema"),
        ("contract_attempt", 2, "schema"),
        ("contract_fallback", None, "ok"),
    ]
    assert journal[1]["repairs"] == ["code_fence", "trailing_commas"]
    assert journal[0]["errors"] == [
        {"path": "$.intent.confidence", "message": "expected number, got string", "code": "type"}
    ]
    assert json.loads(json.dumps(journal)) == journal


def test_replay_serves_the_recorded_answers_and_no_more(intent):
    journal: list[dict] = []
    first = call_contract(intent, ScriptedProvider([BAD, OK]), {"text": "hi"}, budget=Budget(), journal=journal.append)
    replay = RecordedProvider(journal)
    again = call_contract(intent, replay, {"text": "hi"}, budget=Budget())
    assert thaw(again.value) == thaw(first.value) and again.attempts == 2
    with pytest.raises(ReplayExhausted, match=r"asked for completion #3 but only 2 were recorded"):
        replay.complete([])


def test_replay_refuses_a_diverged_request(intent):
    journal: list[dict] = []
    call_contract(intent, ScriptedProvider([OK]), {"text": "hi"}, budget=Budget(), journal=journal.append)
    with pytest.raises(ReplayMismatch, match="replayed request #1 differs from the recorded one"):
        call_contract(intent, RecordedProvider(journal), {"text": "something else"}, budget=Budget())
    call = call_contract(intent, RecordedProvider(journal, strict=False), {"text": "else"}, budget=Budget())
    assert call.value["intent"]["label"] == "GREET"


def test_replay_of_a_provider_failure(intent):
    journal: list[dict] = []
    with pytest.raises(ContractViolation):
        call_contract(intent, ScriptedProvider([TimeoutError("slow")]), {}, budget=Budget(), journal=journal.append)
    with pytest.raises(ContractViolation) as info:
        call_contract(intent, RecordedProvider(journal), {}, budget=Budget())
    assert str(info.value.errors[0]) == "$: provider failed: RecordedProviderError: TimeoutError: slow"


def test_recorded_provider_accepts_completions_and_dicts():
    provider = RecordedProvider([Completion("a"), {"text": "b", "finish_reason": "length"}])
    assert provider.complete([]).text == "a"
    assert provider.complete([]) == Completion("b", finish_reason="length")


def test_scripted_provider_running_out_is_loud(intent):
    with pytest.raises(ReplayExhausted, match="ran out of its 1 scripted answers"):
        call_contract(intent, ScriptedProvider([BAD]), {}, budget=Budget(attempts=2))


def test_budget_validation():
    with pytest.raises(ValueError):
        Budget(attempts=0)


def test_provider_protocol_is_the_agreed_one():
    assert [f.name for f in attrs.fields(Completion)] == [
        "text",
        "tool_calls",
        "finish_reason",
        "prompt_tokens",
        "completion_tokens",
        "model",
    ]
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        Completion("x").text = "y"  # type: ignore[misc]
    expected = str(inspect.signature(Provider.complete))
    assert expected == (
        "(self, messages: 'list[dict[str, Any]]', *, schema: 'dict[str, Any] | None' = None, "
        "tools: 'list[dict[str, Any]] | None' = None, max_tokens: 'int' = 512, "
        "temperature: 'float' = 0.0, seed: 'int | None' = None) -> 'Completion'"
    )
    for double in (ScriptedProvider, RecordedProvider):
        assert str(inspect.signature(double.complete)) == expected


def test_a_tool_call_ends_the_call_when_asked_and_is_retried_otherwise(intent):
    calls = ({"id": "c1", "name": "clock", "arguments": {}},)
    journal: list[dict] = []
    provider = ScriptedProvider([Completion("", tool_calls=calls, prompt_tokens=300, completion_tokens=3)])
    call = call_contract(intent, provider, {"text": "hi"}, budget=Budget(), journal=journal.append, tool_calls_end=True)
    assert (thaw(call.value), call.tool_calls, call.attempts, call.tokens) == ({}, calls, 1, 303)
    assert [record["outcome"] for record in journal] == ["tool_call"]
    provider = ScriptedProvider([Completion("", tool_calls=calls), OK])
    call = call_contract(intent, provider, {"text": "hi"}, budget=Budget(attempts=2))
    assert (call.attempts, call.tool_calls) == (2, ())
