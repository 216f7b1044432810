"""The memory-backend conformance suite (agi_core.testing.conformance) against PostgreSQL, on the real server."""

from __future__ import annotations

import pytest

from agi_core.testing import BackendConformance


class TestPostgresConformance(BackendConformance):
    backend_name = "postgres"
    plugin_modules = ("agi_plugin_postgres.plugin",)

    @pytest.fixture(autouse=True)
    def _server(self, postgres_dsn: str, monkeypatch: pytest.MonkeyPatch) -> None:
        """The suite opens agents by file path: AGI_POSTGRES_DSN maps each path to an agent on the server."""
        monkeypatch.setenv("AGI_POSTGRES_DSN", postgres_dsn)
