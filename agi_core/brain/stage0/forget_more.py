"""What the forgetting follow-ups ask (the ``forget_more`` parse change), read by :func:`.facts.parse` after
"forget" (and a leading "about"/"that"): "it" / "that" (what the line before stored), "everything about my sister"
(every fact of hers), and, read there from the statement, "that I like hiking" (one thing off a list). The replies
are :mod:`.forgetting`'s."""

from __future__ import annotations

from collections.abc import Callable

from agi_core.brain.stage0.refs import ME, Parsed, Ref, Subject

FORGET_PREFER = "forget_prefer"
"""The op of "forget that I like hiking": ``refs`` the list and the other list, ``things`` what to take off."""
FORGET_LAST = "forget_last"
"""The op of "forget it": what the line before stored (its one ref is a placeholder, the user's)."""
FORGET_ALL = "forget_all"
"""The op of "forget everything about my sister": every fact of the ref's subject (its attribute a placeholder)."""
OPS = (FORGET_PREFER, FORGET_LAST, FORGET_ALL)
#: what "forget …" says to mean the line before
SAID_BEFORE = frozenset({"it", "that", "this", "that one", "this one", "what i just said", "what i said"})
#: the openings of "forget everything about …"
EVERYTHING = ("everything about ", "all about ", "everything you know about ", "all you know about ")


def forget_more(text: str, low: str, subject_of: Callable[[str], Subject | None]) -> Parsed | None:
    """The follow-up ``text`` (after "forget", lowered ``low``) asks; None when it is none of them."""
    if low.removesuffix("please").rstrip(" ,") in SAID_BEFORE:  # "forget that, please"
        return Parsed(FORGET_LAST, (Ref(ME, "it"),))
    for lead in EVERYTHING:
        if low.startswith(lead) and (who := subject_of(text[len(lead) :])) is not None:
            return Parsed(FORGET_ALL, (Ref(who, "name"),))
    return None


__all__ = ["EVERYTHING", "FORGET_ALL", "FORGET_LAST", "FORGET_PREFER", "OPS", "SAID_BEFORE", "forget_more"]
