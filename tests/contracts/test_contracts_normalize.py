"""Normalization rules: each operation alone, and as the real contracts use them."""

from __future__ import annotations

import json

import pytest

from agi_core.contracts import contract_from_dict, thaw, validate_and_normalize
from agi_core.contracts.frozen import is_frozen


def make(properties: dict, rules: list[dict], example: dict, required: tuple[str, ...] = ()):
    return contract_from_dict(
        {
            "name": "synthetic",
            "family": "test",
            "owner_module": "tests",
            "description": "a test contract",
            "output_schema": {"type": "object", "properties": properties, "required": list(required)},
            "normalize": rules,
            "prompt": {"goal": "g", "instructions": [], "example": example},
        }
    )


def normalized(contract, raw) -> dict:
    result = validate_and_normalize(contract, raw)
    assert result.ok, result.errors
    return thaw(result.value)


@pytest.mark.parametrize(
    "raw,expected", [(1.7, 1.0), (-0.2, 0.0), (0.25, 0.25), ("0.8", 0.8), ("85%", 0.85), (" 1e3 ", 1.0)]
)
def test_clamp_numbers_and_numeric_strings(raw, expected):
    contract = make(
        {"c": {"type": "number", "minimum": 0, "maximum": 1}},
        [{"op": "clamp", "path": "$.c", "min": 0, "max": 1}],
        {"c": 0.5},
    )
    assert normalized(contract, {"c": raw}) == {"c": expected}


@pytest.mark.parametrize("raw", [True, "high", None, "nan", "inf"])
def test_clamp_leaves_non_numbers_to_the_validator(raw):
    contract = make({"c": {"type": "number"}}, [{"op": "clamp", "path": "$.c", "min": 0, "max": 1}], {"c": 0.5})
    result = validate_and_normalize(contract, {"c": raw})
    assert not result.ok and result.errors[0].path == "$.c"


def test_string_operations_and_rounding():
    contract = make(
        {},
        [
            {"op": "strip", "path": "$.a"},
            {"op": "upper", "path": "$.a"},
            {"op": "lower", "path": "$.b[*]"},
            {"op": "round", "path": "$.n", "digits": 3},
        ],
        {},
    )
    assert normalized(contract, {"a": "  ask_time ", "b": ["X", 3, "Yy"], "n": 0.123456}) == {
        "a": "ASK_TIME",
        "b": ["x", 3, "yy"],
        "n": 0.123,
    }


def test_alias_renames_and_the_canonical_key_wins():
    contract = make(
        {"items": {"type": "array", "items": {"type": "object", "required": ["score"]}}},
        [{"op": "alias", "path": "$.items[*]", "from": ["adjusted_score"], "to": "score"}],
        {"items": []},
    )
    out = normalized(contract, {"items": [{"adjusted_score": 0.4}, {"score": 0.9, "adjusted_score": 0.1}]})
    assert out == {"items": [{"score": 0.4}, {"score": 0.9}]}


def test_default_id_by_index_and_by_content_hash_is_deterministic():
    contract = make(
        {},
        [
            {"op": "default_id", "path": "$.steps[*]", "field": "id", "template": "step_{index}"},
            {"op": "default_id", "path": "$", "field": "plan_id", "template": "plan-{hash}"},
        ],
        {},
    )
    first = normalized(contract, {"steps": [{"d": "a"}, {"d": "b", "id": "keep"}, {"d": "c", "id": ""}]})
    assert [s["id"] for s in first["steps"]] == ["step_1", "keep", "step_3"]
    assert first["plan_id"].startswith("plan-") and len(first["plan_id"]) == 17
    again = normalized(contract, {"steps": [{"d": "a"}, {"d": "b", "id": "keep"}, {"d": "c", "id": ""}]})
    assert again["plan_id"] == first["plan_id"]
    other = normalized(contract, {"steps": [{"d": "z"}]})
    assert other["plan_id"] != first["plan_id"]
    assert normalized(contract, {"plan_id": "given"})["plan_id"] == "given"


def test_list_operations():
    contract = make(
        {},
        [
            {"op": "drop_empty", "path": "$.a"},
            {"op": "dedupe", "path": "$.a"},
            {"op": "sort", "path": "$.a"},
            {"op": "cap", "path": "$.a", "max": 3},
            {"op": "wrap", "path": "$.b", "key": "text"},
            {"op": "sort", "path": "$.c"},
        ],
        {},
    )
    out = normalized(
        contract,
        {"a": ["d", "", "b", None, "d", "  ", "a", {}, "c", []], "b": ["why?", {"text": "how?"}], "c": ["b", 1, "a"]},
    )
    assert out == {"a": ["a", "b", "c"], "b": [{"text": "why?"}, {"text": "how?"}], "c": ["b", 1, "a"]}


def test_mapping_values_path():
    contract = make(
        {"d": {"type": "object", "additionalProperties": {"type": "number", "minimum": 0, "maximum": 1}}},
        [{"op": "clamp", "path": "$.d.*", "min": 0, "max": 1}],
        {},
    )
    assert normalized(contract, {"d": {"curiosity": 3, "rest": -1, "x": 0.5}}) == {
        "d": {"curiosity": 1.0, "rest": 0.0, "x": 0.5}
    }


