"""The goal store: a DAG of goals (each may have a parent), exactly one of them active.

Every change runs inside a tick (a goal command, a conversation turn, a plan step) and
writes the ``goals`` table in the tick's transaction, so checkpoints, rollback, replay and
the state seal cover it. Ids are deterministic (``g-`` and 8 hex digits from the seed and
the counter). The active goal is also in working memory (``WorkingMemory.active_goal``).

Invariant: at most one goal is ``active``; when the active goal is finished (done, failed)
or blocked, the next one is chosen among the ``open`` goals: highest priority, then oldest
(or by the ``cognition_goal_prioritizer`` contract, see :mod:`agi_core.autonomy.planning`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

import attrs

from agi_core.errors import ConfigError, ValidationError
from agi_core.model import Goal, GoalStatus, PlanStep
from agi_core.serialization import from_data, to_data

if TYPE_CHECKING:
    from agi_core.brain.context import ReasonContext
    from agi_core.memory.backend import GoalStore

TITLE_CHARS_MAX = 200
STATUSES = ("open", "active", "done", "failed", "blocked")
UNFINISHED = ("active", "open", "blocked")
Chooser = Callable[[list[Goal]], Goal | None]


def _goal_store(store: Any) -> GoalStore:
    """``store`` as a :class:`GoalStore`; a backend without goals is refused in one line."""
    if not all(hasattr(store, name) for name in ("goals", "put_goal", "delete_goal")):
        raise ConfigError(
            f"the {type(store).__name__} memory backend does not store goals (no GoalStore methods); "
            "use the SQLite backend for goals, or add goals(), put_goal() and delete_goal() to the backend"
        )
    return cast("GoalStore", store)


def _rows(store: Any) -> list[dict[str, Any]]:
    return list(_goal_store(store).goals())


def all_goals(store: Any) -> list[Goal]:
    """Every goal, in the order they were added."""
    return [from_data(row, Goal) for row in _rows(store)]


def get(store: Any, goal_id: str) -> Goal | None:
    return next((goal for goal in all_goals(store) if goal.id == goal_id), None)


def with_status(store: Any, status: str) -> list[Goal]:
    return [goal for goal in all_goals(store) if goal.status == status]


def active(store: Any) -> Goal | None:
    """The one active goal, if any."""
    return next(iter(with_status(store, "active")), None)


def active_after_tick(ctx: ReasonContext, before: Goal | None) -> Goal | None:
    """The active goal once the tick is done: ``before`` unless the tick wrote a goal (then re-read)."""
    return active(ctx.store) if ctx.goal_writes else before


def cached_active(goal: Goal | None) -> Goal | None:
    """Working memory's active goal, if it is one (records from before the goal store held a finished one)."""
    return goal if goal is not None and goal.status == "active" else None


def require(store: Any, goal_id: str) -> Goal:
    goal = get(store, goal_id)
    if goal is None:
        raise ValidationError(f"no goal {goal_id!r}; list the goals and their ids with: agi goals list")
    return goal


def check_title(text: str) -> str:
    title = " ".join(str(text).split())
    if not title:
        raise ValidationError("a goal needs a title; say what the goal is, e.g. agi goals add 'learn French'")
    if len(title) > TITLE_CHARS_MAX:
        raise ValidationError(f"a goal title is at most {TITLE_CHARS_MAX} characters (got {len(title)}); shorten it")
    return title


def check_priority(value: Any) -> float:
    try:
        priority = float(value)
    except (TypeError, ValueError):
        priority = -1.0
    if not 0.0 <= priority <= 1.0:  # NaN fails too
        raise ValidationError(f"priority {value!r} is not a number from 0 to 1; give e.g. --priority 0.8")
    return priority


def save(ctx: ReasonContext, goal: Goal) -> Goal:
    """Store ``goal`` as changed by this tick; its ``assumptions`` are those its remaining steps rely on."""
    assumptions = list(dict.fromkeys(step.assumes for step in goal.plan if step.status == "todo" and step.assumes))
    goal = attrs.evolve(goal, updated_tick=ctx.tick, assumptions=assumptions)
    _goal_store(ctx.store).put_goal(to_data(goal))
    ctx.goal_writes.append(goal.id)  # shared with the step's sub-context: the kernel re-reads the active goal
    return goal


def add(
    ctx: ReasonContext,
    title: str,
    *,
    parent: str | None = None,
    priority: float = 0.5,
    plan: list[PlanStep] | None = None,
    activate: bool = True,
) -> Goal:
    """A new goal (``active`` when ``activate`` or when none is active, else ``open``)."""
    title, priority = check_title(title), check_priority(priority)
    store = ctx.store
    if parent is not None:
        require(store, parent)
    goal_id = ctx.determinism.short_id("g", title)
    while get(store, goal_id) is not None:  # 32 bits: a clash is rare, never silent
        goal_id = ctx.determinism.short_id("g", title)
    goal = Goal(id=goal_id, description=title, status="open", parent=parent, priority=priority, plan=plan or [])
    goal = save(ctx, attrs.evolve(goal, created_tick=ctx.tick))
    if activate or active(store) is None:
        goal = make_active(ctx, goal.id)
    return goal


