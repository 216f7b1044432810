"""Whether a line no rule answered is a statement of the user's own: "I have a red bike", "my dog barks at night".

Such a line gets :data:`agi_core.replies.F3_NOTED_NOT_STORED` (kept as an episode, stored as no fact) in place of
F3, which is for a request no module serves ("tell me a joke"). A statement opens with the speaker ("I", "my",
"we", …), asks nothing and asks for nothing ("I want a pizza", "I'd like to book a flight" stay requests).
"""

from __future__ import annotations

from agi_core.brain.stage0.phrases import lower_ascii

#: first words of a line that tells something of its writer
TELLING = frozenset("i i'm im i've ive i'd i'll my we we're we've our".split())
#: openings of a line that asks for something, in the first person
ASKING_FOR = (
    "i want",
    "i'd like",
    "i would like",
    "i'd love",
    "i would love",
    "i need",
    "i wish",
    "i wonder",
    "i'm looking for",
    "i am looking for",
    "i have a question",
    "i'd rather",
    "we want",
    "we need",
    "we'd like",
    "we would like",
)


def states_own(text: str) -> bool:
    """Whether ``text`` is a statement of the writer's own: it opens with one of :data:`TELLING`, has a second
    word, is one line, and neither asks (no "?") nor asks for something (:data:`ASKING_FOR`)."""
    line = text.strip().replace("’", "'")
    low = lower_ascii(line)
    first, _, rest = low.partition(" ")
    if "\n" in line or not rest.strip() or line.endswith("?") or low.startswith(ASKING_FOR):
        return False
    return first.strip(",.!") in TELLING


__all__ = ["ASKING_FOR", "TELLING", "states_own"]
