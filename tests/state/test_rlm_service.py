"""StateService: states, typed variables, read-only prompt, scopes, limits, atomic calls."""

from __future__ import annotations

import re

import pytest

from agi_core.determinism import Determinism
from agi_core.errors import AgiError, ValidationError
from agi_core.state import (
    Limits,
    ReadOnlyVariable,
    StateLimitError,
    StateNotFound,
    StateService,
    VariableNotFound,
    VariableValueError,
)


def test_create_state_initializes_prompt_final_and_a_checkpoint(svc, sid):
    info = svc.state(sid)
    assert re.fullmatch(r"state-[a-f0-9]{8}", sid)
    assert (info.session_id, info.tree_id, info.parent_state_id) == ("sess-1", None, None)
    assert info.completion_status == "incomplete"
    assert [(v.name, v.value, v.type, v.read_only) for v in svc.variables(sid)] == [
        ("Final", None, "null", False),
        ("prompt", "Find all TypeScript errors", "text", True),
    ]
    [ckpt] = svc.checkpoints(sid)
    assert (ckpt.name, ckpt.variable_count, ckpt.timestamp) == ("initial_state", 2, info.created_at)
    assert re.fullmatch(r"ckpt-[a-f0-9]{8}", ckpt.checkpoint_id)
    [entry] = svc.history(sid)
    assert (entry.operation, entry.variable_name, entry.new_value, entry.source) == (
        "create",
        "prompt",
        "Find all TypeScript errors",
        "user_input",
    )
    assert info.mutation_count == 1


def test_same_seed_gives_the_same_ids(tmp_path):
    import sqlite3

    from agi_core.state import migrate

    ids = []
    for run in ("a", "b"):
        conn = sqlite3.connect(tmp_path / f"{run}.db")
        migrate(conn)
        svc = StateService(conn, Determinism("same"), tmp_path / run)
        sid = svc.create_state("p").state_id
        svc.set(sid, "x", 1)
        ids.append((sid, [m.mutation_id for m in svc.history(sid)], svc.describe(sid, "x").updated_at))
        conn.close()
    assert ids[0] == ids[1]


@pytest.mark.parametrize(
    "value,vtype",
    [
        ("hello", "text"),
        (3, "number"),
        (2.5, "number"),
        (True, "boolean"),
        (None, "null"),
        ({"a": [1, 2]}, "json"),
        ([1, "two"], "array"),
    ],
)
def test_types_are_inferred_and_values_round_trip(svc, sid, value, vtype):
    variable = svc.set(sid, "doc_summary", value)
    assert (variable.type, variable.value, variable.scope) == (vtype, value, "state")
    assert svc.get(sid, "doc_summary") == value


def test_tuples_are_stored_as_arrays(svc, sid):
    assert svc.set(sid, "pair", (1, 2)).value == [1, 2]
    assert svc.get(sid, "pair") == [1, 2]


@pytest.mark.parametrize(
    "vtype,value,message",
    [
        (
            "number",
            "three",
            "a number variable needs an int or a float, got str; pass a matching value or another type",
        ),
        ("boolean", 1, "a boolean variable needs True or False, got int; pass a matching value or another type"),
        ("json", "x", "a json variable needs a dict or a list, got str; pass a matching value or another type"),
        ("array", {"a": 1}, "a array variable needs a list, got dict; pass a matching value or another type"),
        (
            "secret",
            1,
            "unknown variable type 'secret'; use one of text, number, boolean, null, json, array, "
            "file_path, file_content",
        ),
    ],
)
def test_value_must_match_type(svc, sid, vtype, value, message):
    with pytest.raises(VariableValueError) as info:
        svc.set(sid, "x", value, type=vtype)
    assert str(info.value) == message
    assert isinstance(info.value, ValidationError) and isinstance(info.value, AgiError)


def test_non_json_values_are_refused(svc, sid):
    with pytest.raises(VariableValueError, match=r"^value is not JSON data \(Out of range float"):
        svc.set(sid, "x", float("nan"))
    with pytest.raises(VariableValueError, match=r"^cannot store a set; use a JSON value"):
        svc.set(sid, "x", {1, 2})


def test_dict_keys_must_be_strings(svc, sid):
    with pytest.raises(VariableValueError) as info:
        svc.set(sid, "x", {"ok": [{1: "a"}]})
    assert str(info.value) == "dict key 1 at $.value.ok[0] is not a string; JSON objects need string keys"


def test_service_needs_migrated_tables(tmp_path):
    import sqlite3
    from contextlib import closing

    from agi_core.state import StateError

    with closing(sqlite3.connect(tmp_path / "empty.db")) as conn, pytest.raises(StateError) as info:
        StateService(conn, Determinism("x"), tmp_path)
    assert str(info.value) == (
        "the rlm_* tables do not exist in this database; call agi_core.state.migrate(conn) first"
    )


