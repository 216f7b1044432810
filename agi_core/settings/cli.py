"""``agi config``: list, set and unset plugin settings (set and unset are journaled ticks)."""

from __future__ import annotations

import json
from typing import Any

import click

from agi_core.errors import ValidationError
from agi_core.serialization import dumps
from agi_core.settings import schema


@click.group("config")
def config_group() -> None:
    """List and change plugin settings (PLUGIN.KEY); AGI_PLUGIN_<PLUGIN>_<KEY> overrides."""


def _split(name: str) -> tuple[str, str]:
    plugin, dot, key = name.rpartition(".")
    if not dot or not plugin or not key:
        raise ValidationError(
            f"{name!r} is not PLUGIN.KEY; agi config list shows the settings, e.g. sensors.clock_every_s"
        )
    return plugin, key


@config_group.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_obj
def config_list(state: Any, as_json: bool) -> None:
    """Print every plugin setting: value, where it comes from, description."""
    rows = state.open_kernel(existing=True).plugin_settings.rows()
    if as_json:
        click.echo(json.dumps(rows, ensure_ascii=False))
        return
    for row in rows:
        click.echo(f"{row['plugin']}.{row['key']} = {dumps(row['value'])}\t({row['source']})\t{row['description']}")


@config_group.command("set", context_settings={"ignore_unknown_options": True})
@click.argument("name", metavar="PLUGIN.KEY")
@click.argument("value")
@click.pass_obj
def config_set(state: Any, name: str, value: str) -> None:
    """Store VALUE (JSON, or text for a string setting or a choice among strings) as PLUGIN.KEY; a journaled tick."""
    kernel = state.open_kernel(offline=True)
    plugin, key = _split(name)
    prop = schema.schema_for(kernel.plugin_settings.declared, plugin, key)
    parsed = schema.check_value(plugin, key, prop, schema.parse(plugin, key, prop, value))
    click.echo(kernel.command("config_set", {"plugin": plugin, "key": key, "value": parsed}).final_output)


@config_group.command("unset")
@click.argument("name", metavar="PLUGIN.KEY")
@click.pass_obj
def config_unset(state: Any, name: str) -> None:
    """Forget the stored PLUGIN.KEY, so its default applies; a journaled tick."""
    plugin, key = _split(name)
    click.echo(state.open_kernel(offline=True).command("config_unset", {"plugin": plugin, "key": key}).final_output)
