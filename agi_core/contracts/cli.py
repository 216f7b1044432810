"""``agi contracts``: list the registered contracts, validate an output against one."""

from __future__ import annotations

import json
import sys
from typing import Any

import click

from agi_core.contracts.frozen import thaw
from agi_core.contracts.registry import ContractRegistry, registry_from_plugins
from agi_core.contracts.validate import validate_and_normalize
from agi_core.errors import AgiError, ValidationError, debug_enabled


def _plugins(ctx: click.Context) -> Any:
    plugins = getattr(ctx.obj, "plugins", None)
    if plugins is None:
        from agi_core.plugins import load_plugins

        plugins = load_plugins()
    return plugins


def _registry(ctx: click.Context) -> ContractRegistry:
    return registry_from_plugins(_plugins(ctx))


def _used_by(plugins: Any) -> dict[str, list[str]]:
    """``{contract: [module, ...]}``: the registered cognitive modules that call each contract (their ``contracts``)."""
    users: dict[str, list[str]] = {}
    for registration in plugins.register_modules().values():
        named = getattr(registration.obj, "contracts", ())
        for contract in named if isinstance(named, (list, tuple)) else ():
            if isinstance(contract, str):
                users.setdefault(contract, []).append(registration.name)
    return {contract: sorted(set(modules)) for contract, modules in users.items()}


@click.group(name="contracts")
def contracts() -> None:
    """LLM output contracts: list them, check an output against one."""


@contracts.command(name="list")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON array instead of a table.")
@click.option("--markdown", is_flag=True, help="Print the Markdown table of docs/contracts.md.")
@click.pass_context
def list_command(ctx: click.Context, as_json: bool, markdown: bool) -> None:
    """List every registered contract: name, family, plugin, required fields.

    With --json, also the seed module, whether it has a fallback, and used_by: the modules that call it.
    """
    registry = _registry(ctx)
    rows = [
        {
            "name": e.contract.name,
            "family": e.contract.family,
            "plugin": e.plugin,
            "required_fields": len(e.contract.required_paths()),
            "owner_module": e.contract.owner_module,
            "fallback": e.contract.fallback is not None,
        }
        for e in registry.entries()
    ]
    if as_json:
        used_by = _used_by(_plugins(ctx))
        click.echo(json.dumps([{**row, "used_by": used_by.get(str(row["name"]), [])} for row in rows], indent=2))
        return
    if markdown:
        click.echo("| Contract | Family | Plugin | Required fields | Fallback | Seed module |")
        click.echo("| --- | --- | --- | ---: | --- | --- |")
        for r in rows:
            click.echo(
                f"| `{r['name']}` | {r['family']} | {r['plugin']} | {r['required_fields']} | "
                f"{'yes' if r['fallback'] else 'no'} | `{r['owner_module']}` |"
            )
        return
    table = [("NAME", "FAMILY", "PLUGIN", "REQUIRED")]
    table += [(str(r["name"]), str(r["family"]), str(r["plugin"]), str(r["required_fields"])) for r in rows]
    widths = [max(len(row[i]) for row in table) for i in range(3)]
    for row in table:
        click.echo("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=False)) + "  " + row[3])
    click.echo(f"{len(rows)} contracts")


@contracts.command(name="validate")
@click.argument("name")
@click.argument("file", type=click.File("r", encoding="utf-8", errors="replace"))
@click.pass_context
def validate_command(ctx: click.Context, name: str, file: Any) -> None:
    """Check the output in FILE ('-' for stdin) against contract NAME.

    Prints the normalized JSON, or each problem with its JSON path and exits 1.
    """
    try:
        contract = _registry(ctx)[name]
    except AgiError as exc:
        if debug_enabled():
            raise
        raise click.ClickException(str(exc)) from None
    try:
        text = file.read()
    except UnicodeDecodeError as exc:
        raise ValidationError(
            f"{file.name} is not UTF-8 text (byte {exc.start} is invalid); save the output as UTF-8 and retry"
        ) from None
    result = validate_and_normalize(contract, text)
    if result.value is None:
        click.echo(f"Error: the output violates contract {name!r} ({result.reason}):", err=True)
        for issue in result.errors:
            click.echo(f"  {issue}", err=True)
        sys.exit(1)  # not ctx.exit: `agi` runs click with standalone_mode=False, which swallows it
    click.echo(json.dumps(thaw(result.value), indent=2, ensure_ascii=False))


__all__ = ["contracts"]
