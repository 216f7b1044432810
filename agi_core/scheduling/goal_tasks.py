"""Goals and their plans as RLM task trees (:mod:`agi_core.state`).

A top-level goal is the root state of a new tree (prompt: the goal's title); a subgoal is a
child state of its parent goal's state, with ``result_name`` ``subgoal_<id>``; each plan step
that succeeds is a child state of its goal's state whose ``Final`` (the step's outcome) lands
in the goal's state as ``step_<n>``. When the goal is done, its state's ``Final`` is set
("done: TITLE"), which lands in the parent goal's state. A goal's state is found by its
session id, ``goal:<goal id>``.

Everything runs inside the tick, on the agent's ``rlm_*`` rows and the kernel's determinism,
so replay re-creates the same states. A completion fires the tick's completion callback
(``ReasonContext.on_state_complete``: the plugins' ``agi_state_completed`` hook).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from agi_core.scheduling.wall_time import ttl_clock
from agi_core.state.service import StateService

if TYPE_CHECKING:
    from agi_core.model import Goal
    from agi_core.reasoning import ReasonContext

SESSION_PREFIX = "goal:"
EXTERNAL = "goal_tasks"


def service(ctx: ReasonContext) -> StateService | None:
    """The tick's RLM state service (None on a backend without RLM rows, or when replaying a journal
    from before goals had tasks: the ``goal_tasks`` external records that the tick kept them)."""
    rows = getattr(ctx.store, "rlm_rows", None)
    if rows is None:
        return None
    recorded = ctx.externals.recorded
    if recorded is not None and EXTERNAL not in recorded:
        return None
    if EXTERNAL not in ctx.externals.log:  # once per tick, live and in replay alike
        ctx.externals.fetch(EXTERNAL, lambda: True)
    path = Path(ctx.store.path)
    svc = StateService(
        rows(),
        ctx.determinism,
        path.with_name(path.name + ".state") / "rlm",
        wall_ms=ttl_clock(ctx.externals),  # read only if a TTL is set or checked
    )
    callback = getattr(ctx, "on_state_complete", None)
    if callback is not None:
        svc.on_complete(callback)
    return svc


def result_name(prefix: str, ident: str) -> str:
    """``subgoal_g_1a2b3c4d``: a variable name from an id."""
    return f"{prefix}_" + "".join(ch if ch.isalnum() else "_" for ch in ident)


def goal_state(svc: StateService, goal_id: str) -> str | None:
    """The id of goal ``goal_id``'s state, if it has one."""
    session = SESSION_PREFIX + goal_id
    return next((s.state_id for s in svc.states() if s.session_id == session), None)


def goal_added(ctx: ReasonContext, goal: Goal) -> str | None:
    """Create the goal's state: a child of its parent goal's state, else the root of a new tree."""
    svc = service(ctx)
    if svc is None:
        return None
    session = SESSION_PREFIX + goal.id
    parent = goal_state(svc, goal.parent) if goal.parent else None
    if parent is not None:
        state = svc.create_state(
            goal.description,
            session_id=session,
            parent_state_id=parent,
            result_name=result_name("subgoal", goal.id),
            source="goal",
        )
    else:
        state = svc.create_state(goal.description, session_id=session, tree_id=svc.new_tree_id(), source="goal")
    svc.set(state.state_id, "goal_id", goal.id, source="goal", read_only=True)
    return state.state_id


def step_done(ctx: ReasonContext, goal: Goal, index: int, outcome: str) -> None:
    """Step ``index`` succeeded: a child task of the goal's state, completed with ``outcome``."""
    svc = service(ctx)
    state = goal_state(svc, goal.id) if svc is not None else None
    if svc is None or state is None:
        return
    child = svc.spawn_child(state, goal.plan[index].do, result_name=f"step_{index + 1}")
    svc.set(child.state_id, "Final", outcome, source="goal")


def goal_finished(ctx: ReasonContext, goal: Goal) -> None:
    """The goal is done: its state's ``Final``, which lands in the parent goal's state."""
    svc = service(ctx)
    state = goal_state(svc, goal.id) if svc is not None else None
    if svc is None or state is None or svc.is_complete(state):
        return
    svc.set(state, "Final", f"done: {goal.description}", source="goal")


def outcome_text(payload: dict[str, Any], fallback: str) -> str:
    """A step's outcome in one line: the tool's ``text``, else its payload without the policy, else ``fallback``."""
    from agi_core.serialization import dumps

    if isinstance(payload.get("text"), str) and payload["text"].strip():
        return str(payload["text"]).strip()[:500]
    shown = {k: v for k, v in payload.items() if k != "policy"}
    return dumps(shown)[:500] if shown else fallback
