"""A plugin for the conformance suite: a brain that writes a fact, then answers or fails.

The input decides: ``remember <value>`` writes ``user/person/self/note`` and answers;
``garble <value>`` does too, with a lone surrogate in its answer (bad plugin output);
``fail <value>`` writes it and raises ``ValueError`` (the kernel undoes the brain's writes and
answers F4). ``interrupt <value>``: a ``agi_before_tick`` hook writes the fact, then raises
``KeyboardInterrupt``; the whole tick is abandoned and the backend must keep nothing of it.
"""

from __future__ import annotations

from typing import Any

from agi_core.hookspecs import hookimpl
from agi_core.model import Action, Plan, RouterDecision, SemanticEntry, TickState
from agi_core.reasoning import Decision, ReasonContext

PLUGIN = __name__
NAME = "conformance"
NOTE = "user/person/self/note"


class ConformanceBrain:
    name = NAME

    def __init__(self, kernel: Any) -> None:
        pass

    def reason(self, ctx: ReasonContext) -> Decision:
        verb, _, value = ctx.state.input.normalized.partition(" ")
        previous = ctx.sem_read(NOTE)
        ctx.sem_write(NOTE, value, f"note: {value}")
        if verb == "fail":
            raise ValueError("the brain failed on purpose")
        text = f"noted {value} (before: {previous.value if previous.exists else 'nothing'})"
        if verb == "garble":
            text += " \udcff"
        return Decision(
            router_decision=RouterDecision(agent=NAME, why="conformance"),
            selected_agents=[NAME],
            agent_outputs={NAME: {"value": value}},
            final_output=text,
            council_votes=[],
            claims=[],
            evidence_items=[],
            action=Action(type="response", name="respond", args={"text": text}),
            plan=Plan(steps=["note"]),
            focus="user/person/self",
        )


@hookimpl
def agi_register_brains(register: Any) -> None:
    """This module is the plugin: ``plugins.add_module("agi_core.testing.conformance.brains")``."""
    register(ConformanceBrain, name=NAME)


@hookimpl
def agi_before_tick(kernel: Any, state: TickState) -> None:
    """``interrupt <value>``: a write in the tick's transaction, then Ctrl-C."""
    verb, _, value = state.input.normalized.partition(" ")
    if verb == "interrupt":
        stamp = kernel.determinism.now()
        kernel.store.sem_write(SemanticEntry(id="interrupted", key=NOTE, value=value, fact=value, updated_at=stamp), 0)
        raise KeyboardInterrupt
