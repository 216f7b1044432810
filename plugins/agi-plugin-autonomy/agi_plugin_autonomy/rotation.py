"""The model's share of an idle tick: at most ``model_calls_per_idle_tick`` (setting, default 1) of its
contract calls go to the model, taking turns over :data:`ROTATION`; every other call gets its contract's
heuristic (``model=False``: recorded all the same, source ``fallback``), so the module's own rule decides.

An idle tick calls some twenty contracts; asking a small model for each took minutes. With the default,
the model answers the first call of the tick at or after the turn (the contract after the one it
answered last time), so over the idle ticks each step gets the model's answer in turn, and one tick
costs one model call at most. The turn is kept in the module's state (``model_turn``) only once a
model answered: without a provider nothing changes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

#: the maintain phase's contracts whose answers it uses, in the order it calls them
#: (``auto_signal_registration`` is left out: its answer is not used, the model is never asked for it)
ROTATION = (
    "auto_signal_derivation",
    "auto_signal_keywords",
    "auto_evolution",
    "phenomenal_kernel",
    "phenomenal_mode_manager",
    "autonomy_core",
    "question_auto_answer",
    "question_manager",
    "goal_interpreter",
    "planner_support",
    "system_monitor",
    "homeostasis",
    "cognition_proposer",
    "trigger_router",
    "cognition_goal_prioritizer",
    "goal_priority_review",
    "scheduler",
    "runtime_job_manager",
    "runtime_analytics",
    "jsonl_logger",
    "runtime_dash",
    "semantic_memory_maintenance",
    "memory_summarizer",
    "memory_concept_curation",
)


@attrs.define
class IdleCalls:
    """``ctx.contracts`` for one idle tick: the model answers at most ``limit`` calls, the first ones whose
    contract comes at or after ``turn`` in :data:`ROTATION` (every call when ``limit`` covers it all)."""

    contracts: Any
    turn: int
    limit: int
    asked: list[str] = attrs.field(factory=list)
    no_model: bool = False  # a call that asked came back without a model attempt: no provider

    def _eligible(self, name: str) -> bool:
        if self.no_model or len(self.asked) >= self.limit or name not in ROTATION:
            return False
        return self.limit >= len(ROTATION) or ROTATION.index(name) >= self.turn

    def call(self, name: str, variables: Mapping[str, Any], *, model: bool = True) -> Any:
        ask = model and self._eligible(name)
        outcome = self.contracts.call(name, variables, model=ask)
        if ask and outcome.attempts:
            self.asked.append(name)
            self.turn = ROTATION.index(name) + 1
        elif ask:
            self.no_model = True
        return outcome

    def next_turn(self) -> int:
        """The turn of the next idle tick: after the contract the model answered; the start again when no
        contract at or after the turn was called (the rotation went round); unchanged without a model."""
        if self.asked:
            return self.turn % len(ROTATION)
        return self.turn if self.no_model or self.limit == 0 else 0
