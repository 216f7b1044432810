"""The journaled goal commands (``agi goals add|done|fail|block|activate|move|step``), each one tick.

Handlers follow :mod:`agi_core.commands`: ``(kernel, ctx, args) -> (reply, result[, action])``;
a refusal raises a one-line :class:`~agi_core.errors.ValidationError` and nothing is stored.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agi_core.errors import ValidationError
from agi_core.model import PLAN_STEPS_MAX, Goal, PlanStep
from agi_core.scheduling import goals, plans
from agi_core.scheduling.conversation import stage0_can_act, stage0_route
from agi_core.scheduling.planning import planner_for
from agi_core.serialization import to_data

if TYPE_CHECKING:
    from agi_core.kernel import Kernel
    from agi_core.reasoning import ReasonContext


class StepTaken(ValidationError):
    """A follow-loop step that is no longer the active goal's next step; its tick stores nothing."""


def goal_add(kernel: Kernel, ctx: ReasonContext, args: dict[str, Any]) -> tuple[str, Any]:
    """Add a goal: active when none is (or with ``activate``); ``steps`` as ``DO | ASSUMPTION`` lines.

    A plan over 20 steps is refused unless ``split``: then the goal gets subgoals of at most
    20 steps each (the first one active).
    """
    title = goals.check_title(args["title"])
    priority = goals.check_priority(args.get("priority", 0.5))
    steps = [plans.parse_step(text) for text in args.get("steps") or []]
    if not steps:
        planner = planner_for(ctx)
        steps = (planner.plan(title) if planner is not None else None) or plans.heuristic_plan(title, stage0_can_act)
    activate, parent = bool(args.get("activate")), args.get("parent")
    if len(steps) > PLAN_STEPS_MAX and args.get("split"):
        return _add_split(ctx, title, priority, steps, parent, activate)
    plans.check_size(steps)
    goal = goals.add(ctx, title, parent=parent, priority=priority, plan=steps, activate=activate)
    return f"added goal {goal.id} [{goal.status}]: {goal.description} ({len(goal.plan)} steps)", to_data(goal)


def _add_split(
    ctx: ReasonContext, title: str, priority: float, steps: list[PlanStep], parent: str | None, activate: bool
) -> tuple[str, Any]:
    top = goals.add(ctx, title, parent=parent, priority=priority, activate=False)
    parts = [steps[start : start + PLAN_STEPS_MAX] for start in range(0, len(steps), PLAN_STEPS_MAX)]
    subgoals: list[Goal] = []
    for number, part in enumerate(parts, 1):
        name = f"{title} (part {number}/{len(parts)})"[: goals.TITLE_CHARS_MAX]
        subgoals.append(goals.add(ctx, name, parent=top.id, priority=priority, plan=part, activate=False))
    if activate or top.status == "active":
        subgoals[0] = goals.make_active(ctx, subgoals[0].id)
    top = goals.require(ctx.store, top.id)
    ids = ", ".join(goal.id for goal in subgoals)
    text = f"added goal {top.id}: {title}, split into {len(parts)} subgoals of at most {PLAN_STEPS_MAX} steps: {ids}"
    return text, {"goal": to_data(top), "subgoals": [to_data(goal) for goal in subgoals]}


def goal_set(kernel: Kernel, ctx: ReasonContext, args: dict[str, Any]) -> tuple[str, Any]:
    """Set a goal's status (done, failed, blocked, open, active); a done or failed goal keeps it (the user's
    ``goals fail`` after ``goals done`` made a finished goal failed, and ``goals block`` one active again)."""
    before = goals.require(ctx.store, args["id"])
    if before.status in goals.FINISHED and args["status"] != before.status:
        raise ValidationError(
            f"goal {before.id} is {before.status}; it stays so: add a new goal instead of marking it {args['status']}"
        )
    planner = planner_for(ctx)
    goal = goals.set_status(ctx, args["id"], args["status"], planner.choose if planner else None)
    active = goals.active(ctx.store)
    now = f"; active goal: {active.id}" if active is not None else "; no active goal"
    return f"goal {goal.id} is {goal.status}: {goal.description}{now}", to_data(goal)


def goal_move(kernel: Kernel, ctx: ReasonContext, args: dict[str, Any]) -> tuple[str, Any]:
    """Put a goal under another (``parent``), or at the top (``parent`` None); cycles are refused."""
    goal = goals.set_parent(ctx, args["id"], args.get("parent"))
    where = f"under {goal.parent}" if goal.parent else "at the top"
    return f"goal {goal.id} is now {where}", to_data(goal)


def goal_step(kernel: Kernel, ctx: ReasonContext, args: dict[str, Any]) -> tuple[Any, ...]:
    """Run the active goal's next plan step (its action is this tick's action).

    With ``goal`` and ``step`` (the follow loop's steps), that step of that goal runs only if
    it is still the next one: checked under the write lock, so when another process took it
    (or the goal stopped being active) since the loop looked, :class:`StepTaken` leaves nothing.
    """
    if args.get("goal") is not None:
        active = goals.active(ctx.store)
        index = plans.next_index(active) if active is not None else None
        if active is None or active.id != args["goal"] or index != args.get("step"):
            raise StepTaken(
                f"step {int(args.get('step') or 0) + 1} of goal {args['goal']} is no longer the next step of the "
                "active goal (another process took it, or the goal changed); nothing ran: see agi goals list"
            )
    reply, action, plan = plans.take_step(ctx, stage0_route(ctx), planner_for(ctx))
    ctx.goal_plan = plan
    result = {"goal": plan.goal if plan else None, "step": plan.current_index if plan else None}
    return (reply, result, action) if action.type == "tool" else (reply, result)
