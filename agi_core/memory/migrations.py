"""The agent database's schema: one ordered list of steps, one function per step.

Every table of the agent (core, ``rlm_*``, ``ltm_*``) is created here, by the steps of
``MIGRATIONS`` in order, each recorded by its function name in ``_agi_migrations``. All the
steps a database still needs run in ONE transaction: a kill or an error during creation or
an upgrade leaves the database as it was before, never half-built. Add a step by appending
a function to ``MIGRATIONS``; never edit or rename a released one (the name is the record).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported when a step runs: sqlite-utils brings numpy (about 0.1 s), and most opens migrate nothing
    import sqlite_utils

Step = Callable[["sqlite_utils.Database"], None]


def m001_core_tables(db: sqlite_utils.Database) -> None:
    db.table("meta").create({"key": str, "value": str}, pk="key")
    db.table("facts").create(
        {"key": str, "id": str, "value": str, "fact": str, "relations": str, "updated_at": str, "tick": int},
        pk="key",
    )
    db.table("episodes").create(
        {"seq": int, "id": str, "tick": int, "event": str, "context": str, "timestamp": str},
        pk="seq",
    )
    db.table("episodes").create_index(["tick"])
    db.table("working").create({"id": int, "data": str}, pk="id")
    db.table("journal").create({"tick": int, "id": str, "record": str, "chain": str}, pk="tick")


def m002_checkpoints_and_archive(db: sqlite_utils.Database) -> None:
    db.table("checkpoints").create({"name": str, "tick": int, "file": str, "seq": int}, pk="name")
    db.table("journal_archive").create(
        {"rollback": str, "tick": int, "id": str, "record": str, "chain": str}, pk=("rollback", "tick")
    )


def m003_rlm_state(db: sqlite_utils.Database) -> None:
    from agi_core.memory.sqlite.rlm_schema import create_rlm_tables

    create_rlm_tables(db.conn)


def m004_long_term_memory(db: sqlite_utils.Database) -> None:
    from agi_core.memory.sqlite.ltm_schema import create_ltm_tables

    create_ltm_tables(db.conn)


def m005_intents(db: sqlite_utils.Database) -> None:
    """Write/external tool calls committed before they run; ``receipt_tick`` is set when their receipt commits."""
    db.table("intents").create({"tick": int, "tool": str, "args": str, "receipt_tick": int}, pk="tick")


def m006_checkpoint_checksums(db: sqlite_utils.Database) -> None:
    """A checkpoint row records its file's sha256 and the sealed state digest (see ``agi_core.seal``)."""
    db.execute("ALTER TABLE checkpoints ADD COLUMN sha256 TEXT")
    db.execute("ALTER TABLE checkpoints ADD COLUMN seal TEXT")


def m007_state_seal(db: sqlite_utils.Database) -> None:
    """Per-row keyed hashes of the sealed state, and the index that keeps sealing incremental."""
    db.execute(
        "CREATE TABLE _agi_seal_rows (tbl TEXT NOT NULL, key TEXT NOT NULL, hash TEXT NOT NULL, "
        "PRIMARY KEY (tbl, key)) WITHOUT ROWID"
    )
    db.execute("CREATE INDEX facts_tick ON facts(tick)")


def m008_one_migration_record(db: sqlite_utils.Database) -> None:
    """The ``rlm_*`` and ``ltm_*`` tables used to record their own steps; this table is the only record now."""
    db.execute("DROP TABLE IF EXISTS rlm_migrations")
    db.execute("DROP TABLE IF EXISTS ltm_migrations")


def m009_blobs(db: sqlite_utils.Database) -> None:
    """Content-addressed blobs (sha256 hex -> UTF-8 bytes) for large values; see agi_core.memory.blobs."""
    db.execute("CREATE TABLE blobs (hash TEXT PRIMARY KEY, data BLOB NOT NULL)")


def m010_jobs(db: sqlite_utils.Database) -> None:
    """Scheduled jobs (agi_core.scheduling.jobs); times are ms since the epoch, ``next_due_ms`` NULL once done."""
    db.execute(
        "CREATE TABLE jobs (name TEXT PRIMARY KEY, kind TEXT NOT NULL, spec TEXT NOT NULL, say TEXT NOT NULL, "
        "next_due_ms INTEGER, last_run_ms INTEGER, runs INTEGER NOT NULL, missed INTEGER NOT NULL, "
        "created_tick INTEGER NOT NULL)"
    )