def test_prompt_is_read_only(svc, sid):
    with pytest.raises(ReadOnlyVariable) as info:
        svc.set(sid, "prompt", "other")
    assert str(info.value) == (f"prompt of {sid} is read-only after initialization; store new text under another name")
    with pytest.raises(ReadOnlyVariable, match=r"^prompt cannot be deleted; it is read-only"):
        svc.delete(sid, "prompt")
    assert svc.get(sid, "prompt") == "Find all TypeScript errors"


def test_read_only_variables_refuse_updates_deletes_and_renames(svc, sid):
    svc.set(sid, "config", {"depth": 2}, read_only=True)
    message = f"variable 'config' of {sid} is read-only; store the new value under another name"
    for call in (
        lambda: svc.set(sid, "config", {}),
        lambda: svc.delete(sid, "config"),
        lambda: svc.rename(sid, "config", "cfg"),
    ):
        with pytest.raises(ReadOnlyVariable) as info:
            call()
        assert str(info.value) == message
    assert svc.get(sid, "config") == {"depth": 2}


def test_final_cannot_be_deleted_or_scoped(svc, sid):
    with pytest.raises(ReadOnlyVariable, match=r"^Final cannot be deleted; set it to None"):
        svc.delete(sid, "Final")
    with pytest.raises(VariableValueError, match=r"^Final always has scope 'state'"):
        svc.set(sid, "Final", "x", scope="global")


def test_update_keeps_created_at_and_logs_old_and_new(svc, sid):
    first = svc.set(sid, "risk_count", 2, source="computation")
    second = svc.set(sid, "risk_count", 3)
    assert second.created_at == first.created_at and second.updated_at > first.updated_at
    assert second.source == "computation"
    entry = svc.history(sid)[-1]
    assert (entry.operation, entry.old_value, entry.new_value) == ("update", 2, 3)
    assert entry.to_document() == {
        "mutation_id": entry.mutation_id,
        "operation": "update",
        "variable_name": "risk_count",
        "old_value": 2,
        "new_value": 3,
        "timestamp": second.updated_at,
    }


def test_access_count_counts_gets_not_describes(svc, sid):
    svc.set(sid, "x", 1)
    for _ in range(3):
        svc.get(sid, "x")
    svc.describe(sid, "x")
    svc.variables(sid)
    assert svc.describe(sid, "x").access_count == 3


def test_delete_and_rename(svc, sid):
    svc.set(sid, "draft", "v1")
    renamed = svc.rename(sid, "draft", "doc_summary")
    assert (renamed.name, renamed.value) == ("doc_summary", "v1")
    svc.delete(sid, "doc_summary")
    with pytest.raises(VariableNotFound) as info:
        svc.get(sid, "doc_summary")
    assert str(info.value) == (
        f"variable 'doc_summary' of {sid} does not exist; set it first "
        "(agi state set NAME VALUE) or list names (agi state list)"
    )
    ops = [(m.operation, m.variable_name, m.old_value, m.metadata) for m in svc.history(sid)[-3:]]
    assert ops == [
        ("create", "draft", None, {}),
        ("rename", "draft", None, {"new_name": "doc_summary"}),
        ("delete", "doc_summary", "v1", {}),
    ]


def test_rename_onto_an_existing_name_is_refused(svc, sid):
    svc.set(sid, "a", 1)
    svc.set(sid, "b", 2)
    with pytest.raises(VariableValueError, match=f"^'b' already exists in scope state of {sid}"):
        svc.rename(sid, "a", "b")


def test_unknown_state(svc):
    with pytest.raises(StateNotFound) as info:
        svc.get("state-00000000", "x")
    assert str(info.value) == (
        "no RLM state 'state-00000000'; create one with create_state() "
        "(agi state create) or list them (agi state list --states)"
    )


@pytest.mark.parametrize("name", ["", "1abc", "risk-count", "é", "a b", "Final!", None])
def test_bad_names_are_refused(svc, sid, name):
    with pytest.raises(VariableValueError) as info:
        svc.set(sid, name, 1)
    assert str(info.value) == (
        f"invalid variable name {name!r}; use a letter or '_' followed by "
        "letters, digits or '_' (ASCII), e.g. doc_summary"
    )


def test_name_length_limit(svc, sid):
    svc.set(sid, "n" * 128, 1)
    with pytest.raises(StateLimitError) as info:
        svc.set(sid, "n" * 129, 1)
    assert str(info.value) == "variable name nnnnnnnnnnnnnnnnnnnn... is 129 characters long; shorten it to at most 128"


def test_variable_limit_counts_final_and_prompt(conn, det, root):
    svc = StateService(conn, det, root, limits=Limits(max_variables=4))
    sid = svc.create_state("p").state_id
    svc.set(sid, "a", 1)
    svc.set(sid, "b", 2)
    with pytest.raises(StateLimitError) as info:
        svc.set(sid, "c", 3)
    assert str(info.value) == (f"state:{sid} already holds 4 variables (the limit is 4); delete one before adding 'c'")
    svc.set(sid, "b", 20)  # updating stays allowed at the limit
    assert [v.name for v in svc.variables(sid)] == ["Final", "a", "b", "prompt"]


