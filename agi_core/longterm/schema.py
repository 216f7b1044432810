"""The ``ltm_*`` tables: one function per migration step, applied in order, idempotent.

Same idea as ``sqlite_utils.Migrations`` (a named, ordered list of steps recorded in a
table), with two differences the kernel needs: nothing is committed here (each step runs
inside a SAVEPOINT of the caller's transaction) and no wall-clock time is recorded.

Tables:

``ltm_items``
    one row per memory; ``seq`` (INTEGER PRIMARY KEY AUTOINCREMENT, never reused) is
    also the item's id in the faiss index; ``id`` is the stable caller-facing id.
``ltm_vectors``
    float32 embedding blobs keyed by ``(model, seq)``: reopening never re-embeds.
``ltm_fts``
    FTS5 (porter stemmer) over ``ltm_items.text``, kept in sync by triggers; BM25 comes
    from it.

``m004_drop_bookkeeping`` changes data, not tables: it removes rows mirrored before the
kernel's bookkeeping was left out of long-term memory.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

Step = Callable[[sqlite3.Connection], None]

MIGRATIONS_TABLE = "ltm_migrations"
_STEPS: list[tuple[str, Step]] = []


def step(func: Step) -> Step:
    """Register ``func`` as the next migration step, under its function name."""
    if any(name == func.__name__ for name, _ in _STEPS):
        raise ValueError(f"migration step {func.__name__!r} is registered twice")
    _STEPS.append((func.__name__, func))
    return func


@step
def m001_items(conn: sqlite3.Connection) -> None:
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


@step
def m002_vectors(conn: sqlite3.Connection) -> None:
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


@step
def m003_fts(conn: sqlite3.Connection) -> None:
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


@step
def m004_drop_bookkeeping(conn: sqlite3.Connection) -> None:
    """Remove the bookkeeping rows mirrored before it was left out (:mod:`agi_core.longterm.bookkeeping`).

    Mirrored episodes are the rows with no session and no metadata; ingested rows always
    have both. Their vectors go with them (trigger); the index file is then rebuilt from
    the remaining vectors on next use, with nothing re-embedded.
    """
    from agi_core.longterm.bookkeeping import COMMAND_SOURCE, is_command_record, is_empty_reply

    mirrored = "session IS NULL AND metadata = '{}'"
    ticks, doomed = set(), []
    for seq, tick, text in conn.execute(
        f"SELECT seq, tick, text FROM ltm_items WHERE {mirrored} AND kind = 'message' AND speaker = ?",
        (COMMAND_SOURCE,),
    ):
        if is_command_record(text, COMMAND_SOURCE):
            ticks.add(tick)
            doomed.append(seq)
    for seq, tick, text in conn.execute(
        f"SELECT seq, tick, text FROM ltm_items WHERE {mirrored} AND kind = 'action' AND speaker = 'agent'"
    ):
        if tick in ticks or is_empty_reply(text):
            doomed.append(seq)
    conn.executemany("DELETE FROM ltm_items WHERE seq = ?", ((seq,) for seq in doomed))


def applied(conn: sqlite3.Connection) -> list[str]:
    """Names of the steps already applied, in order."""
    exists = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (MIGRATIONS_TABLE,)
    ).fetchone()
    if not exists:
        return []
    return [row[0] for row in conn.execute(f"SELECT name FROM {MIGRATIONS_TABLE} ORDER BY ordinal")]


def migrate(conn: sqlite3.Connection) -> list[str]:
    """Create or upgrade the ``ltm_*`` tables; returns the names of the steps it applied.

    Idempotent: a second call applies nothing. Does not commit: each step runs in a
    SAVEPOINT, released into the caller's transaction (or committed by SQLite itself when
    the connection is in autocommit mode).
    """
    done = set(applied(conn))
    ran: list[str] = []
    for ordinal, (name, func) in enumerate(_STEPS, start=1):
        if name in done:
            continue
        conn.execute("SAVEPOINT ltm_migrate")
        try:
            conn.execute(
                f"CREATE TABLE IF NOT EXISTS {MIGRATIONS_TABLE} (ordinal INTEGER PRIMARY KEY, name TEXT UNIQUE)"
            )
            func(conn)
            conn.execute(f"INSERT INTO {MIGRATIONS_TABLE}(ordinal, name) VALUES (?, ?)", (ordinal, name))
        except BaseException:
            conn.execute("ROLLBACK TO ltm_migrate")
            conn.execute("RELEASE ltm_migrate")
            raise
        conn.execute("RELEASE ltm_migrate")
        ran.append(name)
    return ran
