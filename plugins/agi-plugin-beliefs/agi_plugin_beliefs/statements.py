"""What a line says about beliefs: a statement heard from someone else, or "are you sure about X?"."""

from __future__ import annotations

import re

import attrs

from agi_core.brain.stage0 import phrases

_HEARSAY = re.compile(
    r"^(?:(?P<who>[A-Za-z][\w-]{0,30}) (?:says|said|told me|claims|thinks)(?: that)?"
    r"|according to (?P<who2>[A-Za-z][\w-]{0,30}),) (?P<rest>.+)$",
    re.I,
)
_SURE = re.compile(r"^(?:are|r) (?:you|u) (?:sure|certain) (?:about|of) (?P<what>.+)$", re.I)


@attrs.frozen
class Statement:
    """A fact stated: ``scope`` user or world, its parts, the value and the words that name it."""

    scope: str
    entity: str
    attribute: str
    value: str
    label: str


def statement(text: str) -> Statement | None:
    """``my favorite color is teal`` / ``the capital of France is Paris`` as a :class:`Statement`."""
    if (mine := phrases.profile_write(text)) is not None:
        attribute = mine[0].strip().lower()
        return Statement("user", "self", attribute, mine[1].strip(), f"your {attribute}")
    if (world := phrases.world_write(text)) is not None:
        attribute, entity = world[0].strip().lower(), world[1].strip()
        return Statement("world", entity, attribute, world[2].strip(), f"the {attribute} of {entity}")
    return None


def hearsay(text: str) -> tuple[str, Statement] | None:
    """``Bob says my favorite color is red`` → ``("bob", Statement)``: "my" is still the user."""
    found = _HEARSAY.match(text.strip())
    if found is None:
        return None
    who = (found.group("who") or found.group("who2")).lower()
    if who in ("i", "you", "he", "she", "they", "it", "we"):
        return None
    said = statement(found.group("rest"))
    return None if said is None else (who, said)


#: what "are you sure about …" says when it means the agent's last reply
POINTING_BACK = frozenset(
    {"that", "it", "this", "what you said", "what you just said", "your answer", "that answer", "your last answer"}
)


def points_back(mention: str) -> bool:
    """Whether ``mention`` (of "are you sure about …") is the agent's last reply: "that", "it", "what you said"."""
    return " ".join(mention.lower().split()) in POINTING_BACK


def sure_about(text: str) -> str | None:
    """``are you sure about my favorite color?`` → ``my favorite color``: the same without the "?" or
    with other end punctuation ("?!", "...")."""
    found = _SURE.match(text.strip())
    if found is None:
        return None
    what = found.group("what").rstrip(" \t?!.").strip()  # in Python: no regex backtracking over the end
    return what or None
