"""The ``jobs`` table of the SQLite backend (migration ``m007_jobs``): scheduled jobs by name.

Writes happen inside a tick's transaction (the schedule commands, a fired job), so
checkpoints, rollback and replay cover the jobs like any other stored state.
"""

from __future__ import annotations

import sqlite3
from typing import Any

COLUMNS = ("name", "kind", "spec", "say", "next_due_ms", "last_run_ms", "runs", "missed", "created_tick")


def all_jobs(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    rows = conn.execute(f"SELECT {', '.join(COLUMNS)} FROM jobs ORDER BY name").fetchall()
    return [dict(zip(COLUMNS, row, strict=True)) for row in rows]


def get_job(conn: sqlite3.Connection, name: str) -> dict[str, Any] | None:
    row = conn.execute(f"SELECT {', '.join(COLUMNS)} FROM jobs WHERE name = ?", (name,)).fetchone()
    return dict(zip(COLUMNS, row, strict=True)) if row else None


def put_job(conn: sqlite3.Connection, job: dict[str, Any]) -> None:
    marks = ", ".join("?" for _ in COLUMNS)
    conn.execute(f"INSERT OR REPLACE INTO jobs ({', '.join(COLUMNS)}) VALUES ({marks})", [job[c] for c in COLUMNS])


def delete_job(conn: sqlite3.Connection, name: str) -> bool:
    return conn.execute("DELETE FROM jobs WHERE name = ?", (name,)).rowcount > 0


def earliest_due(conn: sqlite3.Connection, now_ms: int) -> dict[str, Any] | None:
    """The job due soonest among those due at ``now_ms`` (ties by name)."""
    row = conn.execute(
        f"SELECT {', '.join(COLUMNS)} FROM jobs WHERE next_due_ms IS NOT NULL AND next_due_ms <= ? "
        "ORDER BY next_due_ms, name LIMIT 1",
        (now_ms,),
    ).fetchone()
    return dict(zip(COLUMNS, row, strict=True)) if row else None
