"""Heuristic fallbacks of the social contracts."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agi_core.contracts.fallbacks import mapping_of


def social_interaction_context(variables: Mapping[str, Any]) -> dict[str, Any]:
    """The local snapshot serves as both baseline and context (the seed's fallback)."""
    baseline = mapping_of(variables.get("snapshot"))
    return {"baseline": baseline, "context": dict(baseline), "notes": "heuristic fallback: local snapshot"}
