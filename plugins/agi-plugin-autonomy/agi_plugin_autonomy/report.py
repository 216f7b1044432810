"""What autonomy reports about the agent, heuristically, kept in its state for ``agi modules show autonomy``
(each gives way to its contract's validated model answer):

- ``runtime_analytics``: the signals off target, as alerts, and a one-line summary;
- ``runtime_dash``: one line per day (the tick clock's UTC day): autonomous ticks and goals asked;
- ``jsonl_logger``: each autonomous tick's event, tagged (source, signal, goal kind) with a priority.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any

from agi_plugin_autonomy.signals import pressure

HIGH_PRESSURE = 0.5


def alerts(current: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {"metric": m, "value": s["value"], "target": s["target"], "pressure": pressure(s)}
        for m, s in sorted(current.items())
        if pressure(s) > 0
    ]


def plain(alert: Mapping[str, Any]) -> dict[str, Any]:
    """A model's alert, kept small: its first 8 fields with a short name and a scalar value (texts cut to 200)."""
    kept = [(str(k)[:40], v) for k, v in alert.items() if isinstance(v, str | int | float | bool)][:8]
    return {k: v[:200] if isinstance(v, str) else v for k, v in kept}


def summary(found: list[dict[str, Any]], total: int) -> str:
    if not found:
        return f"all {total} signals on target"
    worst = ", ".join(f"{a['metric']} {a['value']:g} (target {a['target']:g})" for a in found)
    return f"{len(found)} of {total} signals off target: {worst}"[:400]


def day(now_ms: int) -> str:
    return dt.datetime.fromtimestamp(now_ms / 1000, tz=dt.UTC).date().isoformat()


def daily(metrics: dict[str, Any]) -> str:
    return (
        f"{metrics['day']}: {metrics['autonomous_ticks']} autonomous ticks, {metrics['goals_asked']} goals asked, "
        f"{metrics['open_goals']} open"
    )


def tags(why: dict[str, Any]) -> tuple[list[str], str]:
    found = [str(why["source"]), str(why["signal"]["metric"])]
    if why.get("goal"):
        found.append(str(why["goal"]["kind"]))
    return found, "high" if why["signal"]["pressure"] >= HIGH_PRESSURE else "normal"
