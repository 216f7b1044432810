"""What R2 and R3 do with a parsed fact (:mod:`.facts`): write it, read it back, or forget it.

A forgotten fact is overwritten with ``null`` (S5: current state only; S8: last write wins)
and reads as a miss (F1), so forgetting is one journaled write that replays exactly and needs
no delete in the memory backends.

A question about one of the user's (``where does my sister live?``) that misses its own key
follows the relation to the one it names: ``user/relation/sister/name`` = Maya, then
``world/entity/maya/home`` ("Your sister Maya lives in Lyon."). Both reads are recorded and
both facts cited; nothing is inferred (S9): every word of the answer is a stored value. A tick that
tries the relation records the ``relation_hop`` external, so a journal from before replays its F1.
"""

from __future__ import annotations

import functools
from typing import Any

import attrs

from agi_core.brain.stage0 import changes, facts, likes
from agi_core.brain.stage0.facts import ASK_PREFER, DISLIKED, LIKED, PREFER, RELATION, SELF, WORLD, Parsed, Ref, Subject
from agi_core.errors import AgiError, MemoryKeyError
from agi_core.externals import Externals
from agi_core.memory.keys import check_key, make_key, speaker_entity
from agi_core.reasoning import RELATION_OWNER, AgentReply, ReasonContext
from agi_core.replies import F1_SEM_MISS, F5_SEM_WRITE_FAILURE

SELF_ENTITY = ("user", "person", "self")
#: how an attribute read through a relation is said: "Your sister Maya lives in Lyon."
SAID_AS = {"home": "lives in", "workplace": "works at", "home_town": "is from", "school": "studies at"}


def key_of(ctx: ReasonContext, ref: Ref) -> str:
    """The canonical key of ``ref`` (synonyms applied, a thing's name kept as written); "my …" is the
    tick's speaker's: ``user/person/self/…`` for the user who names none, ``user/person/alice/…``
    for ``--speaker alice`` (:attr:`ReasonContext.user_entity`); "my sister" is ``user/relation/sister/…`` for
    that user, ``user/relation/alice__sister/…`` for alice (:meth:`ReasonContext.relation_owner`), and "Alice's
    sister" is that too, whoever says it."""
    subject = ref.subject
    if subject.kind == RELATION and subject.owner:
        key = make_key("user", "relation", subject.name, ref.attribute, ctx.synonyms)
        scope, kind, noun, attribute = key.split("/")
        return check_key(f"{scope}/{kind}/{speaker_entity(subject.owner)}{RELATION_OWNER}{noun}/{attribute}")
    if subject.kind == SELF and ctx.user_entity != SELF_ENTITY[2]:
        return make_key("user", "person", ctx.user_entity, ref.attribute, ctx.synonyms, map_entity_id=False)
    if subject.kind == SELF:
        return make_key(*SELF_ENTITY, ref.attribute, ctx.synonyms)
    if subject.kind == RELATION:
        key = make_key("user", "relation", subject.name, ref.attribute, ctx.synonyms)
        owner = ctx.relation_owner()
        if owner is None:
            return key
        scope, kind, noun, attribute = key.split("/")
        return check_key(f"{scope}/{kind}/{owner}{RELATION_OWNER}{noun}/{attribute}")
    return make_key("world", "entity", subject.name, ref.attribute, ctx.synonyms, map_entity_id=False)


def shown(ref: Ref) -> str:
    """``your favorite color``, ``your sister's home``, ``Bob's sister's home``, ``the capital of France``."""
    attribute = ref.attribute.strip().replace("_", " ")
    if ref.subject.kind == SELF:
        return f"your {attribute.lower()}"
    noun = ref.subject.name.strip().lower() + (f" {ref.subject.called.strip()}" if ref.subject.called else "")
    if ref.subject.kind == RELATION and ref.subject.owner:
        return f"{ref.subject.owner.strip()}'s {noun}'s {attribute.lower()}"
    if ref.subject.kind == RELATION:
        return f"your {noun}'s {attribute.lower()}"
    return f"the {attribute.lower()} of {ref.subject.name.strip()}"


