"""AgentOne's short-term memory: the newest 200 interactions, percepts and actions alike.

The seed's short-term memory is a FIFO queue of 200 items holding every percept and every
action; the oldest is forgotten when a new one arrives. The kernel already stores each
tick's percept and action as episodes, in order, so the queue is a view: the newest
:data:`SHORT_TERM_ITEMS` episodes, oldest first. (Deviation: the episodes themselves are
kept; "forgotten" means out of the short-term view, still in long-term memory, as the seed's
long-term memory keeps them too.)
"""

from __future__ import annotations

from typing import Any

SHORT_TERM_ITEMS = 200


def short_term(store: Any, limit: int = SHORT_TERM_ITEMS) -> list[str]:
    """The newest ``limit`` interactions, oldest first, each ``"source: text"`` (``agent: …`` for actions)."""
    entries = store.episodes(limit, newest_first=True)
    items = []
    for entry in reversed(entries):
        context = entry.context or {}
        who = "agent" if context.get("kind") == "action" else context.get("speaker") or context.get("source", "user")
        items.append(f"{who}: {entry.event}")
    return items
