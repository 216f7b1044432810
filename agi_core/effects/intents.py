"""Intent → execute → receipt for ``write`` and ``external`` tools.

1. The tick that decides the call commits it as an **intent**: its journal record's
   observation is ``{"intent": "pending", "args": …, "policy": …}`` and a row of the
   ``intents`` table (tick, tool, args) is written in the same transaction.
2. After that commit the kernel runs the tool (timeout, isolation, result check as for
   any tool), outside any transaction.
3. A **receipt tick** (kernel command ``receipt``, input source ``event``) records the
   tool's observation as its ``tool_observation`` external and marks the intent row
   with the receipt's tick, in its own transaction.

Replay serves both ticks' observations from the journal and never runs the tool. A
kill between 1 and 3 leaves an intent without a receipt: it is reported
(:func:`pending`, ``agi intents``, one line on stderr when the CLI opens the agent) and
never run again on its own. :func:`retry` runs it again only when the tool declares an
``idempotency_key``; :func:`abandon` closes it with a failed receipt.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

import attrs

from agi_core import tracing
from agi_core.effects import calls
from agi_core.effects.inflight import InFlight
from agi_core.errors import ToolError
from agi_core.model import Action, JournalRecord, Observation
from agi_core.serialization import dumps, to_data
from agi_core.tools import ToolContext

if TYPE_CHECKING:
    from agi_core.determinism import Determinism
    from agi_core.effects.scope import TickScope
    from agi_core.memory.backend import MemoryBackend


@attrs.frozen
class Intent:
    """A write/external call committed before it runs; ``receipt_tick`` is None until its receipt commits."""

    tick: int
    tool: str
    args: dict[str, Any]
    receipt_tick: int | None = None
    goal: str | None = None  # the goal whose plan step decided the call (its receipt judges that step)
    step: int | None = None

    def line(self) -> str:
        """One line for ``agi intents`` and the warning on open."""
        return f"tick {self.tick}: {self.tool} {dumps(self.args)}"


#: Runs the receipt tick of an intent: the kernel command ``receipt`` with these args, serving this observation.
ReceiptTick = Callable[[dict[str, Any], dict[str, Any]], JournalRecord]


def idempotency_value(determinism: Determinism, tick: int, tool: str, salt: str = "") -> str:
    """The key given to a tool's ``idempotency_key`` parameter when the caller gave none (same on retry: the intent
    keeps its args). ``salt`` (:attr:`~agi_core.effects.scope.TickScope.intent_salt`) makes it this database's after
    this many rollbacks, so a tick number used again does not repeat a key an executed intent had."""
    return "agi-" + determinism.sign(f"intent|{tick}|{tool}" + (f"|{salt}" if salt else ""))[:32]


def record(store: MemoryBackend, tick: int, tool: str, args: dict[str, Any]) -> Intent:
    """Store the intent in the tick's transaction (live and in replay alike)."""
    store.intent_add(tick, tool, dumps(args))
    return Intent(tick, tool, args)


def pending(store: MemoryBackend) -> list[Intent]:
    """Intents without a receipt, oldest first."""
    return [Intent(*row) for row in store.intents(pending_only=True)]


def orphaned(store: MemoryBackend, inflight: InFlight) -> list[Intent]:
    """Pending intents that no live process is executing: their process died before the receipt.

    Read again after the lock checks: a receipt that committed meanwhile is not reported.
    """
    candidates = {intent.tick for intent in pending(store) if not inflight.running(intent.tick)}
    return [intent for intent in pending(store) if intent.tick in candidates]


def _pending_at(store: MemoryBackend, tick: int) -> Intent:
    found = next((intent for intent in pending(store) if intent.tick == tick), None)
    if found is None:
        raise ToolError(f"no pending intent at tick {tick}; list them with agi intents")
    return found


