"""The kernel command ``state``: every RLM op is one journaled tick, replayed exactly."""

from __future__ import annotations

import json
import re

import pytest

from agi_core import checkpoints
from agi_core.errors import AgiError, ValidationError
from agi_core.memory import blobs
from agi_core.replay import replay
from agi_core.scheduling.clock import PinnedClock, SimulatedClock
from agi_core.state import ReadOnlyVariable, StateError, VariableNotFound, VariableValueError
from agi_core.state.commands import OPS
from agi_core.testing import builtin_plugins, open_kernel

SEED = "rlm-kernel"
START_MS = 1_795_000_000_000  # 2026-11-18
RLM_TABLES = {
    "rlm_states": "state_id",
    "rlm_variables": "namespace, name",
    "rlm_mutations": "seq",
    "rlm_checkpoints": "checkpoint_id",
}
STATE_ID = re.compile(r"state-[a-f0-9]{8}")


@pytest.fixture
def db(tmp_path):
    return tmp_path / "agent.db"


@pytest.fixture
def kernel(db, tmp_path):
    """A kernel whose recorded wall clock (what TTLs count on) moves only when :func:`advance` says."""
    k = open_kernel(db, seed=SEED, workspace=tmp_path / "workspace", clock=PinnedClock(SimulatedClock(START_MS)))
    yield k
    k.close()


def advance(kernel, seconds):
    kernel.config.clock.source.advance(seconds)
    kernel.config.clock.refresh()


def op(kernel, op_name, /, **args):
    return kernel.command("state", {"op": op_name, "args": args})


def journal_count(kernel):
    return kernel.conn.execute("SELECT COUNT(*) FROM journal").fetchone()[0]


def rlm_dump(kernel):
    """Every row of every ``rlm_*`` table, every column, in primary-key order."""
    return {
        table: kernel.conn.execute(f"SELECT * FROM {table} ORDER BY {order}").fetchall()
        for table, order in RLM_TABLES.items()
    }


def everything(kernel):
    """What a refused op must leave unchanged: rows, journal, meta and the counters."""
    meta = kernel.conn.execute("SELECT key, value FROM meta ORDER BY key").fetchall()
    return rlm_dump(kernel), journal_count(kernel), meta, kernel.determinism.counter, kernel.tick_count


