"""Plugin settings stored in the ``meta`` table, one row per value: ``plugin_setting:PLUGIN:KEY`` -> JSON.

Meta rows are written in the tick's transaction (the ``config_set``/``config_unset`` kernel
commands) and sealed, checkpointed, rolled back and replayed with the rest of the agent.
"""

from __future__ import annotations

import sqlite3
from typing import Any

import orjson

PREFIX = "plugin_setting:"


def stored_settings(conn: sqlite3.Connection) -> dict[str, dict[str, Any]]:
    """``{plugin: {key: value}}`` of every stored setting."""
    rows = conn.execute(
        "SELECT key, value FROM meta WHERE key >= ? AND key < ? ORDER BY key", (PREFIX, PREFIX[:-1] + ";")
    ).fetchall()
    found: dict[str, dict[str, Any]] = {}
    for name, value in rows:
        plugin, _, key = name[len(PREFIX) :].partition(":")
        found.setdefault(plugin, {})[key] = orjson.loads(value)
    return found


def put_setting(conn: sqlite3.Connection, plugin: str, key: str, value: Any) -> None:
    conn.execute(
        "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        (f"{PREFIX}{plugin}:{key}", orjson.dumps(value).decode()),
    )


def delete_setting(conn: sqlite3.Connection, plugin: str, key: str) -> bool:
    return conn.execute("DELETE FROM meta WHERE key = ?", (f"{PREFIX}{plugin}:{key}",)).rowcount > 0
