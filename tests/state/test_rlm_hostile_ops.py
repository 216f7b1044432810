"""Hostile ``state`` commands: any request either runs as one tick or is refused leaving nothing."""

from __future__ import annotations

from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st

from agi_core.errors import AgiError
from agi_core.serialization import dumps
from agi_core.state.commands import OPS
from agi_core.testing import open_kernel

JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 3)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from(["x", "Final", "prompt", "file:a.txt", "state-00000000", "tree-0000000g", "../up", ""])
    | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=6,
)


NAMES = st.sampled_from(
    ["x", "y", "Final", "prompt", "n_1", "bad name", "ckpt-00000000", "temporary", "session", "json", "file_content"]
) | st.text(max_size=6)
BY_KIND = {  # mostly well-typed values, so the service itself gets hostile input too
    "state": st.none() | st.sampled_from(["state-00000000", ""]),
    "str": NAMES,
    "str?": st.none() | NAMES,
    "int?": st.none() | st.integers(-2, 5) | st.sampled_from([2**31, 10**12, 2**63, 2**70]),
    "count?": st.none() | st.integers(-1, 5) | st.sampled_from([2**63 - 1, 2**63, 2**70]),
    "bool": st.booleans(),
    "bool?": st.none() | st.booleans(),
    "names?": st.none() | st.dictionaries(NAMES, NAMES, max_size=2),
    "any": JSON,
}


@st.composite
def requests(draw):
    name = draw(st.sampled_from([*sorted(OPS), "nope"]))
    params = OPS[name].params if name in OPS else {}
    optional = [key for key, kind in params.items() if not kind.endswith("!")]
    keys = [key for key in params if key not in optional and draw(st.integers(0, 19))]
    keys += draw(st.lists(st.sampled_from(optional), max_size=3, unique=True)) if optional else []
    keys += ["bogus"] if not draw(st.integers(0, 19)) else []
    args = {}
    for key in keys:
        kind = params.get(key, "any!").rstrip("!")
        args[key] = draw(BY_KIND[kind] if draw(st.integers(0, 9)) else JSON)
    return {"op": name, "args": args}


def _everything(kernel):
    tables = ("rlm_states", "rlm_variables", "rlm_mutations", "rlm_checkpoints", "journal", "meta")
    rows = {t: kernel.conn.execute(f"SELECT * FROM {t} ORDER BY 1, 2").fetchall() for t in tables}
    return rows, kernel.determinism.counter, kernel.tick_count


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(command=requests())
@example(command={"op": "set", "args": {"name": "t", "value": 1, "scope": "temporary", "ttl_seconds": 10**12}})
@example(command={"op": "history", "args": {"limit": 2**63}})
@example(command={"op": "spawn_child", "args": {"parent_state_id": "state-00000000", "prompt": "p"}})
def test_a_request_is_one_tick_or_changes_nothing(tmp_path, command):
    kernel = open_kernel(tmp_path / "agent.db", seed="hostile")
    try:
        if kernel.tick_count == 0:
            kernel.command("state", {"op": "create_state", "args": {"prompt": "p", "session_id": "s"}})
        before = _everything(kernel)
        try:
            record = kernel.command("state", command)
        except AgiError as exc:
            event(f"refused {type(exc).__name__}")
            assert "\n" not in str(exc)
            assert _everything(kernel) == before
            return
        event(f"ran {command['op']}")
        assert record.tick == before[2] + 1
        assert "\n" not in record.final_output
        dumps(record.agent_outputs["state"])
    finally:
        kernel.close()
