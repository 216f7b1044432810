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

from agi_core.modules import ChangedReading, ModuleContext

BATCH = 5  # new user lines that make a digest worth writing
EPISODES_READ = 40  # the newest episodes the user's lines were read among, before PAST_BOOKKEEPING
LINES_READ = 20  # the user's newest lines read now (40 episodes of a conversation hold 20)
PAST_BOOKKEEPING = "user_lines_past_bookkeeping"  # the change (ctx.changed) that reads past clock ticks
STOP = frozenset(
    "the a an and or but is are was were be to of in on at for with my your i you me it this that what who how "
    "do does did not no yes have has had can could will would should about from by as so if then than there "
    "they she he we our their his her its just like".split()
)


def recent_user_lines(ctx: ModuleContext) -> ChangedReading[list[dict[str, str]]]:
    """The user's newest ``LINES_READ`` lines, oldest first, however many clock and maintenance ticks came
    after them (the change ``PAST_BOOKKEEPING``), and as read before it, among the newest ``EPISODES_READ``
    episodes only (seven idle minutes of ``--follow`` ticks), so a journal from then replays so. The
    change is asked for only where what the module does with them differs."""
    newest = user_lines(ctx.memory.episodes(EPISODES_READ))
    found = user_lines(ctx.memory.episodes(LINES_READ, user_inputs=True))
    return ChangedReading(ctx, PAST_BOOKKEEPING, newest, found)


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
