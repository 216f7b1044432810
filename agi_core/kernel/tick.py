"""One tick's phases, conducted by :meth:`Kernel._run_tick <agi_core.kernel.core.Kernel>` under the write lock:
perceive → recall → reason (brain, modules) → plan → act → store, in one transaction."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import attrs

from agi_core import journal_form, lifecycle, tracing
from agi_core.beliefs import beliefs_for
from agi_core.effects import acting, senders
from agi_core.effects.isolation import must_propagate
from agi_core.effects.scope import TickScope
from agi_core.effects.turns import Steps, drive
from agi_core.externals import Externals, wall_reading
from agi_core.faults import fault_point
from agi_core.inputs import preview
from agi_core.journal import HEAD, head_value
from agi_core.memory import versions_meta
from agi_core.messaging import inbox, outbox
from agi_core.model import (
    PLAN_STEPS_MAX,
    RECENT_TURNS_MAX,
    Action,
    EpisodicEntry,
    Goal,
    Input,
    JournalRecord,
    Observation,
    Percept,
    Plan,
    Recalled,
    RouterDecision,
    TickState,
    WorkingMemory,
)
from agi_core.reasoning import Decision, ReasonContext, user_entity_of
from agi_core.serialization import dumps, to_data

if TYPE_CHECKING:
    from agi_core.kernel.core import Kernel
from agi_core.kernel import stopwatch
from agi_core.kernel.config import RECALL_EPISODES, RECALL_FACTS, SENSOR_CURSOR, TURN_CHARS


def perceive(kernel: Kernel) -> tuple[Input, dict[str, Any] | None] | None:
    """The first sensor percept, with ``{"sensor", "cursor"}`` when the sensor returned a :class:`Percept`."""
    for name, sensor in kernel.sensors.items():
        try:
            percept = sensor.poll(kernel)
        except BaseException as exc:  # a failing sensor is reported and skipped
            if must_propagate(exc):
                raise
            kernel.plugins.report_failure(getattr(sensor, "name", repr(sensor)), "poll", exc)
            continue
        if isinstance(percept, Percept):
            return percept.input, {"sensor": name, "cursor": percept.cursor}
        if percept is not None:
            return percept, None
    return None


def move_cursor(kernel: Kernel, cursor: dict[str, Any] | None, externals: Externals) -> None:
    """Store the sensor cursor of the tick's percept in its transaction; recorded, so replay stores it too."""
    if cursor is None and not (externals.replaying and SENSOR_CURSOR in (externals.recorded or {})):
        return
    moved = externals.fetch(SENSOR_CURSOR, lambda: cursor)
    kernel.store.meta_update({f"{SENSOR_CURSOR}:{moved['sensor']}": dumps(moved["cursor"])})


def brainstate(kernel: Kernel, working: WorkingMemory, tick: int) -> dict[str, Any]:
    return {"tick": tick, "counter": kernel.determinism.counter, "working": to_data(working)}


def conduct(
    kernel: Kernel,
    percept: Input,
    reason: Callable[[ReasonContext], Decision],
    externals: Externals,
    command: dict[str, Any] | None,
    brain: str,
    cursor: dict[str, Any] | None = None,
) -> JournalRecord:
    """The tick's phases (:func:`conduct_steps`), driven: where the modules are isolated, everything from
    their first call to the journal record runs on their worker, one hand-off (:func:`drive`)."""
    return drive(conduct_steps(kernel, percept, reason, externals, command, brain, cursor))


