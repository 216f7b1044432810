"""Registers the ``postgres`` memory backend (selected by ``--db postgresql://…``)."""

from __future__ import annotations

from agi_core.hookspecs import Register, hookimpl


@hookimpl
def agi_register_memory_backends(register: Register) -> None:
    from agi_plugin_postgres.store import PostgresStore  # here: `agi --help` loads plugins, not psycopg

    register(PostgresStore, name="postgres")
