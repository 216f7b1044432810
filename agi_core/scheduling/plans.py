"""Goal plans: at most 20 steps, one acting per tick, each with the assumption it relies on.

A step (:class:`~agi_core.model.PlanStep`) is a line the agent runs (``do``) and the
assumption it relies on (``assumes``, checkable through ``expect``): a fact holds a value,
or the step's action succeeds. :func:`take_step` runs the active goal's next step in the
current tick: a fact assumption is read first (recorded in ``sem_reads``); then the step's
line goes through the Stage-0 router, so "read file notes.txt" becomes the ``file_read``
tool and "what is the capital of France?" reads the fact. :func:`observe` runs after the
act: a success marks the step done (the goal is done after its last step); a failure, like
a fact that differs, records ``replan`` with the reason in the tick's plan and revises the
goal's plan (:func:`revise`) before anything else acts.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import attrs

from agi_core.errors import AgiError, ValidationError
from agi_core.memory.keys import check_key
from agi_core.model import PLAN_STEPS_MAX, Action, Goal, Observation, Plan, PlanStep
from agi_core.scheduling import goal_tasks, goals
from agi_core.serialization import dumps

if TYPE_CHECKING:
    from agi_core.reasoning import ReasonContext
    from agi_core.scheduling.planning import Planner

ACTION_SUCCEEDS = "the step's action succeeds"
USER_DOES = "you do this step yourself"
SAY_PREFIXES = ("say: ", "ask: ")  # a step that only says its text; it stays to do: the user closes the goal
THEN_WORDS = (", and then ", " and then ", ", then ", " then ")
Route = Callable[[str], tuple[str, Action]]  # a step's line -> (reply, action), through the Stage-0 router


def too_many_steps(count: int) -> str:
    """The refusal for a plan over the limit (also the kernel's, for a brain's plan)."""
    return (
        f"This needs {count} steps; plans over {PLAN_STEPS_MAX} steps need a subgoal "
        "or your confirmation. Split the request or confirm it."
    )


def parse_step(text: str) -> PlanStep:
    """``DO`` or ``DO | ASSUMPTION``; an assumption ``KEY = VALUE`` (canonical key) is checked against the fact.

    A ``|`` at either end separates too, so ``'|'`` and ``'| ASSUMPTION'`` say nothing to do (refused).
    """
    do, _, assumes = f" {text} ".partition(" | ")
    do, assumes = " ".join(do.split()), " ".join(assumes.split())
    if not do:
        raise ValidationError(f"plan step {text!r} says nothing to do; write 'DO' or 'DO | ASSUMPTION'")
    key, equals, value = assumes.partition(" = ")
    if equals and "/" in key:
        try:
            return PlanStep(do=do, assumes=assumes, expect={"fact": check_key(key.strip()), "value": value.strip()})
        except AgiError as exc:
            raise ValidationError(f"plan step {text!r}: {exc}") from None
    return PlanStep(do=do, assumes=assumes or ACTION_SUCCEEDS)


def check_size(steps: list[Any]) -> None:
    if len(steps) > PLAN_STEPS_MAX:
        raise ValidationError(too_many_steps(len(steps)))


def heuristic_plan(title: str, can_act: Callable[[str], bool]) -> list[PlanStep]:
    """One step per ``then``-separated part of the title ("read file a.txt then list files").

    A part the agent can act on (``can_act``: a router agent handles it) is run as it is;
    any other is the user's to do: an ``ask:`` step that asks how it goes.
    """
    parts = [title]
    for word in THEN_WORDS:
        parts = [piece for part in parts for piece in part.split(word)]
    steps = []
    for part in (part.strip() for part in parts):
        if part and can_act(part):
            steps.append(PlanStep(do=part, assumes=ACTION_SUCCEEDS))
        elif part:
            ask = f"ask: How is “{part}” going? When it is done, say “done: {part}”."
            steps.append(PlanStep(do=ask, assumes=USER_DOES))
    return steps


def next_index(goal: Goal) -> int | None:
    return next((index for index, step in enumerate(goal.plan) if step.status == "todo"), None)


def next_runnable(store: Any) -> Goal | None:
    """The active goal when its next step is the agent's to run: not an ``ask:``/``say:`` step
    (the user's, which stays to do until they finish the goal), nor a plan with nothing left."""
    goal = goals.active(store)
    index = next_index(goal) if goal is not None else None
    if goal is None or index is None or goal.plan[index].do.lower().startswith(SAY_PREFIXES):
        return None
    return goal


def tick_plan(goal: Goal, index: int, replan: str | None = None) -> Plan:
    """The tick's plan for step ``index`` of ``goal``."""
    return Plan(
        steps=[step.do for step in goal.plan][:PLAN_STEPS_MAX],
        current_index=min(index, max(len(goal.plan) - 1, 0)),
        goal=goal.id,
        assumption=goal.plan[index].assumes if index < len(goal.plan) else None,
        replan=replan,
    )


def take_step(ctx: ReasonContext, route: Route, planner: Planner | None = None) -> tuple[str, Action, Plan | None]:
    """Run the active goal's next step in this tick: ``(reply, action, tick plan)``."""
    goal = goals.active(ctx.store)
    if goal is None:
        text = "You have no active goal; tell me one, e.g. 'my goal is to learn French'."
        return text, _respond(text), None
    index = next_index(goal)
    if index is None:
        text = f"Goal {goal.id} ({goal.description}) has no step left; say “done: {goal.description}”."
        return text, _respond(text), None
    step = goal.plan[index]
    if "fact" in step.expect:
        read = ctx.sem_read(str(step.expect["fact"]))
        if not read.exists or read.value != step.expect.get("value"):
            found = f"is {dumps(read.value)}" if read.exists else "is not stored"
            reason = (
                f"step {index + 1} ({step.do}) assumed {step.expect['fact']} = {dumps(step.expect.get('value'))}, "
                f"but it {found}"
            )
            revised, by = revise(ctx, goal, index, reason, read.value if read.exists else None, planner)
            text = f"Replanned goal {goal.id}: {reason}; revised by {by}. Next: {_next_do(revised)}"
            return text, _respond(text), tick_plan(revised, index, replan=f"{reason} (revised by {by})")
    for prefix in SAY_PREFIXES:
        if step.do.lower().startswith(prefix):
            text = step.do[len(prefix) :]
            return text, _respond(text), tick_plan(goal, index)
    reply, action = route(step.do)
    return f"Step {index + 1} of goal {goal.id}: {reply}", action, tick_plan(goal, index)


def observe(
    ctx: ReasonContext, plan: Plan, observation: Observation, planner: Planner | None = None
) -> tuple[Plan, str]:
    """After the act: the step is done, or its assumption was contradicted and the plan is revised.

    Returns the tick's plan and what to add to the reply ("" when nothing was replanned).
    """
    if plan.goal is None or plan.replan is not None:
        return plan, ""
    goal = goals.get(ctx.store, plan.goal)
    index = plan.current_index
    if goal is not None and index < len(goal.plan) and goal.plan[index].status == "done":
        return _receipt_observed(ctx, plan, goal, observation, planner)
    if goal is None or index >= len(goal.plan) or goal.plan[index].status != "todo":
        return plan, ""
    step = goal.plan[index]
    if step.do.lower().startswith(SAY_PREFIXES):
        return plan, ""  # the user's step: it stays to do until the user says the goal is finished
    if observation.success:
        steps = [*goal.plan[:index], attrs.evolve(step, status="done"), *goal.plan[index + 1 :]]
        done = sum(s.status == "done" for s in steps)
        goal = goals.save(ctx, attrs.evolve(goal, plan=steps, progress=round(done / len(steps), 4)))
        goal_tasks.step_done(ctx, goal, index, goal_tasks.outcome_text(observation.payload, f"done: {step.do}"))
        if next_index(goal) is None:
            goals.set_status(ctx, goal.id, "done", planner.choose if planner else None)
            return plan, f" That was the last step: goal {goal.id} ({goal.description}) is done."
        return plan, ""
    reason = f"step {index + 1} ({step.do}) assumed {step.assumes}, but it failed: {observation.error or 'no reason'}"
    revised, by = revise(ctx, goal, index, reason, None, planner)
    state = " The goal is blocked: tell me how to go on." if revised.status == "blocked" else ""
    note = f" Replanned goal {goal.id} (revised by {by}); next: {_next_do(revised)}{state}"
    return attrs.evolve(plan, replan=f"{reason} (revised by {by})"), note


def receipt_plan(ctx: ReasonContext, goal_id: str, index: int) -> Plan | None:
    """The plan of a receipt tick for step ``index`` of goal ``goal_id`` (None: the goal is gone)."""
    goal = goals.get(ctx.store, goal_id)
    return tick_plan(goal, index) if goal is not None and index < len(goal.plan) else None


def _receipt_observed(
    ctx: ReasonContext, plan: Plan, goal: Goal, observation: Observation, planner: Planner | None
) -> tuple[Plan, str]:
    """A write/external step's receipt: its intent marked the step done (it is never re-run on
    its own); a call that failed contradicts the step's assumption, so the plan is revised."""
    if observation.success:
        return plan, ""
    index, step = plan.current_index, goal.plan[plan.current_index]
    reason = f"step {index + 1} ({step.do}) assumed {step.assumes}, but it failed: {observation.error or 'no reason'}"
    revised, by = revise(ctx, goal, index, reason, None, planner)
    done = sum(s.status == "done" for s in revised.plan)
    revised = goals.save(ctx, attrs.evolve(revised, progress=round(done / len(revised.plan), 4)))
    if revised.status == "done" and next_index(revised) is None:
        revised = goals.set_status(ctx, revised.id, "blocked", planner.choose if planner else None)
    state = " The goal is blocked: tell me how to go on." if revised.status == "blocked" else ""
    note = f" Replanned goal {goal.id} (revised by {by}); next: {_next_do(revised)}{state}"
    return attrs.evolve(plan, replan=f"{reason} (revised by {by})"), note


def revise(
    ctx: ReasonContext, goal: Goal, index: int, reason: str, observed: Any, planner: Planner | None
) -> tuple[Goal, str]:
    """The goal's plan after step ``index`` was contradicted: ``(goal as stored, "heuristics" or a contract)``.

    The step is kept, marked ``failed``. The planning contracts (with a provider) give the
    steps that follow; without, heuristics do: a fact that differs gives the same step
    relying on the value read; a failed action is dropped and the plan goes on with the
    steps after it. A plan left with nothing to do makes the goal ``blocked`` (waiting on
    the user), and the next open goal becomes active.
    """
    failed = attrs.evolve(goal.plan[index], status="failed")
    done, rest = goal.plan[:index], goal.plan[index + 1 :]
    suggested = planner.revise(goal, index, reason) if planner is not None else None
    if suggested:
        following, by = suggested, planner.name if planner is not None else "planner"
    else:
        by = "heuristics"
        step = goal.plan[index]
        following = rest
        if observed is not None and "fact" in step.expect:
            key = step.expect["fact"]
            retry = PlanStep(do=step.do, assumes=f"{key} = {observed}", expect={"fact": key, "value": observed})
            following = [retry, *rest]
    steps = [*done, failed, *following]
    while len(steps) > PLAN_STEPS_MAX and any(s.status == "failed" for s in steps[:-1]):
        steps.remove(next(s for s in steps if s.status == "failed"))  # the oldest failed step goes first
    revised = goals.save(ctx, attrs.evolve(goal, plan=steps[:PLAN_STEPS_MAX], replans=goal.replans + 1))
    if next_index(revised) is None and revised.status == "active":
        revised = goals.set_status(ctx, revised.id, "blocked", planner.choose if planner else None)
    return revised, by


def _next_do(goal: Goal) -> str:
    """The next step's line as the end of a sentence."""
    index = next_index(goal)
    text = goal.plan[index].do if index is not None else "nothing left"
    return text if text.endswith((".", "!", "?")) else text + "."


def _respond(text: str) -> Action:
    return Action(type="response", name="respond", args={"text": text})
