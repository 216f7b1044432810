"""The PostgreSQL tables: one schema per agent, plus the shared ``agi_world`` schema.

The agent's tables mirror the SQLite store's (same columns, same text), so export/import
moves rows unchanged. Steps are recorded by name in each schema's ``_agi_migrations`` and
all run in one transaction under a database-wide advisory lock, so concurrent first opens
of one agent (or of many agents creating ``agi_world``) never race.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agi_core.memory.user_inputs import user_input_index
from agi_plugin_postgres import ltm, rlm

MIGRATION_LOCK = 0x61676930  # advisory lock key held while any schema is created or upgraded

#: A step's statements: SQL (``{s}`` is the schema), or a function of the connection and the schema.
Statement = str | Callable[[Any, str], None]

AGENT_STEPS: list[tuple[str, list[Statement]]] = [
    (
        "p001_core_tables",
        [
            "CREATE TABLE {s}.meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
            "CREATE TABLE {s}.facts (key TEXT PRIMARY KEY, id TEXT NOT NULL, value TEXT NOT NULL, "
            "fact TEXT NOT NULL, relations TEXT NOT NULL, updated_at TEXT NOT NULL, tick BIGINT NOT NULL)",
            "CREATE TABLE {s}.episodes (seq BIGINT PRIMARY KEY, id TEXT NOT NULL, tick BIGINT NOT NULL, "
            "event TEXT NOT NULL, context TEXT NOT NULL, timestamp TEXT NOT NULL)",
            "CREATE INDEX ON {s}.episodes (tick)",
            "CREATE TABLE {s}.working (id INTEGER PRIMARY KEY, data TEXT NOT NULL)",
            "CREATE TABLE {s}.journal (tick BIGINT PRIMARY KEY, id TEXT NOT NULL, record TEXT NOT NULL, "
            "chain TEXT NOT NULL)",
            "CREATE TABLE {s}.journal_archive (rollback TEXT NOT NULL, tick BIGINT NOT NULL, id TEXT NOT NULL, "
            "record TEXT NOT NULL, chain TEXT NOT NULL, PRIMARY KEY (rollback, tick))",
            "CREATE TABLE {s}.intents (tick BIGINT PRIMARY KEY, tool TEXT NOT NULL, args TEXT NOT NULL, "
            "receipt_tick BIGINT)",
            "CREATE TABLE {s}.blobs (hash TEXT PRIMARY KEY, data BYTEA NOT NULL)",
            "CREATE TABLE {s}.checkpoints (name TEXT PRIMARY KEY, tick BIGINT NOT NULL, seq BIGINT NOT NULL, "
            "snapshot TEXT NOT NULL)",
            # bumped by every committed transaction: data_version() tells another process's commits
            "CREATE TABLE {s}._version (id INTEGER PRIMARY KEY, v BIGINT NOT NULL)",
            "INSERT INTO {s}._version VALUES (1, 0)",
        ],
    ),
]

AGENT_STEPS.append(
    (
        "p002_jobs",
        [
            "CREATE TABLE {s}.jobs (name TEXT PRIMARY KEY, kind TEXT NOT NULL, spec TEXT NOT NULL, say TEXT NOT NULL, "
            "next_due_ms BIGINT, last_run_ms BIGINT, runs BIGINT NOT NULL, missed BIGINT NOT NULL, "
            "created_tick BIGINT NOT NULL)",
        ],
    )
)

AGENT_STEPS.append(
    (
        "p003_seal_and_checkpoint_macs",
        [
            "CREATE TABLE {s}._agi_seal_rows (tbl TEXT NOT NULL, key TEXT NOT NULL, hash TEXT NOT NULL, "
            "PRIMARY KEY (tbl, key))",
            "CREATE INDEX ON {s}.facts (tick)",
            "ALTER TABLE {s}.checkpoints ADD COLUMN mac TEXT NOT NULL DEFAULT ''",
        ],
    )
)

AGENT_STEPS.append(("p004_rlm_state", [*rlm.STEPS]))
AGENT_STEPS.append(("p005_long_term_memory", [*ltm.STEPS]))
AGENT_STEPS.append(
    (
        "p006_goals",  # the goal DAG (agi_core.scheduling.goals); the SQLite store's m013_goals
        [
            "CREATE TABLE {s}.goals (id TEXT PRIMARY KEY, parent TEXT, description TEXT NOT NULL, "
            "status TEXT NOT NULL, priority DOUBLE PRECISION NOT NULL, progress DOUBLE PRECISION NOT NULL, "
            "plan TEXT NOT NULL, assumptions TEXT NOT NULL, created_tick BIGINT NOT NULL, "
            "updated_tick BIGINT NOT NULL, replans BIGINT NOT NULL, seq BIGINT NOT NULL UNIQUE)",
        ],
    )
)
AGENT_STEPS.append(
    (
        "p007_module_state",  # cognitive modules' own state (agi_core.modules); the SQLite store's m012_module_state
        [
            "CREATE TABLE {s}.module_state (module TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, "
            "tick BIGINT NOT NULL, PRIMARY KEY (module, key))",
        ],
    )
)
AGENT_STEPS.append(
    (
        "p008_goal_indexes",  # goal reads by parent, by status in rank order, by tick; SQLite's m014_goal_indexes
        [
            "CREATE INDEX ON {s}.goals (parent, seq)",
            "CREATE INDEX ON {s}.goals (status, priority DESC, seq)",
            "CREATE INDEX ON {s}.goals (updated_tick)",  # the seal hashes the goals written since the last one
        ],
    )
)

AGENT_STEPS.append(
    (
        "p009_messages",  # agent-to-agent messages (agi_core.messaging); the SQLite store's m015_messages
        [
            "CREATE TABLE {s}.messages_in (id TEXT PRIMARY KEY, tick BIGINT NOT NULL, sender TEXT NOT NULL, "
            "conversation TEXT NOT NULL)",
            "CREATE TABLE {s}.messages_out (id TEXT PRIMARY KEY, tick BIGINT NOT NULL, recipient TEXT NOT NULL, "
            "message TEXT NOT NULL, published BOOLEAN NOT NULL DEFAULT FALSE)",
            "CREATE INDEX ON {s}.messages_out (published, tick)",
        ],
    )
)

AGENT_STEPS.append(
    (
        "p010_tick_timings",  # how long each tick took (agi_core.memory.tick_timings); the SQLite store's m016
        ["CREATE TABLE {s}.tick_timings (tick BIGINT PRIMARY KEY, duration_us BIGINT NOT NULL)"],
    )
)

AGENT_STEPS.append(
    (
        "p011_ltm_drop_bookkeeping",  # memories of commands, maintenance and the clock, as SQLite's m011, m018, m019
        [ltm.drop_bookkeeping],
    )
)

AGENT_STEPS.append(
    (
        "p012_user_input_episodes",  # the user's inputs, newest first, without a scan; SQLite's m020
        [user_input_index("{s}.episodes")],
    )
)

AGENT_STEPS.append(
    (
        "p013_ltm_full_text",  # the memories' words, searched as SQLite's FTS5 (ltm_fts) searches them
        [*ltm.FULL_TEXT_STEPS],
    )
)

WORLD_STEPS: list[tuple[str, list[Statement]]] = [
    (
        "w001_world_facts",
        [
            # the current value of each shared fact: the last committed write, and who wrote it
            "CREATE TABLE {s}.facts (key TEXT PRIMARY KEY, id TEXT NOT NULL, value TEXT NOT NULL, "
            "fact TEXT NOT NULL, relations TEXT NOT NULL, updated_at TEXT NOT NULL, tick BIGINT NOT NULL, "
            "writer TEXT NOT NULL, version BIGINT NOT NULL)",
            # every write, numbered per key in commit order (the row lock on facts orders them)
            "CREATE TABLE {s}.history (seq BIGSERIAL PRIMARY KEY, key TEXT NOT NULL, version BIGINT NOT NULL, "
            "value TEXT NOT NULL, writer TEXT NOT NULL, tick BIGINT NOT NULL, updated_at TEXT NOT NULL, "
            "UNIQUE (key, version))",
            "CREATE TABLE {s}.blobs (hash TEXT PRIMARY KEY, data BYTEA NOT NULL)",
        ],
    ),
]


def migrate(conn: Any, schema: str, steps: list[tuple[str, list[Statement]]]) -> list[str]:
    """Create or upgrade ``schema`` (inside the caller's transaction); returns the steps run."""
    conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
    conn.execute(f"CREATE SCHEMA IF NOT EXISTS {schema}")
    conn.execute(f"CREATE TABLE IF NOT EXISTS {schema}._agi_migrations (step INTEGER PRIMARY KEY, name TEXT NOT NULL)")
    done = {row[0] for row in conn.execute(f"SELECT name FROM {schema}._agi_migrations")}
    ran = []
    for number, (name, statements) in enumerate(steps, start=1):
        if name in done:
            continue
        for statement in statements:
            if callable(statement):
                statement(conn, schema)
            else:
                conn.execute(statement.format(s=schema))
        conn.execute(f"INSERT INTO {schema}._agi_migrations (step, name) VALUES (%s, %s)", (number, name))
        ran.append(name)
    return ran
