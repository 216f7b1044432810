"""The one savepoint helper used by the store, the RLM state service and the ltm migrations."""

from __future__ import annotations

import sqlite3

import pytest

from agi_core.memory.savepoint import savepoint


def _conn(tmp_path):
    conn = sqlite3.connect(tmp_path / "a.db", isolation_level=None)
    conn.execute("CREATE TABLE t (x INTEGER)")
    return conn


def test_a_failing_step_is_undone_alone_and_the_transaction_goes_on(tmp_path):
    conn = _conn(tmp_path)
    conn.execute("BEGIN")
    conn.execute("INSERT INTO t VALUES (1)")
    with pytest.raises(ZeroDivisionError), savepoint(conn, "step"):
        conn.execute("INSERT INTO t VALUES (2)")
        _ = 1 / 0
    with savepoint(conn, "step"):
        conn.execute("INSERT INTO t VALUES (3)")
    assert conn.in_transaction
    conn.execute("COMMIT")
    assert [row[0] for row in conn.execute("SELECT x FROM t ORDER BY x")] == [1, 3]


def test_begin_opens_a_transaction_that_the_caller_commits_or_rolls_back(tmp_path):
    conn = _conn(tmp_path)
    with savepoint(conn, "rlm_state", begin=True):
        conn.execute("INSERT INTO t VALUES (1)")
    assert conn.in_transaction
    conn.execute("ROLLBACK")
    assert conn.execute("SELECT count(*) FROM t").fetchone()[0] == 0
