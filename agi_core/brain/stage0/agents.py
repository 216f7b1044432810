"""The Stage-0 router agents (rules R1-R4), plus the explicit tool command.

Each agent has a ``name``, the rulebook ``rule`` code it reports as ``why``, a
``priority`` (lower is tried first), ``matches(text)`` and ``handle(ctx)``.
"""

from __future__ import annotations

import shlex

import attrs

from agi_core.brain.stage0 import phrases
from agi_core.brain.stage0.goal_agent import GoalAgent
from agi_core.brain.stage0.habits import HABIT_AGENTS
from agi_core.brain.stage0.mathparse import MathError, evaluate, expression_in, render
from agi_core.brain.stage0.messages import MessageAgent
from agi_core.model import Action
from agi_core.reasoning import AgentReply, ReasonContext
from agi_core.replies import F1_SEM_MISS, F3_NO_AGENT, F5_SEM_WRITE_FAILURE


@attrs.frozen
class MathAgent:
    name: str = "math_agent"
    rule: str = "matched_R1_math"
    priority: int = 10
    inline: bool = True

    def matches(self, text: str) -> bool:
        return expression_in(text) is not None

    def handle(self, ctx: ReasonContext) -> AgentReply:
        expression = expression_in(ctx.text) or ctx.text
        try:
            return AgentReply(f"{expression} = {render(evaluate(expression))}")
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
        return "my favo" in text.lower() or bool(phrases.profile_write(text) or phrases.profile_read(text))

    def handle(self, ctx: ReasonContext) -> AgentReply:
        raw = ctx.state.input.raw.strip()
        if (attr := phrases.profile_read(raw)) is not None:
            key = ctx.key("user", "person", "self", attr)
            read = ctx.sem_read(key)
            if not read.exists:
                return AgentReply(F1_SEM_MISS, focus="user/person/self")
            text = f"Your {attr.strip().lower()} is {read.value}."
            return AgentReply(text, claims=[ctx.claim(key, read.value, text)], focus="user/person/self")
        if (written := phrases.profile_write(raw)) is not None:
            key = ctx.key("user", "person", "self", written[0])
            attr, value = written[0].strip().lower(), written[1].strip()
            if not ctx.sem_write(key, value, f"the user's {attr} is {value}"):
                return AgentReply(F5_SEM_WRITE_FAILURE, focus="user/person/self")
            return AgentReply(f"Got it: your {attr} is {value}.", focus="user/person/self")
        return AgentReply(F3_NO_AGENT)


@attrs.frozen
class KnowledgeAgent:
    """R3: "the capital of France is Paris" writes, "what is the capital of France?" reads."""

    name: str = "knowledge_agent"
    rule: str = "matched_R3_knowledge"
    priority: int = 30
    inline: bool = True

    def matches(self, text: str) -> bool:
        return bool(phrases.world_read(text) or phrases.world_write(text))

    def handle(self, ctx: ReasonContext) -> AgentReply:
        raw = ctx.state.input.raw.strip()
        if (read_parts := phrases.world_read(raw)) is not None:
            attr, entity = read_parts[0].strip().lower(), read_parts[1].strip()
            key = ctx.key("world", "entity", entity, attr)
            read = ctx.sem_read(key)
            if not read.exists:
                return AgentReply(F1_SEM_MISS, focus=key.rsplit("/", 1)[0])
            text = f"The {attr} of {entity} is {read.value}."
            if read.source is not None:
                text = f"The {attr} of {entity} is {read.value} (learned from agent {read.source})."
            return AgentReply(text, claims=[ctx.claim(key, read.value, text)], focus=key.rsplit("/", 1)[0])
        if (parts := phrases.world_write(raw)) is not None:
            attr, entity, value = parts[0].strip().lower(), parts[1].strip(), parts[2].strip()
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


STAGE0_AGENTS = (
    ToolCommandAgent(),
    MessageAgent(),
    MathAgent(),
    GoalAgent(),
    ProfileAgent(),
    KnowledgeAgent(),
    *HABIT_AGENTS,
    GenericAgent(),
)

__all__ = ["STAGE0_AGENTS", "GenericAgent", "KnowledgeAgent", "MathAgent", "ProfileAgent", "ToolCommandAgent"]
