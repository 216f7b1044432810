"""Collected when ``pytest --agi-backend=NAME`` runs: the whole contract against backend NAME."""

from __future__ import annotations

from agi_core.testing.conformance import BackendConformance


class TestAgiBackend(BackendConformance):
    """The backend comes from ``--agi-backend`` (see :class:`~agi_core.testing.conformance.harness.Harness`)."""
