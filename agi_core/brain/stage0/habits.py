"""Router agents for B.L.A.S.T.'s CLI habits, in plain words (tried after R1-R3).

- "what do you remember?": the stored facts about the speaker who asks (each read and cited) and
  their latest exchanges: "about you" means theirs, never another speaker's (bob's sister is not the
  user's; the terminal user is told how many facts it holds about other speakers);
- "read file notes.txt", "list files", "list files in docs": the confined, read-only
  ``file_read`` / ``file_list`` tools;
- "why did you say that?": the previous tick's router decision, agents and evidence
  (show-thought; ``/why`` in ``agi chat`` shows the same for the last tick).

Each phrase is matched by plain string tests on the normalized text, never a regex.
"""

from __future__ import annotations

from typing import Any

import attrs
import orjson

from agi_core.brain.stage0 import changes, fact_replies, likes
from agi_core.brain.stage0.explain import decision_sentence
from agi_core.brain.stage0.facts import DISLIKED, LIKED
from agi_core.brain.stage0.phrases import lower_ascii, strip_end
from agi_core.effects import senders
from agi_core.memory.keys import SELF_ENTITY, speaker_entity
from agi_core.model import Action
from agi_core.reasoning import RELATION_OWNER, AgentReply, ReasonContext
from agi_core.replies import F3_NO_AGENT
from agi_core.serialization import dumps

MAX_LISTED_FACTS = 10
USER_PREFIX = "user/"
RECALL_PHRASES = frozenset(
    {
        "what do you remember",
        "what do you remember about me",
        "what do you know",
        "what do you know about me",
        "what have you remembered",
        "what did i tell you",
    }
)
EXPLAIN_PHRASES = frozenset(
    {
        "why",
        "why did you say that",
        "why did you say this",
        "why that",
        "how did you get that",
        "explain that",
        "explain your answer",
        "show your thinking",
        "show thought",
    }
)
READ_PREFIXES = ("read file ", "read the file ", "show file ", "show me file ", "show me the file ", "open file ")
LIST_PHRASES = frozenset({"list files", "list the files", "list my files", "show files", "show me the files"})
LIST_PREFIXES = ("list files in ", "list the files in ", "list folder ", "list the folder ", "list directory ")


def _phrase(text: str) -> str:
    return lower_ascii(strip_end(text.strip()))


def _unquote(text: str) -> str:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        return text[1:-1]
    return text


def file_request(text: str) -> tuple[str, str] | None:
    """``(tool, path)`` for "read file X", "list files", "list files in X"; None otherwise."""
    body = strip_end(text.strip())
    low = lower_ascii(body)
    if low in LIST_PHRASES:
        return "file_list", "."
    for prefixes, tool in ((READ_PREFIXES, "file_read"), (LIST_PREFIXES, "file_list")):
        if not low.startswith(prefixes):  # one C call: the usual line begins with none of them
            continue
        for prefix in prefixes:
            if low.startswith(prefix) and (path := _unquote(body[len(prefix) :])):
                return tool, path
    return None


@attrs.frozen
class FileAgent:
    """Plain-word file requests become the confined read-only file tools (effect ``read``)."""

    name: str = "file_agent"
    rule: str = "matched_file_request"
    priority: int = 40
    inline: bool = True

    def matches(self, text: str) -> bool:
        return file_request(text) is not None

    def handle(self, ctx: ReasonContext) -> AgentReply:
        # the raw text keeps a path's spaces; the normalized one is what the router saw
        request = file_request(ctx.state.input.raw) or file_request(ctx.text)
        if request is None:
            return AgentReply(F3_NO_AGENT)
        tool, path = request
        return AgentReply(f"calling {tool}", action=Action(type="tool", name=tool, args={"path": path}))


