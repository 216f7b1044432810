"""Cheap repairs of a model's text, and truncation detected as such."""

from __future__ import annotations

import json

import pytest

from agi_core.contracts import thaw, validate_and_normalize
from agi_core.contracts.repair import MAX_TEXT_CHARS, parse_output

GOOD = '{"intent": {"label": "greet", "confidence": 0.9}}'
EXPECTED = {"intent": {"label": "GREET", "confidence": 0.9}}


@pytest.mark.parametrize(
    "text,repairs",
    [
        (GOOD, ()),
        (f"```json\n{GOOD}\n```", ("code_fence",)),
        (f"  \n```\n{GOOD}```\n", ("whitespace", "code_fence")),
        (f"Sure! Here is the JSON you asked for: {GOOD}", ("leading_prose",)),
        (f"{GOOD}\nI hope this helps!", ("trailing_prose",)),
        ('{"intent": {"label": "greet", "confidence": 0.9,},}', ("trailing_commas",)),
        (
            "{\u201cintent\u201d: {\u201clabel\u201d: \u201cgreet\u201d, \u201cconfidence\u201d: 0.9}}",
            ("smart_quotes",),
        ),
        (
            'Answer: {note} then {"intent": {"label": "greet", "confidence": 0.9,}}',
            ("leading_prose", "trailing_commas"),
        ),
    ],
)
def test_repairs(registry, text, repairs):
    result = validate_and_normalize(registry["intent_ingestion"], text)
    assert result.ok, result.errors
    assert thaw(result.value) == EXPECTED
    assert result.repairs == repairs


def test_smart_quotes_inside_a_value_are_kept(registry):
    text = '{"intent": {"label": "greet", "confidence": 0.9, "rationale": "il a dit \u201coui\u201d"}}'
    result = validate_and_normalize(registry["intent_ingestion"], text)
    assert result.value["intent"]["rationale"] == "il a dit \u201coui\u201d"
    assert result.repairs == ()


@pytest.mark.parametrize(
    "text",
    [
        '{"intent": {"label": "greet", "confidence": 0.9',
        '{"intent": {"label": "gre',
        'Here it is: ```json\n{"intent": {"label": "greet", "confidence"',
        '{"intent": {"label": "a}b", "confidence": 0.9}',
    ],
)
def test_truncated_output_is_reported_as_truncated(registry, text):
    result = validate_and_normalize(registry["intent_ingestion"], text)
    assert result.reason == "truncated"
    assert result.errors[0].code == "truncated" and result.errors[0].path == "$"


@pytest.mark.parametrize(
    "text,message",
    [
        ("I cannot help with that.", "no JSON object found in the output"),
        ("", "no JSON object found in the output"),
        ('{"a": tru}', "not valid JSON at line 1 column 7: Expecting value"),
        ("[" * 5000 + "]" * 5000, "no JSON object found in the output"),
        ('{"a": ' + "[" * 5000 + "]" * 5000 + "}", "the JSON nests too deeply to parse"),
        (
            '{"a": ' + "9" * 5000 + "}",
            "not usable JSON: Exceeds the limit (4300 digits) for integer string conversion: "
            "value has 5000 digits; use sys.set_int_max_str_digits() to increase the limit",
        ),
    ],
)
def test_unparseable_output(registry, text, message):
    result = validate_and_normalize(registry["intent_ingestion"], text)
    assert result.reason == "parse"
    assert result.errors[0].message == message[: len(result.errors[0].message)]
    assert result.errors[0].message.startswith(message[:40])


def test_too_large_is_refused_unread():
    parsed = parse_output("{" + " " * MAX_TEXT_CHARS + "}")
    assert parsed.reason == "too_large" and parsed.value is None


def test_nan_and_infinity_tokens_are_refused_with_their_path(registry):
    result = validate_and_normalize(registry["intent_ingestion"], '{"intent": {"label": "a", "confidence": NaN}}')
    assert [str(e) for e in result.errors] == ["$.intent.confidence: number must be finite, got nan"]
    result = validate_and_normalize(
        registry["intent_ingestion"], '{"intent": {"label": "a", "confidence": 1}, "entities": [{"x": -Infinity}]}'
    )
    assert [str(e) for e in result.errors] == ["$.entities[0].x: number must be finite, got -inf"]


def test_bytes_are_decoded(registry):
    assert validate_and_normalize(registry["intent_ingestion"], GOOD.encode()).ok


@pytest.mark.parametrize(
    "text,expected",
    [
        ('{"a": 1}', {"a": 1}),
        ('{"a": 1, "a": 2}', {"a": 2}),
        ('{"a": 123456789012345678901234567890}', {"a": 123456789012345678901234567890}),
        ('{"a": -9223372036854775809}', {"a": -9223372036854775809}),
        ('{"a": 1e20}', {"a": 1e20}),
        ('{"a": -0}', {"a": 0}),
        ('{"a": 1.0}', {"a": 1.0}),
        ('{"é": "ü"}', {"é": "ü"}),
        ('\ufeff{"a": 1}', {"a": 1}),
        ('{"a": 1} x', {"a": 1}),
        ('{"a": NaN}', "non_finite"),
        ('{"a": 1e400}', "non_finite"),
        ('{"a": "\\ud800"}', "encoding"),
        ('{"a": ' + "[" * 1100 + "]" * 1100 + "}", "parse"),
    ],
)
def test_results_follow_json_semantics_exactly(registry, text, expected):
    """orjson parses first; whatever it would parse differently is redone through json."""
    result = validate_and_normalize(registry["memory_long_term_digest"], text)
    if isinstance(expected, str):
        assert result.errors[0].code == expected
    else:
        assert thaw(result.value) == expected
        assert [type(v) for v in result.value.values()] == [type(v) for v in expected.values()]


@pytest.mark.parametrize("name", ["intent_ingestion", "planner_support", "memory_retrieval_ranking"])
def test_the_json_only_path_gives_the_same_results(registry, name, monkeypatch):
    """Without orjson every text takes the exact path; results and errors are the same."""
    from agi_core.contracts import validate

    contract = registry[name]
    texts = [
        json.dumps(dict(contract.prompt.example)),
        "```json\n{}\n```",
        '{"x": NaN}',
        '{"a": 1',
        json.dumps({**dict(contract.prompt.example), "extra": 10**30}),
    ]
    fast = [validate_and_normalize(contract, text) for text in texts]
    monkeypatch.setattr(validate, "_fast_loads", None)
    exact = [validate_and_normalize(contract, text) for text in texts]
    assert [(r.errors, r.reason, r.repairs) for r in exact] == [(r.errors, r.reason, r.repairs) for r in fast]
    assert [thaw(r.value) for r in exact] == [thaw(r.value) for r in fast]
    assert fast[0].ok and fast[4].ok and type(fast[4].value["extra"]) is int