def test_results_are_deeply_immutable(registry):
    contract = registry["intent_ingestion"]
    value = validate_and_normalize(contract, json.dumps(dict(contract.prompt.example))).value
    assert is_frozen(value)
    with pytest.raises(TypeError):
        value["intent"] = {}  # type: ignore[index]
    with pytest.raises(TypeError):
        value["entities"][0]["type"] = "x"  # type: ignore[index]
    with pytest.raises(AttributeError):
        value["follow_up_questions"].append("x")  # type: ignore[union-attr]


def test_dict_input_is_copied_not_changed(registry):
    raw = {"intent": {"label": " greet ", "confidence": 3}}
    validate_and_normalize(registry["intent_ingestion"], raw)
    assert raw == {"intent": {"label": " greet ", "confidence": 3}}


# -- the real contracts ------------------------------------------------------------------------


def test_intent_label_upper_and_confidence_clamped(registry):
    out = normalized(registry["intent_ingestion"], '{"intent": {"label": " ask_time ", "confidence": 1.4}}')
    assert out == {"intent": {"label": "ASK_TIME", "confidence": 1.0}}


def test_intent_follow_ups_capped_and_flags_ordered(registry):
    out = normalized(
        registry["intent_ingestion"],
        {
            "intent": {"label": "Q", "confidence": 0.5},
            "follow_up_questions": [f"q{i}" for i in range(15)],
            "safety": {"flags": ["pii", " abuse ", "pii"]},
        },
    )
    assert out["follow_up_questions"] == [f"q{i}" for i in range(10)]
    assert out["safety"]["flags"] == ["abuse", "pii"]


def test_ranking_alias_adjusted_score_to_score(registry):
    out = normalized(
        registry["memory_retrieval_ranking"], {"rankings": [{"id": 3, "adjusted_score": 0.7, "reason": "close match"}]}
    )
    assert out == {"rankings": [{"id": 3, "score": 0.7, "rationale": "close match"}]}


def test_episodic_aliases_from_to_type_lien(registry):
    out = normalized(
        registry["episodic_linker"], {"links": [{"from": "m0", "to": "m1", "type_lien": "cause", "confidence": "0.6"}]}
    )
    assert out == {"links": [{"src": "m0", "dst": "m1", "relation": "cause", "confidence": 0.6}]}


def test_planner_step_ids_and_clamped_priorities(registry):
    out = normalized(
        registry["planner_support"],
        {
            "plan": [
                {"description": " search ", "priority": 2, "depends_on": [" a ", "", "a"]},
                {"description": "ask", "id": "s9"},
            ]
        },
    )
    assert out["plan"] == [
        {"description": "search", "priority": 1.0, "depends_on": ["a"], "id": "llm_step_1"},
        {"description": "ask", "id": "s9"},
    ]


def test_reasoning_confidence_alias_and_wrapped_questions(registry):
    out = normalized(
        registry["reasoning_episode"],
        {"summary": "s", "confidence": 1.3, "hypothesis": {}, "questions": ["why?"], "tests": ["run it"]},
    )
    assert out == {
        "summary": "s",
        "final_confidence": 1.0,
        "hypothesis": {},
        "questions": [{"text": "why?"}],
        "tests": [{"description": "run it"}],
    }


def test_action_scores_clamped_then_rounded(registry):
    out = normalized(
        registry["action_interface"],
        {"actions": [{"name": "a", "type": "t", "impact": 0.123456, "effort": 7, "risk": "-1"}]},
    )
    assert out["actions"][0] == {"name": "a", "type": "t", "impact": 0.123, "effort": 1.0, "risk": 0.0}


def test_enum_matched_after_trim_and_lower(registry):
    assert normalized(registry["retrieval_answer"], {"status": " OK "})["status"] == "ok"
    result = validate_and_normalize(registry["retrieval_answer"], {"status": "maybe"})
    assert str(result.errors[0]) == '$.status: must be one of "ok", "refused", "error", got "maybe"'


def test_retrieval_plan_id_from_content_hash(registry):
    one = normalized(registry["retrieval_orchestrator"], {"expansions": ["a"]})
    two = normalized(registry["retrieval_orchestrator"], {"expansions": ["a"]})
    assert one["plan_id"] == two["plan_id"] and one["plan_id"].startswith("plan-")


def test_homeostasis_drive_targets_clamped(registry):
    out = normalized(registry["homeostasis"], {"drive_targets": {"rest": 4}, "notes": [" tired ", ""]})
    assert out == {"drive_targets": {"rest": 1.0}, "advisories": ["tired"]}


def test_goal_priority_needs_priority_or_delta(registry):
    contract = registry["goal_priority_review"]
    assert normalized(contract, {"priority_delta": -0.1}) == {"priority_delta": -0.1}
    result = validate_and_normalize(contract, {"confidence": 0.5})
    assert [str(e) for e in result.errors] == ["$: one of priority, priority_delta is required"]
