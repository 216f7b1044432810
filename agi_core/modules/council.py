"""The MACE council: modules with a ``vote`` method check the claims of the chosen reply.

A council member's ``vote(claims, evidence_items)`` returns a list of votes
(``{"voter", "vote": "approve"|"reject", "reason"}``). The reply stands only if no vote
rejects it; a rejected reply is replaced by F1, since the agent may only say what SEM
holds (S9). A member that raises abstains (a vote ``abstain`` with the reason).

The built-in member :class:`SemCouncil` is the Stage-0 council: every claim must cite a
SEM read (``evidence_check``) and claim the value SEM returned (``value_check``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs

from agi_core.effects.isolation import describe, must_propagate
from agi_core.replies import F1_SEM_MISS

Claims = list[dict[str, Any]]
Evidence = dict[str, dict[str, Any]]


def evidence_check(claims: Claims, evidence: Evidence) -> tuple[str, str]:
    for claim in claims:
        if claim.get("evidence") not in evidence:
            return "reject", f"claim {claim['id']} cites no SEM read"
    return "approve", "every claim cites a SEM read"


def value_check(claims: Claims, evidence: Evidence) -> tuple[str, str]:
    for claim in claims:
        item = evidence.get(claim.get("evidence", ""))
        if item is not None and (item["key"] != claim["key"] or item["value"] != claim["value"]):
            return "reject", f"claim {claim['id']} does not match what SEM returned for {item['key']}"
    return "approve", "claimed values equal the SEM values"


@attrs.frozen
class SemCouncil:
    """The built-in council member (module ``sem_council``): the Stage-0 voters."""

    name: str = "sem_council"
    priority: int = 0
    voters: tuple[Any, ...] = (("evidence_check", evidence_check), ("value_check", value_check))

    def vote(self, claims: Claims, evidence_items: list[dict[str, Any]]) -> list[dict[str, Any]]:
        by_id = {str(item["id"]): item for item in evidence_items}
        votes = []
        for voter, check in self.voters:
            vote, reason = check(claims, by_id)
            votes.append({"voter": voter, "vote": vote, "reason": reason})
        return votes


DEFAULT_MEMBERS: tuple[Any, ...] = (SemCouncil(),)


def convene(
    reply: str, claims: Claims, evidence_items: list[dict[str, Any]], members: Sequence[Any] = DEFAULT_MEMBERS
) -> tuple[str, list[dict[str, Any]]]:
    """``(final_output, votes)``; with no claims there is nothing to vote on."""
    if not claims:
        return reply, []
    votes: list[dict[str, Any]] = []
    for member in members:
        try:
            cast = member.vote(claims, evidence_items)
            votes.extend(
                {"voter": str(v["voter"]), "vote": str(v["vote"]), "reason": str(v.get("reason", ""))} for v in cast
            )
        except BaseException as exc:  # a failing member abstains; the others still decide
            if must_propagate(exc):
                raise
            votes.append({"voter": getattr(member, "name", "?"), "vote": "abstain", "reason": describe(exc)})
    approved = not any(vote["vote"] == "reject" for vote in votes)
    return (reply if approved else F1_SEM_MISS), votes
