"""Per-agent checkpoints as schema snapshots: no file copy, one transaction each.

A checkpoint copies the agent's state tables into a schema of their own
(``agent_NAME__ckN``); rollback replaces the live rows with the snapshot's and archives the
undone journal rows, inside the caller's tick transaction, so it happens entirely or not
at all. The journal key's meta rows, the archive, the blobs and the checkpoint list are kept.
The shared ``world/`` scope is not rolled back: other agents may already rely on it.
"""

from __future__ import annotations

from typing import Any

from agi_core.errors import AgiError

STATE_TABLES = ("meta", "facts", "episodes", "working", "journal", "intents")
# the tables agi export/import moves, with the SQLite store's column names, and their row order
TRANSFER_TABLES = {
    "meta": ("key", "value"),
    "facts": ("key", "id", "value", "fact", "relations", "updated_at", "tick"),
    "episodes": ("seq", "id", "tick", "event", "context", "timestamp"),
    "working": ("id", "data"),
    "journal": ("tick", "id", "record", "chain"),
    "journal_archive": ("rollback", "tick", "id", "record", "chain"),
    "intents": ("tick", "tool", "args", "receipt_tick"),
    "blobs": ("hash", "data"),
}
ORDER = {
    "meta": 'key COLLATE "C"',
    "facts": 'key COLLATE "C"',
    "episodes": "seq",
    "working": "id",
    "journal": "tick",
    "journal_archive": 'rollback COLLATE "C", tick',
    "intents": "tick",
    "blobs": 'hash COLLATE "C"',
}
KEPT_META = ("journal_key_check", "journal_key_source")


class SnapshotError(AgiError):
    """A checkpoint name is unknown or already taken."""


def create(conn: Any, schema: str, name: str, tick: int) -> None:
    if conn.execute(f"SELECT 1 FROM {schema}.checkpoints WHERE name = %s", (name,)).fetchone():
        raise SnapshotError(f"checkpoint {name!r} already exists; choose another name")
    (seq,) = conn.execute(f"SELECT coalesce(max(seq), 0) + 1 FROM {schema}.checkpoints").fetchone()
    snap = f"{schema}__ck{seq}"
    conn.execute(f"DROP SCHEMA IF EXISTS {snap} CASCADE")
    conn.execute(f"CREATE SCHEMA {snap}")
    for table in STATE_TABLES:
        conn.execute(f"CREATE TABLE {snap}.{table} AS TABLE {schema}.{table}")
    conn.execute(
        f"INSERT INTO {schema}.checkpoints (name, tick, seq, snapshot) VALUES (%s, %s, %s, %s)", (name, tick, seq, snap)
    )


def restore(conn: Any, schema: str, name: str, rollback_id: str) -> tuple[int, int]:
    """Put checkpoint ``name`` back; returns ``(its tick, number of ticks undone)``."""
    row = conn.execute(f"SELECT tick, snapshot FROM {schema}.checkpoints WHERE name = %s", (name,)).fetchone()
    if row is None:
        known = [r[0] for r in conn.execute(f"SELECT name FROM {schema}.checkpoints ORDER BY seq")]
        raise SnapshotError(f"no checkpoint named {name!r}; known: {', '.join(known) or 'none'}")
    tick, snap = int(row[0]), row[1]
    undone = conn.execute(
        f"SELECT tick, id, record, chain FROM {schema}.journal WHERE tick > %s ORDER BY tick", (tick,)
    ).fetchall()
    identity = conn.execute(f"SELECT key, value FROM {schema}.meta WHERE key = ANY(%s)", (list(KEPT_META),)).fetchall()
    for table in STATE_TABLES:
        conn.execute(f"DELETE FROM {schema}.{table}")
        conn.execute(f"INSERT INTO {schema}.{table} SELECT * FROM {snap}.{table}")
    with conn.cursor() as cur:
        cur.executemany(
            f"INSERT INTO {schema}.meta (key, value) VALUES (%s, %s) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            identity,
        )
        cur.executemany(
            f"INSERT INTO {schema}.journal_archive (rollback, tick, id, record, chain) VALUES (%s, %s, %s, %s, %s)",
            [(rollback_id, *r) for r in undone],
        )
    return tick, len(undone)
