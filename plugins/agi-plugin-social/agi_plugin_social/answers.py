"""Which open question a statement answers: the one whose missing fact it stores.

A question the agent could not answer is kept with the fact keys its tick read and found missing
(:func:`missed_keys`); a later turn answers it only when it stores one of them (:func:`settled`).
"what does my sister do?" missed ``user/relation/sister/job``: "my sister lives in Paris" (it stores
``…/home``) leaves it open, "my sister works as a teacher" answers it. A question whose tick read no
key (one the brain did not understand) is left to ``dialogue_state``'s verdict (the content-word
heuristic, or the model), and only for a turn that stored a fact: a line noted and not stored answers
nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

KEYS_KEPT = 8  # missed keys kept per question
NAME = "name"


def missed_keys(reads: Sequence[Mapping[str, Any]]) -> list[str]:
    """The keys the tick read and found missing (or forgotten: stored ``null``), in read order, once each.
    A relation's name missed with another of its attributes is the way to the entity it names ("what
    does my sister do?" reads ``…/sister/name`` to go on to Maya's job), not what was asked: left out."""
    missing = [str(r["key"]) for r in reads if not r.get("exists") or r.get("value") is None]
    keys = list(dict.fromkeys(missing))
    owners = {k.rsplit("/", 1)[0] for k in keys if not k.endswith(f"/{NAME}")}
    kept = [k for k in keys if not (k.endswith(f"/{NAME}") and k.rsplit("/", 1)[0] in owners)]
    return [k[:200] for k in kept][:KEYS_KEPT]


def stored_keys(writes: Sequence[Mapping[str, Any]]) -> set[str]:
    """The keys the tick stored a value under (not a failed write, not a forgetting: ``null``)."""
    return {str(w["key"]) for w in writes if w.get("ok") is True and w.get("value") is not None}


def settled(
    before: Sequence[str],
    contract_pending: Sequence[str],
    missed: Mapping[str, Sequence[str]],
    stored: set[str],
    asked_missed: Sequence[str],
) -> tuple[list[str], list[str], dict[str, list[str]]]:
    """``(pending, answered, missed)`` after a turn: each question of ``before`` (open before the turn) is
    answered when the turn ``stored`` a key it ``missed``; one with no missed key when the turn stored a fact
    and ``dialogue_state`` (``contract_pending``: its open questions) let it go. The questions the contract
    added are this turn's, each kept with the keys this tick missed (``asked_missed``)."""
    pending: list[str] = []
    answered: list[str] = []
    for question in before:
        keys = missed.get(question) or []
        done = bool(stored & set(keys)) if keys else bool(stored) and question not in contract_pending
        (answered if done else pending).append(question)
    added = [q for q in contract_pending if q not in before]
    pending += added
    kept = {q: list(missed.get(q) or []) for q in pending if missed.get(q)}
    kept |= {q: list(asked_missed) for q in added if asked_missed}
    return pending, answered, kept
