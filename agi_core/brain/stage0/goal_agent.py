"""The Stage-0 router agent for goals: set, list, finish, remind, take the next plan step.

It is tried before the profile rule (R2), which would read "my goal is to …" as a profile
fact and "what are my goals?" as a profile question. The phrasings are in
:mod:`agi_core.scheduling.goal_phrases`; what each does is in :mod:`agi_core.scheduling.conversation`.
"""

from __future__ import annotations

import attrs

from agi_core.reasoning import AgentReply, ReasonContext
from agi_core.replies import F3_NO_AGENT
from agi_core.scheduling.conversation import handle
from agi_core.scheduling.goal_phrases import goal_request


@attrs.frozen
class GoalAgent:
    name: str = "goal_agent"
    rule: str = "matched_goal_request"
    priority: int = 15
    inline: bool = True

    def matches(self, text: str) -> bool:
        return goal_request(text) is not None

    def handle(self, ctx: ReasonContext) -> AgentReply:
        request = goal_request(ctx.state.input.raw) or goal_request(ctx.text)
        if request is None:
            return AgentReply(F3_NO_AGENT)
        text, action = handle(ctx, *request)
        return AgentReply(text, action=action)


__all__ = ["GoalAgent"]
