"""The Stage-0 router agent for goals: set, list, finish, remind, take the next plan step.

It is tried before the profile rule (R2), which would read "my goal is to …" as a profile
fact and "what are my goals?" as a profile question. Another agent's message gets one line instead
(:func:`from_message`): its sender sets, reads or takes none of this agent's goals and reminders. The phrasings are in
:mod:`agi_core.scheduling.goal_phrases`; what each does is in :mod:`agi_core.scheduling.conversation`.
"""

from __future__ import annotations

import attrs

from agi_core.brain.stage0 import facts
from agi_core.brain.stage0.parse_changes import GOAL_ASKS
from agi_core.effects import senders
from agi_core.reasoning import AgentReply, ReasonContext
from agi_core.replies import F3_NO_AGENT
from agi_core.scheduling.conversation import handle
from agi_core.scheduling.goal_phrases import goal_request

MESSAGE_GOALS = "message_goals"
"""A goal or reminder line in another agent's message refused (before: done), recorded where it is
(:meth:`agi_core.externals.Externals.changed`)."""


@attrs.frozen
class GoalAgent:
    name: str = "goal_agent"
    rule: str = "matched_goal_request"
    priority: int = 15
    inline: bool = True

    def matches(self, text: str) -> bool:
        return _request(text) is not None

    def handle(self, ctx: ReasonContext) -> AgentReply:
        request = _request(ctx.state.input.raw) or _request(ctx.text)
        if request is None:
            return AgentReply(F3_NO_AGENT)
        if (refused := from_message(ctx)) is not None:
            return AgentReply(refused)
        text, action = handle(ctx, *request)
        return AgentReply(text, action=action)


def from_message(ctx: ReasonContext) -> str | None:
    """The one-line refusal of a goal or reminder line in another agent's message (it would set, read, finish or
    step this agent's goals, on its say-so: :mod:`agi_core.effects.senders`), unless ``messaging.allow_tools``
    allows its sender ``goals``; None for any other input, and in a journal from before (``message_goals``)."""
    sender = senders.sender_of(ctx.state.input.source)
    if sender is None:
        return None
    allowed = senders.allowed_tools(ctx.settings) if ctx.settings is not None else {}
    refused = senders.refusal(sender, senders.GOALS, allowed, does="sets, reads or takes no goal or reminder")
    return refused if refused is not None and ctx.externals.changed(MESSAGE_GOALS) else None


def _request(text: str) -> tuple[str, str] | None:
    """:func:`goal_request`, reminders' times read as before ``remind_when`` and no goal questions before
    ``goal_asks``, in a tick of a journal from before."""
    old = facts.OLD_RULES.get()
    return goal_request(text, new_times=facts.REMIND_WHEN not in old, new_asks=GOAL_ASKS not in old)


__all__ = ["GoalAgent"]
