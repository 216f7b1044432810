"""How the learning module tunes itself, heuristically; a contract's model answer replaces each rule.

- curiosity (``learning_curiosity_update``): rises with each criticism, falls with thanks; at
  :data:`ASK_AT` or more, a reply criticised without a correction is followed by a question
  (``response_contract``'s next test);
- the learning rate (``learning_meta_controller``): faster when most feedback is negative;
- the avoidance threshold (``learning_auto_curriculum``): stricter once the replies do well;
- retries (``learning_curriculum_planner``): a punished decision left alone :data:`RETRY_AFTER`
  ticks is forgiven halfway, so the agent tries it again;
- priors (``learning_transfer_mapping``): a new decision starts from half the mean weight of the
  established decisions of its family (``agent:module``, ``revise``, ``agent``), not from 0.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agi_plugin_learning.policy import AVOID_BELOW, RATE

CURIOSITY_START = 0.3
ASK_AT = 0.5
CURIOSITY_STEP = {"wrong": 0.3, "meant": 0.2, "repeated": 0.15, "thanks": -0.2}
NEXT_TEST = "What would the right answer have been?"
STRICT_AVOID = -0.1  # once the replies do well, a mildly punished decision is avoided too
RETRY_AFTER = 20  # ticks without evidence before a punished decision is tried again
ESTABLISHED = 2  # pieces of evidence before a decision's weight informs its family's prior


def curiosity(level: float, feedback: str) -> float:
    return round(min(1.0, max(0.0, level + CURIOSITY_STEP.get(feedback, 0.0))), 4)


def rate(rewards: list[float]) -> float:
    """0.3, up to 0.5 as the share of negative feedback grows (with 5 pieces of feedback or more)."""
    if len(rewards) < 5:
        return RATE
    return round(RATE + 0.2 * sum(r < 0 for r in rewards) / len(rewards), 4)


def avoid_below(rewards: list[float]) -> float:
    """The threshold under which a decision is avoided: stricter when the mean reward is 0.5 or more."""
    if len(rewards) >= 3 and sum(rewards) / len(rewards) >= 0.5:
        return STRICT_AVOID
    return AVOID_BELOW


def last_tick(entry: Mapping[str, Any]) -> int:
    return max((int(e.get("tick") or 0) for e in entry.get("evidence") or []), default=0)


def retries(weights: Mapping[str, Mapping[str, Any]], tick: int, threshold: float) -> list[str]:
    """The punished decisions (not claims) without evidence for :data:`RETRY_AFTER` ticks, worst first."""
    stale = [
        d
        for d, w in weights.items()
        if not d.startswith("claim:") and w["weight"] < threshold and tick - last_tick(w) >= RETRY_AFTER
    ]
    return sorted(stale, key=lambda d: (weights[d]["weight"], d))[:10]


def family(decision: str) -> str | None:
    """``agent:module:alpha`` → ``agent:module``; ``revise:social/x`` → ``revise``; claims have none."""
    if decision.startswith("claim:"):
        return None
    if decision.startswith("agent:module:"):
        return "agent:module"
    return decision.split(":", 1)[0]


def priors(weights: Mapping[str, Mapping[str, Any]]) -> dict[str, float]:
    """Half the mean weight of each family's established decisions."""
    seen: dict[str, list[float]] = {}
    for decision, entry in weights.items():
        name = family(decision)
        if name is not None and entry["n"] >= ESTABLISHED:
            seen.setdefault(name, []).append(entry["weight"])
    return {name: round(0.5 * sum(ws) / len(ws), 4) for name, ws in sorted(seen.items())}
