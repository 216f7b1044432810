"""The goal store: a DAG of goals (each may have a parent), exactly one of them active.

Every change runs inside a tick (a goal command, a conversation turn, a plan step) and
writes the ``goals`` table in the tick's transaction, so checkpoints, rollback, replay and
the state seal cover it. Ids are deterministic (``g-`` and 8 hex digits from the seed and
the counter). The active goal is also in working memory (``WorkingMemory.active_goal``).

Invariant: at most one goal is ``active``; when the active goal is finished (done, failed)
or blocked, the next one is chosen among the ``open`` goals: highest priority, then oldest
(or by the ``cognition_goal_prioritizer`` contract among the first ``CANDIDATES_MAX`` of them,
see :mod:`agi_core.scheduling.planning`).

Each operation reads only the goals it needs through the store's indexed reads (by id, by
parent, the ancestors in one query, by status in rank order), so it costs the same among
10,000 goals as among 10 (``benchmarks/goals_scale.py``); only :func:`all_goals` reads them all.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

import attrs

from agi_core.errors import ConfigError, ValidationError
from agi_core.model import Goal, GoalStatus, PlanStep
from agi_core.scheduling import goal_tasks
from agi_core.serialization import from_data, to_data

if TYPE_CHECKING:
    from agi_core.memory.backend import GoalStore
    from agi_core.reasoning import ReasonContext

TITLE_CHARS_MAX = 200
STATUSES = ("open", "active", "done", "failed", "blocked", "abandoned")
UNFINISHED = ("active", "open", "blocked")
STATUSES_SHOWN = ("active", "open", "blocked", "done", "failed", "abandoned")  # the order a summary counts them in
CANDIDATES_MAX = 20  # open goals offered to the prioritizer when the active one finishes
MATCHES_MAX = 10  # goals a name may match (when several do, the reply asks which, with their ids)
SUMMARY_SHOWN = 5  # goals one reply lists; with more, it counts them and shows the active and the next ones
_STORE_METHODS = (
    "goals",
    "goal",
    "goal_child_progress",
    "goal_ancestors",
    "goals_ranked",
    "goal_counts",
    "goal_titles",
    "put_goal",
    "delete_goal",
)
Chooser = Callable[[list[Goal]], Goal | None]


def _goal_store(store: Any) -> GoalStore:
    """``store`` as a :class:`GoalStore`; a backend without goals is refused in one line."""
    missing = [name for name in _STORE_METHODS if not hasattr(store, name)]
    if missing:
        raise ConfigError(
            f"the {type(store).__name__} memory backend does not store goals (no GoalStore method "
            f"{', '.join(missing)}); use the SQLite backend for goals, or add the GoalStore methods to the backend"
        )
    return cast("GoalStore", store)


def _goal(row: dict[str, Any]) -> Goal:
    """A stored row as a :class:`Goal`: built directly (4x cheaper than cattrs: ``goals list`` builds
    thousands); a row the constructor refuses goes through :func:`from_data`, which names what is wrong."""
    try:
        return Goal(**{**row, "plan": [PlanStep(**step) for step in row["plan"]]})
    except TypeError:
        return from_data(row, Goal)


def _goals(rows: list[dict[str, Any]]) -> list[Goal]:
    return [_goal(row) for row in rows]


def all_goals(store: Any) -> list[Goal]:
    """Every goal, in the order they were added."""
    return _goals(_goal_store(store).goals())


def get(store: Any, goal_id: str) -> Goal | None:
    row = _goal_store(store).goal(goal_id)
    return None if row is None else _goal(row)


def ranked(store: Any, status: str, limit: int | None = None) -> list[Goal]:
    """The goals with ``status``: highest priority first, then the oldest."""
    return _goals(_goal_store(store).goals_ranked(status, limit))


def active(store: Any) -> Goal | None:
    """The one active goal, if any."""
    return next(iter(ranked(store, "active", 1)), None)


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
    goal_tasks.goal_added(ctx, goal)  # its RLM task: a child of the parent goal's, else a new tree
    if activate or active(store) is None:
        goal = make_active(ctx, goal.id)
    return goal


FINISHED = ("done", "failed")  # final: a goal that ends so is not changed again (abandoned may be taken up again)


def make_active(ctx: ReasonContext, goal_id: str) -> Goal:
    """Make ``goal_id`` the active goal; the one active before becomes ``open``."""
    goal = require(ctx.store, goal_id)
    if goal.status in FINISHED:
        raise ValidationError(f"goal {goal_id} is {goal.status}; add a new goal instead of reactivating it")
    current = active(ctx.store)
    if current is not None and current.id != goal_id:
        save(ctx, attrs.evolve(current, status="open"))
    return save(ctx, attrs.evolve(goal, status="active"))


def set_status(ctx: ReasonContext, goal_id: str, status: str, choose: Chooser | None = None) -> Goal:
    """Mark a goal done, failed, blocked, abandoned or open; a finished, blocked or abandoned active goal hands
    over to the next. A done goal's remaining steps are marked done with it."""
    if status not in STATUSES:
        raise ValidationError(f"unknown goal status {status!r}; use one of {', '.join(STATUSES)}")
    if status == "active":
        return make_active(ctx, goal_id)
    goal = require(ctx.store, goal_id)
    progress = 1.0 if status == "done" else goal.progress
    plan = goal.plan
    if status == "done":  # a finished goal's steps are finished: none is left to do
        plan = [attrs.evolve(step, status="done") if step.status == "todo" else step for step in plan]
    changed = save(ctx, attrs.evolve(goal, status=cast(GoalStatus, status), progress=progress, plan=plan))
    if status == "done":
        goal_tasks.goal_finished(ctx, changed)  # its RLM task's Final lands in the parent goal's task
    _update_ancestors(ctx, changed)
    if goal.status == "active":
        promote_next(ctx, choose)
    return changed


