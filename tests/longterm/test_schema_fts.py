"""The ltm_* tables: idempotent migrations, no commits, FTS5 BM25 kept in sync."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from agi_core.longterm import migrate
from agi_core.memory.migrations import MIGRATIONS, applied


def test_migrate_is_idempotent(conn: sqlite3.Connection) -> None:
    first = migrate(conn)  # the agent database's one migration list, ltm_* included
    assert first == [step.__name__ for step in MIGRATIONS] and "m004_long_term_memory" in first
    assert migrate(conn) == []
    assert applied(conn) == first
    tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE name LIKE 'ltm_%'")}
    assert {"ltm_items", "ltm_vectors", "ltm_fts"} <= tables
    assert "ltm_migrations" not in tables


def test_migrate_does_not_commit_the_callers_transaction(tmp_path: Path) -> None:
    db = tmp_path / "agent.db"
    conn = sqlite3.connect(db)
    conn.execute("CREATE TABLE kernel_state (x INTEGER)")
    conn.execute("INSERT INTO kernel_state VALUES (1)")
    assert conn.in_transaction
    migrate(conn)
    assert conn.in_transaction  # still the caller's open transaction
    conn.rollback()
    assert conn.execute("SELECT count(*) FROM sqlite_master WHERE name = 'ltm_items'").fetchone() == (0,)


def _bm25(conn: sqlite3.Connection, expr: str) -> list[tuple[str, float]]:
    return conn.execute(
        "SELECT i.text, bm25(ltm_fts) FROM ltm_fts JOIN ltm_items i ON i.seq = ltm_fts.rowid "
        "WHERE ltm_fts MATCH ? ORDER BY rank",
        (expr,),
    ).fetchall()


def test_fts5_bm25_ranks_and_follows_deletes(conn: sqlite3.Connection) -> None:
    migrate(conn)
    rows = [("a", "the cat sat on the mat"), ("b", "cats chase cats and more cats"), ("c", "a dog barked")]
    conn.executemany("INSERT INTO ltm_items(id, text) VALUES (?, ?)", rows)
    ranked = _bm25(conn, '"cat"')  # porter stemming: "cats" matches "cat"
    assert [text for text, _ in ranked] == ["cats chase cats and more cats", "the cat sat on the mat"]
    assert ranked[0][1] < ranked[1][1] < 0  # FTS5 bm25: more negative is better
    conn.execute("DELETE FROM ltm_items WHERE id = 'b'")
    assert [text for text, _ in _bm25(conn, '"cat"')] == ["the cat sat on the mat"]
    conn.execute("UPDATE ltm_items SET text = 'a kitten' WHERE id = 'a'")
    assert _bm25(conn, '"cat"') == []
    assert [text for text, _ in _bm25(conn, '"kitten"')] == ["a kitten"]
