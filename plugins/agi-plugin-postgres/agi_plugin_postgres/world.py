"""The shared knowledge scope: ``world/...`` facts that every agent of the database reads and writes.

Each write upserts the current row (last committed write wins; ``writer`` is the agent) and
appends one row to ``history`` with the key's next version. The upsert takes the row's lock
first, so writes of one key by any number of processes get versions 1, 2, 3 … in commit
order, and the current row is always the newest version: the history stays consistent.
Blobs a value refers to are copied to the shared scope's own blob table.
"""

from __future__ import annotations

from typing import Any

from agi_core.memory import blobs
from agi_plugin_postgres.url import WORLD_SCHEMA as W

PREFIX = "world/"


def is_shared(key: str) -> bool:
    return key.startswith(PREFIX)


def read(conn: Any, key: str) -> tuple[str, str, str] | None:
    """``(value text, updated_at, writer)`` of the shared fact ``key``, or None."""
    row = conn.execute(f"SELECT value, updated_at, writer FROM {W}.facts WHERE key = %s", (key,)).fetchone()
    return None if row is None else (row[0], row[1], row[2])


def write(conn: Any, agent_schema: str, row: tuple[Any, ...], writer: str) -> int:
    """Write ``row`` (the agent's facts row) to the shared scope as ``writer``; returns its version."""
    key, _id, value, _fact, _relations, updated_at, tick = row
    for hex_digest in blobs.refs_in(value):
        conn.execute(
            f"INSERT INTO {W}.blobs (hash, data) SELECT hash, data FROM {agent_schema}.blobs WHERE hash = %s "
            "ON CONFLICT DO NOTHING",
            (hex_digest,),
        )
    (version,) = conn.execute(
        f"INSERT INTO {W}.facts (key, id, value, fact, relations, updated_at, tick, writer, version) "
        "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, 1) ON CONFLICT (key) DO UPDATE SET id = excluded.id, "
        "value = excluded.value, fact = excluded.fact, relations = excluded.relations, "
        "updated_at = excluded.updated_at, tick = excluded.tick, writer = excluded.writer, "
        f"version = {W}.facts.version + 1 RETURNING version",
        (*row, writer),
    ).fetchone()
    conn.execute(
        f"INSERT INTO {W}.history (key, version, value, writer, tick, updated_at) VALUES (%s, %s, %s, %s, %s, %s)",
        (key, version, value, writer, tick, updated_at),
    )
    return int(version)


def history(conn: Any, key: str) -> list[tuple[int, str, str, int]]:
    """``(version, writer, value text, tick)`` of every write of ``key``, oldest first."""
    rows = conn.execute(
        f"SELECT version, writer, value, tick FROM {W}.history WHERE key = %s ORDER BY version", (key,)
    ).fetchall()
    return [(int(v), w, t, int(tick)) for v, w, t, tick in rows]