def promote_next(ctx: ReasonContext, choose: Chooser | None = None) -> Goal | None:
    """Activate the next open goal, if none is active: ``choose`` picks, else highest priority then oldest."""
    store = ctx.store
    if active(store) is not None:
        return None
    candidates = ranked(store, "open", CANDIDATES_MAX)
    if not candidates:
        return None
    picked = choose(candidates) if choose is not None else None
    if picked is None or picked not in candidates:
        picked = candidates[0]  # the highest priority, the oldest among equals
    return make_active(ctx, picked.id)


def set_parent(ctx: ReasonContext, goal_id: str, parent: str | None) -> Goal:
    """Move a goal under ``parent`` (or to the top with None); a move that would make a cycle is refused."""
    store = ctx.store
    goal = require(store, goal_id)
    if parent is not None:
        require(store, parent)
        above = [parent] + [row["id"] for row in _goal_store(store).goal_ancestors(parent)]
        if goal_id in above:
            raise ValidationError(
                f"goal {goal_id} cannot go under {parent}: {parent} is {goal_id} or one of its subgoals "
                "(goals form a DAG without cycles); choose a parent outside it"
            )
    return save(ctx, attrs.evolve(goal, parent=parent))


def _update_ancestors(ctx: ReasonContext, goal: Goal) -> None:
    """A parent's progress is the mean of its subgoals' (failed ones left out), up to the top.

    The ancestors come in one query, then one read of each one's subgoals' progress; it stops at
    the first whose progress does not change (those above it do not change either), at ``goal``
    itself (a cycle) and at the top. Only ``progress`` and ``updated_tick`` change, so the stored
    row is written back as it is (its ``assumptions`` still those of its plan).
    """
    store = _goal_store(ctx.store)
    for row in store.goal_ancestors(goal.id):
        if row["id"] == goal.id:
            return
        kept = [
            progress
            for status, progress in store.goal_child_progress(row["id"])
            if status not in ("failed", "abandoned")
        ]
        progress = round(sum(kept) / len(kept), 4) if kept else 0.0
        if progress == row["progress"]:
            return
        store.put_goal({**row, "progress": progress, "updated_tick": ctx.tick})
        ctx.goal_writes.append(row["id"])


