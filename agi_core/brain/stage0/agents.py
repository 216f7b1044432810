"""The Stage-0 router agents (rules R1-R4), plus the explicit tool command.

Each agent has a ``name``, the rulebook ``rule`` code it reports as ``why``, a
``priority`` (lower is tried first), ``matches(text)`` and ``handle(ctx)``.
"""

from __future__ import annotations

import re
import shlex

import attrs

from agi_core.brain.context import AgentReply, ReasonContext
from agi_core.brain.messages import F1_SEM_MISS, F3_NO_AGENT, F5_SEM_WRITE_FAILURE
from agi_core.brain.stage0.mathparse import MathError, evaluate, render
from agi_core.model import Action

R1_MATH = re.compile(r"^\s*\d+\s*([+\-*/^])\s*\d+\s*$")
_END = r"\s*[.!?]*\s*$"
_PROFILE_WRITE = re.compile(
    r"^(?:please )?(?:remember(?: that)? )?my (?P<attr>[\w' -]+?) (?:is|are) (?P<value>.+?)" + _END, re.I
)
_PROFILE_READ = re.compile(r"^(?:what|who|where|when)(?: is|'s|’s| are) my (?P<attr>[\w' -]+?)" + _END, re.I)
_WORLD_WRITE = re.compile(
    r"^(?:the )?(?P<attr>[\w' -]+?) of (?P<entity>[\w' .-]+?) (?:is|are|was) (?P<value>.+?)" + _END, re.I
)
_WORLD_READ = re.compile(
    r"^(?:what|who|where|when)(?: is|'s|’s| are| was) (?:the )?(?P<attr>[\w' -]+?) of "
    r"(?P<entity>[\w' .-]+?)" + _END,
    re.I,
)


def _claim(ctx: ReasonContext, key: str, value: object, text: str) -> dict[str, object]:
    return {"id": "c1", "key": key, "value": value, "text": text, "evidence": ctx.evidence_for(key)}


@attrs.frozen
class MathAgent:
    name: str = "math_agent"
    rule: str = "matched_R1_math"
    priority: int = 10
    inline: bool = True

    def matches(self, text: str) -> bool:
        return R1_MATH.match(text) is not None

    def handle(self, ctx: ReasonContext) -> AgentReply:
        try:
            return AgentReply(f"{ctx.text.strip()} = {render(evaluate(ctx.text))}")
        except MathError as exc:
            return AgentReply(str(exc))


@attrs.frozen
class ProfileAgent:
    """R2: "my favorite X is Y" writes, "what is my favorite X?" reads (user/person/self/…)."""

    name: str = "profile_agent"
    rule: str = "matched_R2_profile"
    priority: int = 20
    inline: bool = True

    def matches(self, text: str) -> bool:
        return "my favo" in text.lower() or bool(_PROFILE_WRITE.match(text) or _PROFILE_READ.match(text))

    def handle(self, ctx: ReasonContext) -> AgentReply:
        raw = ctx.state.input.raw.strip()
        if found := _PROFILE_READ.match(raw):
            key = ctx.key("user", "person", "self", found["attr"])
            read = ctx.sem_read(key)
            if not read.exists:
                return AgentReply(F1_SEM_MISS, focus="user/person/self")
            text = f"Your {found['attr'].strip().lower()} is {read.value}."
            return AgentReply(text, claims=[_claim(ctx, key, read.value, text)], focus="user/person/self")
        if found := _PROFILE_WRITE.match(raw):
            key = ctx.key("user", "person", "self", found["attr"])
            value = found["value"].strip()
            if not ctx.sem_write(key, value, f"the user's {found['attr'].strip().lower()} is {value}"):
                return AgentReply(F5_SEM_WRITE_FAILURE, focus="user/person/self")
            return AgentReply(f"Got it: your {found['attr'].strip().lower()} is {value}.", focus="user/person/self")
        return AgentReply(F3_NO_AGENT)


@attrs.frozen
class KnowledgeAgent:
    """R3: "the capital of France is Paris" writes, "what is the capital of France?" reads."""

    name: str = "knowledge_agent"
    rule: str = "matched_R3_knowledge"
    priority: int = 30
    inline: bool = True

    def matches(self, text: str) -> bool:
        return bool(_WORLD_READ.match(text) or _WORLD_WRITE.match(text))

    def handle(self, ctx: ReasonContext) -> AgentReply:
        raw = ctx.state.input.raw.strip()
        if found := _WORLD_READ.match(raw):
            attr, entity = found["attr"].strip().lower(), found["entity"].strip()
            key = ctx.key("world", "entity", entity, attr)
            read = ctx.sem_read(key)
            if not read.exists:
                return AgentReply(F1_SEM_MISS, focus=key.rsplit("/", 1)[0])
            text = f"The {attr} of {entity} is {read.value}."
            return AgentReply(text, claims=[_claim(ctx, key, read.value, text)], focus=key.rsplit("/", 1)[0])
        if found := _WORLD_WRITE.match(raw):
            attr, entity, value = found["attr"].strip().lower(), found["entity"].strip(), found["value"].strip()
            key = ctx.key("world", "entity", entity, attr)
            if not ctx.sem_write(key, value, f"the {attr} of {entity} is {value}"):
                return AgentReply(F5_SEM_WRITE_FAILURE, focus=key.rsplit("/", 1)[0])
            return AgentReply(f"Noted: the {attr} of {entity} is {value}.", focus=key.rsplit("/", 1)[0])
        return AgentReply(F3_NO_AGENT)


@attrs.frozen
class GenericAgent:
    """R4 and the fallback of F3/F4."""

    name: str = "generic_agent"
    rule: str = "matched_R4_fallback"
    priority: int = 1000
    inline: bool = True

    def matches(self, text: str) -> bool:
        return True

    def handle(self, ctx: ReasonContext) -> AgentReply:
        return AgentReply(F3_NO_AGENT)


@attrs.frozen
class ToolCommandAgent:
    """``/tool arg=value …`` asks for a tool call (an extension of the rulebook's router).

    A single bare argument goes to the tool's first parameter: ``/file_read notes.txt``.
    """

    name: str = "tool_agent"
    rule: str = "matched_tool_command"
    priority: int = 5
    inline: bool = True

    def matches(self, text: str) -> bool:
        return text.startswith("/") and len(text) > 1

    def handle(self, ctx: ReasonContext) -> AgentReply:
        try:
            name, *parts = shlex.split(ctx.state.input.raw.strip()[1:])
        except ValueError as exc:
            return AgentReply(f"I could not read that tool command ({exc}); quote arguments that contain spaces.")
        args: dict[str, object] = {}
        for index, part in enumerate(parts):
            if "=" in part:
                key, value = part.split("=", 1)
                args[key] = value
            else:
                args[f"${index}"] = part
        return AgentReply(f"calling {name}", action=Action(type="tool", name=name, args=args))


STAGE0_AGENTS = (ToolCommandAgent(), MathAgent(), ProfileAgent(), KnowledgeAgent(), GenericAgent())

__all__ = ["STAGE0_AGENTS", "GenericAgent", "KnowledgeAgent", "MathAgent", "ProfileAgent", "ToolCommandAgent"]
