"""``journal_rows`` on PostgreSQL streams (real server): a months-long journal is never held whole in memory."""

from __future__ import annotations

import tracemalloc

from agi_plugin_postgres import store as pg_store

from agi_core.opening import open_store
from agi_core.plugins import Plugins

ROWS, SIZE = 600, 20_000  # 12 MB of record text


def _store(agent_url):
    return open_store(agent_url("stream"), "postgres", plugins=Plugins.builtins("agi_plugin_postgres.plugin"))


def _filled(store):
    with store.tick_transaction():
        for tick in range(1, ROWS + 1):
            store.append_journal(tick, f"r{tick}", '{"t":"' + f"{tick:06d}" * (SIZE // 6) + '"}', f"c{tick}")


def test_journal_rows_hold_a_batch_not_the_journal(agent_url):
    """Reading 600 rows of 20 kB (12 MB) peaks at a few batches of 100 rows, in a snapshot or outside one;
    fetched whole, the peak was the journal's size."""
    store = _store(agent_url)
    _filled(store)
    for snapshot in (False, True):
        tracemalloc.start()
        try:
            if snapshot:
                with store.read_snapshot():
                    ticks = [row[0] for row in store.journal_rows()]
            else:
                ticks = [row[0] for row in store.journal_rows()]
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert ticks == list(range(1, ROWS + 1))
        assert peak < 3 * pg_store.STREAM_BATCH * SIZE, (snapshot, peak)


def test_journal_rows_run_the_query_when_called_and_an_iterator_closed_early_gives_its_connection_back(agent_url):
    """The rows are those of the call's moment (a tick committed while they are read is not among them), and
    an iterator closed after one row (as ``journal_holds`` does) keeps no pooled connection."""
    store = _store(agent_url)
    _filled(store)
    rows = store.journal_rows(since=ROWS - 2)
    with store.tick_transaction():
        store.append_journal(ROWS + 1, "late", "{}", "late")
    assert [row[0] for row in rows] == [ROWS - 1, ROWS]
    for _ in range(3 * pg_store.POOL_MAX):  # each held a connection of the pool while open
        rows = store.journal_rows()
        assert next(rows)[0] == 1
        rows.close()
    with store.tick_transaction():  # inside a tick: on the tick's connection, left unread
        assert next(store.journal_rows())[0] == 1
        store.append_journal(ROWS + 2, "later", "{}", "later")
    assert [row[1] for row in store.journal_rows(since=ROWS)] == ["late", "later"]
