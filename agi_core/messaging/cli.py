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
    kernel = state.open_kernel(warn=False, new_folder=True)
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


@click.command("send")
@click.argument("name")
@click.argument("text")
@click.pass_obj
def send_command(state: Any, name: str, text: str) -> None:
    """Send TEXT to the agent NAME, as this database's agent (a journaled tick; AGI_MESSAGING_URL publishes it)."""
    import os

    from agi_core.errors import TransportUnreachable
    from agi_core.messaging.address import check_name, ensure_named

    check_name(name)
    url = os.environ.get("AGI_MESSAGING_URL")
    away = None
    try:
        kernel = state.open_kernel(existing=True, warn=False, **({"messaging": url} if url else {}))
    except TransportUnreachable as exc:  # the broker is away: the message waits in the outbox, as a running agent's
        away = str(exc).partition("; ")[0]
        kernel = state.open_kernel(existing=True, warn=False)
    if kernel.mailbox is not None:
        kernel.mailbox.check_recipient(name)  # an unknown agent: one line, nothing stored or sent
    ensure_named(kernel)  # the sender's name is stored before its first message
    record = kernel.command("send_message", {"to": name, "text": text})
    click.echo(record.final_output)
    if url is None:
        click.echo("agi: warning: AGI_MESSAGING_URL is not set; the message waits in the outbox", err=True)
    elif away is not None:
        click.echo(
            f"agi: warning: {away}; the message waits in the outbox (the recipient unchecked) and leaves with this "
            "agent's next agi run or agi send that reaches the server; start it (scripts/start_nats.sh)",
            err=True,
        )
