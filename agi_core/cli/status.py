"""``agi status``: what the agent holds, in a few lines (ticks, facts, goals, jobs, modules, last tick, and the
agi-core and plugin versions that wrote its ticks).

A view: it opens the agent read-only (a missing database is an error, nothing is created) and
runs no tick.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import click

from agi_core.brain.stage0.habits import quoted


def status_rows(kernel: Any) -> dict[str, Any]:
    """The figures ``agi status`` prints, as plain data."""
    from agi_core.memory import versions_meta
    from agi_core.scheduling import goals, jobs
    from agi_core.scheduling.clock import iso_ms
    from agi_core.serialization import from_data

    records, last_tick = kernel.store.journal_extent()
    facts = [fact for fact in kernel.store.facts() if fact.value is not None]
    all_goals = goals.all_goals(kernel.store)
    active = goals.active(kernel.store)
    all_jobs = [from_data(job, jobs.Job) for job in kernel.store.all_jobs()]
    due = [job.next_due_ms for job in all_jobs if job.next_due_ms is not None]
    last: dict[str, Any] | None = None
    rows = list(kernel.store.journal_rows(since=last_tick - 1)) if last_tick else []
    if rows:
        record = kernel.store.load_json(rows[-1][2])
        last = {
            "tick": rows[-1][0],
            "input": (record.get("input") or {}).get("raw"),
            "reply": record.get("final_output"),
        }
    return {
        "database": str(kernel.store.path) if hasattr(kernel.store, "path") else None,
        "ticks": records,
        "last_tick": last,
        "facts": len(facts),
        "user_facts": sum(1 for fact in facts if fact.key.startswith("user/")),
        "goals": dict(Counter(goal.status for goal in all_goals)),
        "active_goal": active.description if active is not None else None,
        "jobs": len(all_jobs),
        "next_job_due": iso_ms(min(due)) if due else None,
        "modules": [module.name for module in kernel.modules],
        "versions": versions_meta.history(kernel.store),  # which agi-core and plugins wrote the ticks, from which tick
        "written_by": versions_meta.spans(versions_meta.history(kernel.store), last_tick or 0),
    }


@click.command("status")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.pass_obj
def status_command(state: Any, as_json: bool) -> None:
    """Print the agent's ticks, facts, goals, jobs, modules, last tick and the versions that wrote its ticks
    (agi-core and plugins; runs no tick)."""
    rows = status_rows(state.open_kernel(existing=True, warn=False))
    if as_json:
        click.echo(json.dumps(rows, ensure_ascii=False))
        return
    goal_counts = ", ".join(f"{count} {status}" for status, count in sorted(rows["goals"].items())) or "none"
    lines = [
        f"ticks: {rows['ticks']}",
        f"facts: {rows['facts']} ({rows['user_facts']} about the user)",
        f"goals: {goal_counts}" + (f"; active: {quoted(rows['active_goal'])}" if rows["active_goal"] else ""),
        f"jobs: {rows['jobs']}" + (f", next due {rows['next_job_due']}" if rows["next_job_due"] else ""),
        f"modules: {', '.join(rows['modules']) or 'none'}",
    ]
    last = rows["last_tick"]
    if last is not None:
        said = quoted(last["input"]) if last["input"] is not None else "(no input)"
        lines.append(f"last tick: {last['tick']}: {said} → {quoted(last['reply'] or '')}")
    else:
        lines.append("last tick: none")
    lines += [f"written by: {span}" for span in rows["written_by"]]
    click.echo("\n".join(lines))
