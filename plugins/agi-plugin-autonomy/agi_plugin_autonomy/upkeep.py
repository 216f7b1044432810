"""Memory upkeep in idle time, heuristically: a digest of the user's recent lines and their salient words.

``memory_summarizer``, ``memory_concept_curation`` and ``semantic_memory_maintenance`` answer with a
model; without one these give the digest (the user's lines, each cut to 8 words) and the concepts
(content words said at least twice, most frequent first).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from typing import Any

BATCH = 5  # new user lines that make a digest worth writing
STOP = frozenset(
    "the a an and or but is are was were be to of in on at for with my your i you me it this that what who how "
    "do does did not no yes have has had can could will would should about from by as so if then than there "
    "they she he we our their his her its just like".split()
)


def user_lines(episodes: Sequence[Any]) -> list[dict[str, str]]:
    """The user's lines among ``episodes`` (newest first), oldest first: ``{"id", "text", "timestamp"}``."""
    lines = [
        {"id": e.id[:16], "text": e.event[:300], "timestamp": e.timestamp}
        for e in episodes
        if e.context.get("kind") == "input" and e.context.get("source") == "user"
    ]
    return lines[::-1]


def digest(lines: list[dict[str, str]]) -> str:
    return " / ".join(" ".join(line["text"].split()[:8]) for line in lines)[:400]


def concepts(lines: list[dict[str, str]]) -> list[dict[str, Any]]:
    words = Counter(w for line in lines for w in re.findall(r"[a-z]{3,20}", line["text"].lower()) if w not in STOP)
    return [{"label": w, "salience": n} for w, n in sorted(words.items(), key=lambda x: (-x[1], x[0])) if n >= 2][:5]
