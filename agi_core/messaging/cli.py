"""``agi init``, ``agi whoami`` and ``agi send``: an agent's name, and messages from the shell."""

from __future__ import annotations

from typing import Any

import click


@click.command("init")
@click.option("--name", required=True, help="The agent's name: lower-case letters, digits and _ (its address).")
@click.pass_obj
def init_command(state: Any, name: str) -> None:
    """Create the agent in --db, named NAME (its address agent.NAME for other agents)."""
    from agi_core.messaging.address import NAME_META, address, check_name

    check_name(name)
    kernel = state.open_kernel(warn=False)
    if kernel.store.meta_get(NAME_META) != name:
        kernel.command("set_name", {"name": name})
    click.echo(f"{name} {address(name)}")


@click.command("whoami")
@click.pass_obj
def whoami_command(state: Any) -> None:
    """Print the agent's name and address."""
    from agi_core.messaging.address import address, agent_name

    kernel = state.open_kernel(existing=True, warn=False)
    name = agent_name(kernel.store)
    click.echo(f"{name} {address(name)}")