def make_active(ctx: ReasonContext, goal_id: str) -> Goal:
    """Make ``goal_id`` the active goal; the one active before becomes ``open``."""
    goal = require(ctx.store, goal_id)
    if goal.status in ("done", "failed"):
        raise ValidationError(f"goal {goal_id} is {goal.status}; add a new goal instead of reactivating it")
    current = active(ctx.store)
    if current is not None and current.id != goal_id:
        save(ctx, attrs.evolve(current, status="open"))
    return save(ctx, attrs.evolve(goal, status="active"))


def set_status(ctx: ReasonContext, goal_id: str, status: str, choose: Chooser | None = None) -> Goal:
    """Mark a goal done, failed, blocked or open; a finished or blocked active goal hands over to the next."""
    if status not in STATUSES:
        raise ValidationError(f"unknown goal status {status!r}; use one of {', '.join(STATUSES)}")
    if status == "active":
        return make_active(ctx, goal_id)
    goal = require(ctx.store, goal_id)
    progress = 1.0 if status == "done" else goal.progress
    changed = save(ctx, attrs.evolve(goal, status=cast(GoalStatus, status), progress=progress))
    _update_ancestors(ctx, changed)
    if goal.status == "active":
        promote_next(ctx, choose)
    return changed


def promote_next(ctx: ReasonContext, choose: Chooser | None = None) -> Goal | None:
    """Activate the next open goal, if none is active: ``choose`` picks, else highest priority then oldest."""
    store = ctx.store
    if active(store) is not None:
        return None
    candidates = with_status(store, "open")
    if not candidates:
        return None
    picked = choose(candidates) if choose is not None else None
    if picked is None or picked not in candidates:
        picked = min(candidates, key=lambda goal: -goal.priority)  # the oldest first among equals
    return make_active(ctx, picked.id)


def set_parent(ctx: ReasonContext, goal_id: str, parent: str | None) -> Goal:
    """Move a goal under ``parent`` (or to the top with None); a move that would make a cycle is refused."""
    store = ctx.store
    goal = require(store, goal_id)
    if parent is not None:
        require(store, parent)
        ancestor: str | None = parent
        for _ in range(len(all_goals(store)) + 1):
            if ancestor is None:
                break
            if ancestor == goal_id:
                raise ValidationError(
                    f"goal {goal_id} cannot go under {parent}: {parent} is {goal_id} or one of its subgoals "
                    "(goals form a DAG without cycles); choose a parent outside it"
                )
            above = get(store, ancestor)
            ancestor = above.parent if above is not None else None
    return save(ctx, attrs.evolve(goal, parent=parent))


def _update_ancestors(ctx: ReasonContext, goal: Goal) -> None:
    """A parent's progress is the mean of its subgoals' (failed ones left out), up to the top."""
    store, seen = ctx.store, {goal.id}
    while goal.parent is not None and goal.parent not in seen:
        parent = get(store, goal.parent)
        if parent is None:
            return
        seen.add(parent.id)
        children = [g for g in all_goals(store) if g.parent == parent.id and g.status != "failed"]
        progress = round(sum(child.progress for child in children) / len(children), 4) if children else 0.0
        goal = save(ctx, attrs.evolve(parent, progress=progress))


def matching(store: Any, text: str) -> list[Goal]:
    """Unfinished goals that ``text`` names: by id, by the whole title, else by a part of the title."""
    wanted = _plain(text)
    unfinished = [goal for goal in all_goals(store) if goal.status in UNFINISHED]
    for test in (
        lambda goal: goal.id == text.strip().lower(),
        lambda goal: _plain(goal.description) == wanted,
        lambda goal: bool(wanted) and wanted in _plain(goal.description),
    ):
        found = [goal for goal in unfinished if test(goal)]
        if found:
            return found
    return []


def _plain(text: str) -> str:
    """Lowercase word stems without punctuation, a leading ``to``/``the``/``my`` dropped (one pass):
    "to learn French" and "learning French." give ``learn french``."""
    kept = "".join(ch if ch.isalnum() or ch.isspace() else " " for ch in text.lower())
    words = kept.split()
    while words and words[0] in ("to", "the", "my"):
        words = words[1:]
    return " ".join(_stem(word) for word in words)


def _stem(word: str) -> str:
    for ending in ("ing", "ed", "es", "s"):
        if word.endswith(ending) and len(word) - len(ending) >= 3:
            return word[: -len(ending)]
    return word


def line(goal: Goal) -> str:
    """One line for ``agi goals list`` and ``/goals``."""
    under = f", under {goal.parent}" if goal.parent else ""
    steps = sum(step.status == "done" for step in goal.plan)
    plan = f", step {steps}/{len(goal.plan)}" if goal.plan else ""
    return (
        f"{goal.id} [{goal.status}] {goal.description} "
        f"(priority {goal.priority:g}, progress {round(goal.progress * 100)}%{plan}{under})"
    )


def summary(store: Any) -> str:
    """The goals in one reply: the active one first, then the other unfinished ones, then a count of the rest."""
    goals = all_goals(store)
    if not goals:
        return "You have no goals yet; tell me one, e.g. 'my goal is to learn French'."
    order = {"active": 0, "open": 1, "blocked": 2, "done": 3, "failed": 4}
    shown = sorted(goals, key=lambda goal: (order.get(goal.status, 5), -goal.priority))
    return "Your goals: " + "; ".join(line(goal) for goal in shown) + "."
