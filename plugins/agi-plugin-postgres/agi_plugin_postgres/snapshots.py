"""Per-agent checkpoints as schema snapshots: no file copy, one transaction each.

A checkpoint copies the agent's state tables into a schema of their own
(``agent_NAME__ckN``); rollback replaces the live rows with the snapshot's and archives the
undone journal rows, inside the caller's tick transaction, so it happens entirely or not
at all. The journal key's meta rows, the archive, the blobs and the checkpoint list are kept.
The shared ``world/`` scope is not rolled back: other agents may already rely on it.
"""

from __future__ import annotations

from typing import Any

from agi_core.journal_key import JournalKey
from agi_core.memory.backend import CheckpointError, CheckpointInfo
from agi_plugin_postgres import ltm, rlm
from agi_plugin_postgres.seal import tables_of

STATE_TABLES = (
    "meta",
    "facts",
    "episodes",
    "working",
    "journal",
    "intents",
    "jobs",
    "goals",
    "module_state",
    "tick_timings",
    "messages_in",
    "messages_out",
    "_agi_seal_rows",
    *rlm.TRANSFER,
    *ltm.TRANSFER,
)
# the tables agi export/import moves, with the SQLite store's column names, and their row order
TRANSFER_TABLES = {
    "meta": ("key", "value"),
    "facts": ("key", "id", "value", "fact", "relations", "updated_at", "tick"),
    "episodes": ("seq", "id", "tick", "event", "context", "timestamp"),
    "working": ("id", "data"),
    "journal": ("tick", "id", "record", "chain"),
    "journal_archive": ("rollback", "tick", "id", "record", "chain"),
    "tick_timings": ("tick", "duration_us"),
    "intents": ("tick", "tool", "args", "receipt_tick"),
    "messages_in": ("id", "tick", "sender", "conversation"),
    "messages_out": ("id", "tick", "recipient", "message", "published"),
    "blobs": ("hash", "data"),
    "jobs": ("name", "kind", "spec", "say", "next_due_ms", "last_run_ms", "runs", "missed", "created_tick"),
    "goals": (
        "id",
        "parent",
        "description",
        "status",
        "priority",
        "progress",
        "plan",
        "assumptions",
        "created_tick",
        "updated_tick",
        "replans",
        "seq",
    ),
    "module_state": ("module", "key", "value", "tick"),
    **rlm.TRANSFER,
    **ltm.TRANSFER,
}
ORDER = {
    "meta": 'key COLLATE "C"',
    "facts": 'key COLLATE "C"',
    "episodes": "seq",
    "working": "id",
    "journal": "tick",
    "journal_archive": 'rollback COLLATE "C", tick',
    "tick_timings": "tick",
    "intents": "tick",
    "messages_in": 'id COLLATE "C"',
    "messages_out": 'id COLLATE "C"',
    "blobs": 'hash COLLATE "C"',
    "jobs": 'name COLLATE "C"',
    "goals": "seq",
    "module_state": 'module COLLATE "C", key COLLATE "C"',
    **rlm.ORDER,
    **ltm.ORDER,
}
# columns stored otherwise than SQLite stores them: (read as, written as), so an export is the same from both
TRANSFER_CASTS = {("messages_out", "published"): ("published::int", "%s::int::boolean")}
KEPT_META = ("journal_key_check", "journal_key_source")


SnapshotError = CheckpointError


def row_mac(key: JournalKey, name: str, tick: int, snapshot: str, sealed: str) -> str:
    """Binds a checkpoint row to its snapshot and the seal of the state it holds."""
    return key.mac(f"pg-checkpoint|{name}|{tick}|{snapshot}|{sealed}")


def create(conn: Any, schema: str, name: str, tick: int, key: JournalKey) -> str:
    """Copy the state tables into a new schema and list it; returns the snapshot schema's name."""
    if conn.execute(f"SELECT 1 FROM {schema}.checkpoints WHERE name = %s", (name,)).fetchone():
        raise SnapshotError(f"checkpoint {name!r} already exists; choose another name")
    (seq,) = conn.execute(f"SELECT coalesce(max(seq), 0) + 1 FROM {schema}.checkpoints").fetchone()
    snap = f"{schema}__ck{seq}"
    conn.execute(f"DROP SCHEMA IF EXISTS {snap} CASCADE")
    conn.execute(f"CREATE SCHEMA {snap}")
    for table in STATE_TABLES:
        conn.execute(f"CREATE TABLE {snap}.{table} AS TABLE {schema}.{table}")
    (sealed,) = conn.execute(f"SELECT coalesce(max(value), '') FROM {snap}.meta WHERE key = 'state_seal'").fetchone()
    conn.execute(
        f"INSERT INTO {schema}.checkpoints (name, tick, seq, snapshot, mac) VALUES (%s, %s, %s, %s, %s)",
        (name, tick, seq, snap, row_mac(key, name, tick, snap, sealed)),
    )
    return snap


