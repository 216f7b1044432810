"""What the agent does when a line talks about goals (see :mod:`agi_core.scheduling.goal_phrases`).

Each function runs inside the tick and changes the goal store (and, for a reminder, the
jobs table) in the tick's transaction. They return the reply and the action; a plan step
also sets ``ctx.goal_plan``, the tick's plan.
"""

from __future__ import annotations

from datetime import date as date_type
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING

import attrs

from agi_core.errors import AgiError, ValidationError
from agi_core.model import Action, Goal, Input, PlanStep
from agi_core.scheduling import goals, jobs, plans, wall_time
from agi_core.scheduling.clock import iso_ms
from agi_core.scheduling.goal_phrases import goal_request, reminder_goal, reminder_line
from agi_core.scheduling.planning import planner_for
from agi_core.scheduling.remind_when import WEEKDAYS
from agi_core.scheduling.when import parse_duration_ms
from agi_core.serialization import to_data

if TYPE_CHECKING:
    from agi_core.reasoning import ReasonContext

REMIND_LOCAL = "remind_local"
"""A reminder set "in 2 hours" says when in local time, ``13:06 today (in 2 hours)`` (before: the UTC time in
ISO 8601), recorded through :meth:`agi_core.externals.Externals.changed`."""

REMINDER_REPLACED = "reminder_replaced"
"""A reminder for a goal whose reminder is still to come says the one it replaces ("…; this replaces the reminder at
09:00 tomorrow"; before: replaced silently): the replaced due time (ms) recorded where one is replaced, so a journal
from before, which recorded none, replays as written."""

QUOTED_CHARS = 60
"""The most of an unread time phrase a reply quotes."""


def utc_offset_s(ctx: ReasonContext, ms: int) -> int:
    """The machine's UTC offset now (:func:`agi_core.scheduling.wall_time.utc_offset_s`, recorded)."""
    return wall_time.utc_offset_s(ctx.externals, ms)


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
        if kind == "count":
            return goals.counted(ctx.store), None
        if kind == "active":
            return goals.active_said(ctx.store), None
        if kind == "finish":
            return finish(ctx, text), None
        if kind == "abandon":
            return finish(ctx, text, status="abandoned"), None
        if kind == "remind":
            return remind(ctx, *text.split("\x1f")), None
        if kind == "remind_at":
            return remind_at(ctx, *text.split("\x1f")), None
        if kind == "remind_on":
            return remind_on(ctx, *text.split("\x1f")), None
        if kind == "remind_unread":
            return unread_time(*text.split("\x1f")), None
        if kind == "remind_no_time":
            return f"When should I remind you to {text}? Add a time, e.g. 'tomorrow at 9am' or 'in 10 minutes'.", None
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
    """A one-shot job that says ``reminder: WHAT (goal ID)`` after ``delay``, tied to the goal WHAT; the reply
    says when in local time (``remind_local``; a journal from before said the UTC time, ISO 8601)."""
    delay_ms = parse_duration_ms(delay)
    now_ms = tick_now_ms(ctx)
    due_ms = now_ms + delay_ms
    if not ctx.externals.changed(REMIND_LOCAL):
        return _remind_job(ctx, what, now_ms, due_ms, iso_ms(due_ms))
    now = wall_time.local(now_ms, utc_offset_s(ctx, now_ms))
    later = wall_time.utc_offset_at_s(ctx.externals, due_ms)
    due = wall_time.local(due_ms, _offset_s(now) if later is None else later)
    return _remind_job(ctx, what, now_ms, due_ms, f"{_shown(now, due)} (in {wall_time.ago(delay_ms / 1000)})")


def remind_at(ctx: ReasonContext, what: str, hhmm: str) -> str:
    """A one-shot reminder at the next ``HH:MM`` of the machine's local time (its UTC offsets are recorded)."""
    now_ms = tick_now_ms(ctx)
    now = wall_time.local(now_ms, utc_offset_s(ctx, now_ms))
    date = now.date()
    due_ms = _local_ms(ctx, now, date, hhmm)
    if due_ms <= now_ms:
        date += timedelta(days=1)
        due_ms = _local_ms(ctx, now, date, hhmm)
    return _remind_job(ctx, what, now_ms, due_ms, f"{hhmm} {'today' if date == now.date() else 'tomorrow'}")


