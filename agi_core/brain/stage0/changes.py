"""Stage-0's changed ways, kept off the journals written before them.

A change to what Stage-0 reads or says would make an older journal replay to ``REPLAY_MISMATCH``
at every tick it touches. So a live tick whose line a change reads or answers otherwise records
an external saying so, and a replayed tick without it reads and answers as the journal's code did:
a journal from before a change replays as it was written, a new one as it was.
"""

from __future__ import annotations

from agi_core.brain.stage0 import facts, mathparse
from agi_core.reasoning import ReasonContext
from agi_core.scheduling import goal_phrases

PARSE_RULES = "parse_rules"
"""The external of a tick whose line an older Stage-0 parsed otherwise: the parse changes it read it under."""
RELATION_HOP = "relation_hop"
"""A question about one of the user's that misses its own key follows the relation's name (see fact_replies;
taken through :meth:`agi_core.externals.Externals.changed`)."""

DIRECT_QUESTION = "direct_question"
""""ask bob where my sister lives" sends "where does my sister live?" (before: "where my sister lives?"), recorded
where the question sent differs (see messages; taken through :meth:`agi_core.externals.Externals.changed`)."""

OWN_RECALL = "own_recall"
""""what do you remember?" lists the asking speaker's facts and exchanges only (before: every speaker's, as the
asker's), recorded where another speaker's would have been listed (see habits)."""

FORGOTTEN_STAYS = "forgotten_stays"
"""A rule's F1 on a fact the user asked to forget (read as ``null``) stands (before: a module's sourced candidate
replaced it, retrieval's answer from the line that told the fact), recorded where a candidate would have (see
brain; taken through :meth:`agi_core.externals.Externals.changed`)."""

FORGET_HOP = "forget_hop"
""""forget where my sister lives" forgets her home on the person her name names too (``world/entity/maya/home``,
where "where does my sister live?" goes on to read it; before: only ``user/relation/sister/home``), recorded
where a relation's attribute is forgotten (see fact_replies; taken through
:meth:`agi_core.externals.Externals.changed`)."""

FORGOTTEN_LATELY = "forgotten_lately"
""""what do you remember?" leaves out the exchanges whose line stated a fact since forgotten (before: "Lately: you
said “my dog is called Rex” …" after "forget my dog's name"), recorded where one was left out (see habits)."""

NOTED_STATEMENT = "noted_statement"
"""A statement of the user's that no rule stores ("I have a red bike") is answered "I noted this as an episode, but
I have no rule to store it as a fact yet." (before: F3; see agents.GenericAgent; taken through
:meth:`agi_core.externals.Externals.changed`)."""


def old_rules(ctx: ReasonContext) -> frozenset[str]:
    """The parse changes (:data:`facts.CHANGES`) this tick reads its line without: none live, recording the
    ``parse_rules`` external where an older Stage-0 read the line otherwise; in replay those the journal's tick
    recorded, and where it recorded none the rules of the code that wrote it: those before ``others_possessive``
    (0d8cf16), or only that one where the tick recorded its ``others_possessive`` external (written before
    ``parse_rules``)."""
    if not (
        any(
            reads(line)
            for reads in (facts.reads_otherwise, goal_phrases.reads_otherwise)
            for line in dict.fromkeys((ctx.text, ctx.state.input.raw))  # once when normalizing changed nothing
        )
        or mathparse.reads_otherwise(ctx.text)  # the math_words change
    ):
        return frozenset()
    externals, every = ctx.externals, frozenset(facts.CHANGES)
    if externals.recorded is None or externals.has_next(PARSE_RULES):
        in_force = externals.fetch(PARSE_RULES, lambda: list(facts.CHANGES))
        return every - frozenset(in_force)
    if externals.has_next(facts.OTHERS_POSSESSIVE):
        externals.fetch(facts.OTHERS_POSSESSIVE, lambda: True)
        return every - {facts.OTHERS_POSSESSIVE}
    return every


__all__ = [
    "DIRECT_QUESTION",
    "FORGET_HOP",
    "FORGOTTEN_LATELY",
    "FORGOTTEN_STAYS",
    "NOTED_STATEMENT",
    "OWN_RECALL",
    "PARSE_RULES",
    "RELATION_HOP",
    "old_rules",
]
