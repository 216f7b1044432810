"""The core commands: run, chat, plugins, memory get/put/facts (registered by ``default_plugins/commands.py``)."""

from __future__ import annotations

import json
import sys
from typing import Any

import click

from agi_core.model import ToolDefinition
from agi_core.serialization import dumps, to_data
from agi_core.tools import ToolPolicy

_allow_tool = click.option(
    "--allow-tool",
    "allow_tools",
    multiple=True,
    metavar="NAME",
    help="Let this write/external tool run without asking (repeatable).",
)


def _policy(allow_tools: tuple[str, ...], confirm: Any = None) -> ToolPolicy:
    return ToolPolicy(allow_tools=frozenset(allow_tools), confirm=confirm)


@click.command()
@click.option("--jsonl", is_flag=True, help="Print each tick's journal record as one JSON line.")
@_allow_tool
@click.pass_obj
def run(state: Any, jsonl: bool, allow_tools: tuple[str, ...]) -> None:
    """Run one tick per line of standard input and print the replies."""
    kernel = state.open_kernel(policy=_policy(allow_tools))
    for record in kernel.run(sys.stdin):
        click.echo(dumps(to_data(record)) if jsonl else record.final_output)


@click.command()
@_allow_tool
@click.pass_obj
def chat(state: Any, allow_tools: tuple[str, ...]) -> None:
    """Talk to the agent; write/external tools ask for confirmation. Ctrl-D or 'exit' quits."""

    def confirm(tool: ToolDefinition, args: dict[str, Any]) -> bool:
        return click.confirm(f"Allow {tool.effect} tool {tool.name} with {dumps(args)}?", default=False)

    kernel = state.open_kernel(policy=_policy(allow_tools, confirm))
    click.echo(f"agi chat ({state.db}, seed {kernel.config.seed}); type 'exit' to quit.")
    while True:
        try:
            line = click.prompt("you", prompt_suffix="> ", default="", show_default=False)
        except (EOFError, click.exceptions.Abort):
            click.echo()
            return
        if line.strip() in {"exit", "quit"}:
            return
        if line.strip():
            record = kernel.tick(line)
            click.echo(f"agent> {record.final_output}")


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Print JSON (name, version, hooks).")
@click.pass_obj
def plugins(state: Any, as_json: bool) -> None:
    """List the loaded plugins and the plugins that failed."""
    rows = [to_data(info) for info in state.plugins.info()]
    failures = [to_data(failure) for failure in state.plugins.failures]
    if as_json:
        click.echo(json.dumps({"plugins": rows, "failures": failures}, indent=2))
        return
    for row in rows:
        click.echo(f"{row['name']} {row['version']}: {', '.join(row['hooks'])}")
    for failure in failures:
        click.echo(f"FAILED {failure['plugin']} ({failure['stage']}): {failure['cause']}")


@click.command("get")
@click.argument("key")
@click.pass_obj
def memory_get(state: Any, key: str) -> None:
    """Print the read contract {exists, value, last_updated} of KEY."""
    click.echo(dumps(to_data(state.open_kernel(existing=True).get_fact(key))))


@click.command("put")
@click.argument("key")
@click.argument("value")
@click.pass_obj
def memory_put(state: Any, key: str, value: str) -> None:
    """Store VALUE (JSON, or a plain string) under the canonical KEY."""
    try:
        parsed: Any = json.loads(value)
    except json.JSONDecodeError:
        parsed = value
    click.echo(state.open_kernel().put_fact(key, parsed).final_output)


@click.command("facts")
@click.option("--prefix", default="", help="Only keys starting with this.")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON array.")
@click.pass_obj
def memory_facts(state: Any, prefix: str, as_json: bool) -> None:
    """List stored facts."""
    facts = state.open_kernel(existing=True).store.facts(prefix)
    if as_json:
        click.echo(json.dumps([to_data(fact) for fact in facts], indent=2, ensure_ascii=False))
        return
    for fact in facts:
        click.echo(f"{fact.key} = {dumps(fact.value)}  ({fact.updated_at})")