def remind_on(ctx: ReasonContext, what: str, day: str, hhmm: str) -> str:
    """A one-shot reminder at ``HH:MM`` local time on ``day`` (``today``, ``tomorrow``, a weekday: the next one
    whose ``HH:MM`` is still to come); today's ``HH:MM`` gone by is refused in one line."""
    now_ms = tick_now_ms(ctx)
    now = wall_time.local(now_ms, utc_offset_s(ctx, now_ms))
    if day in WEEKDAYS:
        date = now.date() + timedelta(days=(WEEKDAYS.index(day) - now.weekday()) % 7)
    else:
        date = now.date() + timedelta(days=day == "tomorrow")
    due_ms = _local_ms(ctx, now, date, hhmm)
    if due_ms <= now_ms and day in WEEKDAYS:
        date += timedelta(days=7)
        due_ms = _local_ms(ctx, now, date, hhmm)
    if due_ms <= now_ms:
        return f"It is already {now:%H:%M}, past {hhmm} today; say e.g. 'tomorrow at {hhmm}' or 'in 10 minutes'."
    due = datetime(date.year, date.month, date.day, int(hhmm[:2]), int(hhmm[3:]))
    return _remind_job(ctx, what, now_ms, due_ms, _shown(now, due))


def unread_time(what: str, phrase: str) -> str:
    """The one line for a reminder whose time is not read (a long phrase cut to :data:`QUOTED_CHARS`)."""
    if len(phrase) > QUOTED_CHARS:
        phrase = phrase[: QUOTED_CHARS - 1] + "…"
    return f"I couldn't read the time '{phrase}'; say e.g. 'tomorrow at 9am' or 'in 10 minutes'."


def _local_ms(ctx: ReasonContext, now: datetime, date: date_type, hhmm: str) -> int:
    """``HH:MM`` on local ``date`` as ms since the epoch: at the UTC offset of ``now``, then at the machine's
    offset at that instant if it differs (a daylight-saving change between; recorded, see ``utc_offset_at_s``)."""
    hour, minute = int(hhmm[:2]), int(hhmm[3:])
    offset = _offset_s(now)
    due_ms = _ms(date, hour, minute, offset)
    later = wall_time.utc_offset_at_s(ctx.externals, due_ms)
    return _ms(date, hour, minute, later) if later is not None and later != offset else due_ms


def _ms(date: date_type, hour: int, minute: int, offset_s: int) -> int:
    zone = timezone(timedelta(seconds=offset_s))
    return round(datetime(date.year, date.month, date.day, hour, minute, tzinfo=zone).timestamp() * 1000)


def _offset_s(moment: datetime) -> int:
    offset = moment.utcoffset()
    return int(offset.total_seconds()) if offset is not None else 0


def _shown(now: datetime, due: datetime) -> str:
    """``17:00 today``, ``09:00 tomorrow (Sunday 29 November)``, ``10:00 on Monday 30 November``."""
    days = (due.date() - now.date()).days
    if days == 0:
        return f"{due:%H:%M} today"
    if days == 1:
        return f"{due:%H:%M} tomorrow ({wall_time.date_text(due)})"
    return f"{due:%H:%M} on {wall_time.date_text(due)}" + (f" {due.year}" if due.year != now.year else "")


def _remind_job(ctx: ReasonContext, what: str, now_ms: int, at_ms: int, shown: str) -> str:
    found = goals.matching(ctx.store, what)
    goal = found[0] if len(found) == 1 else new_goal(ctx, what, activate=False)
    name = "remind-" + goal.id
    job = jobs.new_job({"name": name, "at_ms": at_ms, "say": reminder_line(what, goal.id)}, now_ms, ctx.tick)
    replaced = _replaced_due_ms(ctx, name, now_ms) if len(found) == 1 else None
    ctx.store.put_job(to_data(job))  # a second reminder for one goal replaces the first
    said = f"I will remind you to {what} at {shown} (job {name}, goal {goal.id})"
    if replaced is None:
        return said + "."
    now = wall_time.local(now_ms, utc_offset_s(ctx, now_ms))
    return f"{said}; this replaces the reminder at {_shown(now, wall_time.local(replaced, _offset_s(now)))}."


def _replaced_due_ms(ctx: ReasonContext, name: str, now_ms: int) -> int | None:
    """When the reminder job ``name`` that a new one replaces was due: live, its job's due time if still to come
    (recorded as ``reminder_replaced``); in replay the recorded one, None where the tick recorded none."""
    externals = ctx.externals
    if externals.recorded is not None:
        return int(externals.fetch(REMINDER_REPLACED, lambda: 0)) if externals.has_next(REMINDER_REPLACED) else None
    prior = ctx.store.get_job(name)
    due = prior.get("next_due_ms") if prior is not None else None
    if not isinstance(due, int) or due <= now_ms:  # none, or fired (due None) or overdue: nothing to say
        return None
    return int(externals.fetch(REMINDER_REPLACED, lambda: due))


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
