"""The self_improver module: in maintenance ticks, asks ``code_evolver`` for phrasings that answer recent F3 inputs.

With a contract provider the model's patches are validated by the contract, then by this
module (a known target, a JSON object of phrase -> phrasing), and kept in the module's state as
``pending``; ``agi improve propose`` turns them into proposals. The call is a recorded external,
so the maintenance tick replays equal offline.
"""

from __future__ import annotations

import json
from typing import Any

from agi_core.modules import CognitiveModule, ModuleContext
from agi_plugin_self_improver.proposals import is_f3

TARGET = "self_improver.phrasings"
#: the most F3 inputs shown to the model in one call
SHOWN = 20
#: records read at a time after the cursor, and the most pages one maintenance tick reads
PAGE, PAGES = 500, 4
#: the change (ctx.changed) by which pages without an F3 input move the cursor past them
SKIPS = "cursor_past_answered"


class SelfImprover(CognitiveModule):
    name = "self_improver"
    priority = 900
    contracts = ("code_evolver",)

    def maintain(self, ctx: ModuleContext) -> Any:
        since = int(ctx.own.get("asked_through", 0))
        for _page in range(PAGES):
            records = ctx.journal.records(since=since, limit=PAGE)
            f3 = [r for r in records if r["input"]["source"] == "user" and is_f3(str(r["final_output"]))]
            if f3 or len(records) < PAGE or not ctx.changed(SKIPS):  # (before the change a full page
                break  # without one held the cursor for ever: the same page was read at every maintenance)
            since = int(records[-1]["tick"])  # nothing to ask about in these: the cursor moves past them
            ctx.own.put("asked_through", since)
        if not records or not f3:
            return {"asked": False}
        ctx.own.put("asked_through", int(records[-1]["tick"]))
        targets = [{"target_id": TARGET, "source": json.dumps(ctx.settings.get("phrasings", {}))}]
        metrics = {"f3_inputs": [r["input"]["raw"] for r in f3][-SHOWN:], "f3_count": len(f3)}
        outcome = ctx.contracts.call("code_evolver", {"targets": targets, "metrics": metrics})
        if outcome.source != "llm" or not isinstance(outcome.value, dict):
            return {"asked": True, "source": outcome.source, "errors": outcome.errors[:3]}
        pending, refused = list(ctx.own.get("pending", [])), []
        for patch in outcome.value.get("patches", []):
            phrasings = _phrasings(patch)
            if phrasings is None:
                refused.append(str(patch.get("target_id"))[:80])
                continue
            why = str(patch.get("notes") or outcome.value.get("summary") or "proposed by code_evolver")[:300]
            pending.append({"changes": {"self_improver": {"phrasings": phrasings}}, "why": why})
        ctx.own.put("pending", pending)
        return {"asked": True, "source": "llm", "pending": len(pending), "refused": refused}


def _phrasings(patch: dict[str, Any]) -> dict[str, str] | None:
    """The patch's phrasings when it targets them and is a JSON object of non-empty strings, else None."""
    if patch.get("target_id") != TARGET:
        return None
    try:
        value = json.loads(patch["patched_source"])
    except (TypeError, ValueError):
        return None
    if not isinstance(value, dict) or not value:
        return None
    if not all(isinstance(k, str) and k and isinstance(v, str) and v for k, v in value.items()):
        return None
    return value
