"""Heuristic fallbacks of the retrieval contracts."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def retrieval_orchestrator(variables: Mapping[str, Any]) -> dict[str, Any]:
    """Proceed with the base configuration and no expansion."""
    return {"decision": "proceed", "notes": ["heuristic fallback: base configuration"]}


def retrieval_answer(variables: Mapping[str, Any]) -> dict[str, Any]:
    """Refuse rather than answer without a model."""
    return {"status": "refused", "notes": ["heuristic fallback: no grounded answer could be produced"]}