def fact_subject(ref: Ref, speaker: str | None = None) -> str:
    """The stored fact's wording, about the user in the third person: ``the user's favorite color``,
    ``Alice's favorite color`` when a named speaker said it (its own words, for long-term memory)."""
    mine = shown(ref)
    return f"{speaker or 'the user'}'s" + mine[4:] if mine.startswith("your ") else mine


def focus_of(key: str) -> str:
    return key.rsplit("/", 1)[0]


def answer(ctx: ReasonContext, parsed: Parsed) -> AgentReply:
    """The reply to ``parsed``: the write confirmed, the first stored candidate read, or the fact forgotten."""
    if parsed.op == "write":
        return _write(ctx, parsed.refs[0], parsed.value)
    if parsed.op == "forget":
        return forget(ctx, parsed.refs)
    if parsed.op == PREFER:
        return _prefer(ctx, parsed.refs, parsed.things or (str(parsed.value),))
    if parsed.op == ASK_PREFER:
        return _ask_prefer(ctx, parsed.refs, parsed.things or (str(parsed.value),))
    return _read(ctx, parsed.refs)


def _prefer(ctx: ReasonContext, refs: tuple[Ref, ...], things: tuple[str, ...]) -> AgentReply:
    """``I like hiking``: hiking joins the likes (``refs[0]``) and leaves the dislikes (``refs[1]``), or the other
    way round; each list is read first and written whole (S5: current state only). ``Bob likes jazz``: Bob's."""
    joins, leaves = refs
    speaker = ctx.state.input.speaker if ctx.user_entity != SELF_ENTITY[2] else None
    who = person(joins, speaker or "the user")
    for ref, kept in ((joins, True), (leaves, False)):
        key = key_of(ctx, ref)
        read = ctx.sem_read(key)
        held = likes.items(read.value) if read.exists else []
        if not kept and not any(likes.holds(held, thing) for thing in things):
            continue  # not in the other list: nothing to take out
        rest = functools.reduce(likes.without, things, held)
        listed = [*rest, *things] if kept else rest
        attribute = LIKED if key.endswith("/" + LIKED) else DISLIKED
        fact = f"{likes.verb(attribute, who)} {likes.joined(listed)}" if listed else f"{who} names nothing here"
        if not ctx.sem_write(key, listed, fact):
            return AgentReply(F5_SEM_WRITE_FAILURE, focus=focus_of(key))
    said = f"{likes.verb(joins.attribute, person(joins))} {likes.joined(list(things))}"
    return AgentReply(f"Got it: {said}.", focus=focus_of(key_of(ctx, joins)))


def person(ref: Ref, speaker: str | None = None) -> str:
    """Whose likes ``ref`` reads, as a reply names them: ``you``, ``your sister``, ``Bob's sister``, ``Bob``; in
    the third person (``speaker``: the fact's words) ``the user``, ``the user's sister``, ``alice's sister``."""
    subject = ref.subject
    mine = "you" if speaker is None else speaker
    if subject.kind == SELF:
        return mine
    if subject.kind == WORLD:
        return subject.name.strip()
    whose = f"{subject.owner.strip()}'s" if subject.owner else "your" if speaker is None else f"{speaker}'s"
    return f"{whose} {subject.name.strip().lower()}"


def _ask_prefer(ctx: ReasonContext, refs: tuple[Ref, ...], things: tuple[str, ...]) -> AgentReply:
    """``do I like hiking?``: "Yes: you like hiking." from the list asked, "No: you don't like hiking." from the
    other, F1 when neither holds it (S9). Several things: each is looked up in both lists; F1 unless all are."""
    if len(things) > 1:
        return _ask_prefer_each(ctx, refs, things)
    thing = things[0]
    for ref in refs:
        key = key_of(ctx, ref)
        read = ctx.sem_read(key)
        if read.exists and likes.holds(likes.items(read.value), thing):
            said = next(t for t in likes.items(read.value) if likes.holds([t], thing))  # as the user wrote it
            text = f"{'Yes' if ref is refs[0] else 'No'}: {likes.verb(ref.attribute, person(ref))} {said}."
            return AgentReply(text, claims=[ctx.claim(key, read.value, text)], focus=focus_of(key))
    return AgentReply(F1_SEM_MISS, focus=focus_of(key_of(ctx, refs[0])))


