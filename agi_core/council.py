"""The MACE council: modules with a ``vote`` method check the claims of the chosen reply.

A council member's ``vote(claims, evidence_items)`` returns a list of votes
(``{"voter", "vote": "approve"|"reject", "reason"}``). The reply stands unless the
rejecting votes weigh at least ``council_reject_weight`` (1 by default: one rejection); each
voter weighs 1 unless the ``stage0`` plugin's setting ``council_weights`` says otherwise (0
silences a voter, which is how a module replaces one). A rejected reply is replaced by F1,
since the agent may only say what it holds evidence for (S9). A member that raises abstains
(a vote ``abstain`` with the reason), and so does one whose votes are misshapen: not a list of
votes, or a ``vote`` other than ``approve`` / ``reject`` (``"Reject"``, ``"no"``), which was
recorded as it was and never counted (recorded as the external ``council_vote_refused``; a
journal from before it replays as it was written). A module's vote runs under its timeout
(:func:`bounded_vote`); one that overruns is abandoned and abstains, recorded as the external
``council_vote_timeout`` so replay abstains without calling it; replay bounds the others too.

Evidence is whatever the tick read: fact reads (``sem_read``), long-term memory hits
(``ltm``, cited by their ``ltm-…`` id), tool observations (``tool``) and modules' recorded
external reads (``module:NAME``). The built-in member :class:`SemCouncil` is the Stage-0
council: every claim must cite evidence of the tick (``evidence_check``) and claim what it
holds (``value_check``: a fact's key and value; for other evidence, the claimed value is
in what was read).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs

from agi_core.effects.isolation import describe, must_propagate
from agi_core.effects.timeouts import TimedOut, call_with_timeout
from agi_core.errors import ReplayMismatch, ValidationError
from agi_core.externals import REPLAY_GRACE, Externals
from agi_core.replies import F1_SEM_MISS
from agi_core.serialization import dumps

Claims = list[dict[str, Any]]
Evidence = dict[str, dict[str, Any]]
SEM = "sem_read"
VOTES = ("approve", "reject")
VOTE_REFUSED = "council_vote_refused"
"""The external that records a member's misshapen votes refused (journals from before kept them as cast)."""
VOTE_TIMEOUT = "council_vote_timeout"
"""The external that records a member's vote abandoned at its timeout (replay abstains without calling it)."""
VOTE_SHAPE = '[{"voter": NAME, "vote": "approve" or "reject", "reason": TEXT}]'


def _all_sem(claims: Claims, evidence: Evidence) -> bool:
    return all(evidence.get(claim.get("evidence", ""), {}).get("source") == SEM for claim in claims)


def evidence_check(claims: Claims, evidence: Evidence) -> tuple[str, str]:
    for claim in claims:
        if claim.get("evidence") not in evidence:
            return "reject", f"claim {claim['id']} cites no SEM read or other evidence of this tick"
    if _all_sem(claims, evidence):
        return "approve", "every claim cites a SEM read"
    return "approve", "every claim cites evidence of this tick"


def _holds(item: dict[str, Any], claim: dict[str, Any]) -> bool:
    if item.get("source") == SEM:
        return bool(item["key"] == claim["key"] and item["value"] == claim["value"])
    if item["value"] == claim["value"]:
        return True
    wanted = claim["value"] if isinstance(claim["value"], str) else dumps(claim["value"])
    read = item["value"] if isinstance(item["value"], str) else dumps(item["value"])
    return bool(wanted) and wanted.casefold() in read.casefold()


