"""The index's consistency check at open is cheap: its count of stored vectors never reads the blobs."""

from __future__ import annotations

import sqlite3

from agi_core.longterm import LongTermMemory


def test_the_vector_count_reads_the_keys_index_not_the_blob_pages(conn: sqlite3.Connection) -> None:
    LongTermMemory(conn, None)  # migrates
    for sql in (
        "SELECT count(*) FROM ltm_vectors WHERE model = ? AND seq <= ?",  # SqliteLtmRows.vector_count
        "SELECT seq FROM ltm_vectors WHERE model = ? AND seq <= ?",  # SqliteLtmRows.vector_seqs (rollback)
    ):
        plan = " ".join(row[3] for row in conn.execute("EXPLAIN QUERY PLAN " + sql, ("minilm", 10)))
        assert "COVERING INDEX ltm_vectors_keys" in plan, plan
