"""Validation: JSON paths in errors, short messages, and agreement with the reference jsonschema."""

from __future__ import annotations

import copy
import re

import jsonschema
import pytest
from contracts_support import NAMES
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agi_core.contracts import ContractViolation, Issue, Result, validate_and_normalize
from agi_core.contracts.frozen import MAX_DEPTH
from agi_core.contracts.validate import engine


def test_errors_carry_json_paths(registry):
    result = validate_and_normalize(
        registry["intent_ingestion"],
        {"intent": {"label": "", "confidence": "high"}, "entities": [{"a": 1}, "x"], "safety": {"flags": [1]}},
    )
    assert [str(e) for e in result.errors] == [
        "$.entities[1]: expected object, got string",
        "$.intent.confidence: expected number, got string",
        "$.intent.label: must not be empty",
        "$.safety.flags[0]: expected string, got integer",
    ]
    assert result.reason == "schema" and result.value is None


def test_item_level_required_path(registry):
    result = validate_and_normalize(
        registry["social_interaction_miner"],
        {"rules": [{"id": "r1", "tactic": {}, "predicates": []}, {"id": "r2", "predicates": []}]},
    )
    assert [str(e) for e in result.errors] == ["$.rules[1].tactic: required field is missing"]


def test_conditional_requirement(registry):
    contract = registry["belief_graph_orchestrator"]
    assert validate_and_normalize(contract, {"result": {"operation": "query"}}).ok
    result = validate_and_normalize(contract, {"result": {"operation": "add_event"}})
    assert [str(e) for e in result.errors] == ["$.result.event_id: required field is missing"]


def test_messages_stay_short_with_huge_values(registry):
    huge = "x" * 1_000_000
    result = validate_and_normalize(registry["retrieval_answer"], {"status": huge, huge: 1})
    assert len(result.errors) == 1
    assert len(str(result.errors[0])) < 250


def test_unwrap(registry):
    assert Result(value={"a": 1}).unwrap() == {"a": 1}
    with pytest.raises(ContractViolation, match=r"violated after 1 attempt\(s\) \(schema\): \$.x: bad") as info:
        Result(errors=(Issue("$.x", "bad"),), reason="schema").unwrap("c")
    assert info.value.path == "$.x"


def test_non_json_python_values_are_refused_with_paths(registry):
    result = validate_and_normalize(
        registry["intent_ingestion"], {"intent": {"label": "a", "confidence": 0.5}, "entities": [{1: "x", "s": {1, 2}}]}
    )
    assert [str(e) for e in result.errors] == [
        "$.entities[0]: object key '1' is not a string",
        "$.entities[0].s: set is not a JSON value",
    ]


def test_too_deep_values_are_refused(registry):
    deep: dict = {}
    node = deep
    for _ in range(MAX_DEPTH + 5):
        node["n"] = {}
        node = node["n"]
    result = validate_and_normalize(registry["memory_long_term_digest"], deep)
    assert result.errors[0].code == "too_deep"
    assert result.errors[0].path == "$" + ".n" * MAX_DEPTH


def test_validators_are_compiled_once_per_contract(registry):
    contract = registry["scheduler"]
    assert engine(contract) is engine(contract)


# -- the fast validator agrees with the reference implementation -------------------------------


def _reference(contract):
    return jsonschema.Draft202012Validator(dict(contract.output_schema))


def _paths(errors) -> set[str]:
    return {re.sub(r"\[\d+\]", "[*]", e) for e in errors}


def _mutations(example: dict):
    """Each top-level field removed, and replaced by values of other types."""
    yield example
    for key in example:
        for replacement in (None, "text", 3, 0.5, True, [], {}, [1, "a"], {"k": "v"}):
            yield {**example, key: replacement}
        yield {k: v for k, v in example.items() if k != key}


@pytest.mark.parametrize("name", NAMES)
def test_jsonschema_rs_agrees_with_jsonschema(registry, name):
    contract = registry[name]
    fast, reference = engine(contract).validator, _reference(contract)
    for sample in _mutations(copy.deepcopy(dict(contract.prompt.example))):
        assert fast.is_valid(sample) == reference.is_valid(sample), sample
        fast_paths = {"/".join(map(str, e.instance_path)) for e in fast.iter_errors(sample)}
        reference_paths = {"/".join(map(str, e.absolute_path)) for e in reference.iter_errors(sample)}
        assert fast_paths == reference_paths, sample


JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**6), 10**6)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
@pytest.mark.parametrize("name", NAMES)
def test_agreement_on_generated_values(registry, name, data):
    contract = registry[name]
    example = dict(contract.prompt.example)
    keys = sorted(set(example) | set(contract.output_schema.get("properties", {})))
    sample = {
        **example,
        **data.draw(st.dictionaries(st.sampled_from(keys) if keys else st.text(max_size=4), JSON, max_size=3)),
    }
    assert engine(contract).validator.is_valid(sample) == _reference(contract).is_valid(sample)
