"""The Stage-0 router agent for time: "what time is it?", "what day is it?", "when did we last talk?",
"how long ago did I tell you X?", answered from the recorded wall clock (:mod:`agi_core.scheduling.time_answers`)."""

from __future__ import annotations

import attrs

from agi_core.reasoning import AgentReply, ReasonContext
from agi_core.replies import F3_NO_AGENT
from agi_core.scheduling.time_answers import answer, time_request


@attrs.frozen
class TimeAgent:
    name: str = "time_agent"
    rule: str = "matched_time_request"
    priority: int = 12
    inline: bool = True

    def matches(self, text: str) -> bool:
        return time_request(text) is not None

    def handle(self, ctx: ReasonContext) -> AgentReply:
        request = time_request(ctx.state.input.raw) or time_request(ctx.text)
        if request is None:
            return AgentReply(F3_NO_AGENT)
        return AgentReply(answer(ctx, *request))


__all__ = ["TimeAgent"]
