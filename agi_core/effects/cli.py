"""``agi intents``: write/external calls whose receipt was never recorded, and closing them."""

from __future__ import annotations

import json
from typing import Any

import click

from agi_core.serialization import to_data


def warn_pending(kernel: Any) -> None:
    """One line on stderr when the agent has intents without a receipt whose process is gone (a crash
    between the two); one that a live process is executing right now is not reported."""
    pending = kernel.orphaned_intents()
    if pending:
        ticks = ", ".join(str(intent.tick) for intent in pending)
        click.echo(
            f"agi: warning: {len(pending)} write/external call(s) without a receipt (intent at tick {ticks}); "
            "they may or may not have taken effect and are not re-run; see agi intents",
            err=True,
        )


@click.command("intents")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON array.")
@click.option("--retry", type=int, metavar="TICK", help="Run the intent of TICK again (idempotent tools only).")
@click.option("--abandon", type=int, metavar="TICK", help="Close the intent of TICK with a failed receipt.")
@click.pass_obj
def intents(state: Any, as_json: bool, retry: int | None, abandon: int | None) -> None:
    """List write/external tool calls committed as intents but never receipted."""
    kernel = state.open_kernel(existing=True, warn=False)
    if retry is not None:
        click.echo(kernel.retry_intent(retry).final_output)
        return
    if abandon is not None:
        click.echo(kernel.abandon_intent(abandon).final_output)
        return
    pending = kernel.pending_intents()
    running = {intent.tick for intent in pending if kernel.inflight.running(intent.tick)}
    if as_json:
        rows = [{**to_data(intent), "running": intent.tick in running} for intent in pending]
        click.echo(json.dumps(rows, ensure_ascii=False))
        return
    for intent in pending:
        click.echo(intent.line() + (" (running in another process)" if intent.tick in running else ""))
    if not pending:
        click.echo("no pending intents")
