"""Heuristic fallbacks of the conversation contracts: the dialogue state (the questions left
open and the statements that answer them), the conversation's context (topics, style,
follow-up questions, alerts) and the rendering of a reply from its plan.

Deterministic functions of the call's variables: nothing is invented, only counted, matched
or put together.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from typing import Any

from agi_core.contracts.fallbacks import items_of, mapping_of, text_of
from agi_core.contracts.memory_fallbacks import tags_of

Variables = Mapping[str, Any]
PENDING_KEPT = 5


def _question(entry: Any) -> str:
    return text_of(mapping_of(entry).get("question") if isinstance(entry, Mapping) else entry, 300)


def answers(statement: str, question: str) -> bool:
    """Whether ``statement`` (not a question) holds every content word of ``question``."""
    wanted = set(tags_of(question))
    return bool(wanted) and not statement.rstrip().endswith("?") and wanted <= set(tags_of(statement))


def dialogue_state(variables: Variables) -> dict[str, Any]:
    """A question the agent could not answer (``turn.answered`` false) is pending until a statement
    the agent took in (``turn.answered`` true) holds its content words; the summary is the latest turn."""
    state, turn = mapping_of(variables.get("state")), mapping_of(variables.get("turn"))
    said = text_of(turn.get("user"), 300)
    pending = [q for q in (_question(e) for e in items_of(state.get("pending_questions"))) if q]
    taken = turn.get("answered") is True
    still = [q for q in pending if not (taken and answers(said, q))]
    if said.endswith("?") and turn.get("answered") is False and said not in still:
        still.append(said)
    return {
        "summary": f"Last said: {said}" if said else text_of(state.get("summary")),
        "open_commitments": items_of(state.get("open_commitments")),
        "pending_questions": still[-PENDING_KEPT:],
        "notes": f"heuristic: {len(pending) - len([q for q in still if q in pending])} pending question(s) answered",
    }


def said_back(topic: str, turns: list[str]) -> str:
    """``topic`` as the agent says it back: "your sister" when the user said "my sister", else the word."""
    mine = re.compile(rf"\bmy\s+{re.escape(topic)}\b", re.I)
    return f"your {topic}" if any(mine.search(turn) for turn in turns) else topic


def conversation_context(variables: Variables) -> dict[str, Any]:
    """Topics (the most frequent content words), the style (how long, how many questions), a
    follow-up question on the main topic ("your sister" when the user said "my sister") and an alert
    for a question asked twice."""
    turns = [text_of(t, 500) for t in items_of(variables.get("turns")) if text_of(t, 500)]
    if not turns:
        return {"llm_summary": {}}
    counts: Counter[str] = Counter(tag for turn in turns for tag in tags_of(turn))
    first = {tag: i for i, tag in reversed(list(enumerate(tag for turn in turns for tag in tags_of(turn))))}
    topics = sorted(counts, key=lambda t: (-counts[t], first[t]))[:5]
    words = sum(len(t.split()) for t in turns) / len(turns)
    asked = [t.lower().rstrip(" ?") for t in turns if t.endswith("?")]
    repeated = sorted({q for q in asked if asked.count(q) > 1})
    return {
        "summary_text": f"{len(turns)} turn(s); mostly about {', '.join(topics[:3]) or 'nothing in particular'}",
        "topics": topics,
        "user_style": {"verbosity": "short" if words < 8 else "long", "questions": round(len(asked) / len(turns), 4)},
        "follow_up_questions": (
            [f"Would you like to tell me more about {said_back(topics[0], turns)}?"] if topics else []
        ),
        "alerts": [f"asked twice: {q}" for q in repeated],
        "llm_summary": {},
    }


def language_nlg(variables: Variables) -> dict[str, Any]:
    """The draft reply with the plan's opening before it and its sections after it, in order."""
    base, plan = text_of(variables.get("base_text"), 20000), mapping_of(variables.get("plan"))
    sections = [mapping_of(s) for s in items_of(plan.get("sections"))]
    kept = [{"name": text_of(s.get("name"), 40), "text": text_of(s.get("text"), 500)} for s in sections]
    kept = [s for s in kept if s["text"]]
    parts = [text_of(plan.get("opening"), 100), base, *(s["text"] for s in kept)]
    return {"message": " ".join(p for p in parts if p), "sections": kept}


__all__ = ["answers", "conversation_context", "dialogue_state", "language_nlg", "said_back"]
