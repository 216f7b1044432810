"""What a parsed line is about (:mod:`.facts` re-exports every name): a :class:`Subject`, one of its attributes
(a :class:`Ref`), and the line's :class:`Parsed` op on one or more refs."""

from __future__ import annotations

import attrs

SELF = "self"
RELATION = "relation"
WORLD = "world"


@attrs.frozen
class Subject:
    """Whom a fact is about: the user (``self``), one of theirs (``relation``) or a named thing (``world``)."""

    kind: str
    name: str = ""  # the relation's noun or the thing's name, as the user wrote it
    owner: str = ""  # whose relation, as written ("Bob" in "Bob's sister"); "" for the speaker's own
    called: str = ""  # the relation's name said beside its noun ("Tom" in "my brother Tom"), as written


@attrs.frozen
class Ref:
    subject: Subject
    attribute: str  # as the user wrote it (or the attribute a verb stands for)


@attrs.frozen
class Parsed:
    """``op`` is ``write`` (``value`` set), ``read`` or ``forget``; ``refs`` in the order to try."""

    op: str
    refs: tuple[Ref, ...]
    value: str | None = None
    things: tuple[str, ...] = ()  # a like's things, apart ("hiking and jazz": hiking, jazz); () before liked_apart


ME = Subject(SELF)


__all__ = ["ME", "RELATION", "SELF", "WORLD", "Parsed", "Ref", "Subject"]
