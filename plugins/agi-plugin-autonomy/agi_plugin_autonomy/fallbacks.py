"""Heuristic fallbacks of the autonomy contracts."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agi_core.contracts.fallbacks import text_of


def autonomy_core(variables: Mapping[str, Any]) -> dict[str, Any]:
    """The seed's defaults: one default hypothesis, one minimal test, no progress."""
    goal = text_of(variables.get("goal"), 200) or "the current goal"
    return {
        "hypotheses": [{"content": f"More information is needed about {goal}.", "prior": 0.5}],
        "tests": [{"description": "Ask one clarifying question.", "cost_est": 0.1, "expected_information_gain": 0.2}],
        "evidence": {"notes": "heuristic fallback: no model answer", "confidence": 0.0},
        "decision": {"action": "ask_clarification", "source": "fallback"},
        "progress_step": 0.0,
    }
