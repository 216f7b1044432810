"""The planning contracts, used when a contract provider is configured (``--contract-provider``).

- ``planner_support`` plans a new goal's steps and revises a plan after a contradiction;
- ``goal_interpreter`` gives candidate actions when the planner gives no step;
- ``cognition_goal_prioritizer`` picks the next active goal among the open ones.

Only an answer of the model (``source == "llm"``) is used: the contracts' own fallbacks
are placeholders ("ask the user to clarify"), so without a usable answer the heuristics of
:mod:`agi_core.scheduling.plans` and :mod:`agi_core.scheduling.goals` decide. Every call is the
tick's ``contract_call`` external (the caller records it), so replay never asks the model;
``contract_planning`` records that the tick planned with a provider, so replay (without one)
plans the same way from the recorded outcomes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from agi_core.errors import AgiError, ReplayMismatch
from agi_core.model import PLAN_STEPS_MAX, Goal, PlanStep
from agi_core.scheduling.plans import ACTION_SUCCEEDS

if TYPE_CHECKING:
    from agi_core.contracts.caller import ContractCaller
    from agi_core.externals import Externals

STEP_CHARS_MAX = 200


class Planner:
    """Plans through the planning contracts of one tick's :class:`ContractCaller`."""

    name = "planner_support"

    def __init__(self, caller: ContractCaller) -> None:
        self.caller = caller

    def _value(self, contract: str, variables: dict[str, Any]) -> dict[str, Any] | None:
        """The model's answer, or None (no usable answer, or a contract that is not registered)."""
        try:
            outcome = self.caller.call(contract, variables)
        except ReplayMismatch:
            raise
        except AgiError:  # e.g. a plugin set without the planning contracts: heuristics plan
            return None
        return outcome.value if outcome.source == "llm" else None

    def plan(self, title: str) -> list[PlanStep] | None:
        """Steps for a new goal, or None (heuristics then)."""
        value = self._value("planner_support", {"goal": title, "context": "a new goal; no step is done yet"})
        steps = _steps((item.get("description") for item in _items(value, "plan")), value)
        if steps:
            return steps
        value = self._value("goal_interpreter", {"goal": title})
        return _steps((item.get("action") for item in _items(value, "candidate_actions")), value) or None

    def revise(self, goal: Goal, index: int, reason: str) -> list[PlanStep] | None:
        """The steps that follow a contradicted step, or None (heuristics then)."""
        context = {
            "done": [step.do for step in goal.plan[:index] if step.status == "done"],
            "contradicted": {"step": goal.plan[index].do, "assumed": goal.plan[index].assumes, "reason": reason},
            "remaining": [step.do for step in goal.plan[index + 1 :]],
        }
        value = self._value("planner_support", {"goal": goal.description, "context": context})
        return _steps((item.get("description") for item in _items(value, "plan")), value)[: PLAN_STEPS_MAX - 1] or None

    def choose(self, candidates: list[Goal]) -> Goal | None:
        """The open goal the prioritizer ranks first, or None (highest priority, then oldest)."""
        goals = [
            {"goal_id": g.id, "description": g.description, "priority": g.priority, "status": g.status}
            for g in candidates
        ]
        ranked = _items(self._value("cognition_goal_prioritizer", {"goals": goals}), "priorities")
        by_id = {goal.id: goal for goal in candidates}
        scored = [(float(item.get("priority", 0)), str(item.get("goal_id"))) for item in ranked]
        known = sorted((-score, goal_id) for score, goal_id in scored if goal_id in by_id)
        return by_id[known[0][1]] if known else None


def _items(value: dict[str, Any] | None, field: str) -> list[dict[str, Any]]:
    items = (value or {}).get(field)
    return [item for item in items if isinstance(item, dict)] if isinstance(items, list) else []


def _steps(texts: Any, value: Any) -> list[PlanStep]:
    steps = []
    for text in texts:
        do = " ".join(str(text or "").split())[:STEP_CHARS_MAX]
        if do:
            steps.append(PlanStep(do=do, assumes=ACTION_SUCCEEDS))
    return steps[:PLAN_STEPS_MAX]


PLANNING_EXTERNAL = "contract_planning"
"""Recorded (``[true]``) in a tick that planned with a provider, so its replay plans the same way."""


def caller_for(externals: Externals, provider: bool, caller: Callable[[], ContractCaller]) -> ContractCaller | None:
    """The tick's contract caller for planning (``caller()``): live when a contract ``provider`` is
    configured, in replay when the tick recorded that it had one (the outcomes are then served from
    the record); None otherwise (heuristics)."""
    wanted = PLANNING_EXTERNAL in externals.recorded if externals.recorded is not None else provider
    if not wanted:
        return None
    externals.fetch(PLANNING_EXTERNAL, lambda: True)
    return caller()


def planner_for(ctx: Any) -> Planner | None:
    """The tick's planner when a contract provider is configured (``ctx.contracts``), else None."""
    caller = getattr(ctx, "contracts", None)
    return Planner(caller) if caller is not None else None
