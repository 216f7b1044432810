"""``agi modules``: the cognitive modules, their phases, contracts and state; ``show`` dumps a state."""

from __future__ import annotations

import json
from typing import Any

import click

from agi_core.errors import ValidationError
from agi_core.memory.backend import ModuleStateStore
from agi_core.modules.state import dump_state


def module_rows(kernel: Any) -> list[dict[str, Any]]:
    """The modules in run order: name, plugin, priority, phases, contracts and the size of their stored state."""
    sizes = kernel.store.module_state_sizes() if isinstance(kernel.store, ModuleStateStore) else {}
    return [
        {
            "name": module.name,
            "plugin": module.plugin,
            "priority": module.priority,
            "phases": [*module.phases, *(["vote"] if module.votes else [])],
            "contracts": list(module.contracts),
            "state_keys": sizes.get(module.name, (0, 0))[0],
            "state_bytes": sizes.get(module.name, (0, 0))[1],
        }
        for module in kernel.modules
    ]


@click.group("modules", invoke_without_command=True)
@click.option("--json", "as_json", is_flag=True, help="Print a JSON array.")
@click.pass_context
def modules(ctx: click.Context, as_json: bool) -> None:
    """List the cognitive modules in run order: plugin, priority, phases, contracts, state size."""
    if ctx.invoked_subcommand is not None:
        return
    rows = module_rows(ctx.obj.open_kernel(existing=True, warn=False))
    if as_json:
        click.echo(json.dumps(rows, ensure_ascii=False))
        return
    for row in rows:
        click.echo(
            f"{row['name']}  plugin={row['plugin']}  priority={row['priority']}  phases={','.join(row['phases'])}  "
            f"contracts={','.join(row['contracts']) or '-'}  state={row['state_keys']} keys, {row['state_bytes']} bytes"
        )
    if not rows:
        click.echo("no modules")


@modules.command("show")
@click.argument("name")
@click.option("--json", "as_json", is_flag=True, help="Print the state as one JSON object.")
@click.pass_obj
def show(state: Any, name: str, as_json: bool) -> None:
    """Print module NAME's stored state (key = value, or --json)."""
    kernel = state.open_kernel(existing=True, warn=False)
    known = [module.name for module in kernel.modules]
    stored = dump_state(kernel.store, name)
    if name not in known and not stored:
        raise ValidationError(f"no module named {name!r}; installed: {', '.join(known) or 'none'} (see agi modules)")
    if as_json:
        click.echo(json.dumps(stored, ensure_ascii=False, sort_keys=True))
        return
    for key, value in stored.items():
        click.echo(f"{key} = {json.dumps(value, ensure_ascii=False)}")
