"""The ``ltm_*`` tables of the SQLite backend.

They are created by the agent database's one migration list (``agi_core/memory/migrations.py``,
step ``m004_long_term_memory``); a change to them is a new step appended there.

Tables:

``ltm_items``
    one row per memory; ``seq`` (INTEGER PRIMARY KEY AUTOINCREMENT; a rolled-back transaction
    or ``agi rollback`` hands its seqs out again, which the index detects) is
    also the item's id in the faiss index; ``id`` is the stable caller-facing id.
``ltm_vectors``
    float32 embedding blobs keyed by ``(model, seq)``: reopening never re-embeds.
``ltm_fts``
    FTS5 (porter stemmer) over ``ltm_items.text``, kept in sync by triggers; BM25 comes
    from it.
"""

from __future__ import annotations

import sqlite3


def create_ltm_tables(conn: sqlite3.Connection) -> None:
    """Items, vectors, the FTS5 index and its triggers (the database's step ``m004_long_term_memory``)."""
    conn.execute(
        """
        CREATE TABLE ltm_items (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            id TEXT NOT NULL UNIQUE,
            tick INTEGER NOT NULL DEFAULT 0,
            kind TEXT NOT NULL DEFAULT 'message',
            text TEXT NOT NULL,
            speaker TEXT,
            timestamp TEXT,
            session TEXT,
            importance REAL NOT NULL DEFAULT 0.3,
            metadata TEXT NOT NULL DEFAULT '{}'
        )
        """
    )
    conn.execute("CREATE INDEX ltm_items_tick ON ltm_items(tick)")
    conn.execute("CREATE INDEX ltm_items_speaker ON ltm_items(speaker)")
    conn.execute(
        """
        CREATE TABLE ltm_vectors (
            model TEXT NOT NULL,
            seq INTEGER NOT NULL REFERENCES ltm_items(seq) ON DELETE CASCADE,
            vector BLOB NOT NULL,
            PRIMARY KEY (model, seq)
        ) WITHOUT ROWID
        """
    )
    conn.execute(
        "CREATE VIRTUAL TABLE ltm_fts USING fts5("
        "text, content='ltm_items', content_rowid='seq', tokenize='porter unicode61')"
    )
    conn.execute(
        "CREATE TRIGGER ltm_items_ai AFTER INSERT ON ltm_items BEGIN "
        "INSERT INTO ltm_fts(rowid, text) VALUES (new.seq, new.text); END"
    )
    conn.execute(
        "CREATE TRIGGER ltm_items_ad AFTER DELETE ON ltm_items BEGIN "
        "INSERT INTO ltm_fts(ltm_fts, rowid, text) VALUES ('delete', old.seq, old.text); "
        "DELETE FROM ltm_vectors WHERE seq = old.seq; END"
    )
    conn.execute(
        "CREATE TRIGGER ltm_items_au AFTER UPDATE OF text ON ltm_items BEGIN "
        "INSERT INTO ltm_fts(ltm_fts, rowid, text) VALUES ('delete', old.seq, old.text); "
        "INSERT INTO ltm_fts(rowid, text) VALUES (new.seq, new.text); "
        "DELETE FROM ltm_vectors WHERE seq = old.seq; END"
    )


def drop_bookkeeping(conn: sqlite3.Connection) -> None:
    """Remove the bookkeeping rows mirrored before it was left out (:mod:`agi_core.memory.bookkeeping`).

    Run by the migration steps ``m011_ltm_drop_bookkeeping``, ``m018_ltm_drop_maintenance``
    (maintenance ticks and decorated failure sentences, which older versions kept) and
    ``m019_ltm_drop_clock`` (clock ticks). Mirrored episodes are the rows with no session and no
    metadata, their speaker the input's source (``event``, ``maintain``, ``clock``); ingested rows
    always have both. Which go is :func:`~agi_core.memory.bookkeeping.mirrored_bookkeeping`'s rule,
    the PostgreSQL backend's too. Their vectors go with them (trigger); the index file is then
    rebuilt from the remaining vectors on next use, with nothing re-embedded.
    """
    from agi_core.memory.bookkeeping import BOOKKEEPING_SPEAKERS, mirrored_bookkeeping

    mirrored = "session IS NULL AND metadata = '{}'"
    inputs = conn.execute(
        f"SELECT seq, tick, text, speaker FROM ltm_items WHERE {mirrored} AND kind = 'message' "
        "AND speaker IN (?, ?, ?)",
        BOOKKEEPING_SPEAKERS,
    ).fetchall()
    replies = conn.execute(
        f"SELECT seq, tick, text FROM ltm_items WHERE {mirrored} AND kind = 'action' AND speaker = 'agent'"
    )
    doomed = mirrored_bookkeeping(inputs, replies)
    conn.executemany("DELETE FROM ltm_items WHERE seq = ?", ((seq,) for seq in doomed))
