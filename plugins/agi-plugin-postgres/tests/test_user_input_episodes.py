"""``episodes(user_inputs=True)`` on PostgreSQL (real server): the user's inputs past the bookkeeping."""

from __future__ import annotations

from agi_core.kernel import Kernel
from agi_core.plugins import Plugins

LINES = ['say "source":"user" and "kind":"input"', "my name is Ada", "2+2"]


def test_the_users_inputs_are_read_past_clock_and_command_ticks(agent_url):
    url = agent_url("inputs")
    with Kernel.open(url, seed="u", plugins=Plugins.builtins("agi_plugin_postgres.plugin")) as kernel:
        for n, line in enumerate(LINES):
            kernel.tick(line)
            kernel.command("put_fact", {"key": f"user/note/n{n}/text", "value": '"source":"user"'})
            for _ in range(30):
                kernel.tick("clock 2026-11-23T13:00:00.000Z", source="clock")
        newest = kernel.store.episodes(2, newest_first=True, user_inputs=True)
        assert [e.event for e in newest] == ["2+2", "my name is Ada"]
        assert [e.event for e in kernel.store.episodes(None, user_inputs=True)] == LINES
        assert not any(e.context.get("source") == "user" for e in kernel.store.episodes(40, newest_first=True))


def test_the_users_newest_inputs_are_read_through_an_index_not_a_scan(agent_url):
    """The store's read uses p012's partial index (its condition implied by the read's): no scan back past
    every clock episode (54.8 ms on 40,000 episodes, 0.097 ms with it: benchmarks/user_input_episodes.py)."""
    with Kernel.open(agent_url("indexed"), seed="u", plugins=Plugins.builtins("agi_plugin_postgres.plugin")) as kernel:
        kernel.tick("my name is Ada")
        store = kernel.store
        with store.pool.connection() as conn:
            statements = []
            cursor_class = conn.cursor_factory

            class Recording(cursor_class):  # type: ignore[misc,valid-type]
                def execute(self, query, params=None, **kw):
                    statements.append((query, params))
                    return super().execute(query, params, **kw)

            conn.cursor_factory = Recording
            store._tx = conn  # the store's reads run on this connection (as inside its tick transaction)
            try:
                assert [e.event for e in store.episodes(20, newest_first=True, user_inputs=True)] == ["my name is Ada"]
            finally:
                store._tx = None
                conn.cursor_factory = cursor_class
            conn.execute("SET enable_seqscan = off")  # a tiny table: show the index is usable, as on a large one
            ((query, params),) = [(q, p) for q, p in statements if "episodes" in str(q)]
            plan = "\n".join(row[0] for row in conn.execute(f"EXPLAIN {query}", params))
            conn.rollback()
        assert "episodes_user_inputs" in plan, plan
