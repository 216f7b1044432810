"""Scoring a shadow replay: fewer F3 replies, and every answered tick answered identically."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agi_plugin_self_improver.proposals import is_f3


def score(recorded: Sequence[dict[str, Any]], produced: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """``{"ticks", "f3_before", "f3_after", "improved", "regressed", "verdict"}`` by tick."""
    after = {row["tick"]: row["final_output"] for row in produced}
    improved, regressed = [], []
    for row in recorded:
        tick, before = row["tick"], row.get("final_output", "")
        now = after.get(tick)
        if now is None or (not is_f3(before) and now != before):
            regressed.append(tick)
        elif is_f3(before) and not is_f3(now):
            improved.append(tick)
    f3_before = sum(is_f3(row.get("final_output", "")) for row in recorded)
    f3_after = sum(is_f3(text) for text in after.values())
    accept = not regressed and bool(improved) and f3_after < f3_before
    return {
        "ticks": len(recorded),
        "f3_before": f3_before,
        "f3_after": f3_after,
        "improved": improved,
        "regressed": regressed,
        "verdict": "accept" if accept else "reject",
    }