def problems(conn: Any, schema: str, name: str, key: JournalKey) -> list[str]:
    """Integrity of one checkpoint: its row's MAC, then the seal of the state its snapshot holds."""
    from agi_plugin_postgres import seal

    row = conn.execute(f"SELECT tick, snapshot, mac FROM {schema}.checkpoints WHERE name = %s", (name,)).fetchone()
    if row is None:
        return [f"no checkpoint named {name!r}"]
    tick, snap, mac = int(row[0]), row[1], row[2]
    if not conn.execute("SELECT 1 FROM pg_namespace WHERE nspname = %s", (snap,)).fetchone():
        return [f"its snapshot schema {snap} is missing; use another checkpoint"]
    (sealed,) = conn.execute(f"SELECT coalesce(max(value), '') FROM {snap}.meta WHERE key = 'state_seal'").fetchone()
    found = [] if mac == row_mac(key, name, tick, snap, sealed) else ["its row or its seal was edited (MAC mismatch)"]
    return found + seal.check(conn, snap, key, tick)


def prune(conn: Any, schema: str, keep: int) -> list[str]:
    rows = conn.execute(
        f"SELECT name, snapshot FROM {schema}.checkpoints ORDER BY seq DESC OFFSET %s", (keep,)
    ).fetchall()
    for name, snap in rows:
        conn.execute(f"DELETE FROM {schema}.checkpoints WHERE name = %s", (name,))
        conn.execute(f"DROP SCHEMA IF EXISTS {snap} CASCADE")
    return [name for name, _snap in rows]


def remove(conn: Any, schema: str, name: str) -> CheckpointInfo:
    """Drop checkpoint ``name``'s row and schema in the caller's transaction (the row locked first)."""
    query = f"SELECT tick, snapshot FROM {schema}.checkpoints WHERE name = %s FOR UPDATE"
    row = conn.execute(query, (name,)).fetchone()
    if row is None:
        known = [r[0] for r in conn.execute(f"SELECT name FROM {schema}.checkpoints ORDER BY seq")]
        raise CheckpointError(f"no checkpoint named {name!r}; existing checkpoints: {', '.join(known) or 'none'}")
    conn.execute(f"DELETE FROM {schema}.checkpoints WHERE name = %s", (name,))
    conn.execute(f"DROP SCHEMA IF EXISTS {row[1]} CASCADE")
    return CheckpointInfo(name, int(row[0]), row[1])


def restore(conn: Any, schema: str, name: str, rollback_id: Any) -> tuple[int, int, str]:
    """Put checkpoint ``name`` back; ``(its tick, ticks undone, rollback id)``.

    ``rollback_id(live_tick, archived_rows)`` names the rollback in the archive.
    """
    row = conn.execute(f"SELECT tick, snapshot FROM {schema}.checkpoints WHERE name = %s", (name,)).fetchone()
    if row is None:
        known = [r[0] for r in conn.execute(f"SELECT name FROM {schema}.checkpoints ORDER BY seq")]
        raise SnapshotError(f"no checkpoint named {name!r}; known: {', '.join(known) or 'none'}")
    tick, snap = int(row[0]), row[1]
    (archived,) = conn.execute(f"SELECT count(*) FROM {schema}.journal_archive").fetchone()
    live = conn.execute(f"SELECT value FROM {schema}.meta WHERE key = 'tick'").fetchone()
    made_id = rollback_id(int(live[0]) if live else 0, int(archived))
    undone = conn.execute(
        f"SELECT tick, id, record, chain FROM {schema}.journal WHERE tick > %s ORDER BY tick", (tick,)
    ).fetchall()
    identity = conn.execute(f"SELECT key, value FROM {schema}.meta WHERE key = ANY(%s)", (list(KEPT_META),)).fetchall()
    held = tables_of(conn, snap)  # a snapshot taken before a table was added held none of its rows
    for table in STATE_TABLES:
        conn.execute(f"DELETE FROM {schema}.{table}")
        if table in held:
            conn.execute(f"INSERT INTO {schema}.{table} SELECT * FROM {snap}.{table}")
    with conn.cursor() as cur:
        cur.executemany(
            f"INSERT INTO {schema}.meta (key, value) VALUES (%s, %s) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            identity,
        )
        cur.executemany(
            f"INSERT INTO {schema}.journal_archive (rollback, tick, id, record, chain) VALUES (%s, %s, %s, %s, %s)",
            [(made_id, *r) for r in undone],
        )
    return tick, len(undone), made_id