def conduct_steps(
    kernel: Kernel,
    percept: Input,
    reason: Callable[[ReasonContext], Decision],
    externals: Externals,
    command: dict[str, Any] | None,
    brain: str,
    cursor: dict[str, Any] | None = None,
) -> Steps[JournalRecord]:
    started, tick, parts = stopwatch.start(), kernel.tick_count + 1, kernel.parts
    with tracing.phase("perceive"):
        kernel.tick_now_ms = parts.begin_tick(kernel.store, kernel.config.clock, percept, externals)
        move_cursor(kernel, cursor, externals)
        scope = kernel.tick_scope(externals, sender=senders.sender_of(percept.source))
        kernel.plugin_settings.begin_tick(externals)
        message = inbox.receive(kernel, percept, externals, tick)
        working = kernel._working
        before = brainstate(kernel, working, tick - 1)
        state = TickState(input=percept)
        kernel.plugins.before_tick(kernel=kernel, state=state, skip=kernel.disabled_plugins)
    with tracing.phase("recall"):
        # working memory holds the store's active goal as the last tick left it (same transaction)
        state = attrs.evolve(
            state, recalled=recall(kernel, working, externals), goal=parts.active_goal(working.active_goal)
        )
        state = attrs.evolve(state, beliefs=beliefs_for(state))
    ctx = ReasonContext(
        state=state,
        tick=tick,
        store=kernel.store,
        determinism=kernel.determinism,
        synonyms=kernel.synonyms,
        externals=externals,
        long_term=lambda query, k: kernel.recall_long_term(query, k, externals),
        council=kernel.voters.members,
        council_failed=kernel.voters.failed,
        council_limit=kernel.voters.limit,
        council_settings=lambda: kernel.plugin_settings.values("stage0"),
        settings=kernel.settings,
        read_tool=lambda name, args: acting.read_tool(scope, name, args),
        contracts=parts.plan_caller(
            externals, bool(kernel.config.contract_provider), lambda: kernel.contract_caller(externals)
        ),
        on_state_complete=lambda event: kernel.plugins.state_completed(
            kernel=kernel, event=event, replaying=externals.replaying, skip=kernel.disabled_plugins
        ),
        user_entity=user_entity_of(state.input.speaker, externals),
    )
    modules = ctx.module_tick = parts.module_run(scope, ctx, working, lambda: kernel.contract_caller(externals))
    phased = command is None and any(module.phases for module in kernel.modules)  # sem_council only votes
    held: list[dict[str, Any]] = []  # the modules' belief proposals, checked
    with tracing.phase("reason"):
        if phased:
            ctx.proposals = yield from modules.before_reasoning_steps(state)  # perceive, recall, deliberate
            held = parts.module_beliefs(ctx.proposals)  # checked once a tick, used twice
            if held:  # the modules' belief proposals join the facts' beliefs before the brain reasons
                state = ctx.state = attrs.evolve(state, beliefs=beliefs_for(state, checked=held))
        decision = reason(ctx)
        ctx.closed = True
    with tracing.phase("plan"):
        decision = plan_of(kernel, decision, ctx.goal_plan)
        if phased and kernel._revisers:  # modules may rewrite, replace or veto the reply before it is acted on
            modules.reason = attrs.evolve(ctx, closed=False)  # shares ctx's read/write logs; ctx stays closed
            decision = yield from modules.revise_steps(state, decision, ctx.proposals)
            modules.reason.closed = True
    with tracing.phase("act"):
        if decision.acted is not None:  # a read tool the brain already ran (and answered from)
            observation, final_output = decision.acted, decision.final_output
        else:
            observation, final_output = act(kernel, scope, decision.action, decision.final_output)
        plan, replanned = parts.observe_plan(ctx, decision.plan, observation)  # rule 4
        final_output += replanned
        if phased:
            outcome = {
                "final_output": final_output,
                "action": to_data(decision.action),
                "observation": to_data(observation),
            }
            modules.reason = attrs.evolve(ctx, closed=False)  # shares ctx's read/write logs; ctx stays closed
            observed = attrs.evolve(state, action=decision.action, observation=observation)
            yield from modules.run_steps("observe", observed, proposals=ctx.proposals, outcome=outcome)
            modules.reason.closed = True
        agent_outputs = decision.agent_outputs
        sent = outbox.reply(kernel, tick, message, final_output, externals) + outbox.from_tool(
            kernel, tick, decision.action, observation
        )
        if sent:  # a reply to a message goes back to its sender (same conversation); a send_message receipt sends
            agent_outputs = {**agent_outputs, "messages_out": sent}
    with tracing.phase("store"):
        kept = keeps_turn(percept, externals)  # before the externals are taken: it may record one
        # the percept is the record's ``input``, which replay reads (older journals hold it in externals too)
        recorded: dict[str, Any] = {**externals.log}
        if command:
            recorded["command"] = command
        goal = parts.goal_after_tick(ctx, state.goal)
        working = remember(working, percept, final_output, decision, goal, turn=kept)
        record = JournalRecord(
            tick=tick,
            id=kernel.determinism.new_id("tick", str(tick)),
            timestamp=kernel.determinism.now(),
            input=percept,
            router_decision=decision.router_decision,
            selected_agents=decision.selected_agents,
            agent_outputs=agent_outputs,
            sem_reads=ctx.sem_reads,
            sem_writes=ctx.sem_writes,
            final_output=final_output,
            council_votes=decision.council_votes,
            claims=decision.claims,
            evidence_items=decision.evidence_items,
            brainstate_before=before,
            brainstate_after=brainstate(kernel, working, tick),
            action=decision.action,
            observation=observation,
            plan=plan,
            externals=recorded,
            degraded=decision.degraded,
            brain=brain,
            modules=modules.log,
            hook_order=lifecycle.hook_order(kernel, kernel._hook_log),
            goal=working.active_goal,
            beliefs=beliefs_for(state, sem_reads=ctx.sem_reads, checked=held),
        )
        store(kernel, tick, record, percept, working, started, note_versions=not externals.replaying)
        ctx.module_tick = modules.reason.module_tick = None  # no reference cycle left: the tick is freed at once
        fault_point("tick.before_commit")
        return record


