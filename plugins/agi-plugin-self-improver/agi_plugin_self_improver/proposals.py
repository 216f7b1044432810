"""Proposals: configuration changes learned from the journal, stored in the agent's settings.

A proposal is ``{"id", "kind": "settings", "changes": {plugin: {key: value}}, "before": {...},
"source", "evidence", "status", "scores"}``, or ``"kind": "plugin"`` with ``"changes": {"code": source}``
(a plugin file). They live in the ``self_improver.proposals`` setting,
each change a journaled ``config_set`` tick, so checkpoints, rollback and replay cover them.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

from agi_core.errors import ConfigError
from agi_core.replies import F3_NO_AGENT, F3_NOTED_NOT_STORED
from agi_core.serialization import dumps

PLUGIN = "self_improver"
STATUSES = ("proposed", "accepted", "rejected", "promoted", "reverted")
#: A rephrasing must follow its F3 within this many ticks to count.
WINDOW = 2


def is_f3(text: str) -> bool:
    """F3, or Stage-0's statement noted as an episode only (F3 before its ``noted_statement`` change)."""
    return text.startswith((F3_NO_AGENT, F3_NOTED_NOT_STORED))


def no_rule_answered(row: Mapping[str, Any]) -> bool:
    """No rule answered the tick: its reply is F3, or a module's candidate stood in (router ``module_candidate``)."""
    decision = row.get("router_decision") or {}
    return is_f3(str(row.get("final_output", ""))) or decision.get("why") == "module_candidate"


def _words(text: str) -> list[str]:
    return re.findall(r"[\w'’]+|[^\w\s]", text.lower())


def phrasing_of(asked: str, rephrased: str) -> tuple[str, str] | None:
    """The phrase of ``asked`` that ``rephrased`` replaced (common words around it kept), or None."""
    a, b = _words(asked), _words(rephrased)
    start = 0
    while start < min(len(a), len(b)) and a[start] == b[start]:
        start += 1
    end = 0
    while end < min(len(a), len(b)) - start and a[-1 - end] == b[-1 - end]:
        end += 1
    old, new = a[start : len(a) - end], b[start : len(b) - end]
    if not old or not new or len(old) > 3 or len(new) > 3 or not all(w[0].isalnum() for w in old + new):
        return None
    return " ".join(old), " ".join(new)


def learned_phrasings(records: Iterable[Mapping[str, Any]], *, repeats: int = 2) -> dict[str, tuple[str, list[int]]]:
    """``{phrase: (canonical, ticks)}``: inputs no rule answered (F3, or a module's candidate such as
    retrieval's) that the user rephrased and then got answered by a rule, seen ``repeats`` times."""
    rows = [r for r in records if r.get("input", {}).get("source") == "user"]
    seen: Counter[tuple[str, str]] = Counter()
    ticks: dict[tuple[str, str], list[int]] = {}
    for i, row in enumerate(rows):
        if not no_rule_answered(row):
            continue
        for later in rows[i + 1 : i + 1 + WINDOW]:
            answer = later.get("final_output", "")
            if no_rule_answered(later) or answer.startswith("I don"):
                continue
            found = phrasing_of(row["input"]["raw"], later["input"]["raw"])
            if found:
                seen[found] += 1
                ticks.setdefault(found, []).extend([row["tick"], later["tick"]])
            break
    return {old: (new, ticks[(old, new)]) for (old, new), count in sorted(seen.items()) if count >= repeats}


def proposal_id(changes: Mapping[str, Any]) -> str:
    return "imp-" + hashlib.sha256(dumps(changes).encode()).hexdigest()[:10]


def make(changes: dict[str, Any], before: dict[str, Any], source: str, evidence: list[int], why: str) -> dict[str, Any]:
    return {
        "id": proposal_id(changes),
        "kind": "settings",
        "changes": changes,
        "before": before,
        "source": source,
        "evidence": evidence,
        "why": why,
        "status": "proposed",
        "scores": None,
    }


def code(source: str, origin: str, why: str) -> dict[str, Any]:
    """A code proposal: a plugin file implementing ``agi_register_router_agents``, evaluated in the sandbox
    like any other; promoted, it is stored in the setting ``self_improver.code`` (:mod:`.promoted`)."""
    changes = {"code": source}
    return {**make(changes, {}, origin, [], why), "kind": "plugin"}


def find(proposals: Mapping[str, Any], wanted: str) -> dict[str, Any]:
    """The proposal ``wanted`` (an id or a unique prefix of one)."""
    hits = [pid for pid in proposals if pid == wanted or pid.startswith(wanted)]
    if len(hits) != 1:
        known = ", ".join(sorted(proposals)) or "none yet: run `agi improve propose`"
        raise ConfigError(f"no single proposal {wanted!r}; known proposals: {known}")
    return dict(proposals[hits[0]])
