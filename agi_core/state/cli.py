"""``agi state ...``: each command is one kernel tick running one op of :mod:`agi_core.state.commands`.

A command calls ``ctx.obj.open_kernel().command("state", {"op": ..., "args": {...}})`` and
prints from the journaled result, so everything the CLI does is in the journal and replays.
Errors are :class:`~agi_core.errors.AgiError` subclasses; the ``agi`` main prints them as one
line and exits 1. The kernel belongs to ``ctx.obj``, which closes it.
"""

from __future__ import annotations

import json
from typing import Any

import click

from agi_core.serialization import from_data
from agi_core.state.commands import dump_value
from agi_core.state.model import SCOPES, VARIABLE_TYPES, Mutation

RAW_TYPES = ("text", "file_path", "file_content")
READ_ONLY_OPS = frozenset({"get", "variables", "states", "checkpoints", "history", "export", "tree"})


def run_op(obj: Any, op: str, /, **args: Any) -> Any:
    """Run state op ``op`` as one tick of the CLI's kernel; return its journaled result.

    Options left at None are not sent, so the service's defaults apply (and the journal
    records only what the user gave). A read-only op on a missing database creates nothing.
    """
    given = {key: value for key, value in args.items() if value is not None}
    record = obj.open_kernel(existing=op in READ_ONLY_OPS).command("state", {"op": op, "args": given})
    return record.agent_outputs["state"]


def parse_value(raw: str, vtype: str | None) -> Any:
    """The CLI's VALUE: raw text for text-like types (and no type), JSON for the others."""
    if vtype is None or vtype in RAW_TYPES:
        return raw
    try:
        return json.loads(raw)
    except ValueError:
        raise click.BadParameter(
            f"{raw!r} is not JSON; a {vtype} value is written as JSON, e.g. 3, true, null, [1,2] or '{{\"a\":1}}'"
        ) from None


def _inputs(items: tuple[str, ...]) -> dict[str, str] | None:
    pairs = {}
    for item in items:
        child, sep, parent = item.partition("=")
        pairs[child] = parent if sep else child
    return pairs or None


state_option = click.option(
    "--state", "state_id", metavar="STATE_ID", help="State to use (default: the most recently created)."
)


@click.group(name="state")
def state_group() -> None:
    """RLM variable state: named variables, checkpoints and rollback (each command is a tick)."""


@state_group.command("create")
@click.argument("prompt")
@click.option("--session", "session_id", help="Session id grouping related states.")
@click.option("--tree", "tree_id", metavar="TREE_ID", help="Task tree id (tree-xxxxxxxx).")
@click.option("--new-tree", is_flag=True, help="Start a new task tree.")
@click.option("--parent", "parent_state_id", metavar="STATE_ID", help="Parent state (task tree).")
@click.option(
    "--input",
    "inputs",
    multiple=True,
    metavar="CHILD=PARENT",
    help="Copy the parent's variable PARENT into the child as CHILD (repeatable).",
)
@click.option("--result", "result_name", metavar="NAME", help="Parent variable receiving Final.")
@click.pass_obj
def create(
    obj: Any,
    prompt: str,
    session_id: str | None,
    tree_id: str | None,
    new_tree: bool,
    parent_state_id: str | None,
    inputs: tuple[str, ...],
    result_name: str | None,
) -> None:
    """Create a state whose read-only prompt is PROMPT; print its id."""
    info = run_op(
        obj,
        "create_state",
        prompt=prompt,
        session_id=session_id,
        tree_id=tree_id,
        new_tree=new_tree or None,
        parent_state_id=parent_state_id,
        inputs=_inputs(inputs),
        result_name=result_name,
    )
    click.echo(info["state_id"])


@state_group.command("set")
@click.argument("name")
@click.argument("value")
@click.option("--type", "vtype", type=click.Choice(VARIABLE_TYPES), help="Variable type (default text).")
@click.option("--scope", type=click.Choice(SCOPES), help="Scope (default: state, or the existing one).")
@click.option(
    "--ttl",
    "ttl_seconds",
    type=int,
    help="TTL in seconds of the wall clock (read once in the tick, recorded) for --scope temporary.",
)
@click.option("--description", help="What the variable is for.")
@state_option
@click.pass_obj
def set_(
    obj: Any,
    name: str,
    value: str,
    vtype: str | None,
    scope: str | None,
    ttl_seconds: int | None,
    description: str | None,
    state_id: str | None,
) -> None:
    """Set variable NAME to VALUE (JSON unless the type is text, file_path or file_content)."""
    result = run_op(
        obj,
        "set",
        state_id=state_id,
        name=name,
        value=parse_value(value, vtype),
        type=vtype or "text",
        scope=scope,
        ttl_seconds=ttl_seconds,
        description=description,
        source="cli",
    )
    var = result["variable"]
    click.echo(f"{result['state_id']} {var['name']} {var['type']} {var['scope']}")