def recall(kernel: Kernel, working: WorkingMemory, externals: Externals) -> Recalled:
    prefix = working.focus + "/" if working.focus else ""
    shares = getattr(kernel.store, "shares", None)
    if prefix and (
        (not externals.replaying and shares is not None and shares(prefix))
        or externals.next_matches("shared_facts", lambda item: item.get("prefix") == prefix)
    ):  # other agents write the backend's shared scope: what was recalled is an external, so replay sees it
        served = externals.fetch(
            "shared_facts",
            lambda: {"prefix": prefix, "facts": [to_data(e) for e in kernel.store.facts(prefix, limit=RECALL_FACTS)]},
        )
        semantic = list(served["facts"])
    else:
        semantic = [to_data(entry) for entry in kernel.store.facts(prefix, limit=RECALL_FACTS)] if prefix else []
    episodic = list(kernel._recent_episodes)
    return Recalled(semantic=semantic, episodic=episodic, working=to_data(working))


def plan_of(kernel: Kernel, decision: Decision, goal_plan: Plan | None) -> Decision:
    """The tick's plan: a goal's step (``goal_plan``, see agi_core.scheduling.plans) or the brain's,
    with rule 4 (replan when the last observation failed) and the 20-step limit."""
    if goal_plan is not None:
        return attrs.evolve(decision, plan=goal_plan)
    steps = list(decision.plan.steps)
    if not kernel._last_observation_ok:
        steps.insert(0, "replan:last_observation_failed")
    if len(steps) > PLAN_STEPS_MAX:
        text = kernel.parts.too_many_steps(len(steps))
        return attrs.evolve(
            decision,
            plan=Plan(steps=steps[:PLAN_STEPS_MAX]),
            final_output=text,
            action=Action(type="response", name="respond", args={"text": text}),
            acted=None,
        )
    return attrs.evolve(decision, plan=Plan(steps=steps, current_index=len(steps) - 1))


def act(kernel: Kernel, scope: TickScope, action: Action, reply: str) -> tuple[Observation, str]:
    """Exactly one action: a response, or one tool call gated by its effect (:func:`acting.act`);
    a write/external call's intent is kept to run after the commit (:meth:`_settled`)."""
    observation, text, due = acting.act(scope, action, reply)
    if due is not None:
        kernel._due = due
    return observation, text


NOT_CONVERSATION = frozenset({"clock", "maintain", "event"})
"""Sources whose ticks are no turns of the conversation: the clock sensor's, maintenance, kernel commands."""
TURN_SKIPPED = "turn_skipped"
"""The external that records a tick whose turn working memory did not keep (journals from before kept all)."""


def keeps_turn(percept: Input, externals: Externals) -> bool:
    """Whether the tick's line and reply join working memory's recent turns: a clock, maintenance or command
    tick does not (an idle ``--follow`` agent's turns were all ``maintain`` and ``clock`` after minutes, the
    conversation pushed out); a journal from before this rule replays as it was written, keeping them."""
    if percept.source not in NOT_CONVERSATION:
        return True
    if externals.recorded is not None and TURN_SKIPPED not in externals.recorded:
        return True
    externals.fetch(TURN_SKIPPED, lambda: True)
    return False


def remember(
    working: WorkingMemory,
    percept: Input,
    reply: str,
    decision: Decision,
    active_goal: Goal | None,
    *,
    turn: bool = True,
) -> WorkingMemory:
    said, answered = preview(percept.raw, TURN_CHARS), preview(reply, TURN_CHARS)  # bounded, not copies
    turns = [*working.recent_turns, f"{percept.source}: {said}", f"agent: {answered}"] if turn else working.recent_turns
    return WorkingMemory(
        recent_turns=turns[-RECENT_TURNS_MAX:],
        active_goal=active_goal,
        focus=decision.focus or working.focus,
    )


