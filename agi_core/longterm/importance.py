"""AgentOne's importance heuristics, exactly as the seed lists them.

Seed (agentone-sense-think-act.md, "Importance Scoring"):

- base 0.3; base 0.4 for time-sensor updates;
- +0.4 explicit memory requests ("remember"), introductions ("my name is"), goals;
- +0.3 tool calls (the thought led to actions);
- +0.15 questions or requests;
- +0.15 temporal reasoning (elapsed time, waiting, follow-up);
- +0.1 complex thoughts (more than 200 characters);
- -0.2 simple greetings/acknowledgments (shorter than 50 characters);
- clamped to [0.0, 1.0].

Actions themselves are stored with the fixed default importance 0.7
(:data:`ACTION_IMPORTANCE`). Each rule fires at most once. The word lists below are ours:
the seed names the categories, not the words.
"""

from __future__ import annotations

import math
import re
from typing import Any

BASE = 0.3
TIME_BASE = 0.4
ACTION_IMPORTANCE = 0.7
EXPLICIT_BONUS = 0.4
TOOL_CALL_BONUS = 0.3
QUESTION_BONUS = 0.15
TEMPORAL_BONUS = 0.15
COMPLEX_BONUS = 0.1
COMPLEX_CHARS = 200
GREETING_PENALTY = -0.2
GREETING_CHARS = 50

#: Kinds with their own base: ``time`` (time-sensor updates) and ``action`` (fixed 0.7).
TIME_KINDS = frozenset({"time", "time_update"})
ACTION_KINDS = frozenset({"action"})

_EXPLICIT = re.compile(
    r"\b(remember|don'?t forget|do not forget|my name is|call me|i am called|goals?|objective)\b",
    re.IGNORECASE,
)
_REQUEST = re.compile(
    r"^\s*(please|can you|could you|would you|will you|tell me|show me|help me|let me know)\b"
    r"|\bplease\b",
    re.IGNORECASE,
)
_TEMPORAL = re.compile(
    r"\b(elapsed|waiting|wait(ed)?|follow[- ]?up|haven'?t (heard|received)|no (reply|response|answer)"
    r"|since (then|last)|(minutes?|hours?|days?|seconds?) ago|still no|reminder|remind)\b",
    re.IGNORECASE,
)
_GREETING = re.compile(
    r"^\s*(hi|hello|hey|yo|good (morning|afternoon|evening|night)|bye|goodbye|see you|thanks|thank you"
    r"|thx|ok(ay)?|sure|great|cool|nice|got it|sounds good|yes|yeah|no|np|welcome|you'?re welcome)\b",
    re.IGNORECASE,
)


def score_importance(text: str, *, kind: str = "message", tool_calls: int = 0, thought: str | None = None) -> float:
    """The importance of a memory in [0, 1], by AgentOne's heuristics.

    :param text: what was perceived or said.
    :param kind: ``action`` gives the fixed 0.7; ``time`` starts from 0.4; anything else from 0.3.
    :param tool_calls: how many tool calls the thought about this memory produced (+0.3 if any).
    :param thought: the reasoning text, when there is one; the length rule (+0.1 past 200
        characters) and the temporal rule look at it as well as at ``text``.
    """
    if kind in ACTION_KINDS:
        return ACTION_IMPORTANCE
    score = TIME_BASE if kind in TIME_KINDS else BASE
    both = text if thought is None else f"{text}\n{thought}"
    if _EXPLICIT.search(text):
        score += EXPLICIT_BONUS
    if tool_calls > 0:
        score += TOOL_CALL_BONUS
    if "?" in text or _REQUEST.search(text):
        score += QUESTION_BONUS
    if _TEMPORAL.search(both):
        score += TEMPORAL_BONUS
    if len(thought if thought is not None else text) > COMPLEX_CHARS:
        score += COMPLEX_BONUS
    if len(text.strip()) < GREETING_CHARS and _GREETING.search(text):
        score += GREETING_PENALTY
    return round(min(1.0, max(0.0, score)), 6)


def clamp_importance(value: Any) -> float | None:
    """A given importance clamped to [0, 1]; NaN, infinities and non-numbers fall back to the heuristic (None)."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return None
    return min(1.0, max(0.0, float(value)))
