"""The ``maintain`` kernel command: a maintenance tick runs every module's ``maintain`` phase.

``agi run --follow`` runs one when it has been idle (no job, line or percept) for the
maintenance interval, and only if some module has ``maintain`` (Letta's sleep-time
agents: maintenance as its own journaled tick, source ``maintain``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agi_core.kernel import Kernel
    from agi_core.reasoning import ReasonContext


def maintain(kernel: Kernel, ctx: ReasonContext, args: dict[str, Any]) -> tuple[str, Any]:
    modules = ctx.module_tick
    ran = [module.name for module, _ in modules.run("maintain", ctx.state)] if modules is not None else []
    skipped = [c["module"] for c in (modules.log.get("calls", []) if modules is not None else []) if "skipped" in c]
    text = f"maintenance: {len(ran)} module(s) ran" + (f", {len(skipped)} skipped" if skipped else "")
    return text, {"ran": ran, "skipped": skipped}