def matching(store: Any, text: str) -> list[Goal]:
    """Unfinished goals that ``text`` names: by id, by the whole title, else by a part of the title
    (the first ``MATCHES_MAX``); only the titles of the unfinished goals are read to compare."""
    by_id = get(store, text.strip().lower())
    if by_id is not None and by_id.status in UNFINISHED:
        return [by_id]
    wanted = _plain(text)
    titles = [(goal_id, _plain(title)) for goal_id, title in _goal_store(store).goal_titles(UNFINISHED)]
    for test in (lambda plain: plain == wanted, lambda plain: bool(wanted) and wanted in plain):
        found = [goal_id for goal_id, plain in titles if test(plain)]
        if found:
            return [require(store, goal_id) for goal_id in found[:MATCHES_MAX]]
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
    return _line(to_data(goal))


def _line(row: dict[str, Any]) -> str:
    """:func:`line` of a stored row (``agi goals list`` formats thousands without building a Goal each)."""
    under = f", under {row['parent']}" if row["parent"] else ""
    plan = row["plan"]
    steps = sum(step["status"] == "done" for step in plan)
    done = f", step {steps}/{len(plan)}" if plan else ""
    return (
        f"{row['id']} [{row['status']}] {row['description']} "
        f"(priority {row['priority']:g}, progress {round(row['progress'] * 100)}%{done}{under})"
    )


def listing(store: Any) -> str:
    """``agi goals list``: each goal's line (oldest first) and its plan steps, one text."""
    lines = []
    for row in _goal_store(store).goals():
        lines.append(_line(row))
        lines.extend(
            f"  {number}. [{step['status']}] {step['do']} (assumes: {step['assumes']})"
            for number, step in enumerate(row["plan"], 1)
        )
    return "\n".join(lines)


NO_GOALS = "You have no goals yet; tell me one, e.g. 'my goal is to learn French'."


def summary(store: Any) -> str:
    """The goals in one reply of bounded length: all of them when there are at most ``SUMMARY_SHOWN``, the
    active one first; else the count of each status, the active goal, the next open ones and ``agi goals list``."""
    counts = _goal_store(store).goal_counts()
    total = sum(counts.values())
    if not total:
        return NO_GOALS
    if total <= SUMMARY_SHOWN:
        shown = [goal for status in STATUSES_SHOWN for goal in ranked(store, status)]
        return "Your goals: " + "; ".join(line(goal) for goal in shown) + "."
    each = ", ".join(f"{counts[status]:,} {status}" for status in STATUSES_SHOWN if counts.get(status))
    current = active(store)
    following = ranked(store, "open", SUMMARY_SHOWN - 1 if current is not None else SUMMARY_SHOWN)
    parts = [f"Your goals: {total:,} ({each})."]
    parts.append(f"Active: {line(current)}." if current is not None else "No goal is active.")
    if following:
        parts.append("Next: " + "; ".join(line(goal) for goal in following) + ".")
    parts.append("All of them: agi goals list.")
    return " ".join(parts)


def counted(store: Any) -> str:
    """ "You have 3 goals: 1 active, 1 open, 1 done." (each status held, in :data:`STATUSES_SHOWN` order)."""
    counts = _goal_store(store).goal_counts()
    total = sum(counts.values())
    if not total:
        return NO_GOALS
    each = ", ".join(f"{counts[status]:,} {status}" for status in STATUSES_SHOWN if counts.get(status))
    return f"You have {total:,} {'goal' if total == 1 else 'goals'}: {each}."


def active_said(store: Any) -> str:
    """ "Your active goal is read Dune (g-…, priority 0.5, progress 0%, step 0/1)."; none: said, with the goals."""
    goal = active(store)
    if goal is None:
        listed = summary(store)
        return f"No goal is active: {listed[0].lower()}{listed[1:]}"
    said = line(goal)
    details = said[len(f"{goal.id} [{goal.status}] {goal.description} (") :]  # "priority 0.5, …)"
    return f"Your active goal is {goal.description} ({goal.id}, {details}."
