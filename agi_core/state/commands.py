"""The kernel command ``state``: every RLM state operation as one journaled, replayable tick.

``kernel.command("state", {"op": "set", "args": {"name": "x", "value": 3}})`` runs one op
of :data:`OPS` inside the tick's transaction and returns ``(text, result)``; the kernel
journals ``result`` as ``agent_outputs["state"]`` and ``text`` as the reply. An op is a
pure function of its arguments, the database and the determinism counter, so replay runs
it again and gets the same result; an op that raises leaves nothing stored.

Ops that work on one state take an optional ``state_id``; without it they use the most
recently created state, resolved inside the tick (so replay resolves it the same way).
``path`` and ``collect_garbage`` are not ops: one answers with a machine-specific file
path, the other deletes files a rollback cannot bring back.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import attrs

from agi_core.serialization import dumps, to_data
from agi_core.state.errors import StateError, StateNotFound
from agi_core.state.model import CompletionEvent
from agi_core.state.service import StateService

if TYPE_CHECKING:
    from pathlib import Path

    from agi_core.determinism import Determinism
    from agi_core.memory.backend import MemoryBackend

Result = tuple[str, Any]
Run = Callable[[StateService, dict[str, Any]], Result]

INT_MAX = 2**63 - 1
"""Integer arguments stay within SQLite's 64-bit range."""


