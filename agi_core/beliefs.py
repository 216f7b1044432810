"""The tick's beliefs: what the agent holds true this tick, each with a confidence in [0, 1].

:func:`beliefs_for` builds them from the recalled facts (the focus entity's, confidence
0.9), the facts read this tick (1.0: read from the store just now), the active goal's
checkable assumptions (0.5 until a step reads the fact) and the modules' belief proposals
(their own confidence, clamped). A module's belief about a key replaces the store's (a belief
graph knows better than "read just now"); otherwise a key believed twice keeps the highest
confidence. A read
that found nothing, or a proposal below 0.5, is an uncertainty. Bad proposals are skipped:
a misbehaving module never stops the tick. The kernel fills ``TickState.beliefs`` before
the reason step and journals the final beliefs after the act (``JournalRecord.beliefs``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from agi_core.model import Beliefs, TickState
from agi_core.serialization import non_finite_path

BELIEFS_MAX = 20
UNCERTAINTIES_MAX = 10
RECALLED = 0.9
READ = 1.0
ASSUMED = 0.5
TEXT_CHARS_MAX = 200


def beliefs_for(
    state: TickState,
    proposals: Iterable[dict[str, Any]] = (),
    sem_reads: Iterable[dict[str, Any]] = (),
    *,
    checked: Iterable[dict[str, Any]] = (),
) -> Beliefs:
    """The beliefs of a tick from its state, the modules' ``proposals`` and this tick's ``sem_reads``.

    A proposal is ``{"key" or "text", "value"?, "confidence"?, "source"?}`` (confidence
    defaults to 0.5; ``source`` names the module). ``checked`` are proposals :func:`as_belief`
    already made usable (the kernel's, made once a tick), taken after ``proposals`` as they are.
    """
    held: dict[str, dict[str, Any]] = {}
    doubts: list[str] = []
    proposed: set[str] = set()  # keys a module holds a belief about

    def hold(key: str, value: Any, confidence: float, source: str) -> None:
        if key not in held or confidence > held[key]["confidence"]:
            held[key] = {"key": key, "value": value, "confidence": confidence, "source": source}

    for fact in state.recalled.semantic:
        if isinstance(fact, dict) and isinstance(fact.get("key"), str):
            hold(fact["key"], fact.get("value"), RECALLED, "recalled")
    goal = state.goal
    if goal is not None:
        for step in goal.plan:
            if step.status == "todo" and isinstance(step.expect.get("fact"), str):
                hold(step.expect["fact"], step.expect.get("value"), ASSUMED, f"assumed by goal {goal.id}")
    for read in sem_reads:
        if read.get("exists"):
            hold(str(read["key"]), read.get("value"), READ, "sem_read")
        else:
            doubts.append(f"nothing stored under {read.get('key')}")
    usable = (belief for belief in map(as_belief, proposals) if belief is not None)
    for belief in (*usable, *checked):
        if belief["confidence"] < ASSUMED:
            doubts.append(f"{belief['key']} (confidence {belief['confidence']:g}, {belief['source']})")
        if belief["key"] not in proposed:  # a module's belief replaces the store's default confidence
            held.pop(belief["key"], None)
            proposed.add(belief["key"])
        hold(**belief)
    facts = sorted(held.values(), key=lambda item: (-item["confidence"], item["key"]))[:BELIEFS_MAX]
    return Beliefs(facts=facts, uncertainties=list(dict.fromkeys(doubts))[:UNCERTAINTIES_MAX])


def as_belief(proposal: Any) -> dict[str, Any] | None:
    """A module's belief proposal as a belief (``key``, ``value``, ``confidence``, ``source``), or None when
    it is unusable."""
    if not isinstance(proposal, dict):
        return None
    key = proposal.get("key", proposal.get("text"))
    if not isinstance(key, str) or not key.strip():
        return None
    confidence = proposal.get("confidence", ASSUMED)
    if isinstance(confidence, bool) or not isinstance(confidence, int | float) or not math.isfinite(confidence):
        return None
    if non_finite_path(proposal.get("value")) is not None:
        return None
    source = proposal.get("source", proposal.get("module", "module"))
    return {
        "key": key.strip()[:TEXT_CHARS_MAX],
        "value": proposal.get("value"),
        "confidence": min(1.0, max(0.0, float(confidence))),
        "source": str(source)[:TEXT_CHARS_MAX],
    }
