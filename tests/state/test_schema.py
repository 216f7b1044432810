"""schemas/rlm_state.json: valid 2020-12, fixes every seed deviation, accepts the seed's examples."""

from __future__ import annotations

import json

import pytest
import rlm_seed as RLM_SEED  # loaded by conftest.py
from jsonschema import Draft202012Validator

from agi_core.state import SCOPES, VARIABLE_TYPES, Limits

EXAMPLE_TARGETS = [
    "examples/basic_state",
    "examples/completed_state",
    "examples/file_reference_state",
    "$defs/VariableStore/examples/0",
]


def test_schema_is_valid_draft_2020_12(rlm_seed):
    schema = rlm_seed.load_schema()
    Draft202012Validator.check_schema(schema)
    assert rlm_seed.meta_errors(schema) == []
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["$id"] == "https://agi-core.dev/schemas/rlm_state.json"


def test_seed_breaks_the_meta_schema_with_its_examples_mapping(rlm_seed):
    assert rlm_seed.meta_errors(rlm_seed.load_seed()) == ["$.examples: fails 'type' 'array'"]


def test_seed_schema_rejects_its_own_basic_example(rlm_seed):
    seed = rlm_seed.load_seed()
    basic = rlm_seed.examples(seed)["examples/basic_state"]
    assert rlm_seed.errors(rlm_seed.seed_validator(seed), basic) == [
        "$.history.checkpoints[0].checkpoint_id: 'ckpt-init001' does not match '^ckpt-[a-f0-9]{8}$'",
        "$.variables.Final: None is not of type 'object'",
    ]


def test_seed_yaml_quirks_that_are_not_validation_errors(rlm_seed):
    seed = rlm_seed.load_seed()
    store = seed["$defs"]["VariableStore"]
    assert "additionalProperties" in store["properties"]  # a variable literally named so
    assert "additionalProperties" not in store
    assert None in seed["$defs"]["Variable"]["properties"]["type"]["enum"]  # YAML null, not "null"
    assert seed["properties"]["tree_id"]["nullable"] is True  # not a JSON Schema keyword
    mutation = seed["$defs"]["StateMutation"]["properties"]
    assert "rollback" not in mutation["operation"]["enum"]
    basic = seed["examples"]["basic_state"]
    assert basic["history"]["mutations"][1]["new_value"] == ["..."]
    assert len(basic["history"]["mutations"]) == 2 and basic["metadata"]["mutation_count"] == 3


@pytest.mark.parametrize("name", sorted(RLM_SEED.PROBES))
def test_probe_verdicts(rlm_seed, name):
    seed = rlm_seed.load_seed()
    probe = rlm_seed.PROBES[name]
    seed_accepts = not rlm_seed.errors(rlm_seed.seed_validator(seed), probe)
    ours_accepts = not rlm_seed.errors(rlm_seed.our_validator(), probe)
    assert (seed_accepts, ours_accepts) == rlm_seed.PROBE_VERDICTS[name]


@pytest.mark.parametrize("target", EXAMPLE_TARGETS)
def test_corrected_seed_examples_validate(rlm_seed, target):
    fixed = rlm_seed.corrected_examples(rlm_seed.load_seed())[target]
    if target.startswith("$defs/"):
        validator = rlm_seed.store_validator(rlm_seed.load_schema())
    else:
        validator = rlm_seed.our_validator()
    assert rlm_seed.errors(validator, fixed) == []


def test_corrected_basic_state_is_consistent(rlm_seed):
    basic = rlm_seed.corrected_examples(rlm_seed.load_seed())["examples/basic_state"]
    mutations = basic["history"]["mutations"]
    assert [m["variable_name"] for m in mutations] == ["prompt", "error_list", "total_errors"]
    assert basic["metadata"]["mutation_count"] == len(mutations) == 3
    assert mutations[1]["new_value"] == basic["variables"]["error_list"]["value"]
    assert basic["variables"]["Final"] is None


def test_stored_seed_copy_matches_the_shared_seed(rlm_seed):
    if not rlm_seed.SHARED_SEED.is_file():
        pytest.skip("../shared/seeds is not beside the repository; the stored copy is used")
    assert rlm_seed.SEED_COPY.read_bytes() == rlm_seed.SHARED_SEED.read_bytes(), (
        "tests/state/data/rlm-state-schema.yaml is stale; copy ../shared/seeds/rlm-state-schema.yaml over it"
    )


def test_schema_limits_types_and_scopes_match_the_service(rlm_seed):
    schema = rlm_seed.load_schema()
    defs = schema["$defs"]
    limits = Limits()
    assert defs["VariableStore"]["maxProperties"] == limits.max_variables == 1000
    assert defs["Name"]["maxLength"] == limits.max_name_length == 128
    assert defs["StateHistory"]["properties"]["mutations"]["maxItems"] == limits.max_history == 10000
    assert defs["StateHistory"]["properties"]["checkpoints"]["maxItems"] == limits.max_checkpoints == 100
    assert limits.max_inline_bytes == 10240
    assert tuple(defs["Variable"]["properties"]["type"]["enum"]) == VARIABLE_TYPES
    assert tuple(defs["VariableMetadata"]["properties"]["scope"]["enum"]) == SCOPES


def test_docs_list_every_example_correction(rlm_seed):
    doc = (rlm_seed.REPO / "docs" / "rlm-state.md").read_text(encoding="utf-8")
    patches = json.loads(rlm_seed.CORRECTIONS.read_text(encoding="utf-8"))["patches"]
    for patch in patches:
        assert f"`{patch['target']}{patch['path']}`" in doc, patch["path"]


@pytest.mark.parametrize(
    "value,ok",
    [
        ("file:variables/report.json", True),
        ("file:a/b/c.txt", True),
        ("file:../other/x", False),
        ("file:a/../../x", False),
        ("file:/etc/passwd", False),
        ("file:C:/Windows/x", False),
        ("file:a\\b", False),
        ("file:", False),
        ("variables/report.json", False),
    ],
)
def test_file_path_values_are_confined_by_the_schema(rlm_seed, value, ok):
    doc = {
        "version": "1.1.0",
        "state_id": "state-0000abcd",
        "variables": {"f": {"name": "f", "value": value, "type": "file_path"}},
    }
    assert (rlm_seed.errors(rlm_seed.our_validator(), doc) == []) is ok
