"""Another agent's reply to this agent's message: told to the user as a reply, kept, asked about later.

A message tick whose input names the message of this agent's it answers (``reply_to``:
:func:`agi_core.messaging.inbox.reply_of`) is no line of the user's, and its reply goes to the user alone (a reply
is never answered). So Stage-0 keeps it as ``user/person/<sender>/last_answer`` (its text and the question it
answers), reads a statement in it as any line ("The capital of Peru is Lima." is noted) and says that anything else
was noted ("Noted bob's reply to “where does my sister live?”."): never F3, never an answer to a question in it,
never a tool call or a "forget" on the other agent's say-so. "what did bob say?" reads the fact back (asked by this
agent's users: another agent's message asking it goes to the rules, as before).

A journal from before has no ``reply_to`` in its inputs, so its reply ticks replay their F3; "what did bob say?"
answers from the fact only where the tick records the ``heard_reply`` external (a journal from before said F3).
"""

from __future__ import annotations

from typing import Any

import attrs

from agi_core.brain.stage0 import facts
from agi_core.brain.stage0.messages import NOT_AGENTS
from agi_core.brain.stage0.phrases import lower_ascii, strip_end
from agi_core.errors import ValidationError
from agi_core.memory.keys import make_key, speaker_entity
from agi_core.messaging.address import check_name
from agi_core.messaging.inbox import SOURCE_PREFIX, reply_of
from agi_core.reasoning import AgentReply, ReasonContext
from agi_core.replies import F3_NO_AGENT, F5_SEM_WRITE_FAILURE

LAST_REPLY = "last reply"
"""The attribute of the sender's that holds its last reply: ``user/person/bob/last_answer`` (synonyms applied)."""
HEARD_REPLY = "heard_reply"
""""what did bob say?" answers from bob's last reply (before: F3), recorded where it does (see
:meth:`agi_core.externals.Externals.changed`)."""
#: what a reply may state and be noted as any line: a fact ("write") or a like of the sender's ("prefer"); a
#: question, a "forget" or a tool command in it is none of the user's asking
STATEMENTS = frozenset({"write", facts.PREFER})
QUOTED_CHARS = 200  # of the question, in the reply that says a reply was noted
KEPT_CHARS = 2000  # of the reply, in the fact that keeps it
NOT_NAMED = NOT_AGENTS | {"i", "he", "she", "they", "we", "someone", "anyone"}
#: "what did bob …": the verbs that ask what an agent said
SAID = frozenset(
    "say|answer|reply|write|respond|tell me|tell you|say back|answer back|reply back|write back|say to me".split("|")
)
#: "what was bob's …", "did bob …", "has bob …"
ANSWER_NOUNS = frozenset({"answer", "reply", "response", "last reply", "last answer"})
DID_VERBS = frozenset({"answer", "reply", "respond", "write back", "get back to me", "get back to us"})
HAS_VERBS = frozenset({"answered", "replied", "responded", "written back", "got back to me", "gotten back to me"})


def reply_key(ctx: ReasonContext, sender: str) -> str:
    """The fact that holds ``sender``'s last reply to this agent: ``user/person/bob/last_answer`` (the synonyms'
    spelling, so "what is bob's last reply?" reads it too)."""
    return make_key("user", "person", speaker_entity(sender), LAST_REPLY, ctx.synonyms, map_entity_id=False)


def quoted(text: str, limit: int = QUOTED_CHARS) -> str:
    """``text`` in typographic quotes, cut to ``limit`` characters."""
    return f"“{text if len(text) <= limit else text[: limit - 1] + '…'}”"


def states_fact(ctx: ReasonContext) -> bool:
    """Whether the tick's line states a fact or a like that Stage-0 notes (the rules then answer it)."""
    parsed = facts.parse(ctx.state.input.raw) or facts.parse(ctx.text)
    return parsed is not None and parsed.op in STATEMENTS


def keep(ctx: ReasonContext) -> bool | None:
    """Keep this reply tick's text as its sender's last reply (with the question it answers); None when the tick
    is no reply to a message of this agent's, False when the backend failed to store it (F5)."""
    replied = reply_of(ctx.state.input)
    if replied is None:
        return None
    sender, asked = replied
    said = quoted(ctx.state.input.raw, KEPT_CHARS)
    value = f"{said} (answering {quoted(asked, KEPT_CHARS)})" if asked else said
    return ctx.sem_write(reply_key(ctx, sender), value, f"{sender}'s last reply is {value}")


