"""Why the agent said what it said: a tick's router decision, agents, evidence and votes.

B.L.A.S.T.'s show-thought habit. ``agi chat``'s ``/why`` prints :func:`decision_lines` for
the last tick; the explain agent answers "why did you say that?" with
:func:`decision_sentence` for the tick before. Both read the journal record (a dict).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agi_core.serialization import dumps


def _evidence(item: Mapping[str, Any]) -> str:
    return f"{item.get('id')}: {item.get('source')} {item.get('key')} = {dumps(item.get('value'))}"


def _votes(record: Mapping[str, Any]) -> str:
    votes = record.get("council_votes") or []
    if not votes:
        return "no claims to vote on"
    return "; ".join(f"{v.get('voter')} {v.get('vote')} ({v.get('reason')})" for v in votes)


def _action(record: Mapping[str, Any], *, error: bool = True) -> str:
    action = record.get("action") or {}
    if action.get("type") != "tool":
        return "reply"
    observation = record.get("observation") or {}
    outcome = "succeeded" if observation.get("success") else "failed"
    if error and not observation.get("success"):
        outcome += f": {observation.get('error')}"
    return f"tool {action.get('name')} {dumps(action.get('args') or {})}, which {outcome}"


def decision_lines(record: Mapping[str, Any]) -> list[str]:
    """The decision of one journal record, one aspect per line."""
    decision = record.get("router_decision") or {}
    evidence = record.get("evidence_items") or []
    lines = [
        f"tick {record.get('tick')}: {dumps((record.get('input') or {}).get('raw', ''))}",
        f"router: {decision.get('agent')} ({decision.get('why')})",
        f"selected agents: {', '.join(record.get('selected_agents') or []) or 'none'}",
        "evidence: " + ("; ".join(_evidence(item) for item in evidence) if evidence else "none (no stored fact read)"),
        f"council: {_votes(record)}",
        f"action: {_action(record)}",
        f"reply: {record.get('final_output')}",
    ]
    if record.get("degraded"):
        lines.insert(3, f"degraded: {', '.join(record['degraded'])}")
    return lines


def decision_sentence(record: Mapping[str, Any]) -> str:
    """The decision of one journal record as one line, for a reply."""
    decision = record.get("router_decision") or {}
    evidence = record.get("evidence_items") or []
    because = f"{decision.get('agent')} handled it (rule {decision.get('why')})"
    cited = (
        "it cited " + "; ".join(_evidence(item) for item in evidence) + f", and the council said {_votes(record)}"
        if evidence
        else "no stored fact was involved"
    )
    tool = f"; it ran the {_action(record, error=False)}" if (record.get("action") or {}).get("type") == "tool" else ""
    return f"I said “{record.get('final_output')}” because {because}; {cited}{tool}."
