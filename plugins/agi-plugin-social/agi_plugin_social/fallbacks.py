"""Heuristic fallbacks of the social contracts."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agi_core.contracts.fallbacks import items_of, mapping_of, text_of
from agi_plugin_social import critic, rewrite, signals, tactics


def social_interaction_context(variables: Mapping[str, Any]) -> dict[str, Any]:
    """The local snapshot as baseline; the context adds whether the turn is upset; its signals and topics."""
    return critic.context_of(mapping_of(variables.get("snapshot")), text_of(variables.get("turn")))


def social_conversation_analysis(variables: Mapping[str, Any]) -> dict[str, Any]:
    """A summary of the conversation's profile; hostility, low mood and register as risks and opportunities."""
    return critic.analysis_of(mapping_of(variables.get("conversation")))


def social_interaction_miner(variables: Mapping[str, Any]) -> dict[str, Any]:
    """A rule per (tactic, register) rewarded well enough often enough."""
    exchanges = [mapping_of(e) for e in items_of(variables.get("exchanges"))]
    return {"rules": critic.mined_rules(exchanges), "notes": f"heuristic: {len(exchanges)} exchange(s)"}


def social_simulation_score(variables: Mapping[str, Any]) -> dict[str, Any]:
    """The rule's mean reward against the other tactics' in the same context."""
    scenario = mapping_of(variables.get("scenario"))
    with_rule = [_number(r, 0.0) for r in items_of(scenario.get("with"))]
    without = [_number(r, 0.0) for r in items_of(scenario.get("without"))]
    score = critic.simulated_score(with_rule, without)
    return {"score": score, "rationale": f"heuristic: {len(with_rule)} outcome(s) with, {len(without)} without"}


def social_rule_self_evaluation(variables: Mapping[str, Any]) -> dict[str, Any]:
    """Watch the rule's next turns in its context."""
    return {"actions": critic.checks_of(mapping_of(variables.get("rule"))), "notes": "heuristic: watch its next turns"}


def _rules(value: Any) -> list[dict[str, Any]]:
    return [mapping_of(rule) for rule in items_of(value) if isinstance(rule, Mapping)]


def _number(value: Any, default: float) -> float:
    return float(value) if type(value) in (int, float) and value == value and abs(value) != float("inf") else default


def social_tactic_selector(variables: Mapping[str, Any]) -> dict[str, Any]:
    """The candidate rule with the highest fit × confidence (no candidate: an empty rule)."""
    candidates = [
        {**rule, "fit": _number(rule.get("fit"), 0.0), "confidence": _number(rule.get("confidence"), 0.0)}
        for rule in _rules(variables.get("rules"))
    ]
    chosen = tactics.pick(candidates)
    if chosen is None:
        return {"selected_rule": {}, "meta": {"utility": 0.0, "risk": 0.0, "rationale": "no rule fits"}}
    utility = max(0.0, min(1.0, chosen.pop("utility")))
    return {"selected_rule": chosen, "meta": {"utility": utility, "risk": 0.1, "rationale": "highest fit × confidence"}}


def social_conversation_rewrite(variables: Mapping[str, Any]) -> dict[str, Any]:
    """The tactic's heuristic form of the text: the text kept verbatim, an opening or a question added."""
    text = variables["text"] if isinstance(variables.get("text"), str) else ""
    context = mapping_of(variables.get("context"))
    return {"rewritten": rewrite.rewrite(text, context) or text, "justification": f"heuristic: {context.get('tactic')}"}


def social_adaptive_lexicon(variables: Mapping[str, Any]) -> dict[str, Any]:
    """The built-in markers found in the text, added to the lexicon's weights (the 20 heaviest kept)."""
    text = text_of(variables.get("text"))
    tokens: dict[tuple[str, str], float] = {}
    for entry in _rules(mapping_of(variables.get("state")).get("tokens")):
        token, kind = entry.get("token"), entry.get("kind", "other")
        if isinstance(token, str) and isinstance(kind, str):
            tokens[(token, kind)] = _number(entry.get("weight"), 0.0)
    found = signals.found_markers(text)
    for marker in found:
        tokens[marker] = round(tokens.get(marker, 0.0) + 1.0, 4)
    ranked = sorted(tokens.items(), key=lambda item: (-item[1], item[0]))[: signals.LEXICON_SIZE]
    return {
        "matched": bool(found),
        "state": {"tokens": [{"token": t, "kind": k, "weight": w} for (t, k), w in ranked]},
        "updates": [{"token": t, "kind": k, "delta": 1.0} for t, k in found],
        "notes": "heuristic: built-in markers",
    }


def social_interaction_outcome(variables: Mapping[str, Any]) -> dict[str, Any]:
    """The reward of the tactic from the reaction: rude 0, grateful 1, else 0.6."""
    exchange = mapping_of(variables.get("exchange"))
    reaction = signals.read(text_of(exchange.get("reaction")))
    return {
        "reward": tactics.reward_of({"rude": reaction.rude, "grateful": reaction.grateful}),
        "confidence": 0.5,
        "signals": {"rude": reaction.rude, "grateful": reaction.grateful},
        "notes": "heuristic: markers of the reaction",
    }


def social_rule_update(variables: Mapping[str, Any]) -> dict[str, Any]:
    """The rule with its confidence moved 30% of the way towards the mean reward of the outcomes."""
    rule = mapping_of(variables.get("rule"))
    rewards = [_number(mapping_of(o).get("reward"), 0.5) for o in items_of(variables.get("outcomes"))]
    ident = rule.get("id") if isinstance(rule.get("id"), str) else "rule-unknown"
    confidence = tactics.updated_confidence(_number(rule.get("confidence"), 0.5), rewards)
    return {"rule": {**rule, "id": ident, "confidence": confidence}, "notes": f"heuristic: {len(rewards)} outcome(s)"}