def _fact_text(key: str, value: Any, mine: str = SELF_ENTITY) -> str:
    """How a ``user/`` fact is listed to the speaker ``mine``: "your …" for theirs."""
    _scope, entity_type, entity, attribute = key.split("/")
    shown = value if isinstance(value, str) else dumps(value)
    if (entity_type, entity) == ("person", mine) and attribute in (LIKED, DISLIKED) and isinstance(value, list):
        things = likes.items(value)
        return f"{likes.verb(attribute)} {likes.joined(things)}" if things else f"your list of {attribute} is empty"
    if (entity_type, entity) == ("person", mine):
        return f"your {attribute.replace('_', ' ')} is {shown}"
    if entity_type == "relation":  # a named speaker's: bob__sister (agi_core.reasoning.RELATION_OWNER)
        owner, _, noun = entity.rpartition(RELATION_OWNER)
        whose = f"{owner.replace('_', ' ')}'s" if owner and owner != mine else "your"
        who = f"{whose} {noun.replace('_', ' ')}"
        if attribute in (LIKED, DISLIKED) and isinstance(value, list) and (things := likes.items(value)):
            return f"{likes.verb(attribute, who)} {likes.joined(things)}"  # a list only since others_likes
        return f"{who}'s {attribute.replace('_', ' ')} is {shown}"
    return f"{key} = {dumps(value)}"


def whose_fact(key: str) -> str | None:
    """The entity of the speaker a ``user/`` fact is about: ``user/person/bob/…`` and
    ``user/relation/bob__sister/…`` are bob's, ``user/relation/sister/…`` the user's (``self``); None for another
    kind of key."""
    parts = key.split("/")
    if len(parts) != 4 or parts[1] not in ("person", "relation"):
        return None
    return parts[2] if parts[1] == "person" else parts[2].rpartition(RELATION_OWNER)[0] or SELF_ENTITY


def own_episodes(episodes: list[dict[str, Any]], mine: str) -> list[dict[str, Any]]:
    """The recalled episodes (newest first: a reply, then the line it answered) of the speaker ``mine``."""
    kept = []
    for at, episode in enumerate(episodes):
        context = episode.get("context") or {}
        if context.get("kind") != "input":  # a reply: its line is the next (older) episode
            following = episodes[at + 1] if at + 1 < len(episodes) else {}
            context = following.get("context") or {}
        if context.get("kind") == "input" and speaker_entity(context.get("speaker")) == mine:
            kept.append(episode)
    return kept


def quoted(text: object, limit: int = 80) -> str:
    """``text`` in typographic quotes, cut to ``limit`` characters."""
    text = str(text)
    return f"“{text if len(text) <= limit else text[: limit - 1] + '…'}”"


def _recent(episodes: list[dict[str, Any]]) -> str:
    said = []
    for episode in reversed(episodes):  # recalled newest first
        context = episode.get("context") or {}
        if context.get("kind") == "input" and context.get("source", "user") != "user":
            continue  # a job's or the clock's line is not the user's words (its reply is the agent's)
        said.append(f"{'you said' if context.get('kind') == 'input' else 'I said'} {quoted(episode.get('event'))}")
    return "; ".join(said)