@attrs.frozen
class ReplyAgent:
    """The answer to another agent's reply that states no fact: kept (:func:`keep`) and said to be noted. Chosen by
    the brain for such a tick (:func:`ahead_of_rules`), never by the line's words (``matches`` is always False)."""

    name: str = "reply_agent"
    rule: str = "matched_message_reply"
    priority: int = 0
    inline: bool = True

    def matches(self, text: str) -> bool:
        return False

    def handle(self, ctx: ReasonContext) -> AgentReply:
        replied = reply_of(ctx.state.input)
        if replied is None:  # (the brain chooses this agent for a reply only)
            return AgentReply(F3_NO_AGENT)
        if not keep(ctx):
            return AgentReply(F5_SEM_WRITE_FAILURE)
        sender, asked = replied
        return AgentReply(f"Noted {sender}'s reply to {quoted(asked)}." if asked else f"Noted {sender}'s reply.")


@attrs.frozen
class HeardAgent:
    """ "what did bob say?": bob's last reply (:func:`keep`), cited. Chosen by the brain where that reply is kept and
    the tick takes the change (:func:`ahead_of_rules`); a journal from before went on to the rules (F3)."""

    name: str = "heard_agent"
    rule: str = "matched_heard_request"
    priority: int = 0
    inline: bool = True

    def matches(self, text: str) -> bool:
        return False

    def handle(self, ctx: ReasonContext) -> AgentReply:
        name = heard_request(ctx.state.input.raw)
        if name is None:
            return AgentReply(F3_NO_AGENT)
        key = reply_key(ctx, name)
        read = ctx.sem_read(key)
        if not read.exists or read.value is None:
            return AgentReply(F3_NO_AGENT)
        text = f"{name} said {read.value}."
        return AgentReply(text, claims=[ctx.claim(key, read.value, text)])


REPLY_AGENT, HEARD_AGENT = ReplyAgent(), HeardAgent()


def ahead_of_rules(ctx: ReasonContext) -> Any | None:
    """The agent that answers this tick ahead of the rules' routing, or None (the rules route it):

    - a reply to a message of this agent's that states no fact: :class:`ReplyAgent`; one that states a fact is
      kept as its sender's last reply here, and the rules note the fact as they would any line's;
    - "what did bob say?" where bob's last reply is kept, asked by this agent's users (not in another agent's
      message), and the tick takes the change (``heard_reply``): :class:`HeardAgent`."""
    percept = ctx.state.input
    if reply_of(percept) is not None:
        if not states_fact(ctx):
            return REPLY_AGENT
        keep(ctx)  # (a failed write: the fact's own write fails too and says F5)
        return None
    if kept_request(ctx) is None or not ctx.externals.changed(HEARD_REPLY):
        return None
    return HEARD_AGENT


def kept_request(ctx: ReasonContext) -> str | None:
    """The agent whose kept reply the tick's line asks for ("what did bob say?" where bob's last reply is kept),
    asked by this agent's users (not in another agent's message); None otherwise."""
    percept = ctx.state.input
    name = heard_request(percept.raw)
    if name is None or percept.source.startswith(SOURCE_PREFIX):  # bob's reply is not carol's to ask for
        return None
    kept = ctx.store.sem_read(reply_key(ctx, name))  # not the tick's read: a journal from before read nothing here
    return name if kept.exists and kept.value is not None else None


def heard_request(text: str) -> str | None:
    """The agent a line asks the last reply of: "what did bob say?", "what was bob's answer?", "did bob reply?",
    "has bob answered?"; None otherwise. Plain string tests, never a regex."""
    words = lower_ascii(strip_end(text.strip())).replace("’", "'").replace("what's ", "what is ").split()
    name, rest = "", ""
    if len(words) >= 4 and words[:2] == ["what", "did"]:
        name, rest = words[2], " ".join(words[3:])
        rest = rest if rest in SAID else ""
    elif len(words) >= 4 and words[0] == "what" and words[1] in ("was", "is") and words[2].endswith("'s"):
        name, rest = words[2][:-2], " ".join(words[3:])
        rest = rest if rest in ANSWER_NOUNS else ""
    elif len(words) >= 3 and words[0] in ("did", "has"):
        name, rest = words[1], " ".join(words[2:])
        rest = rest if rest in (DID_VERBS if words[0] == "did" else HAS_VERBS) else ""
    if not rest or name in NOT_NAMED:
        return None
    try:
        check_name(name)
    except ValidationError:
        return None
    return name


__all__ = [
    "HEARD_AGENT",
    "HEARD_REPLY",
    "LAST_REPLY",
    "REPLY_AGENT",
    "HeardAgent",
    "ReplyAgent",
    "ahead_of_rules",
    "heard_request",
    "keep",
    "kept_request",
    "reply_key",
    "states_fact",
]
