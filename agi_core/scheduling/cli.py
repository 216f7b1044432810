"""``agi schedule add|list|remove`` and the ``agi run --follow`` runner."""

from __future__ import annotations

import json
import math
import sys
from typing import Any

import click

from agi_core.errors import ValidationError
from agi_core.inputs import reply_line
from agi_core.scheduling.clock import PinnedClock, WallClock, wall_clock
from agi_core.scheduling.commands import list_jobs
from agi_core.scheduling.when import check_cron, parse_at_ms, parse_every_ms
from agi_core.serialization import dumps, to_data


@click.group("schedule")
def schedule() -> None:
    """Scheduled jobs: each says its text as a tick (source schedule:NAME) when due, under agi run --follow."""


@schedule.command("add")
@click.argument("name")
@click.option("--every", metavar="DURATION", help="Repeat this often: 1s, 1.5s, 5m, 1h30m, 2d (1s or more; whole ms).")
@click.option("--at", "at", metavar="TIME", help="Once, at this ISO 8601 time (2026-11-23T14:00:00Z; no offset: UTC).")
@click.option("--cron", metavar="EXPR", help="On a cron schedule, in UTC: '*/5 * * * *' (croniter syntax).")
@click.option("--say", required=True, metavar="TEXT", help="The input the job's tick gets.")
@click.pass_obj
def schedule_add(state: Any, name: str, every: str | None, at: str | None, cron: str | None, say: str) -> None:
    """Add job NAME (one of --every, --at, --cron); a journaled tick of its own."""
    given = [option for option, value in (("--every", every), ("--at", at), ("--cron", cron)) if value is not None]
    if len(given) != 1:
        raise ValidationError(f"agi schedule add needs exactly one of --every, --at, --cron (got {len(given)})")
    args: dict[str, Any] = {"name": name, "say": say}
    if every is not None:
        args["every_ms"] = parse_every_ms(every)
    elif at is not None:
        args["at_ms"] = parse_at_ms(at)
    else:
        args["cron"] = check_cron(str(cron))
    click.echo(state.open_kernel(clock=wall_clock()).command("schedule_add", args).final_output)


@schedule.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON array (times in ms since the epoch).")
@click.pass_obj
def schedule_list(state: Any, as_json: bool) -> None:
    """List the jobs, with their next due time, runs and missed (coalesced) runs."""
    found = list_jobs(state.open_kernel(existing=True))
    if as_json:
        click.echo(json.dumps([to_data(job) for job in found], indent=2, ensure_ascii=False))
        return
    for job in found:
        click.echo(job.line())


@schedule.command("remove")
@click.argument("name")
@click.pass_obj
def schedule_remove(state: Any, name: str) -> None:
    """Remove job NAME; a journaled tick of its own."""
    click.echo(state.open_kernel().command("schedule_remove", {"name": name}).final_output)


def show_tick(record: Any, jsonl: bool) -> None:
    """Print a tick as ``agi run`` does: its record as one JSON line, or its reply, after the line that says what
    another agent's message said (the reply alone never showed the user bob's answer)."""
    from agi_core.messaging.inbox import heard

    if jsonl:
        click.echo(dumps(to_data(record)))
        return
    if (said := heard(record)) is not None:
        click.echo(said)
    click.echo(reply_line(record.final_output))


def run_follow(
    state: Any,
    options: dict[str, Any],
    clock_every_ms: int | None,
    jsonl: bool,
    maintain_every_ms: int | None = None,
    step_every_ms: int | None = None,
) -> None:
    """Run the follow loop until SIGINT or SIGTERM; the tick under way finishes first."""
    import threading

    from agi_core.memory.reconnect import wait_to_open
    from agi_core.scheduling.follow import Follow, stop_on_signals
    from agi_core.scheduling.sensors import StdinReader

    # the agent's life outlasts a database restart: ticks wait for a server backend as long as it takes,
    # and so does opening it when the server is down at the start
    stop = threading.Event()
    with stop_on_signals(stop) as closing:
        kernel = wait_to_open(
            lambda: state.open_kernel(clock=PinnedClock(WallClock()), reconnect_s=math.inf, **options), stop
        )
        stream = getattr(sys.stdin, "buffer", None)
        stdin = StdinReader(stream, kernel.config.max_input_bytes) if stream is not None else None
        if clock_every_ms is None:  # no --clock-every: the sensors plugin's clock_every_s setting
            clock_every_ms = getattr(kernel.sensors.get("clock"), "configured_ms", None)
        loop = Follow(
            kernel,
            stdin=stdin,
            clock_every_ms=clock_every_ms,
            maintain_every_ms=maintain_every_ms,
            step_every_ms=step_every_ms,
            stop=stop,
        )
        click.echo("agi: following; SIGINT (Ctrl-C) or SIGTERM stops after the current tick", err=True)
        for record in loop.run():
            show_tick(record, jsonl)
            sys.stdout.flush()
        closing.set()  # a second SIGTERM now waits for the seal instead of killing the process before it
        ticks = kernel.tick_count
        state.close()  # seals the ticks of this run
    click.echo(f"agi: stopped at tick {ticks}", err=True)
