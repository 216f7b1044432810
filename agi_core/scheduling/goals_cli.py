"""``agi goals list|add|done|fail|block|activate|move|step``: the goal store from the command line."""

from __future__ import annotations

import json
import math
from typing import Any

import click

from agi_core.errors import ValidationError
from agi_core.serialization import to_data

TIMEOUT_S_MAX = 86_400  # a day; beyond some 9e9 s the thread wait itself overflows


class Seconds(click.ParamType):
    """A time limit in seconds: a finite number from 0 (no limit) to a day; -1, nan and 1e400 are refused."""

    name = "SECONDS"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> float:
        try:
            seconds = float(value)
        except (TypeError, ValueError):
            seconds = math.nan
        if not (math.isfinite(seconds) and 0 <= seconds <= TIMEOUT_S_MAX):
            raise ValidationError(
                f"--timeout {value} is not a number of seconds from 0 (no limit) to {TIMEOUT_S_MAX}; "
                "give e.g. --timeout 5"
            )
        return seconds


class Priority(click.ParamType):
    """A goal's priority: a number from 0 to 1; nan, inf and 1e400 are refused here, not at the journal."""

    name = "FLOAT"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> float:
        try:
            priority = float(value)
        except (TypeError, ValueError):
            priority = math.nan
        if not 0.0 <= priority <= 1.0:  # NaN fails too
            raise ValidationError(f"--priority {value} is not a number from 0 to 1; give e.g. --priority 0.8")
        return priority


@click.group("goals")
def goals_group() -> None:
    """Goals: a DAG with one active goal, each with a plan of at most 20 steps; each change is a journaled tick."""


@goals_group.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON array of the goals, oldest first.")
@click.pass_obj
def goals_list(state: Any, as_json: bool) -> None:
    """List the goals: id, status, title, priority, progress, plan steps and parent."""
    from agi_core.scheduling import goals

    store = state.open_kernel(existing=True).store
    if as_json:
        click.echo(json.dumps([to_data(goal) for goal in goals.all_goals(store)], indent=2, ensure_ascii=False))
        return
    click.echo(goals.listing(store) or "no goals yet; add one with: agi goals add 'learn French'")


@goals_group.command("add")
@click.argument("text")
@click.option("--parent", metavar="ID", help="Make it a subgoal of goal ID.")
@click.option("--priority", type=Priority(), default=0.5, show_default=True, help="From 0 to 1.")
@click.option("--step", "steps", multiple=True, metavar="'DO | ASSUMPTION'", help="A plan step (repeat, in order).")
@click.option("--activate", is_flag=True, help="Make it the active goal (else only when none is active).")
@click.option("--split", is_flag=True, help="Confirm a plan over 20 steps: split it into subgoals.")
@click.pass_obj
def goals_add(
    state: Any, text: str, parent: str | None, priority: float, steps: tuple[str, ...], activate: bool, split: bool
) -> None:
    """Add goal TEXT with its plan (--step, else a heuristic one); a journaled tick."""
    args = {"title": text, "parent": parent, "priority": priority, "steps": list(steps), "activate": activate}
    click.echo(state.open_kernel().command("goal_add", {**args, "split": split}).final_output)


def _status_command(name: str, status: str, summary: str) -> None:
    @goals_group.command(name, help=summary)
    @click.argument("goal_id", metavar="ID")
    @click.pass_obj
    def command(state: Any, goal_id: str) -> None:
        click.echo(state.open_kernel(existing=True).command("goal_set", {"id": goal_id, "status": status}).final_output)


_status_command("done", "done", "Mark goal ID done; the next open goal becomes active.")
_status_command("fail", "failed", "Mark goal ID failed; the next open goal becomes active.")
_status_command("block", "blocked", "Mark goal ID blocked (waiting on something); the next open goal becomes active.")
_status_command("activate", "active", "Make goal ID the active goal.")
_status_command("abandon", "abandoned", "Mark goal ID abandoned (given up); the next open goal becomes active.")


@goals_group.command("move")
@click.argument("goal_id", metavar="ID")
@click.option("--parent", metavar="ID", help="The new parent; leave out to move the goal to the top.")
@click.pass_obj
def goals_move(state: Any, goal_id: str, parent: str | None) -> None:
    """Put goal ID under another goal (a move that makes a cycle is refused)."""
    click.echo(state.open_kernel(existing=True).command("goal_move", {"id": goal_id, "parent": parent}).final_output)


@goals_group.command("step")
@click.option(
    "--allow-tool", "allow_tools", multiple=True, metavar="NAME", help="Let this write/external tool run (repeatable)."
)
@click.option(
    "--timeout",
    "timeout_s",
    type=Seconds(),
    default=2.0,
    show_default=True,
    help=f"Tool time limit (0: no limit; at most {TIMEOUT_S_MAX}).",
)
@click.pass_obj
def goals_step(state: Any, allow_tools: tuple[str, ...], timeout_s: float) -> None:
    """Run the active goal's next plan step as one tick (a contradicted assumption replans).

    A step that calls a write/external tool (allowed with --allow-tool) commits its intent,
    runs the tool, then commits the receipt as a second tick; both replies are printed.
    """
    from agi_core.tools import ToolPolicy

    policy = ToolPolicy(allow_tools=frozenset(allow_tools))
    kernel = state.open_kernel(existing=True, offline=False, policy=policy, timeout_s=timeout_s)
    for record in kernel.command_ticks("goal_step", {}):
        click.echo(record.final_output)
