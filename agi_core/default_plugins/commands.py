"""The built-in CLI commands, added through the same hook third-party commands use."""

from __future__ import annotations

import click

from agi_core.cli.commands import register_core_commands
from agi_core.hookspecs import hookimpl


@hookimpl
def agi_register_commands(cli: click.Group) -> None:
    register_core_commands(cli)
