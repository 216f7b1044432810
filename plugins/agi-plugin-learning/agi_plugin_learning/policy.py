"""The reinforcement policy: a weight per decision in [-1, 1], moved towards each reward.

``weight ← weight + RATE × (reward − weight)``, rounded to 4 decimals: deterministic, and a
weight never leaves [-1, 1]. Each weight keeps its last :data:`EVIDENCE_KEPT` pieces of evidence.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

RATE = 0.3
EVIDENCE_KEPT = 5
AVOID_BELOW = -0.25  # a decision weighing less is avoided when another is at hand
CLAIM_VALUE_CHARS = 60


def claim_decision(claim: Mapping[str, Any]) -> str:
    """``claim:KEY=VALUE``: a claimed value as a decision (another value of the same key is another decision)."""
    value = claim.get("value")
    shown = value if isinstance(value, str) else json.dumps(value, sort_keys=True, default=str)
    return f"claim:{str(claim.get('key'))[:100]}={shown[:CLAIM_VALUE_CHARS]}"


def updated(
    entry: dict[str, Any] | None, reward: float, evidence: dict[str, Any], *, rate: float = RATE, prior: float = 0.0
) -> dict[str, Any]:
    """``entry`` moved towards ``reward`` at ``rate``; a new decision starts from ``prior``."""
    before = entry or {"weight": prior, "n": 0, "evidence": []}
    reward = max(-1.0, min(1.0, reward))
    weight = round(min(1.0, max(-1.0, before["weight"] + rate * (reward - before["weight"]))), 4)
    return {"weight": weight, "n": before["n"] + 1, "evidence": [*before["evidence"], evidence][-EVIDENCE_KEPT:]}


def decisions(record: Mapping[str, Any], own: str) -> list[str]:
    """The decisions that produced a journal record's reply: the router's agent (or the candidate module ``own``
    replaced it with), each other module that revised it (with the reason's first word: a social tactic), and
    the values it claimed (at most 5)."""
    agent = str((record.get("router_decision") or {}).get("agent") or "unknown")[:100]
    found = [f"agent:{agent}"]
    for call in (record.get("modules") or {}).get("calls") or []:
        output = call.get("output")
        if call.get("phase") != "revise" or not isinstance(output, Mapping) or not output.get("kind"):
            continue
        if call.get("module") == own:  # "chose agent:module:NAME (w) over …": the reply was that candidate's
            reason = str(output.get("reason") or "")
            if reason.startswith("chose ") and output.get("kind") == "replace":
                found[0] = reason.split(" ")[1][:160]
        else:
            reason = str(output.get("reason") or "").split(" ")[0][:60]
            found.append(f"revise:{str(call.get('module'))[:60]}" + (f"/{reason}" if reason else ""))
    claims = [c for c in record.get("claims") or [] if isinstance(c, Mapping)]
    return found + [claim_decision(c) for c in claims[:5]]
