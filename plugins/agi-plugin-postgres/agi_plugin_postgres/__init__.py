"""PostgreSQL memory backend for agi-core (``agi --db postgresql://…?agent=NAME``).

``PostgresStore`` is imported on first use: loading the plugin (``agi --help`` does) must
not import psycopg.
"""

from __future__ import annotations

from typing import Any

__all__ = ["PostgresStore"]


def __getattr__(name: str) -> Any:
    if name == "PostgresStore":
        from agi_plugin_postgres.store import PostgresStore

        return PostgresStore
    raise AttributeError(f"module 'agi_plugin_postgres' has no attribute {name!r}")
