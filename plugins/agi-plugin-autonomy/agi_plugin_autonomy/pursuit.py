"""Goals pursued, heuristically (each rule gives way to its contract's validated model answer):

- ``goal_interpreter``: the user's goal as a phrase ("to learn French." → "learn French") and the
  action: ``remind`` (nothing done yet) or ``ask_progress`` (under way: "How is it going?");
- ``planner_support``: its steps ("learn French and visit Paris" → two): the reminder names the next;
- ``goal_priority_review``: a goal open for long fades (−:data:`FADE` per :data:`FADE_EVERY` ticks);
- ``runtime_job_manager``: which open goal goes first: by priority, but the other kind than the one
  asked last when it is within :data:`ROTATE_WITHIN`;
- ``scheduler``: open goals older than :data:`EXPIRE_AFTER` ticks expire.
"""

from __future__ import annotations

import re
from typing import Any

FADE, FADE_EVERY, FADE_MAX = 0.05, 10, 0.3
ROTATE_WITHIN = 0.25
EXPIRE_AFTER = 200


def normalized(description: str) -> str:
    text = " ".join(description.split()).strip(" .!")
    return re.sub(r"^(?:to|i want to|i'd like to)\s+", "", text, flags=re.I)[:200] or description[:200]


def action(progress: float) -> str:
    return "ask_progress" if 0 < progress < 1 else "remind"


def plan(goal: str) -> list[str]:
    return [s.strip() for s in re.split(r",\s*(?:and\s+)?|\s+and then\s+|\s+and\s+", goal) if s.strip()][:8]


def next_step(steps: list[str], progress: float) -> str | None:
    """The step at the goal's progress, when the plan has more than one step."""
    if len(steps) < 2:
        return None
    return steps[min(len(steps) - 1, int(progress * len(steps)))]


def faded(priority: float, age_ticks: int) -> float:
    return round(max(0.0, priority - min(FADE_MAX, FADE * (age_ticks // FADE_EVERY))), 4)


def first_job(jobs: list[dict[str, Any]], last_kind: str | None) -> str | None:
    """``jobs`` (priority order): the first, or the best of the other kind when close and ``last_kind`` was asked."""
    if not jobs:
        return None
    top = jobs[0]
    if top["kind"] == last_kind:
        other = next((j for j in jobs if j["kind"] != last_kind), None)
        if other is not None and top["priority"] - other["priority"] <= ROTATE_WITHIN:
            return str(other["job_id"])
    return str(top["job_id"])
