"""The ``goals`` table of the SQLite backend (migrations ``m013_goals``, ``m014_goal_indexes``): the goal DAG by id.

Rows are written inside a tick's transaction (the goal commands, a conversation turn, a
plan step), so checkpoints, rollback, replay and the state seal cover the goals like any
other stored state. ``plan`` and ``assumptions`` are JSON text; ``seq`` numbers the goals in
the order they were added (the listing order). Every read but :func:`all_goals` is one
indexed query (by id, by parent, by status and rank, the ancestors by a recursive query),
so a goal command costs the same among 10 goals as among 10,000.
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


def goal(conn: sqlite3.Connection, goal_id: str) -> dict[str, Any] | None:
    """The goal ``goal_id``, or None."""
    row = conn.execute(_SELECT + " WHERE id = ?", (goal_id,)).fetchone()
    return None if row is None else _row(row)


def child_progress(conn: sqlite3.Connection, parent: str) -> list[tuple[str, float]]:
    """``(status, progress)`` of each goal directly under ``parent``, in the order they were added."""
    return list(conn.execute("SELECT status, progress FROM goals WHERE parent = ?" + _ORDER, (parent,)))


def ranked(conn: sqlite3.Connection, status: str, limit: int | None = None) -> list[dict[str, Any]]:
    """The goals with ``status``: highest priority first, then the oldest; at most ``limit``."""
    query = _SELECT + " WHERE status = ? ORDER BY priority DESC, seq LIMIT ?"
    return [_row(row) for row in conn.execute(query, (status, -1 if limit is None else limit))]


def ancestors(conn: sqlite3.Connection, goal_id: str) -> list[dict[str, Any]]:
    """The parent of ``goal_id``, its parent, … up to a top goal; a goal met twice (a cycle) ends the chain."""
    query = (
        "WITH RECURSIVE up(id, depth) AS (SELECT parent, 1 FROM goals WHERE id = ? UNION ALL "
        "SELECT goals.parent, up.depth + 1 FROM goals JOIN up ON goals.id = up.id "
        "WHERE up.depth <= (SELECT count(*) FROM goals)) "
        f"SELECT {', '.join('goals.' + c for c in COLUMNS)} FROM up JOIN goals ON goals.id = up.id ORDER BY up.depth"
    )
    found, seen = [], set()
    for row in conn.execute(query, (goal_id,)):
        if row[0] in seen:
            break
        seen.add(row[0])
        found.append(_row(row))
    return found


def counts(conn: sqlite3.Connection) -> dict[str, int]:
    """How many goals have each status."""
    return dict(conn.execute("SELECT status, count(*) FROM goals GROUP BY status"))


def titles(conn: sqlite3.Connection, statuses: tuple[str, ...]) -> list[tuple[str, str]]:
    """``(id, description)`` of the goals with one of ``statuses``, in the order they were added."""
    marks = ", ".join("?" for _ in statuses)
    return list(conn.execute(f"SELECT id, description FROM goals WHERE status IN ({marks})" + _ORDER, statuses))


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
