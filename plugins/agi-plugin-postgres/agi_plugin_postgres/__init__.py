"""PostgreSQL memory backend for agi-core (``agi --db postgresql://…?agent=NAME``)."""

from agi_plugin_postgres.store import PostgresStore

__all__ = ["PostgresStore"]
