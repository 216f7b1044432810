"""The social critic's heuristics: the context of a turn, a conversation's analysis, rules mined
from outcomes, their simulated score and the checks that validate them.

Pure functions of their arguments (no state, no clock): the fallbacks of
``social_interaction_context``, ``social_conversation_analysis``, ``social_interaction_miner``,
``social_simulation_score`` and ``social_rule_self_evaluation``, and what the module keeps of a
model's answer to them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from agi_core.serialization import is_number
from agi_plugin_social import signals, tactics

#: words of distress: the writer is upset without being rude (de-escalation fits)
DISTRESS = (
    "frustrated",
    "frustrating",
    "annoyed",
    "annoying",
    "upset",
    "angry",
    "disappointed",
    "fed up",
    "sick of",
    "tired of",
    "stressed",
    "worried",
    "furious",
)
UPSET_AT = 0.5  # a turn's risk from which the writer counts as upset
HOSTILE_SHARE = 1 / 3  # rude turns from which a conversation carries the risk "hostility"
MINED_SUPPORT, MINED_REWARD = 2, 0.8  # outcomes and mean reward a mined rule needs
CHECK_TURNS = 5
_ID = re.compile(r"[^a-z_]+")


def distressed(text: str) -> bool:
    low = text.lower()
    return any(re.search(rf"(?<![a-z']){re.escape(word)}(?![a-z'])", low) for word in DISTRESS)


def turn_signals(text: str) -> dict[str, float]:
    """``valence`` in [-1, 1] and ``risk`` in [0, 1] of one message."""
    seen = signals.read(text)
    if seen.rude:
        return {"valence": -1.0, "risk": 1.0}
    if distressed(text):
        return {"valence": -0.5, "risk": 0.6}
    return {"valence": 1.0 if seen.grateful else 0.0, "risk": 0.0}


def context_of(snapshot: Mapping[str, Any], turn: str) -> dict[str, Any]:
    """The ``social_interaction_context`` heuristic: the snapshot, the turn's signals and topics."""
    measured = turn_signals(turn)
    return {
        "baseline": dict(snapshot),
        "context": {**snapshot, "upset": measured["risk"] >= UPSET_AT},
        "signals": measured,
        "topics": list(signals.topics_of(turn)),
        "notes": "heuristic: markers and distress words of the turn",
    }


def analysis_of(conversation: Mapping[str, Any]) -> dict[str, Any]:
    """The ``social_conversation_analysis`` heuristic: a summary, the risks and opportunities seen."""
    turns, rude, mood = conversation.get("turns"), conversation.get("rude_turns"), conversation.get("mood")
    turns = turns if type(turns) is int else 0
    rude = rude if type(rude) is int else 0
    mood = mood if is_number(mood) else 0.0
    register = conversation.get("register") if isinstance(conversation.get("register"), str) else "neutral"
    who = conversation.get("name") or conversation.get("speaker") or "the user"
    topics = [t for t in conversation.get("topics") or [] if isinstance(t, str)][:3]
    risks, opportunities, actions = [], [], []
    if rude and rude >= HOSTILE_SHARE * max(turns, 1):
        risks.append("hostility")
        actions.append({"action": "de_escalate_early"})
    if mood <= -0.3:
        risks.append("low mood")
    if register != "neutral":
        opportunities.append(f"match the {register} register")
    summary = f"{turns} turn(s) with {who}, {register} register" + (f"; topics: {', '.join(topics)}" if topics else "")
    return {
        "summary": summary,
        "risks": risks,
        "opportunities": opportunities,
        "recommended_actions": actions,
        "notes": f"heuristic: {rude} rude turn(s) of {turns}",
    }


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def rule_id(tactic: str, register: str) -> str:
    return "rule-" + _ID.sub("_", f"{tactic}_{register}".lower())


def mined_rules(exchanges: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The ``social_interaction_miner`` heuristic: a rule per (tactic, register) whose outcomes are
    at least ``MINED_SUPPORT`` with a mean reward of ``MINED_REWARD`` or more."""
    groups: dict[tuple[str, str], list[float]] = {}
    for exchange in exchanges:
        tactic, register, reward = exchange.get("tactic"), exchange.get("register"), exchange.get("reward")
        if tactic in tactics.TACTICS and isinstance(register, str) and is_number(reward):
            groups.setdefault((str(tactic), register), []).append(float(reward))
    rules = []
    for (tactic, register), rewards in sorted(groups.items()):
        if len(rewards) >= MINED_SUPPORT and _mean(rewards) >= MINED_REWARD:
            rules.append(
                {
                    "id": rule_id(tactic, register),
                    "tactic": {"name": tactic},
                    "predicates": [{"key": "register", "op": "eq", "value": register}],
                }
            )
    return rules


def simulated_score(with_rule: Sequence[float], without: Sequence[float]) -> float:
    """The ``social_simulation_score`` heuristic: the rule's mean reward against the others' in the
    same context, mapped to [0, 1] (0.5: no better); with no other outcome, its own mean reward."""
    if not with_rule:
        return 0.0
    if not without:
        return round(_mean(with_rule), 4)
    return round(min(1.0, max(0.0, 0.5 + (_mean(with_rule) - _mean(without)) / 2)), 4)


def checks_of(rule: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The ``social_rule_self_evaluation`` heuristic: watch the rule's next turns in its context."""
    tactic = (rule.get("tactic") or {}).get("name") if isinstance(rule.get("tactic"), Mapping) else None
    where = ", ".join(
        f"{p.get('key')}={p.get('value')}" for p in rule.get("predicates") or [] if isinstance(p, Mapping)
    )
    if not tactic:
        return []
    label = f"Watch the next {CHECK_TURNS} turns where {where or 'any context'} using {tactic}"
    return [{"label": label, "priority": 0.5}]


def matches(rule: Mapping[str, Any], context: Mapping[str, Any]) -> bool:
    """Whether every ``eq`` predicate of a mined rule holds in ``context`` (another operator: no)."""
    predicates = rule.get("predicates") or []
    return bool(predicates) and all(
        isinstance(p, Mapping) and p.get("op") == "eq" and context.get(str(p.get("key"))) == p.get("value")
        for p in predicates
    )