def _unforgotten(ctx: ReasonContext, episodes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``episodes`` (newest first) less the asker's lines that stated a fact since forgotten, and their replies."""
    gone: set[int] = set()
    for at, episode in enumerate(episodes):
        context = episode.get("context") or {}
        if context.get("kind") != "input" or speaker_entity(context.get("speaker")) != ctx.user_entity:
            continue
        if fact_replies.states_forgotten(ctx, str(episode.get("event") or "")):
            newer = episodes[at - 1].get("context") or {} if at > 0 else {"kind": "input"}
            gone.update({at, at - 1} if newer.get("kind") != "input" else {at})
    return [episode for at, episode in enumerate(episodes) if at not in gone]


@attrs.frozen
class RecallAgent:
    """Answers "what do you remember?": the asking speaker's stored facts (read and cited) and latest exchanges;
    a tick where another speaker's would have been listed records the ``own_recall`` external (a journal from
    before lists them all, as it did)."""

    name: str = "recall_agent"
    rule: str = "matched_recall_request"
    priority: int = 41
    inline: bool = True

    def matches(self, text: str) -> bool:
        return _phrase(text) in RECALL_PHRASES

    def handle(self, ctx: ReasonContext) -> AgentReply:
        every = [fact.key for fact in ctx.store.facts(USER_PREFIX) if fact.value is not None]  # null: forgotten
        episodes = list(ctx.state.recalled.episodic)
        mine = ctx.user_entity
        own = [key for key in every if whose_fact(key) in (mine, None)]
        theirs = own_episodes(episodes, mine)
        if (own != every or theirs != episodes) and ctx.externals.changed(changes.OWN_RECALL):
            keys, others, episodes = own, len(every) - len(own), theirs
        else:  # nothing of another speaker's, or a journal from before: every fact, as "about you"
            keys, others, mine = every, 0, SELF_ENTITY
        claims: list[dict[str, Any]] = []
        parts: list[str] = []
        for key in keys[:MAX_LISTED_FACTS]:
            read = ctx.sem_read(key)
            text = _fact_text(key, read.value, mine)
            parts.append(text)
            claims.append(ctx.claim(key, read.value, text))
        if parts:
            more = f" (and {len(keys) - MAX_LISTED_FACTS} more)" if len(keys) > MAX_LISTED_FACTS else ""
            known = (
                f"I remember {len(keys)} {'fact' if len(keys) == 1 else 'facts'} about you: "
                + "; ".join(parts)
                + more
                + "."
            )
        else:
            known = "I don’t have anything stored about you yet."
        if others and mine == SELF_ENTITY:  # the agent's own user may ask about them (agi memory facts --prefix user/)
            known += f" I also hold {others} {'fact' if others == 1 else 'facts'} about other speakers."
        kept = _unforgotten(ctx, episodes)
        recent = _recent(kept if kept != episodes and ctx.externals.changed(changes.FORGOTTEN_LATELY) else episodes)
        reply = f"{known} Lately: {recent}." if recent else known
        return AgentReply(reply, claims=claims)


OTHERS_THOUGHT = "others_thought"
"""Another agent's "why did you say that?" about a reply it was not given: not explained (before: the reply, its
evidence and the facts it read), recorded where it is (:meth:`agi_core.externals.Externals.changed`)."""
NOT_YOURS = "My last reply was not to you, so I do not explain it to you."


@attrs.frozen
class ExplainAgent:
    """Answers "why did you say that?": the previous tick's decision, read from the journal; another agent's
    message gets it only where that reply was its own (mallory read the facts behind bob's reply to his user)."""

    name: str = "explain_agent"
    rule: str = "matched_show_thought"
    priority: int = 42
    inline: bool = True

    def matches(self, text: str) -> bool:
        return _phrase(text) in EXPLAIN_PHRASES

    def handle(self, ctx: ReasonContext) -> AgentReply:
        previous = next(
            (row for row in list(ctx.store.journal_rows(since=ctx.tick - 2)) if row[0] == ctx.tick - 1), None
        )
        if previous is None:
            return AgentReply("I haven’t said anything yet, so there is nothing to explain.")
        record = orjson.loads(previous[2])
        source = ctx.state.input.source
        said_to = (record.get("input") or {}).get("source")
        if senders.sender_of(source) is not None and said_to != source and ctx.externals.changed(OTHERS_THOUGHT):
            return AgentReply(NOT_YOURS)  # another agent asks about a reply it was not given
        return AgentReply(decision_sentence(record))


HABIT_AGENTS = (FileAgent(), RecallAgent(), ExplainAgent())

__all__ = ["HABIT_AGENTS", "ExplainAgent", "FileAgent", "RecallAgent", "file_request"]
