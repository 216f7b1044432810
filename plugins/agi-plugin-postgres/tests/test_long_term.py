"""Long-term memory on PostgreSQL: episodes become memories, searched by their vectors (no full-text index)."""

from __future__ import annotations


def test_long_term_memory_search_finds_the_episode_on_postgres(agent_url, agi):
    db = agent_url("ltm")
    agi(db, "run", stdin="I walked the dog in the park\nthe capital of Chad is Ndjamena\nmy cat is called Tom\n")
    found = agi(db, "memory", "search", "dog park").stdout.splitlines()
    assert found[0].endswith("user: I walked the dog in the park")
    assert len(found) == 5  # 3 inputs and the 2 replies that say something (the F3 fallback is not a memory)
    agi(db, "checkpoint", "create", "before")
    agi(db, "run", stdin="the dog park closes at nine\n")
    agi(db, "rollback", "before")  # the memories of undone ticks go with them
    assert not any("nine" in line for line in agi(db, "memory", "search", "dog park").stdout.splitlines())
