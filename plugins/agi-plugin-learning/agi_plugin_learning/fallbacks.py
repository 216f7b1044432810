"""Heuristic fallbacks of the learning contracts."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agi_core.contracts.fallbacks import items_of, mapping_of, text_of


def experiential_learning_cycle(variables: Mapping[str, Any]) -> dict[str, Any]:
    return {"summary": "No lesson drawn: the model did not answer.", "confidence": 0.0}


def learning_curriculum_planner(variables: Mapping[str, Any]) -> dict[str, Any]:
    """Keep the modules in the order given."""
    names = [
        text_of(mapping_of(m).get("name"), 100) if isinstance(m, Mapping) else text_of(m, 100)
        for m in items_of(variables.get("modules"))
    ]
    return {"focus_modules": [name for name in names if name]}


def learning_reinforcement_policy(variables: Mapping[str, Any]) -> dict[str, Any]:
    """The first available action, with a neutral value (the seed's fallback)."""
    actions = [text_of(a, 200) for a in items_of(variables.get("actions"))]
    actions = [a for a in actions if a]
    return {"action": actions[0] if actions else "noop", "estimated_value": 0.0, "confidence": 0.0}