@state_group.command("get")
@click.argument("name")
@state_option
@click.pass_obj
def get(obj: Any, name: str, state_id: str | None) -> None:
    """Print the value of NAME as JSON."""
    click.echo(dump_value(run_op(obj, "get", state_id=state_id, name=name)["value"]))


@state_group.command("delete")
@click.argument("name")
@state_option
@click.pass_obj
def delete(obj: Any, name: str, state_id: str | None) -> None:
    """Delete variable NAME."""
    run_op(obj, "delete", state_id=state_id, name=name, source="cli")


@state_group.command("list")
@click.option("--states", "all_states", is_flag=True, help="List the states instead.")
@state_option
@click.pass_obj
def list_(obj: Any, all_states: bool, state_id: str | None) -> None:
    """List the variables a state sees (NAME TYPE SCOPE), or every state."""
    if all_states:
        for s in run_op(obj, "states")["states"]:
            click.echo(f"{s['state_id']} {s['completion_status']} {s['parent_state_id'] or '-'}")
        return
    for v in run_op(obj, "variables", state_id=state_id)["variables"]:
        click.echo(f"{v['name']} {v['type']} {v['scope']}")


@state_group.command("tree")
@click.option("--goal", metavar="GOAL_ID", help="The task tree of goal GOAL_ID (default: the state's tree).")
@state_option
@click.pass_obj
def tree(obj: Any, goal: str | None, state_id: str | None) -> None:
    """Print a task tree from its root: STATE_ID [STATUS] PROMPT (-> RESULT_NAME) and each Final."""
    result = run_op(obj, "tree", state_id=state_id, goal=goal)
    for line in tree_lines(result["tree"]):
        click.echo(line)


def tree_lines(node: dict[str, Any], depth: int = 0) -> list[str]:
    """One line per state, children indented; ``Final: VALUE`` once the state completed."""
    lands = f" -> {node['result_name']}" if node["result_name"] else ""
    final = f"  Final: {dump_value(node['final'])}" if node["final"] is not None else ""
    lines = [f"{'  ' * depth}{node['state_id']} [{node['status']}] {node['prompt']}{lands}{final}"]
    for child in node["children"]:
        lines.extend(tree_lines(child, depth + 1))
    return lines


@state_group.command("checkpoint")
@click.argument("name")
@click.option("--description", help="What happened at this checkpoint.")
@state_option
@click.pass_obj
def checkpoint(obj: Any, name: str, description: str | None, state_id: str | None) -> None:
    """Snapshot the state's variables as checkpoint NAME; print its id."""
    result = run_op(obj, "checkpoint", state_id=state_id, name=name, description=description)
    click.echo(result["checkpoint"]["checkpoint_id"])


@state_group.command("checkpoints")
@state_option
@click.pass_obj
def checkpoints(obj: Any, state_id: str | None) -> None:
    """List checkpoints (ID NAME TIMESTAMP), oldest first."""
    for c in run_op(obj, "checkpoints", state_id=state_id)["checkpoints"]:
        click.echo(f"{c['checkpoint_id']} {c['name']} {c['timestamp']}")


@state_group.command("rollback")
@click.argument("checkpoint_id", metavar="CKPT")
@state_option
@click.pass_obj
def rollback(obj: Any, checkpoint_id: str, state_id: str | None) -> None:
    """Restore the state's variables exactly as they were at checkpoint CKPT."""
    run_op(obj, "rollback", state_id=state_id, checkpoint_id=checkpoint_id, source="cli")


@state_group.command("history")
@click.option("--limit", type=click.IntRange(min=1), help="Only the newest LIMIT entries.")
@state_option
@click.pass_obj
def history(obj: Any, limit: int | None, state_id: str | None) -> None:
    """Print the mutation log, one JSON object per line, oldest first."""
    for entry in run_op(obj, "history", state_id=state_id, limit=limit)["mutations"]:
        click.echo(dump_value(from_data(entry, Mutation).to_document()))


@state_group.command("export")
@click.option("--shared/--own", default=False, help="Include tree, session and global variables.")
@state_option
@click.pass_obj
def export(obj: Any, shared: bool, state_id: str | None) -> None:
    """Print the state as a JSON document valid against schemas/rlm_state.json."""
    doc = run_op(obj, "export", state_id=state_id, include_shared=shared)["document"]
    click.echo(json.dumps(doc, ensure_ascii=False, indent=2))