def settle(
    scope: TickScope, intent: Intent, receipt_tick: ReceiptTick, *, traced: Mapping[str, tracing.Value] | None = None
) -> JournalRecord:
    """Run the committed intent's tool now and commit its receipt tick with ``receipt_tick`` (returned).

    ``scope``: the tools, their limits and the determinism the call runs with (the receipt tick's);
    ``traced``: more attributes of its ``execute_intent`` root span (the agent, its database, the record).
    """
    tool = scope.tools.get(intent.tool)
    if tool is None:
        observation = Observation(success=False, error=f"tool {intent.tool!r} is no longer installed")
        return _receipt_tick(receipt_tick, intent, observation, 0)
    determinism = scope.determinism
    scope.inflight.hold(intent.tick)
    try:
        context = ToolContext(
            workspace=scope.workspace, determinism=determinism, live=scope.live, check_recipient=scope.check_recipient
        )
        before = determinism.counter
        try:
            attributes: dict[str, tracing.Value] = {"agi.tick": intent.tick, "gen_ai.tool.name": tool.name}
            attributes.update(traced or {})
            with tracing.span(f"execute_intent {tool.name}", attributes):
                observation = calls.run(  # after the intent's tick committed: a trace of its own (docs/tracing.md)
                    tool,
                    intent.args,
                    context,
                    timeout_s=scope.timeout_s,
                    plugin=scope.tool_plugins.get(tool.name, "?"),
                    report=scope.report,
                )
        finally:  # the receipt tick draws them again, so live and replay count alike
            draws, determinism.counter = determinism.counter - before, before
        return _receipt_tick(receipt_tick, intent, observation, draws)
    finally:
        scope.inflight.release(intent.tick)


def retry(scope: TickScope, tick: int, receipt_tick: ReceiptTick) -> JournalRecord:
    """Run a pending intent again; only for tools that declare an ``idempotency_key``."""
    with _claimed(scope, tick) as intent:
        tool = scope.tools.get(intent.tool)
        if tool is None or not tool.definition.idempotency_key:
            raise ToolError(
                f"tool {intent.tool!r} declares no idempotency_key, so the intent of tick {tick} may already have "
                f"taken effect; check by hand, then close it with agi intents --abandon {tick}"
            )
        return settle(scope, intent, receipt_tick)


def with_goal_step(store: MemoryBackend, intent: Intent) -> Intent:
    """``intent`` with the goal step that decided it, read from its tick's journal record (so the
    receipt of a retried or abandoned call judges that step too)."""
    row = next(iter(store.journal_rows(intent.tick - 1)), None)
    if row is None or row[0] != intent.tick:
        return intent
    plan = json.loads(row[2]).get("plan") or {}
    goal = plan.get("goal")
    if not isinstance(goal, str):
        return intent
    return attrs.evolve(intent, goal=goal, step=int(plan.get("current_index") or 0))


def abandon(scope: TickScope, tick: int, receipt_tick: ReceiptTick) -> JournalRecord:
    """Close a pending intent without running it (its effect is unknown): a failed receipt."""
    with _claimed(scope, tick) as intent:
        error = f"abandoned: the intent of tick {tick} was never confirmed; its effect is unknown"
        failed = Observation(success=False, payload={"abandoned": True}, error=error)
        return _receipt_tick(receipt_tick, intent, failed, 0)


@contextlib.contextmanager
def _claimed(scope: TickScope, tick: int) -> Iterator[Intent]:
    """The pending intent of ``tick`` with its lock held here; refused while another process runs it."""
    _pending_at(scope.store, tick)
    if not scope.inflight.hold(tick, wait=False):
        raise ToolError(f"the intent of tick {tick} is running in another process; wait for its receipt")
    try:
        # read again, under the lock: a receipt may have come meanwhile
        yield with_goal_step(scope.store, _pending_at(scope.store, tick))
    finally:
        scope.inflight.release(tick)


def _receipt_tick(receipt_tick: ReceiptTick, intent: Intent, observation: Observation, draws: int) -> JournalRecord:
    """The receipt tick of ``intent``: its command args and the observation it serves, handed to ``receipt_tick``."""
    payload = {"policy": f"intent of tick {intent.tick}", **observation.payload}
    receipt = {**to_data(attrs.evolve(observation, payload=payload)), "draws": draws}
    step = {"goal": intent.goal, "step": intent.step} if intent.goal is not None else {}
    return receipt_tick({"intent": intent.tick, "tool": intent.tool, **step}, receipt)


def receipt_command(store: MemoryBackend, tick: int, args: dict[str, Any]) -> tuple[str, Any, Action]:
    """Kernel command ``receipt`` in tick ``tick``: mark the intent and act it out with the recorded observation.

    A goal's plan step (``goal``, ``step``) is the tick's plan: :func:`agi_core.commands.receipt`
    sets it (goals sit floors above effects).
    """
    intent = _pending_at(store, int(args["intent"]))
    store.intent_receipt(intent.tick, tick)
    text = f"receipt of the intent of tick {intent.tick}"
    return text, {"intent": intent.tick}, Action(type="tool", name=intent.tool, args=intent.args)


__all__ = ["Intent", "ReceiptTick", "abandon", "orphaned", "pending", "receipt_command", "record", "retry", "settle"]
