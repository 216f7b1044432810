"""The goal DAG on PostgreSQL (steps ``p006_goals``, ``p008_goal_indexes``): the SQLite store's ``goals_table``.

A mixin of :class:`~agi_plugin_postgres.store.PostgresStore`: every read but :meth:`goals` is one
indexed statement (by id, by parent, by status in rank order, the ancestors in one recursive query).
"""

from __future__ import annotations

from typing import Any

import orjson

from agi_core.memory import goals_table

_COLUMNS = ", ".join(goals_table.COLUMNS)
_SELECT = f"SELECT {_COLUMNS} FROM {{s}}.goals"
_JSON_COLUMNS = ("plan", "assumptions")


class PostgresGoals:
    """``GoalStore`` on the agent's schema; needs the store's ``_all``, ``_one`` and ``_run``."""

    def _all(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        raise NotImplementedError

    def _one(self, sql: str, params: tuple[Any, ...] = ()) -> tuple[Any, ...] | None:
        raise NotImplementedError

    def _run(self, sql: str, params: tuple[Any, ...] = ()) -> int:
        raise NotImplementedError

    def keep_text(self, text: str) -> str:
        raise NotImplementedError

    def text_back(self, text: str) -> str:
        raise NotImplementedError

    def _goal(self, row: tuple[Any, ...]) -> dict[str, Any]:
        goal = dict(zip(goals_table.COLUMNS, row, strict=True))
        for column in _JSON_COLUMNS:
            goal[column] = orjson.loads(goal[column])
        goal["description"] = self.text_back(goal["description"])
        return goal

    def goals(self) -> list[dict[str, Any]]:
        return [self._goal(row) for row in self._all(_SELECT + " ORDER BY seq")]

    def goal(self, goal_id: str) -> dict[str, Any] | None:
        row = self._one(_SELECT + " WHERE id = %s", (goal_id,))
        return None if row is None else self._goal(row)

    def goal_child_progress(self, parent: str) -> list[tuple[str, float]]:
        rows = self._all("SELECT status, progress FROM {s}.goals WHERE parent = %s ORDER BY seq", (parent,))
        return [(status, float(progress)) for status, progress in rows]

    def goal_ancestors(self, goal_id: str) -> list[dict[str, Any]]:
        rows = self._all(
            "WITH RECURSIVE up(id, depth) AS (SELECT parent, 1 FROM {s}.goals WHERE id = %s UNION ALL "
            "SELECT g.parent, up.depth + 1 FROM {s}.goals g JOIN up ON g.id = up.id "
            "WHERE up.depth <= (SELECT count(*) FROM {s}.goals)) "
            f"SELECT {', '.join('g.' + c for c in goals_table.COLUMNS)} FROM up "
            "JOIN {s}.goals g ON g.id = up.id ORDER BY up.depth",
            (goal_id,),
        )
        found: list[dict[str, Any]] = []
        seen: set[str] = set()
        for row in rows:
            if row[0] in seen:  # a cycle stored outside the goal commands
                break
            seen.add(row[0])
            found.append(self._goal(row))
        return found

    def goals_ranked(self, status: str, limit: int | None = None) -> list[dict[str, Any]]:
        rows = self._all(_SELECT + " WHERE status = %s ORDER BY priority DESC, seq LIMIT %s", (status, limit))
        return [self._goal(row) for row in rows]

    def goal_counts(self) -> dict[str, int]:
        rows = self._all("SELECT status, count(*) FROM {s}.goals GROUP BY status")
        return {status: int(count) for status, count in rows}

    def goal_titles(self, statuses: tuple[str, ...]) -> list[tuple[str, str]]:
        rows = self._all("SELECT id, description FROM {s}.goals WHERE status = ANY(%s) ORDER BY seq", (list(statuses),))
        return [(goal_id, self.text_back(description)) for goal_id, description in rows]

    def put_goal(self, goal: dict[str, Any]) -> None:
        """Insert, or update keeping ``seq`` (the order goals were first put in). The description is kept
        whole (``keep_text``: with a NUL, which TEXT cannot hold, as a blob reference): goal listings show it."""
        values = [orjson.dumps(goal[c]).decode() if c in _JSON_COLUMNS else goal[c] for c in goals_table.COLUMNS]
        values[goals_table.COLUMNS.index("description")] = self.keep_text(goal["description"])
        updates = ", ".join(f"{c} = excluded.{c}" for c in goals_table.COLUMNS[1:])
        marks = ", ".join(["%s"] * len(goals_table.COLUMNS))
        self._run(
            f"INSERT INTO {{s}}.goals ({_COLUMNS}, seq) VALUES ({marks}, "
            "(SELECT coalesce(max(seq), 0) + 1 FROM {s}.goals)) "
            f"ON CONFLICT (id) DO UPDATE SET {updates}",
            tuple(values),
        )

    def delete_goal(self, goal_id: str) -> bool:
        return self._run("DELETE FROM {s}.goals WHERE id = %s", (goal_id,)) > 0
