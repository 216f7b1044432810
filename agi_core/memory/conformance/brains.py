"""A brain for the conformance suite: writes a fact, then answers, fails or is interrupted.

The input decides: ``remember <value>`` writes ``user/person/self/note`` and answers;
``fail <value>`` writes it and raises ``ValueError`` (the kernel undoes the brain's writes and
answers F4); ``interrupt <value>`` writes it and raises ``KeyboardInterrupt`` (the whole tick
is abandoned: the backend must keep nothing of it).
"""

from __future__ import annotations

from typing import Any

from agi_core.brain.context import Decision, ReasonContext
from agi_core.hookspecs import hookimpl
from agi_core.model import Action, Plan, RouterDecision

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
        if verb == "interrupt":
            raise KeyboardInterrupt
        text = f"noted {value} (before: {previous.value if previous.exists else 'nothing'})"
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
    """This module is the plugin: ``plugins.add_module("agi_core.memory.conformance.brains")``."""
    register(ConformanceBrain, name=NAME)
