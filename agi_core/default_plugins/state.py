"""``agi state``: the RLM variable state commands, added through the same hook third-party commands use."""

from __future__ import annotations

import click

from agi_core.hookspecs import hookimpl
from agi_core.state.cli import state_group


@hookimpl
def agi_register_commands(cli: click.Group) -> None:
    cli.add_command(state_group)