def store(
    kernel: Kernel,
    tick: int,
    record: JournalRecord,
    percept: Input,
    working: WorkingMemory,
    started: int,
    *,
    note_versions: bool = True,
) -> None:
    """Rule 3: episodes, working memory, meta and the journal record, in the tick's transaction; beside them
    the tick's duration since ``started`` (a :mod:`~agi_core.kernel.stopwatch` reading), where the backend keeps it.

    A run's first live tick (and the first after another process wrote) also appends this run's agi-core and
    plugin versions to the ``versions`` meta row when they differ from the last recorded
    (:mod:`agi_core.memory.versions_meta`); a replayed tick records none (its writer's are not this process's).
    """
    stamp = record.timestamp
    # the tick's recorded wall clock (AgentOne: every interaction is timestamped): the kernel clock's,
    # else a reading the tick took when it needed the time; the deterministic ``timestamp`` stays
    # D2's, so ids and stamps replay exactly with or without a clock
    wall_ms = kernel.tick_now_ms if kernel.tick_now_ms is not None else wall_reading(record.externals)
    wall = {} if wall_ms is None else {"wall_ms": wall_ms}
    said: dict[str, Any] = {"kind": "input", "source": percept.source}
    if percept.speaker is not None:
        said["speaker"] = percept.speaker
    acted = {"kind": "action", "action": to_data(record.action), "success": record.observation.success, **wall}
    calls = sum(1 for step in record.plan.steps if step.startswith(("tool:", "brain_tool:")))
    if calls:  # AgentOne's +0.3 importance of a thought that led to tool calls (agi_core.longterm.episodes)
        acted["tool_calls"] = calls
    episodes = [
        EpisodicEntry(
            id=kernel.determinism.new_id("episode", "input"),
            event=percept.raw,
            context={**said, **wall},
            timestamp=stamp,
        ),
        EpisodicEntry(
            id=kernel.determinism.new_id("episode", "action"),
            event=record.final_output,
            context=acted,
            timestamp=stamp,
        ),
    ]
    kernel.store.add_episodes(episodes, tick)
    kernel._recent_episodes = [*(to_data(entry) for entry in reversed(episodes)), *kernel._recent_episodes][
        :RECALL_EPISODES
    ]
    kernel.store.set_working(working)
    kernel._working = working
    # what an idle tick repeats is stored once (agi_core.journal_form); large strings once, as blobs
    text = kernel.store.store_record(journal_form.compact(to_data(record)))
    chain = kernel.journal_key.mac(kernel._last_chain + "|" + text)
    kernel.store.append_journal(tick, record.id, text, chain)
    kernel.last_journal_text, kernel._last_chain = text, chain
    kernel._last_observation_ok = record.observation.success
    versions: dict[str, str] = {}
    if note_versions and not kernel.versions_noted:
        versions = versions_meta.note(kernel.store, tick, kernel.plugins.versions())
        kernel.versions_noted = True  # reset by reload(): a failed tick, a rollback, another process's commit
    kernel.store.meta_update(
        {
            "tick": str(tick),
            "counter": str(kernel.determinism.counter),
            "last_observation_ok": "1" if record.observation.success else "0",
            HEAD: head_value(kernel.journal_key, tick, chain),
            **versions,
        }
    )
    if kernel.tick_timings is not None:  # last: the measurement covers everything the tick stored
        kernel.tick_timings.tick_timing_put(tick, stopwatch.elapsed_us(started))


def command_decision(
    ctx: ReasonContext, kernel: Kernel, name: str, handler: Callable[..., tuple[Any, ...]], args: dict[str, Any]
) -> Decision:
    text, result, *acting = handler(kernel, ctx, args)  # a 3rd item is the action (the receipt's tool call)
    return Decision(
        router_decision=RouterDecision(agent=f"command:{name}", why="explicit_command"),
        selected_agents=[f"command:{name}"],
        agent_outputs={name: result},
        final_output=text,
        council_votes=[],
        claims=[],
        evidence_items=[],
        action=acting[0] if acting else Action(type="response", name="respond", args={"text": text}),
        plan=Plan(steps=[f"command:{name}"]),
    )