def _int(value: Any, low: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= INT_MAX


# Argument kinds: a trailing "!" marks a required argument.
_KINDS: dict[str, tuple[Callable[[Any], bool], str]] = {
    "state": (lambda v: v is None or isinstance(v, str), "a state id string (or null for the latest state)"),
    "str": (lambda v: isinstance(v, str), "a string"),
    "str?": (lambda v: v is None or isinstance(v, str), "a string or null"),
    "int?": (lambda v: v is None or _int(v, -INT_MAX), "a 64-bit integer or null"),
    "count?": (lambda v: v is None or _int(v, 1), "a 64-bit integer >= 1 or null"),
    "bool": (lambda v: isinstance(v, bool), "true or false"),
    "bool?": (lambda v: v is None or isinstance(v, bool), "true, false or null"),
    "names?": (
        lambda v: v is None or (isinstance(v, dict) and all(isinstance(x, str) for x in v.values())),
        "an object mapping child names to parent names",
    ),
    "any": (lambda v: True, "any JSON value"),
}


@attrs.frozen
class Op:
    """One state op: its arguments (name -> kind) and the function that runs it."""

    name: str
    params: dict[str, str]
    run: Run

    @property
    def required(self) -> list[str]:
        return [key for key, kind in self.params.items() if kind.endswith("!")]

    def signature(self) -> str:
        shown = [key if kind.endswith("!") else f"[{key}]" for key, kind in self.params.items()]
        return ", ".join(shown) or "no arguments"


OPS: dict[str, Op] = {}
"""Every op ``run_state_op`` accepts, by name."""


def op(op_name: str, /, **params: str) -> Callable[[Run], Run]:
    """Register op ``op_name`` with its arguments (``key="kind"``, ``"kind!"`` when required)."""

    def register(run: Run) -> Run:
        OPS[op_name] = Op(op_name, params, run)
        return run

    return register


def run_state_op(
    store: MemoryBackend,
    determinism: Determinism,
    state_dir: Path,
    args: dict[str, Any],
    *,
    on_complete: Callable[[CompletionEvent], None] | None = None,
    wall_ms: Callable[[], int] | None = None,
) -> Result:
    """Run ``{"op": NAME, "args": {...}}`` on the agent's ``store``, inside its current tick (large values
    go to files under ``state_dir``); ``on_complete`` is called when a ``Final`` completes a state;
    TTLs count on ``wall_ms`` (the tick's recorded wall clock), else on the deterministic clock."""
    if not isinstance(args, dict) or set(args) - {"op", "args"}:
        raise StateError(
            f"the state command takes {{'op': NAME, 'args': {{...}}}}, got {_short(args)}; "
            f"known ops: {', '.join(sorted(OPS))}"
        )
    name, op_args = args.get("op"), args.get("args", {})
    spec = OPS.get(name) if isinstance(name, str) else None
    if spec is None:
        raise StateError(f"no state op {name!r}; known ops: {', '.join(sorted(OPS))}")
    checked = _check_args(spec, _json_copy(spec, op_args))
    svc = StateService(store.rlm_rows(), determinism, state_dir / "rlm", wall_ms=wall_ms)
    if on_complete is not None:
        svc.on_complete(on_complete)
    if "state_id" in spec.params:
        checked["state_id"] = resolve_state(svc, checked.get("state_id"))
    return spec.run(svc, checked)


def resolve_state(svc: StateService, state_id: str | None) -> str:
    """``state_id`` checked to exist, or the most recently created state."""
    if state_id is not None:
        return svc.state(state_id).state_id
    latest = svc.latest_state()
    if latest is None:
        raise StateNotFound("no RLM state yet; create one with: agi state create PROMPT")
    return latest.state_id


def dump_value(value: Any) -> str:
    """A variable's value as one line of JSON (what ``agi state get`` prints)."""
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def _json_copy(spec: Op, value: Any) -> Any:
    """The arguments as replay will see them: the journal stores canonical JSON, so object
    keys come back sorted (``inputs`` are copied in that order) and tuples as lists."""
    try:
        return json.loads(dumps(value))
    except (TypeError, ValueError) as exc:
        raise StateError(
            f"arguments of state op {spec.name!r} are not JSON ({exc}); "
            "pass strings, numbers, booleans, null, lists and objects"
        ) from None


def _check_args(spec: Op, args: Any) -> dict[str, Any]:
    if not isinstance(args, dict):
        raise StateError(
            f"arguments of state op {spec.name!r} must be a JSON object, got {_short(args)}; "
            f"its arguments: {spec.signature()}"
        )
    for key, value in args.items():
        kind = spec.params.get(key)
        if kind is None:
            raise StateError(f"state op {spec.name!r} has no argument {key!r}; its arguments: {spec.signature()}")
        test, wanted = _KINDS[kind.rstrip("!")]
        if not test(value):
            raise StateError(f"argument {key!r} of state op {spec.name!r} must be {wanted}, got {_short(value)}")
    missing = [key for key in spec.required if key not in args]
    if missing:
        raise StateError(f"state op {spec.name!r} needs argument {missing[0]!r}; its arguments: {spec.signature()}")
    return dict(args)


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _pick(args: dict[str, Any], *keys: str) -> dict[str, Any]:
    """The optional keyword arguments the caller gave (so the service's defaults apply)."""
    return {key: args[key] for key in keys if key in args}


# -- states ---------------------------------------------------------------------------------
@op(
    "create_state",
    prompt="str!",
    session_id="str?",
    tree_id="str?",
    new_tree="bool",
    parent_state_id="str?",
    result_name="str?",
    inputs="names?",
    source="str",
)
def _create_state(svc: StateService, a: dict[str, Any]) -> Result:
    options = _pick(a, "session_id", "tree_id", "parent_state_id", "result_name", "inputs", "source")
    if a.get("new_tree"):
        if options.get("tree_id") is not None:
            raise StateError("pass tree_id or new_tree, not both")
        options["tree_id"] = svc.new_tree_id()
    info = svc.create_state(a["prompt"], **options)
    return info.state_id, to_data(info)


@op("spawn_child", parent_state_id="str!", prompt="str!", inputs="names?", result_name="str?")
def _spawn_child(svc: StateService, a: dict[str, Any]) -> Result:
    info = svc.spawn_child(a["parent_state_id"], a["prompt"], **_pick(a, "inputs", "result_name"))
    return info.state_id, to_data(info)


@op("states")
def _states(svc: StateService, a: dict[str, Any]) -> Result:
    found = svc.states()
    return f"{len(found)} state(s)", {"states": [to_data(s) for s in found]}


@op("latest_state")
def _latest_state(svc: StateService, a: dict[str, Any]) -> Result:
    info = svc.latest_state()
    return (info.state_id, to_data(info)) if info is not None else ("no state", None)


@op("state", state_id="state")
def _state(svc: StateService, a: dict[str, Any]) -> Result:
    info = svc.state(a["state_id"])
    return f"{info.state_id} {info.completion_status}", to_data(info)


@op("children", state_id="state")
def _children(svc: StateService, a: dict[str, Any]) -> Result:
    found = svc.children(a["state_id"])
    return f"{len(found)} child state(s)", {"state_id": a["state_id"], "children": [to_data(s) for s in found]}


@op("is_complete", state_id="state")
def _is_complete(svc: StateService, a: dict[str, Any]) -> Result:
    done = svc.is_complete(a["state_id"])
    return ("complete" if done else "incomplete"), {"state_id": a["state_id"], "complete": done}


@op("tree", state_id="state", goal="str?")
def _tree(svc: StateService, a: dict[str, Any]) -> Result:
    """The task tree holding the state (or goal ``goal``'s state), from its root: each node's prompt,
    status, where its ``Final`` lands (``result_name``), the ``Final`` itself and its children."""
    start = a["state_id"]
    if a.get("goal"):
        session = f"goal:{a['goal']}"
        found = next((s.state_id for s in svc.states() if s.session_id == session), None)
        if found is None:
            raise StateNotFound(f"goal {a['goal']} has no RLM task; goals get one when they are added")
        start = found
    root = svc.state(start)
    while root.parent_state_id is not None:
        root = svc.state(root.parent_state_id)

    def node(info: Any) -> dict[str, Any]:
        return {
            "state_id": info.state_id,
            "prompt": svc.describe(info.state_id, "prompt").value,
            "status": info.completion_status,
            "result_name": info.result_name,
            "final": svc.describe(info.state_id, "Final").value,
            "children": [node(child) for child in svc.children(info.state_id)],
        }

    tree = node(root)
    return f"task tree of {root.state_id}", {"state_id": start, "tree": tree}


@op("new_tree_id")
def _new_tree_id(svc: StateService, a: dict[str, Any]) -> Result:
    tree_id = svc.new_tree_id()
    return tree_id, {"tree_id": tree_id}


# -- variables ------------------------------------------------------------------------------
@op("get", state_id="state", name="str!")
def _get(svc: StateService, a: dict[str, Any]) -> Result:
    value = svc.get(a["state_id"], a["name"])
    return dump_value(value), {"state_id": a["state_id"], "name": a["name"], "value": value}


@op("describe", state_id="state", name="str!")
def _describe(svc: StateService, a: dict[str, Any]) -> Result:
    var = svc.describe(a["state_id"], a["name"])
    return f"{a['state_id']} {var.name} {var.type} {var.scope}", {"state_id": a["state_id"], "variable": to_data(var)}


@op("variables", state_id="state", include_shared="bool")
def _variables(svc: StateService, a: dict[str, Any]) -> Result:
    found = svc.variables(a["state_id"], **_pick(a, "include_shared"))
    return (
        f"{len(found)} variable(s) in {a['state_id']}",
        {"state_id": a["state_id"], "variables": [to_data(v) for v in found]},
    )


@op(
    "set",
    state_id="state",
    name="str!",
    value="any!",
    type="str?",
    scope="str?",
    ttl_seconds="int?",
    description="str?",
    source="str?",
    read_only="bool?",
)
def _set(svc: StateService, a: dict[str, Any]) -> Result:
    var = svc.set(
        a["state_id"],
        a["name"],
        a["value"],
        **_pick(a, "type", "scope", "ttl_seconds", "description", "source", "read_only"),
    )
    return f"{a['state_id']} {var.name} {var.type} {var.scope}", {"state_id": a["state_id"], "variable": to_data(var)}


@op("delete", state_id="state", name="str!", source="str?")
def _delete(svc: StateService, a: dict[str, Any]) -> Result:
    svc.delete(a["state_id"], a["name"], **_pick(a, "source"))
    return f"deleted {a['name']} from {a['state_id']}", {"state_id": a["state_id"], "name": a["name"]}


@op("rename", state_id="state", name="str!", new_name="str!", source="str?")
def _rename(svc: StateService, a: dict[str, Any]) -> Result:
    var = svc.rename(a["state_id"], a["name"], a["new_name"], **_pick(a, "source"))
    return f"{a['state_id']} {var.name} {var.type} {var.scope}", {"state_id": a["state_id"], "variable": to_data(var)}


@op("purge_expired", state_id="state")
def _purge_expired(svc: StateService, a: dict[str, Any]) -> Result:
    purged = svc.purge_expired(a["state_id"])
    return f"purged {len(purged)} variable(s) from {a['state_id']}", {"state_id": a["state_id"], "purged": purged}


# -- checkpoints, history, export -------------------------------------------------------------
@op("checkpoint", state_id="state", name="str!", description="str?")
def _checkpoint(svc: StateService, a: dict[str, Any]) -> Result:
    ckpt = svc.checkpoint(a["state_id"], a["name"], a.get("description"))
    return ckpt.checkpoint_id, {"state_id": a["state_id"], "checkpoint": to_data(ckpt)}


@op("checkpoints", state_id="state")
def _checkpoints(svc: StateService, a: dict[str, Any]) -> Result:
    found = svc.checkpoints(a["state_id"])
    return (
        f"{len(found)} checkpoint(s) of {a['state_id']}",
        {"state_id": a["state_id"], "checkpoints": [to_data(c) for c in found]},
    )


@op("delete_checkpoint", state_id="state", checkpoint_id="str!")
def _delete_checkpoint(svc: StateService, a: dict[str, Any]) -> Result:
    svc.delete_checkpoint(a["state_id"], a["checkpoint_id"])
    return (
        f"deleted {a['checkpoint_id']} of {a['state_id']}",
        {"state_id": a["state_id"], "checkpoint_id": a["checkpoint_id"]},
    )


@op("rollback", state_id="state", checkpoint_id="str!", source="str?")
def _rollback(svc: StateService, a: dict[str, Any]) -> Result:
    ckpt = svc.rollback(a["state_id"], a["checkpoint_id"], **_pick(a, "source"))
    return (
        f"rolled {a['state_id']} back to {ckpt.checkpoint_id}",
        {"state_id": a["state_id"], "checkpoint": to_data(ckpt)},
    )


@op("history", state_id="state", limit="count?")
def _history(svc: StateService, a: dict[str, Any]) -> Result:
    found = svc.history(a["state_id"], a.get("limit"))
    return (
        f"{len(found)} mutation(s) of {a['state_id']}",
        {"state_id": a["state_id"], "mutations": [to_data(m) for m in found]},
    )


@op("export", state_id="state", include_shared="bool")
def _export(svc: StateService, a: dict[str, Any]) -> Result:
    doc = svc.export(a["state_id"], **_pick(a, "include_shared"))
    return f"exported {a['state_id']}", {"state_id": a["state_id"], "document": doc}
