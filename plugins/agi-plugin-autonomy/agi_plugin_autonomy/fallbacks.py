"""Heuristic fallbacks of the autonomy contracts."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agi_core.contracts.fallbacks import items_of, mapping_of, text_of
from agi_plugin_autonomy.signals import DEFINITIONS


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


def auto_signal_derivation(variables: Mapping[str, Any]) -> dict[str, Any]:
    """The four metrics the journal measures (reply latency, F3 rate, unresolved questions, contradictions)."""
    return {"signals": [{**d, "source": "heuristic", "metadata": {"window": "journal"}} for d in DEFINITIONS]}


def auto_signal_registration(variables: Mapping[str, Any]) -> dict[str, Any]:
    """Each signal registered with the observation the caller gives (its clock, never the wall clock)."""
    out = []
    for item in items_of(variables.get("signals")):
        signal = mapping_of(item)
        value = signal.get("last_value")
        when = signal.get("last_updated")
        out.append(
            {
                "metadata": {"metric": text_of(signal.get("metric"), 100)},
                "last_value": float(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0.0,
                "last_source": "baseline",
                "last_updated": float(when) if isinstance(when, int | float) and not isinstance(when, bool) else 0.0,
            }
        )
    return {"signals": out}


KEYWORDS = {
    "slow": "latency",
    "wait": "latency",
    "wrong": "contradiction",
    "again": "repetition",
    "why": "unresolved question",
    "understand": "f3 rate",
}


def auto_signal_keywords(variables: Mapping[str, Any]) -> dict[str, Any]:
    """The metric words the text's own words hint at (a fixed table)."""
    words = set(text_of(variables.get("text"), 4000).lower().split())
    found = sorted({metric for word, metric in KEYWORDS.items() if word in words})
    return {"keywords": found, "confidence": 0.5 if found else 0.0, "notes": "heuristic: fixed word table"}
