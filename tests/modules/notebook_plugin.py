"""A real module plugin for the tests: one module using every phase and its own state.

Loaded in-process (``open_kernel(path, notebook_plugin)``) and, for the CLI tests, installed
as an entry-point plugin from this file's text. It registers through the real hook.
"""

from __future__ import annotations

from typing import Any, ClassVar

from agi_core.hookspecs import hookimpl
from agi_core.modules import Belief, Candidate, Claim, Proposals


class Notebook:
    """Counts inputs, remembers the last reply, answers "notebook?" and tidies up when maintained."""

    name = "notebook"
    priority = 50
    contracts = ("dialogue_state",)
    state_schema: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {
            "seen": {"type": "integer", "minimum": 0},
            "last": {"type": "string", "maxLength": 40},
            "tidied": {"type": "integer", "minimum": 0},
        },
        "additionalProperties": False,
    }

    def perceive(self, ctx):
        seen = ctx.own.get("seen", 0) + 1
        ctx.own.put("seen", seen)
        return {"seen": seen, "id": ctx.new_id(ctx.text)[:8]}

    def recall(self, ctx):
        return {"user_facts": ctx.memory.facts("user/"), "episodes": len(ctx.memory.episodes(2))}

    def deliberate(self, ctx):
        outcome = ctx.contracts.call("dialogue_state", {"text": ctx.text})
        beliefs = [Belief("dialogue_state", outcome.source, 0.5)]
        if ctx.text == "notebook?":
            seen = ctx.own.get("seen")
            return Proposals(beliefs=beliefs, candidates=[Candidate(f"I have seen {seen} inputs.", score=0.9)])
        name = ctx.earlier["notebook"]["recall"]["user_facts"].get("user/person/self/name")
        if ctx.text == "who is talking?" and name is not None:
            key = "user/person/self/name"
            claim = Claim(key, name, f"You are {name}.", ctx.evidence_for(key))
            return Proposals(beliefs=beliefs, candidates=[Candidate(f"You are {name}.", 0.8, claims=[claim])])
        return Proposals(beliefs=beliefs)

    def observe(self, ctx):
        ctx.own.put("last", ctx.outcome["final_output"][:40])
        return {"ok": ctx.outcome["observation"]["success"]}

    def maintain(self, ctx):
        tidied = ctx.own.get("tidied", 0) + 1
        ctx.own.put("tidied", tidied)
        return {"tidied": tidied}


@hookimpl
def agi_register_modules(register):
    register(Notebook())
