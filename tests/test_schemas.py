"""Every generated schema round-trips its attrs type, and is fresh."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agi_core import model, schemagen
from agi_core.errors import ValidationError
from agi_core.schemas import schemas_dir, validate
from agi_core.serialization import from_data, to_data
from agi_core.testing import open_kernel

EXAMPLES = {
    "tick_state": model.TickState(
        input=model.Input("Hi", "hi"),
        goal=model.Goal("g1", "greet"),
        action=model.Action("response", "respond", {"text": "hello"}),
        observation=model.Observation(True, {"delivered": True}),
    ),
    "semantic_entry": model.SemanticEntry(
        "id1", "user/person/self/name", "Ada", "the user's name is Ada", [], "2025-01-01T00:00:01.000Z"
    ),
    "semantic_read": model.SemanticRead(exists=True, value=3, last_updated="2025-01-01T00:00:01.000Z"),
    "episodic_entry": model.EpisodicEntry("e1", "hello", {"kind": "input"}, "2025-01-01T00:00:01.000Z"),
    "working_memory": model.WorkingMemory(["user: hi"], model.Goal("g", "d", "done"), "user/person/self"),
    "tool_definition": model.ToolDefinition("file_read", "Read a file", {"path": "string"}, "read"),
}


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_round_trip_through_schema(name):
    data = to_data(EXAMPLES[name])
    validate(name, data)
    assert from_data(json.loads(json.dumps(data)), type(EXAMPLES[name])) == EXAMPLES[name]


def test_journal_records_of_real_ticks_validate_and_round_trip(agi_kernel):
    for text in ["2+2", "my name is Ada", "what is my name?", "/clock", "hi"]:
        record = agi_kernel.tick(text)
        data = to_data(record)
        validate("journal_record", data)
        assert from_data(json.loads(json.dumps(data)), model.JournalRecord) == record


@pytest.mark.parametrize("name,cls", sorted(schemagen.GENERATED.items()))
def test_schema_files_are_fresh(name, cls):
    on_disk = (schemas_dir() / f"{name}.json").read_text(encoding="utf-8")
    assert on_disk == schemagen.render(schemagen.generate(name, cls)), (
        f"schemas/{name}.json is stale; regenerate it with: python -m agi_core.schemagen"
    )


def test_validation_error_names_the_json_path():
    bad = to_data(EXAMPLES["working_memory"]) | {"recent_turns": [str(i) for i in range(11)]}
    with pytest.raises(ValidationError, match=r"is too long @ \$\.recent_turns") as info:
        validate("working_memory", bad)
    assert info.value.path == "$.recent_turns"


@settings(max_examples=60)
@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(max_size=20),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
        max_leaves=10,
    )
)
def test_hostile_data_never_structures_into_a_tool_definition_silently(data):
    try:
        tool = from_data(data, model.ToolDefinition)
    except ValidationError as exc:
        assert exc.path.startswith("$")
    else:
        assert isinstance(tool.name, str) and isinstance(tool.description, str)
        assert tool.effect in ("read", "write", "external")
        assert all(isinstance(k, str) and isinstance(v, str) for k, v in tool.parameters.items())


def test_working_memory_stays_bounded(tmp_path):
    with open_kernel(tmp_path / "a.db") as kernel:
        for i in range(30):
            kernel.tick(f"{i}+1")
        working = kernel.working()
    assert len(working.recent_turns) == model.RECENT_TURNS_MAX
    assert working.recent_turns[-2:] == ["user: 29+1", "agent: 29+1 = 30"]
    validate("working_memory", to_data(working))
