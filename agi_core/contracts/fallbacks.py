"""Heuristic fallbacks of the core contracts, used when the model cannot satisfy them.

Each takes the call's variables (a read-only mapping that may hold anything) and returns a
plain object that satisfies its contract; the pipeline validates it like a model's output
(into a frozen result, or a checked plain copy for a contract call's record). They are
deliberately modest: "no advice" is better than a made-up one.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

Variables = Mapping[str, Any]

_GREETING = re.compile(r"^\s*(hello|hi|hey|bonjour|salut|bonsoir)\b", re.I)
_REQUEST = re.compile(r"^\s*(please|can you|could you|would you|peux-tu|pouvez-vous|merci de)\b", re.I)


def text_of(value: Any, limit: int = 2000) -> str:
    """``value`` as a trimmed string of at most ``limit`` characters ('' when not a string)."""
    return value.strip()[:limit] if isinstance(value, str) else ""


def items_of(value: Any) -> list[Any]:
    """``value`` as a list (a non-list gives [])."""
    return list(value) if isinstance(value, (list, tuple)) else []


def mapping_of(value: Any) -> dict[str, Any]:
    """``value`` as a dict with string keys (anything else gives {})."""
    return {k: v for k, v in value.items() if isinstance(k, str)} if isinstance(value, Mapping) else {}


def empty(variables: Variables) -> dict[str, Any]:
    """No advice: every field of the contract is optional and the caller keeps its heuristic."""
    return {}


def intent_ingestion(variables: Variables) -> dict[str, Any]:
    text = text_of(variables.get("text"))
    if "?" in text:
        label = "QUESTION"
    elif _GREETING.match(text):
        label = "GREETING"
    elif _REQUEST.match(text):
        label = "REQUEST"
    else:
        label = "STATEMENT"
    return {
        "intent": {"label": label, "confidence": 0.3, "rationale": "heuristic fallback (punctuation and opening words)"}
    }


def reasoning_episode(variables: Variables) -> dict[str, Any]:
    return {
        "summary": "No reasoning available: the model did not answer within its budget.",
        "final_confidence": 0.0,
        "hypothesis": {},
    }


def memory_retrieval_ranking(variables: Variables) -> dict[str, Any]:
    """Keep the candidates' own scores and order."""
    rankings = []
    for candidate in items_of(variables.get("candidates")):
        candidate = mapping_of(candidate)
        ident, score = candidate.get("id"), candidate.get("score", 0.0)
        if type(ident) is int and type(score) in (int, float) and score == score and abs(score) != float("inf"):
            rankings.append({"id": ident, "score": score})
    return {"rankings": rankings}


def memory_summarizer(variables: Variables) -> dict[str, Any]:
    return {"digests": []}


def memory_concept_curation(variables: Variables) -> dict[str, Any]:
    return {"concepts": []}


def identity_mission(variables: Variables) -> dict[str, Any]:
    """Keep the current mission."""
    return {"mission": mapping_of(variables.get("mission"))}


def cognition_context_inference(variables: Variables) -> dict[str, Any]:
    return {"should_update": False}


def cognition_goal_prioritizer(variables: Variables) -> dict[str, Any]:
    return {"priorities": []}


def planner_support(variables: Variables) -> dict[str, Any]:
    """A single step: ask for clarification of the goal."""
    goal = text_of(variables.get("goal"), 200)
    description = f"Ask the user to clarify the goal: {goal}" if goal else "Ask the user to clarify the goal"
    return {"plan": [{"id": "llm_step_1", "description": description, "action_type": "ask"}]}


def goal_interpreter(variables: Variables) -> dict[str, Any]:
    return {"candidate_actions": [{"action": "clarify_goal", "rationale": "heuristic fallback"}]}


def goal_priority_review(variables: Variables) -> dict[str, Any]:
    """No change of priority."""
    return {"priority_delta": 0.0}


def question_manager(variables: Variables) -> dict[str, Any]:
    return {"questions": []}


ACTION_RISK = {"read": 0.1, "write": 0.5, "external": 0.7}  # by declared effect; anything else 0.9
ACTION_EFFORT = {"read": 0.1, "write": 0.3, "external": 0.4}
ACTION_ARTICLE = {"read": "a", "write": "a", "external": "an"}


def action_interface(variables: Variables) -> dict[str, Any]:
    """Each candidate action estimated from its type, a tool's declared effect: the further it reaches
    (read < write < external < unknown), the riskier."""
    actions = []
    for action in map(mapping_of, items_of(variables.get("actions"))):
        name, kind = text_of(action.get("name"), 200), text_of(action.get("type"), 200)
        if name and kind:
            risk = ACTION_RISK.get(kind, 0.9)
            rationale = (
                f"heuristic: {ACTION_ARTICLE[kind]} {kind} action"
                if kind in ACTION_RISK
                else f"heuristic: unknown effect {kind!r}"
            )
            actions.append(
                {
                    "name": name,
                    "type": kind,
                    "impact": 0.5,
                    "effort": ACTION_EFFORT.get(kind, 0.5),
                    "risk": risk,
                    "rationale": rationale,
                }
            )
    return {"actions": actions}


def runtime_job_manager(variables: Variables) -> dict[str, Any]:
    """The queue in its current order."""
    jobs = [
        {"job_id": job["job_id"]}
        for job in map(mapping_of, items_of(variables.get("jobs")))
        if isinstance(job.get("job_id"), str)
    ]
    return {"prioritized_jobs": jobs}


def phenomenal_mode_manager(variables: Variables) -> dict[str, Any]:
    return {"mode": "travail", "justification": "heuristic fallback: stay in work mode"}


def response_formatter(variables: Variables) -> dict[str, Any]:
    return {"message": text_of(variables.get("text"), 20000)}


def response_contract(variables: Variables) -> dict[str, Any]:
    """No hypothesis, full uncertainty."""
    return {"hypothese": "", "incertitude": 1.0}


__all__ = ["empty", "items_of", "mapping_of", "text_of"]
