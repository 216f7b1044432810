"""The -wal file shrinks back after a large transaction: a rollback of a 100k-tick agent left it at 268 MB for
good (SQLite reuses a checkpointed WAL from its start but never shortens the file without a size limit)."""

from __future__ import annotations

import hashlib

from agi_core.memory import sqlite_store
from agi_core.testing import open_kernel


def test_the_wal_file_is_cut_back_to_its_limit_after_a_large_transaction(tmp_path, monkeypatch):
    monkeypatch.setattr(sqlite_store, "WAL_SIZE_LIMIT", 2**20)  # 1 MiB: a small agent shows it
    db = tmp_path / "a.db"
    wal = tmp_path / "a.db-wal"
    with open_kernel(db) as kernel:
        data = bytes(range(256)) * 40_000  # 10 MB in one transaction, as a rollback or an import writes
        with kernel.store.tick_transaction():
            kernel.store.put_blob(hashlib.sha256(data).hexdigest(), data)
        grown = wal.stat().st_size
        for line in ("hello", "what is my note?", "thanks"):  # ordinary ticks: checkpointed, then the WAL is reused
            kernel.tick(line)
        kept = wal.stat().st_size
    assert grown > 10_000_000
    assert kept <= 2**20, f"the -wal file stayed at {kept:,} bytes"
