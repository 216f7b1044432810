"""The read tools ``search_memory`` and ``goals``: what ``agi mcp serve`` answers with, as ticks.

They read the agent's own stores, so they are bound to the kernel when it starts. Like any tool's,
their observation is recorded in the tick: replay serves it and reads nothing. ``search_memory`` runs in a
tick, so it searches as the tick's recall does (:meth:`~agi_core.longterm.LongTermMemory.recall`): at most
``TICK_ENCODE_LIMIT`` memories are encoded there, the rest in the background.
"""

from __future__ import annotations

from typing import Any

from agi_core import Tool, ToolContext, ToolDefinition, ToolError

HITS_MAX = 50
SEARCH_TIMEOUT_S = 120.0  # the first search of a process loads the embedding model


def agent_tools(kernel: Any) -> list[Tool]:
    """``search_memory(query, k)`` and ``goals()`` on ``kernel``'s stores."""

    def search_memory(context: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
        query, k = args.get("query"), args.get("k", 5)
        if not isinstance(query, str) or not query.strip():
            raise ToolError("search_memory needs a query: /search_memory 'what I said about Paris'")
        if not isinstance(k, int) or isinstance(k, bool) or not 1 <= k <= HITS_MAX:
            raise ToolError(f"search_memory: k must be an integer from 1 to {HITS_MAX}; pass k=5")
        # a tick's recall: under the tick's write lock it encodes at most the tick's limit (TICK_ENCODE_LIMIT)
        # of the memories without a vector; the rest are encoded in the background and found by their words meanwhile
        hits = kernel.long_term.recall(query, k)
        keep = ("rank", "score", "id", "text", "speaker")
        return {"hits": [{key: value for key, value in hit.to_dict().items() if key in keep} for hit in hits]}

    def goals(context: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
        from agi_core.scheduling import goals as stored
        from agi_core.serialization import to_data

        return {"goals": [to_data(goal) for goal in stored.all_goals(kernel.store)]}

    return [
        Tool(
            ToolDefinition(
                "search_memory",
                "Search the agent's long-term memory.",
                {"query": "string", "k": "integer"},
                "read",
                timeout_s=SEARCH_TIMEOUT_S,
            ),
            search_memory,
        ),
        Tool(ToolDefinition("goals", "The agent's goals and their plans.", {}, "read"), goals),
    ]
