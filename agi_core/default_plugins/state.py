"""``agi state``: the RLM variable state commands, added through the same hook third-party commands use."""

from __future__ import annotations

import click

from agi_core.default_plugins.commands import add_lazy
from agi_core.hookspecs import hookimpl

STATE_COMMANDS = {
    "state": (
        "agi_core.state.cli:state_group",
        "RLM variable state: named variables, checkpoints and rollback (each command is a tick).",
    )
}


@hookimpl
def agi_register_commands(cli: click.Group) -> None:
    add_lazy(cli, STATE_COMMANDS)
