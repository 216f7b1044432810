"""The Stage-0 router agents (rules R1-R4), plus the explicit tool command.

Each agent has a ``name``, the rulebook ``rule`` code it reports as ``why``, a
``priority`` (lower is tried first), ``matches(text)`` and ``handle(ctx)``.
"""

from __future__ import annotations

import shlex

import attrs

from agi_core.brain.stage0 import changes, facts
from agi_core.brain.stage0.documents import from_documents
from agi_core.brain.stage0.forgetting import answer
from agi_core.brain.stage0.goal_agent import GoalAgent
from agi_core.brain.stage0.habits import HABIT_AGENTS
from agi_core.brain.stage0.mathparse import MathError, evaluate, expression_in, render
from agi_core.brain.stage0.messages import MessageAgent
from agi_core.brain.stage0.noted import states_own
from agi_core.brain.stage0.small_talk import small_talk
from agi_core.brain.stage0.time_agent import TimeAgent
from agi_core.model import Action
from agi_core.reasoning import AgentReply, ReasonContext
from agi_core.replies import F3_NO_AGENT, F3_NOTED_NOT_STORED

SCHEDULE_SOURCE = "schedule:"  # a job's ticks (agi_core.scheduling.jobs.SOURCE_PREFIX)


@attrs.frozen
class MathAgent:
    name: str = "math_agent"
    rule: str = "matched_R1_math"
    priority: int = 10
    inline: bool = True

    def matches(self, text: str) -> bool:
        return expression_in(text, words=self.words()) is not None

    @staticmethod
    def words() -> bool:
        """Whether spoken arithmetic ("15% of 80", "sqrt(16)") is read: the ``math_words`` change is in force."""
        return facts.MATH_WORDS not in facts.OLD_RULES.get()

    def handle(self, ctx: ReasonContext) -> AgentReply:
        words = self.words()
        expression = expression_in(ctx.text, words=words) or ctx.text
        try:
            return AgentReply(f"{expression} = {render(evaluate(expression, words=words))}")
        except MathError as exc:
            return AgentReply(str(exc))


@attrs.frozen
class ProfileAgent:
    """R2: facts about the user and theirs, in everyday words (:mod:`.facts`).

    "my favorite color is green", "set my favorite colour to teal", "my sister lives in Lyon",
    "my dog is called Rex" write; "what is my favourite hue?", "where does my sister live?",
    "what is my dog called?" read; "forget my name" forgets. A line with "my favo" that is
    none of these gets F3, as the rulebook's pattern routes it here.
    """

    name: str = "profile_agent"
    rule: str = "matched_R2_profile"
    priority: int = 20
    inline: bool = True

    def matches(self, text: str) -> bool:
        parsed = facts.parse(text)
        return "my favo" in text.lower() or (parsed is not None and parsed.refs[0].subject.kind != facts.WORLD)

    def handle(self, ctx: ReasonContext) -> AgentReply:
        parsed = facts.parse(ctx.state.input.raw)
        if parsed is None or parsed.refs[0].subject.kind == facts.WORLD:
            return AgentReply(F3_NO_AGENT)
        return answer(ctx, parsed)


@attrs.frozen
class KnowledgeAgent:
    """R3: facts about named things: "the capital of France is Paris", "Shakespeare wrote Hamlet",
    "who wrote Hamlet?", "where is the Eiffel Tower?", "forget the capital of France"."""

    name: str = "knowledge_agent"
    rule: str = "matched_R3_knowledge"
    priority: int = 30
    inline: bool = True

    def matches(self, text: str) -> bool:
        parsed = facts.parse(text)
        return parsed is not None and parsed.refs[0].subject.kind == facts.WORLD

    def handle(self, ctx: ReasonContext) -> AgentReply:
        parsed = facts.parse(ctx.state.input.raw)
        if parsed is None or parsed.refs[0].subject.kind != facts.WORLD:
            return AgentReply(F3_NO_AGENT)
        return answer(ctx, parsed)


@attrs.frozen
class GenericAgent:
    """R4 and the fallback of F3/F4: a scheduled job's line no rule answers is said as it is (the
    agent's message), a clock tick notes the time, small talk gets its fixed reply, a question that an ingested
    document answers gets that passage (:mod:`.documents`), a statement of the user's own that no rule stores
    is said to be noted as an episode only (:mod:`.noted`), anything else F3."""

    name: str = "generic_agent"
    rule: str = "matched_R4_fallback"
    priority: int = 1000
    inline: bool = True

    def matches(self, text: str) -> bool:
        return True

    def handle(self, ctx: ReasonContext) -> AgentReply:
        source, raw = ctx.state.input.source, ctx.state.input.raw
        if source.startswith(SCHEDULE_SOURCE):
            return AgentReply(raw)  # a job's message is the agent's to say, not a line to answer
        if source == "clock":
            return AgentReply(f"Time noted: {raw.removeprefix('clock ').strip()}.")
        if (reply := small_talk(ctx.state.input.raw)) is not None:
            return AgentReply(reply)
        if (passage := from_documents(ctx)) is not None:
            return passage
        if states_own(raw) and ctx.externals.changed(changes.NOTED_STATEMENT):
            return AgentReply(F3_NOTED_NOT_STORED)  # a statement kept as an episode, not as a fact
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
    TimeAgent(),
    GoalAgent(),
    ProfileAgent(),
    KnowledgeAgent(),
    *HABIT_AGENTS,
    GenericAgent(),
)

__all__ = ["STAGE0_AGENTS", "GenericAgent", "KnowledgeAgent", "MathAgent", "ProfileAgent", "ToolCommandAgent"]
