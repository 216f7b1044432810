"""The memory-backend conformance suite (agi_core.testing.conformance) against the built-in SQLite backend."""

from __future__ import annotations

from agi_core.testing import BackendConformance


class TestSqliteConformance(BackendConformance):
    backend_name = "sqlite"
