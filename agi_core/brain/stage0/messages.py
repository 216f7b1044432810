"""The Stage-0 message phrases: "tell bob that …" and "ask bob …" call the ``send_message`` tool.

``tell NAME [that] TEXT`` sends TEXT; ``ask NAME QUESTION`` sends the question, an indirect one
turned direct (:mod:`.indirect`: "ask bob what the capital of Peru is" sends "what is the capital of Peru?",
"ask bob where my sister lives" sends "where does my sister live?", which bob reads as about its sender's sister,
as it stored "tell bob that my sister lives in Lyon"). A journal from before verbs were turned replays what
it sent (the ``direct_question`` external, :data:`agi_core.brain.stage0.changes.DIRECT_QUESTION`).
NAME is an agent name (:func:`agi_core.messaging.address.check_name`); "me", "us", "you"…
are not agents. The tool is ``external``: policy gates it, and it runs after the tick commits
(intent → receipt). Plain string tests, never a regex, like the other Stage-0 phrases.
"""

from __future__ import annotations

import attrs

from agi_core.brain.stage0 import changes
from agi_core.brain.stage0.indirect import copula_moved, direct_question
from agi_core.brain.stage0.phrases import lower_ascii, strip_end
from agi_core.errors import ValidationError
from agi_core.messaging.address import check_name
from agi_core.messaging.outbox import SEND_TOOL
from agi_core.model import Action
from agi_core.reasoning import AgentReply, ReasonContext
from agi_core.replies import F3_NO_AGENT

VERBS = ("tell", "ask")
NOT_AGENTS = frozenset({"me", "us", "you", "him", "her", "them", "it", "myself", "yourself", "everyone", "someone"})


def message_request(text: str, *, turned: bool = True) -> tuple[str, str] | None:
    """``(recipient, text to send)`` for "tell NAME [that] TEXT" / "ask NAME QUESTION"; None otherwise.
    ``turned=False``: the question as sent before verbs were turned (:func:`.indirect.copula_moved`)."""
    words = text.strip().split(maxsplit=2)
    if len(words) < 3 or lower_ascii(words[0]) not in VERBS:
        return None
    verb, name, rest = lower_ascii(words[0]), lower_ascii(words[1]).rstrip(",:"), words[2]
    if name in NOT_AGENTS:
        return None
    try:
        check_name(name)
    except ValidationError:
        return None
    if verb == "tell":
        if lower_ascii(rest).startswith("that "):
            rest = rest[5:]
        body = rest.strip().removesuffix(".")
    else:
        body = (direct_question if turned else copula_moved)(strip_end(rest.strip()))
    return (name, body) if body.strip(" ?") else None


@attrs.frozen
class MessageAgent:
    """ "tell bob that …" / "ask bob …" become a ``send_message`` call (effect ``external``)."""

    name: str = "message_agent"
    rule: str = "matched_message_request"
    priority: int = 6  # before R2/R3: "tell bob that the capital of Peru is Lima" is a message, not a fact
    inline: bool = True

    def matches(self, text: str) -> bool:
        return message_request(text) is not None

    def handle(self, ctx: ReasonContext) -> AgentReply:
        request = message_request(ctx.state.input.raw) or message_request(ctx.text)
        if request is None:
            return AgentReply(F3_NO_AGENT)
        before = message_request(ctx.state.input.raw, turned=False) or message_request(ctx.text, turned=False)
        if before != request and not ctx.externals.changed(changes.DIRECT_QUESTION):
            request = before or request  # a journal from before: the question as it was sent
        to, text = request
        return AgentReply(f"sending to {to}", action=Action(type="tool", name=SEND_TOOL, args={"to": to, "text": text}))


__all__ = ["MessageAgent", "direct_question", "message_request"]