def m011_ltm_drop_bookkeeping(db: sqlite_utils.Database) -> None:
    """Long-term memory rows mirrored from command ticks and failure sentences go (agi_core.memory.bookkeeping)."""
    from agi_core.memory.sqlite.ltm_schema import drop_bookkeeping

    drop_bookkeeping(db.conn)


def m012_module_state(db: sqlite_utils.Database) -> None:
    """Cognitive modules' own state (agi_core.modules): canonical JSON values by (module, key)."""
    db.execute(
        "CREATE TABLE module_state (module TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, "
        "tick INTEGER NOT NULL, PRIMARY KEY (module, key)) WITHOUT ROWID"
    )


def m013_goals(db: sqlite_utils.Database) -> None:
    """The goal DAG (agi_core.scheduling.goals): ``parent`` is another goal's id or NULL; plan and assumptions
    JSON; ``seq`` the order goals were added in."""
    db.execute(
        "CREATE TABLE goals (id TEXT PRIMARY KEY, parent TEXT, description TEXT NOT NULL, status TEXT NOT NULL, "
        "priority REAL NOT NULL, progress REAL NOT NULL, plan TEXT NOT NULL, assumptions TEXT NOT NULL, "
        "created_tick INTEGER NOT NULL, updated_tick INTEGER NOT NULL, replans INTEGER NOT NULL, "
        "seq INTEGER NOT NULL UNIQUE)"
    )
    db.execute("CREATE INDEX goals_status ON goals(status, seq)")
    db.execute("CREATE INDEX goals_updated ON goals(updated_tick)")


def m014_goal_indexes(db: sqlite_utils.Database) -> None:
    """Goal reads by parent (subgoals, progress) and by status in rank order (the next active goal, the summary)."""
    db.execute("CREATE INDEX goals_parent ON goals(parent, seq)")
    db.execute("CREATE INDEX goals_rank ON goals(status, priority DESC, seq)")


def m015_messages(db: sqlite_utils.Database) -> None:
    """Agent-to-agent messages (agi_core.messaging): the ids received, each in the tick that received it (a
    redelivery finds its id), and the messages sent, written in their tick and published after its commit."""
    db.execute(
        "CREATE TABLE messages_in (id TEXT PRIMARY KEY, tick INTEGER NOT NULL, sender TEXT NOT NULL, "
        "conversation TEXT NOT NULL) WITHOUT ROWID"
    )
    db.execute(
        "CREATE TABLE messages_out (id TEXT PRIMARY KEY, tick INTEGER NOT NULL, recipient TEXT NOT NULL, "
        "message TEXT NOT NULL, published INTEGER NOT NULL DEFAULT 0)"
    )
    db.execute("CREATE INDEX messages_out_unpublished ON messages_out(published, tick)")


def m016_tick_timings(db: sqlite_utils.Database) -> None:
    """How long each tick took in microseconds (agi_core.memory.tick_timings): a measurement beside the journal,
    written in the tick's transaction; neither journaled, sealed nor compared by replay."""
    db.execute("CREATE TABLE tick_timings (tick INTEGER PRIMARY KEY, duration_us INTEGER NOT NULL)")


def m017_ltm_vector_keys(db: sqlite_utils.Database) -> None:
    """The keys of ``ltm_vectors`` without the blobs: the long-term index's consistency check counts the
    vectors up to its ``max_seq`` at every open, and on the table itself that count reads every blob
    page (250-300 ms at 100k vectors, 2.5 s and more at 1M); on this index 6-10 ms at 100k."""
    db.execute("CREATE INDEX IF NOT EXISTS ltm_vectors_keys ON ltm_vectors(model, seq)")


def m018_ltm_drop_maintenance(db: sqlite_utils.Database) -> None:
    """Long-term memory rows mirrored from maintenance ticks (``maintain``, ``maintenance: 5 module(s) ran``) and
    replies that say F1 or F3 among a module's words go, as m011 dropped the other bookkeeping."""
    from agi_core.memory.sqlite.ltm_schema import drop_bookkeeping

    drop_bookkeeping(db.conn)