def _ask_prefer_each(ctx: ReasonContext, refs: tuple[Ref, ...], things: tuple[str, ...]) -> AgentReply:
    """``do I like hiking and jazz?``: "Yes: you like hiking and jazz.", "No: …", or "You like hiking; you don't
    like jazz." when the two lists hold them; F1 when neither holds one of them (S9)."""
    keys = [key_of(ctx, ref) for ref in refs]
    lists = [likes.items(read.value) if (read := ctx.sem_read(key)).exists else None for key in keys]
    found: list[list[str]] = [[], []]
    for thing in things:
        where = next((i for i, held in enumerate(lists) if held is not None and likes.holds(held, thing)), None)
        if where is None:
            return AgentReply(F1_SEM_MISS, focus=focus_of(keys[0]))
        found[where].append(next(t for t in lists[where] or [] if likes.holds([t], thing)))  # as written
    said = [f"{likes.verb(refs[i].attribute, person(refs[i]))} {likes.joined(found[i])}" for i in (0, 1) if found[i]]
    text = (
        f"{'Yes' if found[0] else 'No'}: {said[0]}."
        if len(said) == 1
        else f"{said[0][0].upper()}{said[0][1:]}; {said[1]}."
    )
    claims = [ctx.claim(keys[i], lists[i], text) for i in (0, 1) if found[i]]
    return AgentReply(text, claims=claims, focus=focus_of(keys[0]))


def _write(ctx: ReasonContext, ref: Ref, value: Any) -> AgentReply:
    key = key_of(ctx, ref)
    what = shown(ref)
    speaker = ctx.state.input.speaker if ctx.user_entity != SELF_ENTITY[2] else None
    if ref.subject.called and ref.attribute != "name":  # "my brother Tom lives in Porto": his name first
        named = Ref(attrs.evolve(ref.subject, called=""), "name")
        said = f"{fact_subject(named, speaker)} is {ref.subject.called}"
        if not ctx.sem_write(key_of(ctx, named), ref.subject.called, said):
            return AgentReply(F5_SEM_WRITE_FAILURE, focus=focus_of(key))
    if not ctx.sem_write(key, value, f"{fact_subject(ref, speaker)} is {value}"):
        return AgentReply(F5_SEM_WRITE_FAILURE, focus=focus_of(key))
    if ref.subject.kind == SELF or ref.subject.kind == RELATION:
        return AgentReply(f"Got it: {what} is {value}.", focus=focus_of(key))
    return AgentReply(f"Noted: {what} is {value}.", focus=focus_of(key))


def _read(ctx: ReasonContext, refs: tuple[Ref, ...]) -> AgentReply:
    first_key = None
    for ref in refs:
        key = key_of(ctx, ref)
        first_key = first_key or key
        read = ctx.sem_read(key)
        if not read.exists or read.value is None:
            continue
        what = shown(ref)
        text = f"{what[0].upper()}{what[1:]} is {read.value}."
        liking = ref.subject.kind == SELF or isinstance(read.value, list)  # others' since their likes change
        if ref.attribute in (LIKED, DISLIKED) and liking:  # "what do I like?", "what does Bob like?"
            found = likes.listed(ref.attribute, read.value, person(ref))
            if found is None:
                continue
            text = found
        if read.source is not None:
            text = f"{text[:-1]} (learned from agent {read.source})."
        return AgentReply(text, claims=[ctx.claim(key, read.value, text)], focus=focus_of(key))
    for ref in refs:
        if (through := _through_relation(ctx, ref)) is not None:
            return through
    return AgentReply(F1_SEM_MISS, focus=focus_of(first_key) if first_key else None)


