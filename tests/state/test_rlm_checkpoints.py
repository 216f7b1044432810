"""Checkpoints, exact rollback, the checkpoint limit and mutation-log pruning."""

from __future__ import annotations

import json

import pytest

from agi_core.state import Limits, StateLimitError, StateNotFound, StateService, VariableValueError


def _blob_bytes(root, sid):
    folder = root / sid / "blobs"
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())} if folder.is_dir() else {}


def test_rollback_restores_variables_byte_for_byte(svc, sid, root, dump_rows):
    svc.set(sid, "error_list", [{"file": "src/auth.ts", "line": 42}])
    svc.set(sid, "report", "r" * 20000)  # a blob
    svc.set(sid, "cache", {"k": 1}, scope="temporary", ttl_seconds=3600)
    svc.set(sid, "config", "strict", read_only=True, description="mode")
    svc.get(sid, "error_list")
    svc.get(sid, "error_list")
    ckpt = svc.checkpoint(sid, "before_decomposition", "after retrieval")
    rows = dump_rows(f"state:{sid}")
    exported = json.dumps(svc.export(sid)["variables"], sort_keys=True).encode()
    blobs = _blob_bytes(root, sid)

    svc.set(sid, "error_list", [])
    svc.set(sid, "report", "changed" * 5000)
    svc.delete(sid, "cache")
    svc.set(sid, "new_one", 1)
    svc.get(sid, "error_list")
    svc.set(sid, "Final", "done")
    assert dump_rows(f"state:{sid}") != rows

    restored = svc.rollback(sid, ckpt.checkpoint_id)
    assert (restored.checkpoint_id, restored.name, restored.description) == (
        ckpt.checkpoint_id,
        "before_decomposition",
        "after retrieval",
    )
    assert dump_rows(f"state:{sid}") == rows
    assert json.dumps(svc.export(sid)["variables"], sort_keys=True).encode() == exported
    assert {k: v for k, v in _blob_bytes(root, sid).items() if k in blobs} == blobs
    assert svc.describe(sid, "error_list").access_count == 2
    assert svc.state(sid).completion_status == "incomplete"
    assert svc.is_complete(sid) is False


def test_rollback_is_logged_and_keeps_history_and_later_checkpoints(svc, sid):
    first = svc.checkpoint(sid, "one")
    svc.set(sid, "x", 1)
    second = svc.checkpoint(sid, "two")
    svc.rollback(sid, first.checkpoint_id, source="user_edit")
    entries = svc.history(sid)
    assert [(m.operation, m.variable_name) for m in entries] == [
        ("create", "prompt"),
        ("create", "x"),
        ("rollback", "*"),
    ]
    assert (entries[-1].metadata, entries[-1].source) == ({"checkpoint_id": first.checkpoint_id}, "user_edit")
    assert [c.checkpoint_id for c in svc.checkpoints(sid)][1:] == [first.checkpoint_id, second.checkpoint_id]
    svc.rollback(sid, second.checkpoint_id)
    assert svc.get(sid, "x") == 1


def test_rollback_does_not_touch_shared_scopes(svc):
    sid = svc.create_state("p", session_id="s").state_id
    ckpt = svc.checkpoint(sid, "c")
    svc.set(sid, "shared", 1, scope="session")
    svc.set(sid, "own", 1)
    svc.rollback(sid, ckpt.checkpoint_id)
    assert [v.name for v in svc.variables(sid)] == ["Final", "prompt", "shared"]


def test_unknown_or_foreign_checkpoint(svc, sid):
    other = svc.create_state("other").state_id
    foreign = svc.checkpoints(other)[0].checkpoint_id
    for ckpt in ("ckpt-00000000", foreign):
        with pytest.raises(StateNotFound) as info:
            svc.rollback(sid, ckpt)
        assert str(info.value) == (
            f"no checkpoint {ckpt!r} in {sid}; list them with checkpoints() (agi state checkpoints)"
        )


def test_checkpoint_limit(conn, det, root):
    svc = StateService(conn, det, root, limits=Limits(max_checkpoints=3))
    sid = svc.create_state("p").state_id
    svc.checkpoint(sid, "a")
    b = svc.checkpoint(sid, "b")
    with pytest.raises(StateLimitError) as info:
        svc.checkpoint(sid, "c")
    assert str(info.value) == (
        f"{sid} already has 3 checkpoints (the limit is 3); delete an old one with delete_checkpoint() first"
    )
    svc.delete_checkpoint(sid, b.checkpoint_id)
    assert [c.name for c in svc.checkpoints(sid)] == ["initial_state", "a"]
    assert svc.checkpoint(sid, "c").name == "c"


def test_default_checkpoint_limit_is_100(svc, sid):
    for i in range(99):
        svc.checkpoint(sid, f"c{i}")
    with pytest.raises(StateLimitError, match="already has 100 checkpoints"):
        svc.checkpoint(sid, "one_more")


def test_history_keeps_the_newest_entries(conn, det, root):
    svc = StateService(conn, det, root, limits=Limits(max_history=5))
    sid = svc.create_state("p").state_id
    for i in range(8):
        svc.set(sid, "counter", i)
    entries = svc.history(sid)
    assert [(m.operation, m.new_value) for m in entries] == [("update", i) for i in range(3, 8)]
    assert svc.state(sid).mutation_count == 9
    assert [m.new_value for m in svc.history(sid, limit=2)] == [6, 7]
    assert svc.export(sid)["metadata"]["mutation_count"] == 9


def test_empty_checkpoint_name_is_refused(svc, sid):
    with pytest.raises(VariableValueError, match=r"^checkpoint name ' ' is empty"):
        svc.checkpoint(sid, " ")
