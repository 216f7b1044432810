"""The ``goals`` table of the SQLite backend (migration ``m013_goals``): the goal DAG by id.

Rows are written inside a tick's transaction (the goal commands, a conversation turn, a
plan step), so checkpoints, rollback, replay and the state seal cover the goals like any
other stored state. ``plan`` and ``assumptions`` are JSON text; ``seq`` numbers the goals in
the order they were added (the listing order).
"""

from __future__ import annotations

import sqlite3
from typing import Any

import orjson

COLUMNS = (
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
)
_JSON_COLUMNS = ("plan", "assumptions")
_SELECT = f"SELECT {', '.join(COLUMNS)} FROM goals"
_ORDER = " ORDER BY seq"


def _row(row: tuple[Any, ...]) -> dict[str, Any]:
    data = dict(zip(COLUMNS, row, strict=True))
    for column in _JSON_COLUMNS:
        data[column] = orjson.loads(data[column])
    return data


def all_goals(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    """Every goal, in the order they were added."""
    return [_row(row) for row in conn.execute(_SELECT + _ORDER)]


def put_goal(conn: sqlite3.Connection, goal: dict[str, Any]) -> None:
    """Insert or update a goal; a new one gets the next ``seq`` (the listing order), an update keeps it."""
    values = [orjson.dumps(goal[c]).decode() if c in _JSON_COLUMNS else goal[c] for c in COLUMNS]
    marks = ", ".join("?" for _ in COLUMNS)
    updates = ", ".join(f"{c} = excluded.{c}" for c in COLUMNS[1:])
    conn.execute(
        f"INSERT INTO goals ({', '.join(COLUMNS)}, seq) VALUES ({marks}, "
        f"(SELECT coalesce(max(seq), 0) + 1 FROM goals)) ON CONFLICT(id) DO UPDATE SET {updates}",
        values,
    )


def delete_goal(conn: sqlite3.Connection, goal_id: str) -> bool:
    return conn.execute("DELETE FROM goals WHERE id = ?", (goal_id,)).rowcount > 0
