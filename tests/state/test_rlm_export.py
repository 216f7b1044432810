"""Exports validate against schemas/rlm_state.json and are deterministic."""

from __future__ import annotations

import json
import sqlite3

import pytest

from agi_core.determinism import Determinism
from agi_core.errors import ValidationError
from agi_core.state import FORMAT_VERSION, StateService, migrate, validate_document


def _busy_state(svc, root):
    tree = svc.new_tree_id()
    parent = svc.create_state("Find all TypeScript errors", session_id="sess-1", tree_id=tree).state_id
    (root / parent / "variables").mkdir(parents=True)
    (root / parent / "variables" / "fixes.json").write_text("[]")
    svc.set(parent, "summary", "two errors", description="short summary", source="computation")
    svc.set(parent, "total_errors", 2)
    svc.set(parent, "strict", True)
    svc.set(parent, "nothing", None)
    svc.set(parent, "error_list", {"src/auth.ts": [42]})
    svc.set(parent, "lines", [42, 15])
    svc.set(parent, "fixes", "file:variables/fixes.json", type="file_path")
    svc.set(parent, "notes", "long notes", type="file_content")
    svc.set(parent, "big", "b" * 12000)
    svc.set(parent, "cache", 1, scope="temporary", ttl_seconds=600)
    svc.set(parent, "tree_note", "shared", scope="tree")
    svc.set(parent, "setting", "on", scope="global")
    svc.rename(parent, "summary", "doc_summary")
    svc.delete(parent, "nothing")
    ckpt = svc.checkpoint(parent, "before_child")
    child = svc.spawn_child(parent, "Fix auth", inputs={"lines": "lines"}, result_name="child_report")
    svc.set(child.state_id, "Final", "fixed")
    svc.rollback(parent, ckpt.checkpoint_id)
    return parent, child.state_id


def test_export_of_a_busy_state_validates(svc, root, rlm_seed):
    parent, child = _busy_state(svc, root)
    for sid in (parent, child):
        for shared in (False, True):
            doc = svc.export(sid, include_shared=shared)
            assert rlm_seed.errors(rlm_seed.our_validator(), doc) == []
    doc = svc.export(parent)
    assert doc["version"] == FORMAT_VERSION == "1.1.0"
    assert sorted(doc["variables"]) == [
        "Final",
        "big",
        "cache",
        "doc_summary",
        "error_list",
        "fixes",
        "lines",
        "notes",
        "prompt",
        "strict",
        "total_errors",
    ]
    assert {n: v["type"] for n, v in doc["variables"].items()} == {
        "Final": "null",
        "big": "text",
        "cache": "number",
        "doc_summary": "text",
        "error_list": "json",
        "fixes": "file_path",
        "lines": "array",
        "notes": "file_content",
        "prompt": "text",
        "strict": "boolean",
        "total_errors": "number",
    }
    assert doc["variables"]["big"]["value"] == "b" * 12000
    assert doc["variables"]["notes"]["value"] == "long notes"
    assert [m["operation"] for m in doc["history"]["mutations"]][-3:] == ["delete", "create", "rollback"]
    assert doc["metadata"] == {
        "created_at": svc.state(parent).created_at,
        "last_updated_at": svc.state(parent).last_updated_at,
        "variable_count": 11,
        "mutation_count": 17,
        "checkpoint_count": 2,
        "total_size_bytes": sum(v["metadata"]["size_bytes"] for v in doc["variables"].values()),
        # the seed's ExecutionConfig, filled: the ids and timestamps derive from the seed
        "execution_config": {"seed": svc.determinism.seed, "execution_mode": "seeded"},
        "completion_status": "incomplete",
    }
    shared = svc.export(parent, include_shared=True)["variables"]
    assert (shared["tree_note"]["metadata"]["scope"], shared["setting"]["metadata"]["scope"]) == ("tree", "global")
    child_doc = svc.export(child)
    assert (child_doc["parent_state_id"], child_doc["result_name"]) == (parent, "child_report")
    assert child_doc["metadata"]["completion_status"] == "complete"


def test_export_is_deterministic(tmp_path):
    texts = []
    for run in ("one", "two"):
        conn = sqlite3.connect(tmp_path / f"{run}.db")
        migrate(conn)
        svc = StateService(conn, Determinism("export"), tmp_path / run)
        parent, _ = _busy_state(svc, tmp_path / run)
        texts.append(json.dumps(svc.export(parent, include_shared=True), sort_keys=True))
        conn.close()
    assert texts[0] == texts[1]


def test_validate_document_names_the_path():
    doc = {
        "version": "1.1.0",
        "state_id": "state-0000abcd",
        "variables": {"n": {"name": "n", "value": "x", "type": "number"}},
    }
    with pytest.raises(ValidationError) as info:
        validate_document(doc)
    assert info.value.path == "$.variables.n.value"
    assert str(info.value) == "invalid RLM state document: 'x' is not of type 'number' @ $.variables.n.value"
