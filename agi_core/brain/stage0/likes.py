"""How the user's likes and dislikes read: two facts of theirs, each a list of things as the user wrote them.

``user/person/self/likes`` and ``user/person/self/dislikes`` (a named speaker's under their own entity, as every
"my …"): "I like hiking" adds hiking to the first and takes it out of the second, "I don't like hiking anymore"
the other way round, so a thing is in one list at most and the newest statement about it wins (S8). The parse
is :func:`agi_core.brain.stage0.facts.parse`'s (ops ``prefer`` and ``ask_prefer``); the replies are
:mod:`.fact_replies`'.
"""

from __future__ import annotations

from typing import Any

from agi_core.brain.stage0.facts import LIKED


def items(value: Any) -> list[str]:
    """The things a stored value lists: the list itself, one thing for a string ("my likes are hiking"), else none."""
    if isinstance(value, list):
        return [item for item in value if isinstance(item, str)]
    return [value] if isinstance(value, str) and value.strip() else []


def holds(things: list[str], thing: str) -> bool:
    """Whether ``thing`` is among ``things``, whatever its case and spacing."""
    return _fold(thing) in {_fold(t) for t in things}


def without(things: list[str], thing: str) -> list[str]:
    return [t for t in things if _fold(t) != _fold(thing)]


def joined(things: list[str]) -> str:
    """``hiking``, ``hiking and jazz``, ``hiking, jazz and tea``."""
    return things[0] if len(things) == 1 else ", ".join(things[:-1]) + " and " + things[-1]


def verb(attribute: str, person: str = "you") -> str:
    """``you like`` / ``you don't like``; ``the user likes`` / ``the user doesn't like`` in the third person."""
    if person == "you":
        return "you like" if attribute == LIKED else "you don't like"
    return f"{person} likes" if attribute == LIKED else f"{person} doesn't like"


def listed(attribute: str, value: Any, person: str = "you") -> str | None:
    """``You like hiking and jazz.``, ``Your sister likes tea.``; None when the value lists nothing (a miss, F1)."""
    things = items(value)
    said = verb(attribute, person)
    return f"{said[0].upper()}{said[1:]} {joined(things)}." if things else None


def _fold(text: str) -> str:
    return " ".join(text.casefold().split())


__all__ = ["holds", "items", "joined", "listed", "verb", "without"]