def value_check(claims: Claims, evidence: Evidence) -> tuple[str, str]:
    for claim in claims:
        item = evidence.get(claim.get("evidence", ""))
        if item is not None and not _holds(item, claim):
            if item.get("source") == SEM:
                return "reject", f"claim {claim['id']} does not match what SEM returned for {item['key']}"
            return "reject", f"claim {claim['id']} claims what its evidence {item['id']} does not hold"
    if _all_sem(claims, evidence):
        return "approve", "claimed values equal the SEM values"
    return "approve", "claimed values are held by their evidence"


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
    reply: str,
    claims: Claims,
    evidence_items: list[dict[str, Any]],
    members: Sequence[Any] = DEFAULT_MEMBERS,
    settings: Mapping[str, Any] | None = None,
    refuse: Callable[[], bool] | None = None,
    failed: Callable[[Any, str], None] | None = None,
    cast_by: Callable[[Any, Claims, list[dict[str, Any]]], Any] | None = None,
) -> tuple[str, list[dict[str, Any]]]:
    """``(final_output, votes)``; with no claims there is nothing to vote on.

    ``settings``: ``council_weights`` ({voter: weight}) and ``council_reject_weight``; a vote
    whose voter weighs other than 1 carries its ``weight``. ``refuse()``: whether a member's misshapen
    votes are refused (it abstains) rather than kept as cast, as a journal from before did (None: refused);
    ``failed(member, reason)`` is told of each member that abstained (the kernel reports it on stderr);
    ``cast_by(member, claims, evidence_items)`` casts a member's votes (None: ``member.vote`` in this thread;
    the kernel's bounds a module's by its timeout, :func:`bounded_vote`).
    """
    if not claims:
        return reply, []
    weights: Mapping[str, float] = (settings or {}).get("council_weights") or {}
    threshold = float((settings or {}).get("council_reject_weight", 1))
    votes: list[dict[str, Any]] = []
    for member in members:
        try:
            cast = member.vote(claims, evidence_items) if cast_by is None else cast_by(member, claims, evidence_items)
            try:
                checked = cast_votes(member, cast)
            except ValidationError:
                if refuse is not None and not refuse():  # a journal from before: kept as cast
                    votes.extend(
                        {"voter": str(v["voter"]), "vote": str(v["vote"]), "reason": str(v.get("reason", ""))}
                        for v in cast
                    )
                    continue
                raise
            votes.extend(checked)
        except BaseException as exc:  # a failing member abstains; the others still decide
            if must_propagate(exc):
                raise
            votes.append({"voter": getattr(member, "name", "?"), "vote": "abstain", "reason": describe(exc)})
            if failed is not None:
                failed(member, describe(exc))
    for vote in votes:
        if vote["voter"] in weights and weights[vote["voter"]] != 1:
            vote["weight"] = weights[vote["voter"]]
    against = sum(vote.get("weight", 1) for vote in votes if vote["vote"] == "reject")
    return (reply if against < threshold else F1_SEM_MISS), votes


def cast_votes(member: Any, cast: Any) -> list[dict[str, Any]]:
    """``member``'s votes, checked; a :class:`ValidationError` in one line naming the member, the vote and the fix."""
    name = getattr(member, "name", type(member).__name__)
    if not isinstance(cast, list | tuple):
        raise ValidationError(
            f"module {name!r}: vote returned {type(cast).__name__} {cast!r:.80}, not a list of votes; "
            f"return {VOTE_SHAPE}"
        )
    votes = []
    for at, vote in enumerate(cast):
        if not isinstance(vote, Mapping) or not isinstance(vote.get("voter"), str) or vote.get("vote") not in VOTES:
            raise ValidationError(
                f"module {name!r}: vote returned {vote!r:.80} at [{at}], not a vote (a voter's name and "
                f'"vote": "approve" or "reject"); return {VOTE_SHAPE}'
            )
        votes.append({"voter": vote["voter"], "vote": vote["vote"], "reason": str(vote.get("reason", ""))})
    return votes


def bounded_vote(
    member: Any, claims: Claims, evidence_items: list[dict[str, Any]], limit_s: float, externals: Externals
) -> Any:
    """``member.vote(claims, evidence_items)`` on a worker under ``limit_s`` (0: in this thread, unbounded).

    One that overruns is abandoned (its thread left behind) and :class:`TimedOut` is raised in one line
    naming the module and the fix, recorded as the external ``council_vote_timeout``. Replay raises the
    recorded one without calling the vote, and waits for any other at most :data:`REPLAY_GRACE` times
    ``limit_s`` (it answered live, in time or, in a journal from before votes had a timeout, waited for):
    one that runs past that raises :class:`ReplayMismatch` naming the module, so a vote that hangs only in
    replay stops the replay at its tick instead of stalling it.
    """
    name = getattr(member, "name", type(member).__name__)
    mark = f"{name}/vote"
    if externals.replaying and externals.next_matches(VOTE_TIMEOUT, lambda item: item.get("call") == mark):
        raise TimedOut(str(externals.fetch(VOTE_TIMEOUT, dict)["timed_out"]))
    if limit_s <= 0:
        return member.vote(claims, evidence_items)
    bound = limit_s * REPLAY_GRACE if externals.replaying else limit_s
    try:  # in a tuple: a coroutine a vote returns is not awaited (it abstains as misshapen, as in this thread)
        return call_with_timeout(lambda: (member.vote(claims, evidence_items),), (), bound)[0]
    except TimedOut:
        if externals.replaying:  # it answered in time live (or was waited for, before votes had a timeout)
            raise ReplayMismatch(
                f"replay: module {name!r}'s vote ran past {bound:g} s ({REPLAY_GRACE}x its {limit_s:g} s "
                "timeout) where the journal recorded its answer, so it does something else in replay; make its "
                "vote depend on its claims and evidence only (what it reads outside, through the module's phases)"
            ) from None
        text = (
            f"module {name!r}: vote ran past {limit_s:g} s and was abandoned; make it return sooner, or raise "
            "its phase_timeouts['vote'] / timeout_s or --module-timeout"
        )
        externals.fetch(VOTE_TIMEOUT, lambda: {"call": mark, "timed_out": text})
        raise TimedOut(text) from None
