"""What a tick needs from the floors above the kernel, as protocols the kernel calls.

The kernel conducts the tick but owns neither the cognitive modules' runner, nor goals and
plans, nor scheduled jobs, nor the kernel commands: those live in ``modules/``,
``scheduling/`` and ``commands`` (a floor above it, docs/architecture.md). The built-in
plugin ``tick_parts`` hands them in through the ``agi_tick_parts`` hook, so the kernel
imports none of them and a future upward import fails ``lint-imports``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from agi_core.contracts.caller import ContractCaller
    from agi_core.effects.scope import TickScope
    from agi_core.effects.turns import Steps
    from agi_core.externals import Externals
    from agi_core.model import Goal, Input, Observation, Plan, TickState, WorkingMemory
    from agi_core.plugins import Plugins
    from agi_core.reasoning import Decision, ReasonContext

#: A kernel command: ``handler(kernel, ctx, args) -> (reply, result[, action])``.
Command = Callable[..., tuple[Any, ...]]


class ModuleRun(Protocol):
    """The cognitive modules' phases in one tick (``agi_core.modules.runner.ModuleTick``)."""

    log: dict[str, Any]  # journaled as JournalRecord.modules
    reason: ReasonContext  # the context the phases read and write through

    def before_reasoning_steps(self, state: TickState) -> Steps[list[Any]]:
        """``perceive``, ``recall`` and ``deliberate``; the deliberations' proposals."""
        ...

    def revise_steps(self, state: TickState, decision: Decision, proposals: list[Any]) -> Steps[Decision]: ...

    def run_steps(
        self,
        phase: str,
        state: TickState,
        *,
        proposals: list[Any] | None = None,
        outcome: Mapping[str, Any] | None = None,
    ) -> Steps[list[tuple[Any, Any]]]: ...


class TickParts(Protocol):
    """The parts a kernel conducts, provided once per kernel by ``Plugins.tick_parts()``."""

    @property
    def commands(self) -> Mapping[str, Command]:
        """The kernel commands (``put_fact``, ``schedule_add``, ``goal_step`` …), by name."""
        ...

    def load_modules(self, plugins: Plugins) -> Sequence[Any]:
        """The cognitive modules the plugins register, checked, in run order."""
        ...

    def begin_tick(
        self, store: Any, clock: Callable[[], int] | None, percept: Input, externals: Externals
    ) -> int | None:
        """The tick's clock reading; fires the job of a ``schedule:`` tick (``JobAlreadyRan`` if it ran)."""
        ...

    def module_run(
        self, scope: TickScope, ctx: ReasonContext, working: WorkingMemory, contracts: Callable[[], Any]
    ) -> ModuleRun: ...

    def module_beliefs(self, proposals: list[Any]) -> list[dict[str, Any]]:
        """The belief proposals of the modules' ``deliberate`` outputs."""
        ...

    def active_goal(self, cached: Goal | None) -> Goal | None:
        """Working memory's active goal, if it still is one."""
        ...

    def goal_after_tick(self, ctx: ReasonContext, before: Goal | None) -> Goal | None: ...

    def plan_caller(self, externals: Externals, provider: bool, caller: Callable[[], ContractCaller]) -> Any:
        """The contract caller planning uses this tick (None: heuristics), recorded for replay."""
        ...

    def observe_plan(self, ctx: ReasonContext, plan: Plan, observation: Observation) -> tuple[Plan, str]:
        """Rule 4 after the act: the goal's step done, or its plan revised; what to add to the reply."""
        ...

    def too_many_steps(self, count: int) -> str:
        """The reply to a plan of ``count`` steps, over the limit."""
        ...