def _through_relation(ctx: ReasonContext, ref: Ref) -> AgentReply | None:
    """``ref`` (an attribute of one of the user's, not its name) read on the entity the relation names:
    ``user/relation/sister/name`` = Maya, then ``world/entity/maya/<attribute>``; None when either misses."""
    if ref.subject.kind != RELATION or key_of(ctx, ref).endswith("/name"):
        return None
    if not ctx.externals.changed(changes.RELATION_HOP):  # a journal from before the hop: its F1, no reads
        return None
    found = _named_entity(ctx, ref)
    if found is None:
        return None
    name_key, named, key = found
    read = ctx.sem_read(key)
    if not read.exists or read.value is None:
        return None
    whose = f"{ref.subject.owner.strip()}'s" if ref.subject.owner else "your"
    who = f"{whose[0].upper()}{whose[1:]} {ref.subject.name.strip().lower()} {named.value.strip()}"
    attribute = key.rsplit("/", 1)[1]
    verb = SAID_AS.get(attribute)
    text = f"{who} {verb} {read.value}." if verb else f"{who}'s {attribute.replace('_', ' ')} is {read.value}."
    claims = [ctx.claim(name_key, named.value, text), ctx.claim(key, read.value, text)]
    return AgentReply(text, claims=claims, focus=focus_of(key))


def _named_entity(ctx: ReasonContext, ref: Ref) -> tuple[str, Any, str] | None:
    """``(name key, name read, key)``: ``ref``'s attribute on the entity its relation names (``sister`` named Maya:
    ``world/entity/maya/home``); None when the relation has no name, or one that makes no key."""
    name_key = key_of(ctx, Ref(ref.subject, "name"))
    named = ctx.sem_read(name_key)
    if not named.exists or not isinstance(named.value, str) or not named.value.strip():
        return None
    try:
        return name_key, named, key_of(ctx, Ref(Subject(WORLD, named.value.strip()), ref.attribute))
    except MemoryKeyError:  # a name that makes no canonical key ("Maya!!") names no entity
        return None


def _forgotten_refs(ctx: ReasonContext, ref: Ref) -> list[Ref]:
    """``ref``, and where a question about it goes on through the relation's name (:func:`_through_relation`) the
    ref on the entity named: "forget where my sister lives" forgets Maya's home too (the ``forget_hop`` external,
    asked before the name is read, so a journal from before reads and forgets as it did)."""
    if ref.subject.kind != RELATION or key_of(ctx, ref).endswith("/name"):
        return [ref]
    if not ctx.externals.changed(changes.FORGET_HOP):
        return [ref]
    found = _named_entity(ctx, ref)
    return [ref] if found is None else [ref, Ref(Subject(WORLD, found[1].value.strip()), ref.attribute)]


def forget(ctx: ReasonContext, refs: tuple[Ref, ...]) -> AgentReply:
    """Each of ``refs`` (and where a relation's attribute goes on, the entity's) forgotten: written ``null``."""
    forgotten: list[str] = []
    for ref in [each for asked in refs for each in _forgotten_refs(ctx, asked)]:
        key = key_of(ctx, ref)
        read = ctx.sem_read(key)
        if not read.exists or read.value is None:
            continue
        if not ctx.sem_write(key, None, f"{shown(ref)} was forgotten"):
            return AgentReply(F5_SEM_WRITE_FAILURE, focus=focus_of(key))
        forgotten.append(shown(ref))
    if not forgotten:
        return AgentReply(f"I had nothing stored about {shown(refs[0])}, so there is nothing to forget.")
    return AgentReply(f"Done: I forgot {' and '.join(forgotten)}.")


def states_forgotten(ctx: ReasonContext, line: str) -> bool:
    """Whether ``line``, said by this tick's speaker, states a fact that is now forgotten (stored as ``null``): "my
    dog is called Rex" after "forget my dog's name". The key is made as for this tick's line, on a copy of ``ctx``
    whose externals are its own, and the fact is read from the store: neither is recorded in the tick."""
    parsed = facts.parse(line)
    if parsed is None or parsed.op != "write":
        return False
    try:
        key = key_of(attrs.evolve(ctx, externals=Externals()), parsed.refs[0])
    except AgiError:  # a name that makes no key names no fact
        return False
    read = ctx.store.sem_read(key)
    return bool(read.exists and read.value is None)


__all__ = ["answer", "focus_of", "forget", "key_of", "person", "shown", "states_forgotten"]
