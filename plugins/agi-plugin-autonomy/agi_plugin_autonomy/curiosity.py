"""Curiosity: the people the user mentions ("my sister Maya") and the questions left about them."""

from __future__ import annotations

import re

RELATIONS = (
    "sister|brother|mother|mom|mum|father|dad|friend|wife|husband|son|daughter|partner|boss|colleague"
    "|cousin|aunt|uncle|grandmother|grandfather|neighbor|neighbour|roommate|teacher"
)
MENTION = re.compile(
    rf"\bmy ({RELATIONS})(?:'s name)?,?(?: is called| is named| is| called| named)?\s+([A-Z][a-z]{{1,30}})\b",
    re.IGNORECASE,
)
#: what the agent may ask about a person, in order, with the fact attribute that answers it
ATTRIBUTES = (
    ("job", "What does {name} do for a living?"),
    ("city", "Where does {name} live?"),
    ("birthday", "When is {name}'s birthday?"),
)
MENTIONS_PER_LINE = 3


def mentions(text: str) -> list[tuple[str, str]]:
    """``[(relation, Name)]`` for "my sister Maya", "my friend is called Bob" (at most 3 a line)."""
    found: list[tuple[str, str]] = []
    for match in MENTION.finditer(text[:4000]):
        relation, name = match.group(1).lower(), match.group(2).capitalize()
        if name.lower() in {"called", "named", "is", "a", "an", "the", "my", "not"}:
            continue
        if (relation, name) not in found:
            found.append((relation, name))
        if len(found) >= MENTIONS_PER_LINE:
            break
    return found


def question(relation: str, name: str, attribute: str) -> str:
    asked = dict(ATTRIBUTES)[attribute].format(name=name)
    return f"You mentioned your {relation} {name}. {asked}"