def test_default_variable_limit_is_1000(svc, sid):
    for i in range(998):
        svc.set(sid, f"v{i}", i)
    with pytest.raises(StateLimitError, match=f"^state:{sid} already holds 1000 variables"):
        svc.set(sid, "one_more", 0)


def test_inline_limit_boundary_and_blobs(svc, sid, root):
    at_limit = "x" * (10240 - 2)  # canonical JSON adds two quotes
    inline = svc.set(sid, "at_limit", at_limit)
    assert (inline.file, inline.size_bytes) == (None, 10240)
    big = svc.set(sid, "big", at_limit + "y")
    assert big.size_bytes == 10241
    assert re.fullmatch(r"file:blobs/[a-f0-9]{64}\.json", big.file)
    blob = root / sid / big.file[len("file:") :]
    assert blob.read_bytes() == ('"' + at_limit + 'y"').encode()
    assert svc.get(sid, "big") == at_limit + "y"
    assert svc.history(sid)[-1].new_value == big.file
    assert svc.path(sid, "big") == blob.resolve()


def test_file_content_is_always_a_text_blob(svc, sid, root):
    variable = svc.set(sid, "notes", "short text", type="file_content")
    assert re.fullmatch(r"file:blobs/[a-f0-9]{64}\.txt", variable.file)
    assert (root / sid / variable.file[5:]).read_text() == "short text"
    assert svc.get(sid, "notes") == "short text"


def test_a_failed_call_leaves_nothing_behind(svc, sid, conn):
    before = (svc.history(sid), svc.state(sid), conn.execute("SELECT COUNT(*) FROM rlm_variables").fetchone())
    with pytest.raises(VariableValueError):
        svc.set(sid, "x", "bad", type="number")
    assert (svc.history(sid), svc.state(sid), conn.execute("SELECT COUNT(*) FROM rlm_variables").fetchone()) == before


# -- scopes ----------------------------------------------------------------------------------
def test_scopes_decide_who_sees_a_variable(svc):
    tree = svc.new_tree_id()
    a = svc.create_state("a", session_id="s1", tree_id=tree).state_id
    b = svc.create_state("b", session_id="s1", tree_id=tree).state_id
    c = svc.create_state("c", session_id="s1").state_id
    d = svc.create_state("d", session_id="s2").state_id
    svc.set(a, "mine", 1)
    svc.set(a, "in_tree", 2, scope="tree")
    svc.set(a, "in_session", 3, scope="session")
    svc.set(a, "everywhere", 4, scope="global")
    seen = {s: sorted(v.name for v in svc.variables(s)) for s in (a, b, c, d)}
    base = ["Final", "prompt"]
    assert seen == {
        a: sorted([*base, "mine", "in_tree", "in_session", "everywhere"]),
        b: sorted([*base, "in_tree", "in_session", "everywhere"]),
        c: sorted([*base, "in_session", "everywhere"]),
        d: sorted([*base, "everywhere"]),
    }
    assert svc.variables(d, include_shared=False) == svc.variables(d)[:1] + svc.variables(d)[2:3]


def test_nearest_scope_wins_and_writes_follow_the_resolved_variable(svc):
    a = svc.create_state("a", session_id="s1").state_id
    b = svc.create_state("b", session_id="s1").state_id
    svc.set(a, "limit", 10, scope="global")
    svc.set(b, "limit", 99)  # no scope: updates the global it resolves to
    assert svc.get(a, "limit") == 99
    assert svc.describe(b, "limit").scope == "global"
    svc.set(b, "limit", 5, scope="state")  # explicit scope: shadows it in b only
    assert (svc.get(a, "limit"), svc.get(b, "limit")) == (99, 5)
    svc.delete(b, "limit")  # deletes the nearest; the global shows through again
    assert svc.get(b, "limit") == 99


def test_shared_scope_needs_the_matching_id(svc, sid):
    with pytest.raises(VariableValueError) as info:
        svc.set(sid, "x", 1, scope="tree")
    assert str(info.value) == (
        f"state {sid} has no tree id, so it cannot hold a tree-scoped variable; "
        "create the state with tree_id=... or use scope='state'"
    )
    with pytest.raises(VariableValueError, match=r"^unknown scope 'world'; use one of state, tree, session"):
        svc.set(sid, "x", 1, scope="world")


def test_bad_create_arguments(svc):
    with pytest.raises(VariableValueError, match=r"^tree id 'tree-xyz' is not tree-xxxxxxxx"):
        svc.create_state("p", tree_id="tree-xyz")
    with pytest.raises(VariableValueError, match=r"^prompt must be text, got int"):
        svc.create_state(3)  # type: ignore[arg-type]
    with pytest.raises(VariableValueError, match=r"^result_name needs a parent_state_id"):
        svc.create_state("p", result_name="answer")
    assert svc.states() == []
