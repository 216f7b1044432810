"""Learned phrasings: an input no rule matched, rewritten ("whats" -> "what is"), answered by the rule that matches."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

import attrs

from agi_core.reasoning import AgentReply, ReasonContext
from agi_core.replies import F3_NO_AGENT

NAME = "rephrase_agent"


def rewrite(text: str, phrasings: Mapping[str, str]) -> str:
    """``text`` with each learned phrase (whole words, any case) replaced by its canonical phrasing."""
    for phrase in sorted(phrasings, key=lambda p: (-len(p), p)):
        text = re.sub(rf"(?<!\w){re.escape(phrase)}(?!\w)", phrasings[phrase], text, flags=re.IGNORECASE)
    return text


@attrs.define
class RephraseAgent:
    """Tried just before the fallback: matches only when a learned phrasing makes another rule match."""

    name: str = NAME
    rule: str = "matched_learned_phrasing"
    priority: int = 999
    inline: bool = True
    phrasings: dict[str, str] = attrs.field(factory=dict)
    peers: list[Any] = attrs.field(factory=list)

    def refresh(self, phrasings: Mapping[str, str], agents: Iterable[Any]) -> None:
        """The promoted phrasings and the other rules, read before each tick (the agent's settings)."""
        self.phrasings = dict(phrasings)
        self.peers = sorted((a for a in agents if a is not self and a.priority < self.priority), key=_order)

    def _target(self, text: str) -> tuple[str, Any] | None:
        if not self.phrasings:
            return None
        changed = rewrite(text, self.phrasings)
        if changed == text:
            return None
        return next(((changed, agent) for agent in self.peers if agent.matches(changed)), None)

    def matches(self, text: str) -> bool:
        return self._target(text) is not None

    def handle(self, ctx: ReasonContext) -> AgentReply:
        target = self._target(ctx.text)
        if target is None:
            return AgentReply(F3_NO_AGENT)
        changed, agent = target
        state = attrs.evolve(ctx.state, input=attrs.evolve(ctx.state.input, raw=changed, normalized=changed))
        return agent.handle(attrs.evolve(ctx, state=state))  # type: ignore[no-any-return]


def _order(agent: Any) -> tuple[int, str]:
    return (agent.priority, agent.name)
