"""The LLM brain's scratch variables, kept in RLM state (:mod:`agi_core.state`).

One state per agent, session ``llm_brain`` (prompt: "LLM brain scratch"), created on the
brain's first tick. Each tick sets, in the tick's transaction: ``question`` (the line),
``mode`` (rule, tool, answer or reason), ``reply``, ``tool_calls`` (the brain tools it ran),
``model`` (the provider) and ``turns`` (how many ticks the brain reasoned). They are
ordinary RLM variables: ``agi state list --state ID`` shows them, the mutation log keeps
their history and replay writes them again.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agi_core.reasoning import Decision, ReasonContext
from agi_core.scheduling.wall_time import ttl_clock
from agi_core.state.errors import StateError
from agi_core.state.service import StateService

SESSION = "llm_brain"
PROMPT = "LLM brain scratch"
REPLY_CHARS = 500


def scratch_state(svc: StateService) -> str:
    """The scratch state's id, created when missing."""
    found = next((s.state_id for s in svc.states() if s.session_id == SESSION), None)
    if found is not None:
        return found
    return svc.create_state(PROMPT, session_id=SESSION, source="llm_brain").state_id


def keep(ctx: ReasonContext, decision: Decision, model: str, output: dict[str, Any]) -> str | None:
    """Write the tick's scratch variables; the scratch state's id (None without RLM rows)."""
    rows = getattr(ctx.store, "rlm_rows", None)
    if rows is None:
        return None
    path = Path(ctx.store.path)
    svc = StateService(
        rows(),
        ctx.determinism,
        path.with_name(path.name + ".state") / "rlm",
        wall_ms=ttl_clock(ctx.externals),  # read only if a TTL is set or checked
    )
    try:
        state = scratch_state(svc)
        turns = svc.describe(state, "turns").value if any(v.name == "turns" for v in svc.variables(state)) else 0
        values = {
            "question": ctx.state.input.raw[:REPLY_CHARS],
            "mode": str(output.get("mode") or "reason"),
            "reply": decision.final_output[:REPLY_CHARS],
            "tool_calls": [call["name"] for call in output.get("tool_calls") or []]
            + ([output["tool"]["name"]] if isinstance(output.get("tool"), dict) else []),
            "model": model,
            "turns": int(turns) + 1,
        }
        for name, value in values.items():
            svc.set(state, name, value, source="llm_brain")
    except StateError:
        return None
    return state
