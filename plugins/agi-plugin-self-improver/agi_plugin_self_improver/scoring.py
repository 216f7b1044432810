"""Scoring a shadow replay: fewer ticks no rule answered, and every answered tick keeping its answer.

A row is ``{"tick", "final_output", "claims", "router_decision"}`` (the journal record's fields).
An answered tick keeps its answer when its reply is the same, or when every fact its reply claimed
(``key`` = ``value``, long-term memories aside) is claimed again with the same value: the same
answer in another form ("Tokyo [fact world/entity/japan/capital]" -> "The capital of Japan is Tokyo.").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from agi_core.replies import F1_SEM_MISS, F4_AGENT_FAILURE
from agi_core.serialization import dumps
from agi_plugin_self_improver.proposals import is_f3, no_rule_answered


def is_failure(text: str) -> bool:
    """An F1, F3 or F4 reply: the agent did not answer."""
    return is_f3(text) or text.startswith((F1_SEM_MISS, F4_AGENT_FAILURE))


def facts(row: Mapping[str, Any]) -> set[tuple[str, str]]:
    """The facts the row's reply claimed, ``(key, value as JSON)``; claims of long-term memories left out."""
    claims = row.get("claims") or []
    return {(str(c["key"]), dumps(c.get("value"))) for c in claims if not str(c.get("key", "")).startswith("ltm-")}


def _kept(before: Mapping[str, Any], now: Mapping[str, Any]) -> bool:
    """``now`` answers what ``before`` answered: the same reply, or every fact ``before`` claimed, claimed again."""
    if now["final_output"] == before.get("final_output", ""):
        return True
    claimed = facts(before)
    return bool(claimed) and claimed <= facts(now) and not is_failure(now["final_output"])


def score(recorded: Sequence[dict[str, Any]], produced: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """``{"ticks", "f3_before", "f3_after", "improved", "regressed", "verdict"}`` by tick.

    ``improved``: an F1/F3/F4 reply became an answer, or a tick no rule answered (a module's candidate
    did) is answered by a rule with the same facts. ``regressed``: an answer lost or changed (another
    reply that does not claim the same facts), or a tick missing from the replay.
    """
    after = {row["tick"]: row for row in produced}
    improved, regressed = [], []
    for row in recorded:
        tick, before = row["tick"], row.get("final_output", "")
        now = after.get(tick)
        if now is None:
            regressed.append(tick)
        elif is_failure(before):
            if not is_failure(now["final_output"]):
                improved.append(tick)
        elif not _kept(row, now):
            regressed.append(tick)
        elif no_rule_answered(row) and not no_rule_answered(now) and now["final_output"] != before:
            improved.append(tick)
    f3_before = sum(is_f3(row.get("final_output", "")) for row in recorded)
    f3_after = sum(is_f3(row["final_output"]) for row in after.values())
    accept = not regressed and bool(improved) and f3_after <= f3_before
    return {
        "ticks": len(recorded),
        "f3_before": f3_before,
        "f3_after": f3_after,
        "improved": improved,
        "regressed": regressed,
        "verdict": "accept" if accept else "reject",
    }
