"""Isolation of plugin calls: which exceptions a plugin may raise through the kernel.

None, except ``KeyboardInterrupt`` (the user stopping the agent) and the kernel's own
``ReplayMismatch`` (a replay that is not the recorded run). Everything else, ``SystemExit``
and other ``BaseException`` subclasses included, is caught at the call site and recorded
as a failure that names the plugin. ``os._exit`` ends the process before any handler
runs: no in-process isolation can catch it (documented in docs/reliability.md).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agi_core.errors import BackendUnavailable, ReplayMismatch


def must_propagate(exc: BaseException) -> bool:
    """True for the exceptions a plugin call lets through: Ctrl-C, a replay mismatch, and the store's
    server gone away (the plugin is not at fault: the tick cannot be stored, it waits and runs again)."""
    return isinstance(exc, KeyboardInterrupt | ReplayMismatch | BackendUnavailable)


def describe(exc: BaseException) -> str:
    """``TypeName: first line of the message`` (``SystemExit: 3``), for one-line reports."""
    text = str(exc).strip()
    first = text.splitlines()[0] if text else ""
    return f"{type(exc).__name__}: {first}" if first else type(exc).__name__


Report = Callable[[str, str, BaseException | str], None]


def isolated_reason(reason: Callable[[Any], Any], brain: str, plugin: str, report: Report) -> Callable[[Any], Any]:
    """``reason`` wrapped so that a failing brain gives the F4 reply instead of failing the tick.

    What the brain wrote before failing is undone (a savepoint); its reads stay recorded.
    """

    def run(ctx: Any) -> Any:
        try:
            with ctx.store.savepoint("agi_brain"):
                return reason(ctx)
        except BaseException as exc:
            if must_propagate(exc):
                raise
            ctx.sem_writes.clear()  # the savepoint undid them
            report(plugin, f"brain {brain}", exc)
            return failed_decision(brain, exc)

    return run


def failed_decision(brain: str, exc: BaseException) -> Any:
    """The decision of a brain that raised: the rulebook's F4 reply, the brain marked degraded."""
    from agi_core.brain.context import Decision
    from agi_core.model import Action, Plan, RouterDecision
    from agi_core.replies import F4_AGENT_FAILURE

    return Decision(
        router_decision=RouterDecision(agent=brain, why="brain_failed"),
        selected_agents=[brain],
        agent_outputs={brain: {"error": describe(exc)}},
        final_output=F4_AGENT_FAILURE,
        council_votes=[],
        claims=[],
        evidence_items=[],
        action=Action(type="response", name="respond", args={"text": F4_AGENT_FAILURE}),
        plan=Plan(steps=[f"brain_failed:{brain}"]),
        degraded=[brain],
    )
