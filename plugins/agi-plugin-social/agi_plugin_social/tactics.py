"""Tactics, their fit to a context, the choice between them, and how an outcome moves a tactic's score.

A rule is ``{"id", "tactic": {"name"}, "confidence"}``; the choice is the eligible rule with the
highest ``fit × confidence`` (ties: the tactic's name), and an outcome's reward moves the
rule's confidence 30% of the way towards it, rounded to 4 decimals: deterministic and
replayable. These are the heuristic path and the fallbacks of the tactic contracts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

TACTICS = ("acknowledge", "clarify", "de_escalate", "match_register")
PRIOR = {"acknowledge": 0.6, "clarify": 0.6, "de_escalate": 0.8, "match_register": 0.7}
LEARNING_RATE = 0.3


def default_rules() -> dict[str, dict[str, Any]]:
    return {
        name: {"id": f"rule-{name}", "tactic": {"name": name}, "confidence": PRIOR[name], "uses": 0} for name in TACTICS
    }


def fit(tactic: str, context: Mapping[str, Any]) -> float:
    """How well ``tactic`` suits ``context`` (0: not eligible)."""
    rude, kind, register = bool(context.get("rude")), context.get("reply_kind"), context.get("register")
    if tactic == "de_escalate":  # rude; upset; or a hostile history and no answer to give
        if rude:
            return 1.0
        upset = context.get("upset") or (context.get("hostile_history") and kind in ("unknown", "missing"))
        return 0.9 if upset else 0.0
    told = bool(context.get("told"))  # the line tells something of its writer: its meaning is plain
    if tactic == "acknowledge":  # a statement taken in; or one told that no rule could take
        taken = kind == "noted" or (kind == "unknown" and told)
        return 0.7 if rude else 0.5 if taken and register != "formal" else 0.0
    if tactic == "clarify":  # no answer; not when the reply asks a question already (one question a reply)
        asks = context.get("asks") or context.get("grateful")
        # a line told plainly ("I like hiking") is not asked "What do you mean?", only the conversation's follow-up
        plain = told and not context.get("follow_up")
        return 0.8 if kind == "unknown" and not rude and not asks and not plain else 0.0
    if tactic == "match_register":
        return 0.9 if register in ("formal", "informal") and not rude else 0.0
    return 0.0


def eligible(rules: Mapping[str, Mapping[str, Any]], context: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The rules whose tactic fits ``context``, each with its ``fit``, in tactic order."""
    out = []
    for name in TACTICS:
        weight = fit(name, context)
        if weight > 0 and name in rules:
            out.append({**rules[name], "fit": weight})
    return out


def pick(candidates: Sequence[Mapping[str, Any]]) -> dict[str, Any] | None:
    """The candidate with the highest ``fit × confidence`` (ties: the first tactic by name)."""
    best: tuple[float, Mapping[str, Any]] | None = None
    for rule in candidates:
        utility = float(rule.get("fit", 0)) * float(rule.get("confidence", 0))
        if best is None or utility > best[0]:
            best = (utility, rule)
    return None if best is None else {**best[1], "utility": round(best[0], 4)}


def reward_of(reaction: Mapping[str, Any]) -> float:
    """The reward of a tactic from the interlocutor's next message: rude 0, grateful 1, anything else 0.6."""
    if reaction.get("rude"):
        return 0.0
    return 1.0 if reaction.get("grateful") else 0.6


def updated_confidence(confidence: float, rewards: list[float]) -> float:
    """``confidence`` moved 30% of the way towards the mean reward, rounded to 4 decimals."""
    if not rewards:
        return confidence
    target = sum(rewards) / len(rewards)
    return round(min(1.0, max(0.0, confidence + LEARNING_RATE * (target - confidence))), 4)