def test_the_state_tables_exist_when_a_kernel_opens(kernel):
    tables = {r[0] for r in kernel.conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert set(RLM_TABLES) <= tables
    steps = [r[0] for r in kernel.conn.execute("SELECT name FROM _agi_migrations ORDER BY step")]
    assert steps[:3] == ["m001_core_tables", "m002_checkpoints_and_archive", "m003_rlm_state"]


def test_the_op_whitelist():
    assert sorted(OPS) == [
        "checkpoint",
        "checkpoints",
        "children",
        "create_state",
        "delete",
        "delete_checkpoint",
        "describe",
        "export",
        "get",
        "history",
        "is_complete",
        "latest_state",
        "new_tree_id",
        "purge_expired",
        "rename",
        "rollback",
        "set",
        "spawn_child",
        "state",
        "states",
        "tree",
        "variables",
    ]


def test_each_op_is_one_journaled_tick(kernel):
    assert journal_count(kernel) == 0
    created = op(kernel, "create_state", prompt="Find all TypeScript errors", session_id="sess-1")
    sid = created.final_output
    assert STATE_ID.fullmatch(sid)
    assert created.agent_outputs["state"]["state_id"] == sid
    assert (created.router_decision.agent, created.selected_agents) == ("command:state", ["command:state"])
    assert created.input.raw == (
        'state {"args":{"prompt":"Find all TypeScript errors","session_id":"sess-1"},"op":"create_state"}'
    )

    record = op(kernel, "set", name="risk_count", value=3)
    assert record.final_output == f"{sid} risk_count number state"
    assert record.agent_outputs["state"]["variable"]["value"] == 3
    record = op(kernel, "get", name="risk_count")
    assert (record.final_output, record.agent_outputs["state"]) == (
        "3",
        {"state_id": sid, "name": "risk_count", "value": 3},
    )
    assert op(kernel, "describe", name="risk_count").agent_outputs["state"]["variable"]["access_count"] == 1
    assert op(kernel, "rename", name="risk_count", new_name="risks").final_output == f"{sid} risks number state"
    names = [v["name"] for v in op(kernel, "variables").agent_outputs["state"]["variables"]]
    assert names == ["Final", "prompt", "risks"]
    ckpt = op(kernel, "checkpoint", name="before", description="two risks").final_output
    op(kernel, "delete", name="risks")
    assert op(kernel, "rollback", checkpoint_id=ckpt).final_output == f"rolled {sid} back to {ckpt}"
    assert op(kernel, "get", name="risks").agent_outputs["state"]["value"] == 3
    mutations = op(kernel, "history", limit=2).agent_outputs["state"]["mutations"]
    assert [(m["operation"], m["variable_name"]) for m in mutations] == [("delete", "risks"), ("rollback", "*")]
    doc = op(kernel, "export").agent_outputs["state"]["document"]
    assert doc["variables"]["risks"]["value"] == 3
    assert journal_count(kernel) == 12
    assert kernel.tick_count == 12
    stored = json.loads(kernel.conn.execute("SELECT record FROM journal WHERE tick = 12").fetchone()[0])
    assert stored["agent_outputs"]["state"]["document"] == doc


def test_the_state_id_defaults_to_the_latest_state(kernel):
    assert op(kernel, "latest_state").agent_outputs["state"] is None
    first = op(kernel, "create_state", prompt="one").final_output
    second = op(kernel, "create_state", prompt="two").final_output
    assert op(kernel, "get", name="prompt").agent_outputs["state"] == {
        "state_id": second,
        "name": "prompt",
        "value": "two",
    }
    assert op(kernel, "get", name="prompt", state_id=first).agent_outputs["state"]["value"] == "one"
    assert [s["state_id"] for s in op(kernel, "states").agent_outputs["state"]["states"]] == [first, second]


def test_a_task_tree_through_the_kernel(kernel):
    tree = op(kernel, "new_tree_id").final_output
    parent = op(kernel, "create_state", prompt="root", tree_id=tree).final_output
    op(kernel, "set", name="lines", value=[42, 15])
    child = op(
        kernel, "spawn_child", parent_state_id=parent, prompt="sub", inputs={"todo": "lines"}, result_name="answer"
    ).final_output
    assert op(kernel, "get", state_id=child, name="todo").agent_outputs["state"]["value"] == [42, 15]
    assert op(kernel, "is_complete", state_id=child).final_output == "incomplete"
    op(kernel, "set", state_id=child, name="Final", value="fixed")
    assert op(kernel, "is_complete", state_id=child).agent_outputs["state"] == {"state_id": child, "complete": True}
    assert op(kernel, "get", state_id=parent, name="answer").agent_outputs["state"]["value"] == "fixed"
    children = op(kernel, "children", state_id=parent).agent_outputs["state"]["children"]
    assert [(c["state_id"], c["tree_id"]) for c in children] == [(child, tree)]


KNOWN = ", ".join(sorted(OPS))


@pytest.mark.parametrize(
    ("request_", "error", "message"),
    [
        ({"op": "frobnicate", "args": {}}, StateError, f"no state op 'frobnicate'; known ops: {KNOWN}"),
        ({"args": {}}, StateError, f"no state op None; known ops: {KNOWN}"),
        (
            {"op": "get", "name": "x"},
            StateError,
            "the state command takes {'op': NAME, 'args': {...}}, got {'op': 'get', 'name': 'x'}; "
            f"known ops: {KNOWN}",
        ),
        (
            {"op": "get", "args": ["x"]},
            StateError,
            "arguments of state op 'get' must be a JSON object, got ['x']; its arguments: [state_id], name",
        ),
        (
            {"op": "get", "args": {"nam": "x"}},
            StateError,
            "state op 'get' has no argument 'nam'; its arguments: [state_id], name",
        ),
        ({"op": "get", "args": {"name": 3}}, StateError, "argument 'name' of state op 'get' must be a string, got 3"),
        (
            {"op": "set", "args": {"name": "x"}},
            StateError,
            "state op 'set' needs argument 'value'; its arguments: [state_id], name, value, [type], [scope], "
            "[ttl_seconds], [description], [source], [read_only]",
        ),
        (
            {"op": "history", "args": {"limit": 0}},
            StateError,
            "argument 'limit' of state op 'history' must be a 64-bit integer >= 1 or null, got 0",
        ),
        (
            {"op": "set", "args": {"name": "prompt", "value": "new"}},
            ReadOnlyVariable,
            "prompt of {sid} is read-only after initialization; store new text under another name",
        ),
        ({"op": "set", "args": {"name": "n", "value": "three", "type": "number"}}, VariableValueError, None),
        (
            {"op": "get", "args": {"name": "nope"}},
            VariableNotFound,
            "variable 'nope' of {sid} does not exist; set it first (agi state set NAME VALUE) "
            "or list names (agi state list)",
        ),
        (
            {"op": "spawn_child", "args": {"parent_state_id": "{sid}", "prompt": "p", "inputs": {"x": "missing"}}},
            VariableNotFound,
            None,
        ),
        (
            {"op": "create_state", "args": {"prompt": "p", "tree_id": "tree-00000000", "new_tree": True}},
            StateError,
            "pass tree_id or new_tree, not both",
        ),
    ],
)
def test_a_refused_op_stores_nothing(kernel, request_, error, message):
    sid = op(kernel, "create_state", prompt="p").final_output
    op(kernel, "set", name="kept", value=[1, 2])
    before = everything(kernel)
    request_ = json.loads(json.dumps(request_).replace("{sid}", sid))
    with pytest.raises(error) as raised:
        kernel.command("state", request_)
    if message is not None:
        assert str(raised.value) == message.replace("{sid}", sid)
    assert "\n" not in str(raised.value)
    assert everything(kernel) == before
    assert op(kernel, "get", name="kept").agent_outputs["state"]["value"] == [1, 2]


def _mixed_session(kernel):
    """Chat ticks and state ops, interleaved; returns the parent's id."""
    kernel.tick("hello")
    parent = op(
        kernel, "create_state", prompt="Find all TypeScript errors", session_id="sess-1", new_tree=True
    ).final_output
    op(kernel, "set", name="report", value="r" * 20000)  # a blob
    op(kernel, "set", name="doc", value="plain text", type="file_content")
    op(kernel, "set", name="shared", value={"k": 1}, scope="session")
    op(kernel, "set", name="cache", value=7, scope="temporary", ttl_seconds=10_000)
    op(kernel, "set", name="scratch", value=8, scope="temporary", ttl_seconds=1)
    advance(kernel, 2)
    kernel.tick("1+1")
    assert op(kernel, "purge_expired", state_id=parent).agent_outputs["state"]["purged"] == ["scratch"]
    # unsorted inputs: the journal stores them sorted, so the op must use them sorted too
    child = op(
        kernel,
        "spawn_child",
        parent_state_id=parent,
        prompt="sub",
        inputs={"z_report": "report", "a_doc": "doc"},
        result_name="answer",
    ).final_output
    op(kernel, "history", state_id=child)
    with pytest.raises(ReadOnlyVariable):
        op(kernel, "set", state_id=child, name="prompt", value="x")
    ckpt = op(kernel, "checkpoint", state_id=parent, name="mid").final_output
    op(kernel, "rename", state_id=parent, name="doc", new_name="document")
    op(kernel, "get", state_id=parent, name="cache")
    op(kernel, "set", state_id=child, name="Final", value="fixed 1 error")
    kernel.tick("what is my name?")
    op(kernel, "rollback", state_id=parent, checkpoint_id=ckpt)
    op(kernel, "get", state_id=child, name="z_report")
    op(kernel, "history", state_id=parent)
    op(kernel, "export", state_id=parent, include_shared=True)
    op(kernel, "variables", state_id=child)
    op(kernel, "delete", state_id=parent, name="report")
    return parent


def test_replay_of_chat_ticks_and_state_ops_is_equal(kernel, db):
    _mixed_session(kernel)
    ticks = journal_count(kernel)
    assert ticks == 22
    kernel.close()

    report = replay(db, seed=SEED, plugins=builtin_plugins())
    assert report.ok, report.mismatch and report.mismatch.diff()
    assert report.summary() == f"replay equal: {ticks} ticks (1..{ticks}), 16 fields each"


def test_replay_notices_a_changed_state_result(kernel, db):
    _mixed_session(kernel)
    kernel.close()
    with open_kernel(db, seed=SEED) as again:
        ((tick, text),) = again.conn.execute(
            'SELECT tick, record FROM journal WHERE record LIKE \'%"z_report"%\' AND record LIKE \'%"op":"get"%\''
        )
        record = blobs.resolve(json.loads(text), again.store.get_blob)  # large strings are stored as blobs
        assert record["agent_outputs"]["state"]["value"] == "r" * 20000
        record["agent_outputs"]["state"]["value"] = "forged"
        again.conn.execute("UPDATE journal SET record = ? WHERE tick = ?", (json.dumps(record), tick))

    # the edit breaks the journal's chain at that tick: replay refuses it rather than compare fields
    with pytest.raises(ValidationError, match=f"JOURNAL_BROKEN tick={tick}: chain mismatch"):
        replay(db, seed=SEED, plugins=builtin_plugins())


def test_whole_agent_rollback_restores_the_rlm_tables_exactly(kernel):
    sid = op(kernel, "create_state", prompt="p", session_id="s").final_output
    op(kernel, "set", name="risks", value=[{"file": "a.ts", "line": 3}])
    op(kernel, "set", name="report", value="r" * 20000)
    op(kernel, "set", name="shared", value=1, scope="session")
    op(kernel, "checkpoint", name="local")
    op(kernel, "get", name="risks")
    checkpoints.create(kernel, "before")
    before = rlm_dump(kernel)
    counter = kernel.determinism.counter

    op(kernel, "set", name="risks", value=[])
    op(kernel, "set", name="report", value="changed" * 5000)
    op(kernel, "set", name="shared", value=2)
    op(kernel, "delete", name="risks")
    op(kernel, "checkpoint", name="later")
    op(kernel, "set", name="Final", value="done")
    other = op(kernel, "create_state", prompt="another").final_output
    assert rlm_dump(kernel) != before

    report = checkpoints.rollback(kernel, "before")
    assert report.archived_ticks == 7
    assert rlm_dump(kernel) == before
    assert kernel.determinism.counter == counter
    assert op(kernel, "latest_state").final_output == sid
    assert op(kernel, "get", name="risks").agent_outputs["state"]["value"] == [{"file": "a.ts", "line": 3}]
    assert op(kernel, "get", name="report").agent_outputs["state"]["value"] == "r" * 20000
    assert op(kernel, "get", name="shared").agent_outputs["state"]["value"] == 1
    assert op(kernel, "is_complete").agent_outputs["state"]["complete"] is False
    with pytest.raises(AgiError, match=f"no RLM state '{other}'"):
        op(kernel, "state", state_id=other)


def test_replay_from_a_whole_agent_checkpoint_reads_blobs(kernel, db):
    op(kernel, "create_state", prompt="p")
    op(kernel, "set", name="report", value="r" * 20000)
    checkpoints.create(kernel, "cp")
    op(kernel, "get", name="report")
    kernel.close()
    assert replay(db, seed=SEED, plugins=builtin_plugins(), checkpoint="cp").ok
