"""What the agent does when a line talks about goals (see :mod:`agi_core.scheduling.goal_phrases`).

Each function runs inside the tick and changes the goal store (and, for a reminder, the
jobs table) in the tick's transaction. They return the reply and the action; a plan step
also sets ``ctx.goal_plan``, the tick's plan.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs

from agi_core.errors import AgiError, ValidationError
from agi_core.model import Action, Goal, Input, PlanStep
from agi_core.scheduling import goals, jobs, plans, wall_time
from agi_core.scheduling.clock import iso_ms
from agi_core.scheduling.goal_phrases import goal_request, reminder_goal, reminder_line
from agi_core.scheduling.planning import planner_for
from agi_core.scheduling.when import parse_duration_ms
from agi_core.serialization import to_data

if TYPE_CHECKING:
    from agi_core.reasoning import ReasonContext


def new_goal(ctx: ReasonContext, title: str, *, activate: bool = True) -> Goal:
    """Add a goal with its plan: the planning contracts' with a provider, the heuristic one without."""
    planner = planner_for(ctx)
    steps: list[PlanStep] | None = planner.plan(title) if planner is not None else None
    steps = steps or plans.heuristic_plan(goals.check_title(title), stage0_can_act)
    plans.check_size(steps)
    return goals.add(ctx, title, plan=steps, activate=activate)


def handle(ctx: ReasonContext, kind: str, text: str) -> tuple[str, Action | None]:
    """The reply and the action (None: the reply itself) for a goal line of ``kind``; refusals are one line."""
    try:
        if kind == "set":
            goal = new_goal(ctx, text)
            steps = "; ".join(step.do.rstrip(".") for step in goal.plan)
            return f"Your goal is now: {goal.description} ({goal.id}). Plan: {steps}.", None
        if kind == "list":
            return goals.summary(ctx.store), None
        if kind == "finish":
            return finish(ctx, text), None
        if kind == "abandon":
            return finish(ctx, text, status="abandoned"), None
        if kind == "remind":
            return remind(ctx, *text.split("\x1f")), None
        if kind == "remind_at":
            return remind_at(ctx, *text.split("\x1f")), None
        if kind == "reminder":
            return reminder(ctx, text), None
        if kind == "step":
            reply, action, plan = plans.take_step(ctx, stage0_route(ctx), planner_for(ctx))
            ctx.goal_plan = plan
            return reply, action if action.type == "tool" else None
    except AgiError as exc:
        return str(exc), None
    return f"I do not know what to do with {kind!r} goal requests.", None


def finish(ctx: ReasonContext, text: str, *, status: str = "done") -> str:
    """Mark the goal ``text`` names done (or ``abandoned``); ambiguous: ask which one, with the ids."""
    found = goals.matching(ctx.store, text)
    if not found:
        return f"I have no unfinished goal matching “{text}”. {goals.summary(ctx.store)}"
    if len(found) > 1:
        listed = "; ".join(f"{goal.id} ({goal.description})" for goal in found)
        if status == "abandoned":
            return f"Which one do you give up? {listed}. Say 'abandon ID' with one of the ids."
        return f"Which one did you finish? {listed}. Say 'I finished ID' with one of the ids."
    planner = planner_for(ctx)
    was_active = found[0].status == "active"
    done = goals.set_status(ctx, found[0].id, status, planner.choose if planner else None)
    following = goals.active(ctx.store)
    then = f" Your active goal is now {following.description} ({following.id})." if following and was_active else ""
    if status == "abandoned":
        return f"OK: goal {done.id} ({done.description}) is abandoned.{then}"
    return f"Well done: goal {done.id} ({done.description}) is done.{then}"


def remind(ctx: ReasonContext, what: str, delay: str) -> str:
    """A one-shot job that says ``reminder: WHAT (goal ID)`` after ``delay``, tied to the goal WHAT."""
    delay_ms = parse_duration_ms(delay)
    now_ms = tick_now_ms(ctx)
    return _remind_job(ctx, what, now_ms, now_ms + delay_ms, iso_ms(now_ms + delay_ms))


def remind_at(ctx: ReasonContext, what: str, hhmm: str) -> str:
    """A one-shot reminder at the next ``HH:MM`` of the machine's local time (its UTC offset is recorded)."""
    from datetime import UTC, datetime, timedelta, timezone

    from agi_core.scheduling.time_answers import utc_offset_s

    now_ms = tick_now_ms(ctx)
    zone = timezone(timedelta(seconds=utc_offset_s(ctx, now_ms)))
    now = datetime.fromtimestamp(now_ms / 1000, UTC).astimezone(zone)
    hour, minute = (int(part) for part in hhmm.split(":"))
    due = now.replace(hour=hour, minute=minute, second=0, microsecond=0)
    if due <= now:
        due += timedelta(days=1)
    day = "today" if due.date() == now.date() else "tomorrow"
    return _remind_job(ctx, what, now_ms, int(due.timestamp() * 1000), f"{hhmm} {day}")


def _remind_job(ctx: ReasonContext, what: str, now_ms: int, at_ms: int, shown: str) -> str:
    found = goals.matching(ctx.store, what)
    goal = found[0] if len(found) == 1 else new_goal(ctx, what, activate=False)
    name = "remind-" + goal.id
    job = jobs.new_job({"name": name, "at_ms": at_ms, "say": reminder_line(what, goal.id)}, now_ms, ctx.tick)
    ctx.store.put_job(to_data(job))  # a second reminder for one goal replaces the first
    return f"I will remind you to {what} at {shown} (job {name}, goal {goal.id})."


def reminder(ctx: ReasonContext, text: str) -> str:
    """A reminder job's tick: say it, with where its goal stands."""
    what, goal_id = reminder_goal(text)
    goal = goals.get(ctx.store, goal_id) if goal_id else None
    if goal is None:
        return f"Reminder: {what}."
    if goal.status == "done":
        return f"Reminder: {what} — already done (goal {goal.id})."
    return f"Reminder: {what} (goal {goal.id}, {goal.status}, {round(goal.progress * 100)}% done)."


def tick_now_ms(ctx: ReasonContext) -> int:
    """The tick's recorded wall-clock reading (:func:`agi_core.scheduling.wall_time.tick_wall_ms`)."""
    return wall_time.tick_wall_ms(ctx.externals)


def stage0_can_act(line: str) -> bool:
    """Whether a built-in Stage-0 router agent (not the fallback) handles ``line``."""
    from agi_core.brain.stage0.agents import STAGE0_AGENTS
    from agi_core.brain.stage0.brain import FALLBACK, Stage0Brain
    from agi_core.inputs import normalize

    agent = Stage0Brain(STAGE0_AGENTS).route(normalize(line))
    return agent is not None and agent.name not in (FALLBACK, "goal_agent")


def stage0_route(ctx: ReasonContext) -> plans.Route:
    """Run a step's line through the built-in Stage-0 router agents, in this tick (its reads are recorded)."""
    from agi_core.brain.stage0.agents import STAGE0_AGENTS
    from agi_core.brain.stage0.brain import Stage0Brain

    brain = Stage0Brain(STAGE0_AGENTS, timeout_s=0)

    def route(line: str) -> tuple[str, Action]:
        from agi_core.inputs import normalize

        if goal_request(line) == ("step", ""):
            raise ValidationError(f"a plan step cannot be {line!r} (it would run itself); change the step")
        step_input = Input(raw=line, normalized=normalize(line), source=ctx.state.input.source)
        decision = brain.reason(attrs.evolve(ctx, state=attrs.evolve(ctx.state, input=step_input)))
        return decision.final_output, decision.action

    return route
