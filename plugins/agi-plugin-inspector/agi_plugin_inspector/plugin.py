"""Registers ``agi serve``, named lazily: ``agi --help`` imports neither this package's server nor Starlette."""

from __future__ import annotations

import click

from agi_core.hookspecs import hookimpl

SERVE = (
    "agi_plugin_inspector.cli:serve",
    "Inspect the agent in a browser: ticks, replay, goals, modules, memory, checkpoints (read-only by default).",
)


@hookimpl
def agi_register_commands(cli: click.Group) -> None:
    add_lazy = getattr(cli, "add_lazy_command", None)
    if add_lazy is not None:
        add_lazy("serve", *SERVE)
        return
    from agi_plugin_inspector.cli import serve  # a plain click group: import the command now

    cli.add_command(serve, "serve")
