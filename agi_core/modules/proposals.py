"""What a module's ``deliberate`` proposes; the brain chooses among the proposals.

A module returns a :class:`Proposals` (or a dict of the same shape, or None). Scores are
in [0, 1]; a candidate reply may carry an action and claims, and every claim names the
evidence items (content-derived ids, see :func:`agi_core.reasoning.content_id`) it
rests on, so the council can check it.
"""

from __future__ import annotations

import math
from typing import Any

import attrs
import orjson

from agi_core.beliefs import as_belief
from agi_core.errors import ValidationError
from agi_core.model import JSON, Action
from agi_core.serialization import NEVER_NAN, converter, dumps, from_data, non_finite_path, not_json, to_data


@attrs.frozen
class Belief:
    """Something the module holds true this tick, with its confidence (0-1)."""

    about: str
    value: JSON = None
    confidence: float = 1.0


@attrs.frozen
class GoalUpdate:
    """A proposed goal, or a change of one (``status``: open, active, done, failed, blocked)."""

    title: str
    status: str = "open"
    progress: float | None = None


@attrs.frozen
class Claim:
    """A statement about a stored fact and the id of the evidence item it cites (``ctx.evidence_for(key)``)."""

    key: str
    value: JSON
    text: str
    evidence: str | None = None


@attrs.frozen
class Candidate:
    """A candidate reply (and optionally an action) with its score in [0, 1]."""

    reply: str
    score: float = 0.5
    action: dict[str, JSON] | None = None
    claims: list[Claim] = attrs.field(factory=list)


@attrs.frozen
class Proposals:
    """One module's proposals for one tick; ``module`` is filled in by the runner."""

    beliefs: list[Belief] = attrs.field(factory=list)
    goals: list[GoalUpdate] = attrs.field(factory=list)
    candidates: list[Candidate] = attrs.field(factory=list)
    claims: list[Claim] = attrs.field(factory=list)
    module: str = ""


def not_json_error(module: str, what: str, value: Any) -> ValidationError:
    """The one line for a module's output that is not JSON: the module, the phase, the type, the path and the fix."""
    found = not_json(value) or ("$", type(value).__name__)
    where = "" if found[0] == "$" else f" at {found[0]}"
    return ValidationError(
        f"module {module!r}: {what} a value of type {found[1]}{where}, which is not JSON; return JSON "
        "(dict, list, str, number, bool, None): a list for a set, text for bytes, a dict for an object"
    )


def claim_dict(claim: Claim) -> dict[str, Any]:
    """A claim as the journal and the council see it, with its content-derived id."""
    from agi_core.reasoning import content_id

    body = {"key": claim.key, "value": claim.value, "text": claim.text, "evidence": claim.evidence}
    return {"id": content_id("cl", body), **body}


def _score(value: float, what: str) -> None:
    if not (isinstance(value, int | float) and math.isfinite(value) and 0 <= value <= 1):
        raise ValidationError(f"{what} is {value!r}; a score or confidence is a number from 0 to 1")


def as_proposals(value: Any, module: str) -> Proposals:
    """``value`` (None, a dict or :class:`Proposals`) checked and stamped with ``module``.

    Raises :class:`ValidationError` naming the problem: the runner skips the module.
    """
    return checked_proposals(value, module)[0]


def checked_proposals(value: Any, module: str) -> tuple[Proposals, dict[str, Any]]:
    """:func:`as_proposals`, with the proposals as plain data (what the journal records), built once."""
    if value is None:
        found = Proposals(module=module)
        return found, {"beliefs": [], "goals": [], "candidates": [], "claims": [], "module": module}
    if isinstance(value, dict):
        unknown = sorted(set(value) - {"beliefs", "goals", "candidates", "claims"})
        if unknown:
            raise ValidationError(
                f"deliberate returned the unknown field {unknown[0]!r}; use beliefs/goals/candidates/claims"
            )
        value = from_data(value, Proposals)
    if not isinstance(value, Proposals):
        raise ValidationError(f"deliberate returned {type(value).__name__}; return Proposals, a dict of them or None")
    built = plain_proposals(value)
    if built is None:  # a subclass, or an item that is not of its field's exact class: the generic path
        try:
            data = to_data(value)
        except Exception:  # an item of the wrong class (a claim that is no Claim): name it, not the attribute it lacks
            misplaced = _misplaced(value, module)
            if misplaced is None:
                raise
            raise misplaced from None
        suspect = True
    else:
        data, suspect = built
    bad = non_finite_path(data) if suspect and non_finite_path(_numbers_maybe(value)) is not None else None
    if bad is not None:
        raise ValidationError(
            f"module {module!r}: deliberate returned NaN or infinity at {bad}; return finite numbers", bad
        )
    try:
        orjson.dumps(data)  # plain JSON (the usual case, 0.3 µs); else may the journal record hold it?
    except TypeError:
        try:
            dumps(data)  # a belief's or claim's value that is not JSON (a set, bytes) skips the module
        except TypeError:
            raise not_json_error(module, "deliberate returned proposals with", data) from None
    for belief in value.beliefs:
        if not (isinstance(confidence := belief.confidence, int | float) and 0 <= confidence <= 1):
            _score(confidence, f"belief {belief.about!r} confidence")
    for candidate in value.candidates:
        if not (isinstance(score := candidate.score, int | float) and 0 <= score <= 1):
            _score(score, "candidate score")
        if candidate.action is not None:
            from_data(candidate.action, Action)
    data["module"] = module
    if type(value) is Proposals:  # built directly: attrs.evolve costs several times more
        return Proposals(value.beliefs, value.goals, value.candidates, value.claims, module), data
    return attrs.evolve(value, module=module), data


