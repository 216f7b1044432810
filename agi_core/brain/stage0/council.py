"""The Stage-0 council: every claim about a stored fact must cite the SEM read behind it.

Two voters look at the claims; the answer stands only if both approve. A rejected
answer is replaced by F1, since the only thing the agent may say is what SEM holds (S9).
"""

from __future__ import annotations

from typing import Any

from agi_core.brain.messages import F1_SEM_MISS


def _evidence_check(claims: list[dict[str, Any]], evidence: dict[str, dict[str, Any]]) -> tuple[str, str]:
    for claim in claims:
        if claim.get("evidence") not in evidence:
            return "reject", f"claim {claim['id']} cites no SEM read"
    return "approve", "every claim cites a SEM read"


def _value_check(claims: list[dict[str, Any]], evidence: dict[str, dict[str, Any]]) -> tuple[str, str]:
    for claim in claims:
        item = evidence.get(claim.get("evidence", ""))
        if item is not None and (item["key"] != claim["key"] or item["value"] != claim["value"]):
            return "reject", f"claim {claim['id']} does not match what SEM returned for {item['key']}"
    return "approve", "claimed values equal the SEM values"


VOTERS = (("evidence_check", _evidence_check), ("value_check", _value_check))


def deliberate(
    reply: str, claims: list[dict[str, Any]], evidence_items: list[dict[str, Any]]
) -> tuple[str, list[dict[str, Any]]]:
    """``(final_output, votes)``; with no claims there is nothing to vote on."""
    if not claims:
        return reply, []
    by_id = {str(item["id"]): item for item in evidence_items}
    votes = []
    for voter, check in VOTERS:
        vote, reason = check(claims, by_id)
        votes.append({"voter": voter, "vote": vote, "reason": reason})
    approved = all(vote["vote"] == "approve" for vote in votes)
    return (reply if approved else F1_SEM_MISS), votes
