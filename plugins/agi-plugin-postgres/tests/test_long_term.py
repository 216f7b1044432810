"""Long-term memory on PostgreSQL: episodes become memories, searched by their vectors and their words."""

from __future__ import annotations

import agi_plugin_postgres.plugin as postgres_plugin

from agi_core import Kernel, Plugins
from agi_core.hookspecs import hookimpl


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


def test_a_nul_in_a_line_leaves_the_agent_answering_on_postgres(agent_url, agi):
    """PostgreSQL TEXT holds no NUL: the first line with one was stored (the episode as a blob), then every
    question failed (its mirror into long-term memory raised) for as long as the agent lived."""
    db = agent_url("nul")
    assert agi(db, "run", stdin="my name is A\x00da\n").returncode == 0
    asked = agi(db, "run", stdin="what is my name?\n")
    assert asked.returncode == 0 and asked.stdout == "Your name is A\\x00da.\n"  # the NUL printed escaped
    found = agi(db, "memory", "search", "name").stdout
    assert "A\ufffdda" in found


class Recaller:
    """Recalls from long-term memory on every question, as the retrieval module does."""

    name = "recaller"
    priority = 100

    def recall(self, ctx):
        if ctx.text.endswith("?"):
            ctx.memory.long_term(ctx.text, 3)


class RecallPlugin:
    @hookimpl
    def agi_register_modules(self, register):
        register(Recaller())


def _vectors_after(url, prefetching):
    """Every stored vector (by item text) after a short conversation with questions, the new memories
    encoded between ticks (stored in a later tick's transaction, listed after the commit) or not."""
    with Kernel.open(url, plugins=Plugins.builtins(postgres_plugin, RecallPlugin()), seed="pg") as kernel:
        memory = kernel.long_term_memory(caught_up=False)
        memory.prefetching = prefetching
        for text in ("my cat is called Tom", "what is my cat called?", "I walked the dog", "it rained", "who is Tom?"):
            kernel.tick(text)
            memory.prefetch.wait()
        used = memory.prefetch.used
        memory.catch_up()
        items = memory.items(range(1, memory.rows.max_seq() + 1))
        blobs = memory.rows.vectors_for(memory.embedder.name, list(items))
    return used, {items[seq].text: blob for seq, blob in blobs.items()}


def test_new_memories_encoded_between_ticks_get_the_same_vectors_on_postgres(agent_url):
    used, ahead = _vectors_after(agent_url("ahead"), True)
    _, in_tick = _vectors_after(agent_url("in_tick"), False)
    assert used > 2 and len(ahead) == 7  # 5 inputs, 2 replies that say something (as above)
    assert ahead == in_tick


def test_memories_older_versions_mirrored_from_bookkeeping_ticks_are_removed_on_postgres(
    agent_url, postgres_dsn, monkeypatch
):
    """The SQLite store's steps m011, m018 and m019 remove the memories older versions mirrored from command,
    maintenance and clock ticks, and the empty replies; PostgreSQL kept them and recall kept finding them.
    Step p011 removes them by the same rule; the user's words and the agent's answers stay."""
    import psycopg

    from agi_core.longterm import episodes
    from agi_core.replies import F3_NO_AGENT

    url, plugins = agent_url("junk"), Plugins.builtins(postgres_plugin)

    def texts(kernel):
        return [item.text for item in kernel.long_term_memory(caught_up=True).items(range(1, 100)).values()]

    with monkeypatch.context() as patched:  # the first versions mirrored every tick, as the agent ran then
        patched.setattr(episodes, "is_bookkeeping_input", lambda text, source: False)
        patched.setattr(episodes, "is_empty_reply", lambda text: False)
        with Kernel.open(url, plugins=plugins, seed="pg") as kernel:
            kernel.tick("my sister Maya is a nurse")
            kernel.tick("clock 2026-11-25T16:00:00.000Z", source="clock")
            kernel.maintain()
            kernel.put_fact("user/pet/rex/name", "Rex")
            kernel.tick("tell me a joke")  # F3: an empty reply
            schema, mirrored = kernel.store.s, texts(kernel)
    assert len(mirrored) == 10 and F3_NO_AGENT in mirrored and "maintain" in mirrored
    with psycopg.connect(postgres_dsn, autocommit=True) as conn:  # as a database of the version before p011
        conn.execute(f"DELETE FROM {schema}._agi_migrations WHERE name = 'p011_ltm_drop_bookkeeping'")
    with Kernel.open(url, plugins=plugins, seed="pg") as kernel:
        kept = texts(kernel)
    assert kept == [mirrored[0], mirrored[1], "tell me a joke"], mirrored  # Maya, the reply to it, the joke request


def test_memories_left_to_the_background_are_recalled_by_their_words_on_postgres(agent_url):
    """The first recall of an agent whose memories were never embedded encodes at most TICK_ENCODE_LIMIT of them
    in the tick and leaves the rest to the background. On SQLite those are found by their words (FTS5)
    meanwhile; PostgreSQL had no full-text search, so they could not be recalled until stored."""
    from agi_core.longterm.store import TICK_ENCODE_LIMIT

    with Kernel.open(agent_url("words"), plugins=Plugins.builtins(postgres_plugin), seed="pg") as kernel:
        for i in range(150):  # rule-only ticks: nothing mirrored nor embedded
            kernel.tick(f"note {i}: my friend number {i} likes the colour of lake {i}")
        kernel.tick("my neighbour keeps a heron called Zanzibar")
        memory = kernel.long_term
        texts = [hit.item.text for hit in memory.recall("the heron Zanzibar", 3)]
        assert memory.pending() >= 150 - TICK_ENCODE_LIMIT  # the heron's memory among those left without a vector
        assert "my neighbour keeps a heron called Zanzibar" in texts, texts
        assert memory.search("lake heron Zanzibar", 2, mode="bm25")[0].item.text.endswith("Zanzibar")