_SCALARS = NEVER_NAN  # taken as they are by to_data (and never NaN)
_unstructure = converter.unstructure  # what to_data does with a JSON-typed field's value: by its class


def _plain(value: Any) -> bool:
    """Whether ``value`` is text, an int, a bool, None or a finite float (exact types: never NaN)."""
    kind = type(value)
    return kind in _SCALARS or (kind is float and value - value == 0)


def plain_proposals(proposals: Proposals) -> tuple[dict[str, Any], bool] | None:
    """``to_data(proposals)`` built directly, and whether a value in it may be NaN or infinity (anything but
    text, an int, a bool, None or a finite float); None for what only the generic path takes (a subclass, a
    tuple, an item of another class), which names the problem. Equal to ``to_data`` (test_proposals_checks.py)."""
    beliefs, goals, candidates, claims = proposals.beliefs, proposals.goals, proposals.candidates, proposals.claims
    if type(proposals) is not Proposals or not type(beliefs) is type(goals) is type(candidates) is type(claims) is list:
        return None
    suspect = False
    out_beliefs = []
    for belief in beliefs:
        if type(belief) is not Belief:
            return None
        about, held, confidence = belief.about, belief.value, belief.confidence
        if type(held) not in _SCALARS:
            held = _unstructure(held)
        suspect = suspect or not (_plain(about) and _plain(held) and _plain(confidence))
        out_beliefs.append({"about": about, "value": held, "confidence": confidence})
    out_goals = []
    for goal in goals:
        if type(goal) is not GoalUpdate:
            return None
        title, status, progress = goal.title, goal.status, goal.progress
        suspect = suspect or not (_plain(title) and _plain(status) and _plain(progress))
        out_goals.append({"title": title, "status": status, "progress": progress})
    out_candidates = []
    for candidate in candidates:
        if type(candidate) is not Candidate or type(candidate.claims) is not list:
            return None
        reply, score, action = candidate.reply, candidate.score, candidate.action
        listed = _plain_claims(candidate.claims)
        if listed is None:
            return None
        suspect = (
            suspect or listed[1] or action is not None or not (_plain(reply) and _plain(score))
        )  # an action: the walk
        out_candidates.append({"reply": reply, "score": score, "action": action, "claims": listed[0]})
    listed = _plain_claims(claims)
    if listed is None:
        return None
    data = {
        "beliefs": out_beliefs,
        "goals": out_goals,
        "candidates": out_candidates,
        "claims": listed[0],
        "module": proposals.module,
    }
    return data, suspect or listed[1]


def _plain_claims(claims: list[Any]) -> tuple[list[dict[str, Any]], bool] | None:
    """:func:`plain_proposals` of a list of claims."""
    out, suspect = [], False
    for claim in claims:
        if type(claim) is not Claim:
            return None
        key, held, text, evidence = claim.key, claim.value, claim.text, claim.evidence
        if type(held) not in _SCALARS:
            held = _unstructure(held)
        suspect = suspect or not (_plain(key) and _plain(held) and _plain(text) and _plain(evidence))
        out.append({"key": key, "value": held, "text": text, "evidence": evidence})
    return out, suspect


def _numbers_maybe(proposals: Proposals) -> list[Any]:
    """Every value of ``proposals`` but text and None (a number, a list, a dict, anything a module put where text
    belongs): checked for NaN alone, so the usual proposals (a candidate with no action writes null in the
    journal's data) skip the round trip of the whole."""
    claims = [*proposals.claims, *(claim for candidate in proposals.candidates for claim in candidate.claims)]
    found = [
        *((belief.about, belief.value, belief.confidence) for belief in proposals.beliefs),
        *((goal.title, goal.status, goal.progress) for goal in proposals.goals),
        *((candidate.reply, candidate.score, candidate.action) for candidate in proposals.candidates),
        *((claim.key, claim.value, claim.text, claim.evidence) for claim in claims),
    ]
    return [item for values in found for item in values if item is not None and not isinstance(item, str)]


_ITEMS: tuple[tuple[str, type], ...] = (
    ("beliefs", Belief),
    ("goals", GoalUpdate),
    ("candidates", Candidate),
    ("claims", Claim),
)


def _misplaced(proposals: Proposals, module: str) -> ValidationError | None:
    """The one line for the first item of proposals that is not of its field's class (None: none is)."""

    def listed(items: Any) -> list[Any]:
        return list(items) if isinstance(items, list | tuple) else []

    found = [
        (f"$.{field}[{i}]", item, cls)
        for field, cls in _ITEMS
        for i, item in enumerate(listed(getattr(proposals, field)))
    ]
    for index, candidate in enumerate(listed(proposals.candidates)):
        if isinstance(candidate, Candidate):
            claims = enumerate(listed(candidate.claims))
            found += [(f"$.candidates[{index}].claims[{i}]", claim, Claim) for i, claim in claims]
    for where, item, cls in found:
        if not isinstance(item, cls):
            fields = ", ".join(attribute.name for attribute in attrs.fields(cls))
            return ValidationError(
                f"module {module!r}: deliberate returned a value of type {type(item).__name__} at {where}, not a "
                f"{cls.__name__}; "
                f"build it with {cls.__name__}({fields}) from agi_core.modules",
                where,
            )
    return None


def module_beliefs(proposals: list[Proposals]) -> list[dict[str, Any]]:
    """Every module's usable belief proposals, as the tick's beliefs take them (``key``, value, confidence,
    source; :func:`agi_core.beliefs.as_belief`: ``beliefs_for(..., checked=...)``)."""
    offered = (
        {"key": belief.about, "value": belief.value, "confidence": belief.confidence, "source": f"module:{p.module}"}
        for p in proposals
        for belief in p.beliefs
    )
    return [belief for belief in map(as_belief, offered) if belief is not None]
