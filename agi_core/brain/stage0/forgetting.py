"""The replies to the forgetting follow-ups (:mod:`.forget_more`); every other parsed line goes to
:func:`.fact_replies.answer`. A forgotten fact is written ``null`` (a like taken off its list: the list written
without it), so each forgetting is journaled writes that replay exactly."""

from __future__ import annotations

import functools

import orjson

from agi_core.brain.stage0 import facts, likes
from agi_core.brain.stage0.fact_replies import SELF_ENTITY, focus_of, forget, key_of, person, shown
from agi_core.brain.stage0.fact_replies import answer as answer_fact
from agi_core.brain.stage0.forget_more import FORGET_ALL, FORGET_LAST, FORGET_PREFER
from agi_core.brain.stage0.refs import ME, Parsed, Ref, Subject
from agi_core.reasoning import AgentReply, ReasonContext
from agi_core.replies import F5_SEM_WRITE_FAILURE

#: the reply to "forget it" when the line before stored no fact
NOTHING_BEFORE = (
    "The line before stored no fact, so there is nothing to forget; name what to forget (“forget my name”)."
)


def answer(ctx: ReasonContext, parsed: Parsed) -> AgentReply:
    """The reply to ``parsed``: a follow-up forgotten here, any other op by :func:`.fact_replies.answer`."""
    if parsed.op == FORGET_PREFER:
        return _unprefer(ctx, parsed.refs[0], parsed.things or (str(parsed.value),))
    if parsed.op == FORGET_LAST:
        return _forget_last(ctx)
    if parsed.op == FORGET_ALL:
        return _forget_all(ctx, parsed.refs[0].subject)
    return answer_fact(ctx, parsed)


def _unprefer(ctx: ReasonContext, ref: Ref, things: tuple[str, ...]) -> AgentReply:
    """``forget that I like hiking``: hiking off the likes (``ref``'s list), the list written without it."""
    key = key_of(ctx, ref)
    read = ctx.sem_read(key)
    held = likes.items(read.value) if read.exists else []
    found = [t for t in held if any(likes.holds([t], thing) for thing in things)]  # as the user wrote them
    if not found:
        said = f"{likes.verb(ref.attribute, person(ref))} {likes.joined(list(things))}"
        return AgentReply(f"I had not stored that {said}, so there is nothing to forget.", focus=focus_of(key))
    speaker = ctx.state.input.speaker if ctx.user_entity != SELF_ENTITY[2] else None
    who = person(ref, speaker or "the user")
    rest = functools.reduce(likes.without, found, held)
    fact = f"{likes.verb(ref.attribute, who)} {likes.joined(rest)}" if rest else f"{who} names nothing here"
    if not ctx.sem_write(key, rest, fact):
        return AgentReply(F5_SEM_WRITE_FAILURE, focus=focus_of(key))
    return AgentReply(f"Done: I forgot that {likes.verb(ref.attribute, person(ref))} {likes.joined(found)}.")


def _forget_last(ctx: ReasonContext) -> AgentReply:
    """``forget it``: what the line before (the previous tick, the same speaker's) stored, read again from it."""
    rows = [row for row in ctx.store.journal_rows(since=ctx.tick - 2) if row[0] == ctx.tick - 1]
    told = orjson.loads(rows[0][2]).get("input") or {} if rows else {}
    before = facts.parse(str(told.get("raw") or "")) if told.get("speaker") == ctx.state.input.speaker else None
    if before is not None and before.op == facts.PREFER:
        return _unprefer(ctx, before.refs[0], before.things or (str(before.value),))
    if before is not None and before.op == "write":
        return forget(ctx, before.refs[:1])
    return AgentReply(NOTHING_BEFORE)


def _forget_all(ctx: ReasonContext, subject: Subject) -> AgentReply:
    """``forget everything about my sister``: each fact stored under her (``user/relation/sister/…``, and
    ``user/person/self/sister`` that "my sister is Maya" stores), counted."""
    prefix = key_of(ctx, Ref(subject, "name")).rsplit("/", 1)[0] + "/"
    whom = person(Ref(subject, "name"))
    said = [] if subject.owner else [key_of(ctx, Ref(ME, subject.name))]  # "my sister is Maya": user/person/self/sister
    listed = [entry for key in said for entry in ctx.store.facts(key) if entry.key == key]
    held = [entry for entry in [*listed, *ctx.store.facts(prefix)] if entry.value is not None]  # null: forgotten
    for entry in held:
        ctx.listed_read(entry)
        ref = Ref(subject, entry.key.rsplit("/", 1)[1]) if entry.key.startswith(prefix) else Ref(ME, subject.name)
        if not ctx.sem_write(entry.key, None, f"{shown(ref)} was forgotten"):
            return AgentReply(F5_SEM_WRITE_FAILURE, focus=focus_of(entry.key))
    if not held:
        return AgentReply(f"I had nothing stored about {whom}, so there is nothing to forget.")
    return AgentReply(f"Done: I forgot {len(held)} {'fact' if len(held) == 1 else 'facts'} about {whom}.")


__all__ = ["NOTHING_BEFORE", "answer"]
