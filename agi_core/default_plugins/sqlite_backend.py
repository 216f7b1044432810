"""The embedded SQLite memory backend."""

from __future__ import annotations

from agi_core.hookspecs import Register, hookimpl
from agi_core.memory.sqlite_store import SqliteStore


@hookimpl
def agi_register_memory_backends(register: Register) -> None:
    register(SqliteStore, name="sqlite")
