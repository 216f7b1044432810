"""``search_memory`` runs in a tick, under the database's write lock: like the tick's own recall, it encodes at
most ``TICK_ENCODE_LIMIT`` memories there and leaves the rest to the background encoder (real MiniLM, real file)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agi_core.longterm.store import TICK_ENCODE_LIMIT
from agi_core.replay import replay

from .conftest import mcp_plugins, open_agent

NOTES = 150


def test_search_memory_encodes_at_most_the_ticks_limit_and_finds_the_rest_by_their_words(tmp_path: Path) -> None:
    db = tmp_path / "agent.db"
    with open_agent(db) as kernel:  # an agent that never searched: nothing mirrored nor embedded
        for i in range(NOTES):
            kernel.tick(f"note {i}: my friend number {i} likes the colour of lake {i}")
        kernel.tick("my neighbour keeps a heron called Zanzibar")
        record = kernel.tick("/search_memory 'the heron Zanzibar' k=3")
        memory = kernel.long_term_memory(caught_up=False)
        stored = memory.rows.vector_count(memory.embedder.name)
        assert 0 < stored <= TICK_ENCODE_LIMIT, stored  # the full catch-up stored every one of the 150
        assert memory.pending() >= NOTES - TICK_ENCODE_LIMIT
        texts = [hit["text"] for hit in record.observation.payload["hits"]]
        assert "my neighbour keeps a heron called Zanzibar" in texts, texts  # not encoded yet: found by its words
        memory.prefetch.wait()
        kernel.tick("/search_memory 'friend number 7' k=1")  # the next ticks store what the background encoded
    report = replay(db, plugins=mcp_plugins())
    assert report.ok, report.mismatch


if __name__ == "__main__":  # pragma: no cover
    pytest.main([__file__])