def m019_ltm_drop_clock(db: sqlite_utils.Database) -> None:
    """Long-term memory rows mirrored from clock ticks (``clock 2026-…`` from source ``clock``, ``Time noted: …``)
    go, as m011 and m018 dropped the other bookkeeping."""
    from agi_core.memory.sqlite.ltm_schema import drop_bookkeeping

    drop_bookkeeping(db.conn)


def m020_user_input_episodes(db: sqlite_utils.Database) -> None:
    """The user's inputs among the episodes, newest first, without a scan back past every clock and maintenance
    episode since (``episodes(user_inputs=True)``): a partial index on the condition the read names."""
    from agi_core.memory.user_inputs import user_input_index

    db.execute(user_input_index("episodes"))


MIGRATIONS: list[Step] = [
    m001_core_tables,
    m002_checkpoints_and_archive,
    m003_rlm_state,
    m004_long_term_memory,
    m005_intents,
    m006_checkpoint_checksums,
    m007_state_seal,
    m008_one_migration_record,
    m009_blobs,
    m010_jobs,
    m011_ltm_drop_bookkeeping,
    m012_module_state,
    m013_goals,
    m014_goal_indexes,
    m015_messages,
    m016_tick_timings,
    m017_ltm_vector_keys,
    m018_ltm_drop_maintenance,
    m019_ltm_drop_clock,
    m020_user_input_episodes,
]


def applied(conn: sqlite3.Connection) -> list[str]:
    """Names of the steps already applied, in the order they ran."""
    if not conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '_agi_migrations'").fetchone():
        return []
    return [row[0] for row in conn.execute("SELECT name FROM _agi_migrations ORDER BY step")]


def migrate(conn: sqlite3.Connection, *, commit: bool = True) -> list[str]:
    """Apply the steps not yet applied, all in one transaction; returns their names.

    With ``commit`` (the store), the steps run in ``BEGIN IMMEDIATE … COMMIT``. Without it
    (a caller that owns the transaction), they run in a savepoint of the caller's open
    transaction; with none open, one is begun and left open for the caller, except on an
    autocommit connection (``isolation_level=None``), where it is committed as SQLite would.
    """
    if all(step.__name__ in set(applied(conn)) for step in MIGRATIONS):
        return []
    began = not conn.in_transaction
    if began:
        conn.execute("BEGIN IMMEDIATE" if commit else "BEGIN")
    conn.execute("SAVEPOINT agi_migrate")
    try:
        ran = _apply(conn)
    except BaseException:
        conn.execute("ROLLBACK TO agi_migrate")
        conn.execute("RELEASE agi_migrate")
        if began and (commit or conn.isolation_level is None):
            conn.execute("ROLLBACK")
        raise
    conn.execute("RELEASE agi_migrate")
    if began and (commit or conn.isolation_level is None):
        conn.execute("COMMIT")
    return ran


AGI_TABLES = ("_agi_migrations", "journal", "meta", "facts", "episodes")  # any of them: an agent's (or an old one's)


def refuse_other_programs_database(conn: sqlite3.Connection) -> None:
    """A SQLite database that holds tables and none of an agent's is another program's: refused before
    anything is changed in it (WAL mode, agi's tables), as ``sqlite3.DatabaseError``, which the store words."""
    tables = [row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
    theirs = [name for name in tables if not name.startswith("sqlite_")]
    if theirs and not set(AGI_TABLES) & set(tables):
        shown = ", ".join(theirs[:5]) + (", …" if len(theirs) > 5 else "")
        raise sqlite3.DatabaseError(f"it holds another program's tables ({shown}) and no agent")


def _apply(conn: sqlite3.Connection) -> list[str]:
    import sqlite_utils

    db = sqlite_utils.Database(conn)
    conn.execute("CREATE TABLE IF NOT EXISTS _agi_migrations (step INTEGER PRIMARY KEY, name TEXT NOT NULL)")
    done = set(applied(conn))  # re-read under the write lock: another process may have migrated meanwhile
    ran = []
    for step in MIGRATIONS:
        if step.__name__ not in done:
            _fault_point("migration")
            step(db)
            _fault_point("migration.done")
            conn.execute(
                "INSERT INTO _agi_migrations (step, name) SELECT coalesce(max(step), 0) + 1, ? FROM _agi_migrations",
                (step.__name__,),
            )
            ran.append(step.__name__)
    return ran


def _fault_point(name: str) -> None:
    from agi_core.faults import fault_point

    fault_point(name)
