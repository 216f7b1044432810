"""The tick's parts from the floors above the kernel: the modules' runner, goals and plans,
scheduled jobs and the kernel commands (:mod:`agi_core.tickparts` says why they come this way).

Imported on use: listing the CLI's commands (``agi --help``) loads this plugin but runs no tick.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import cached_property
from typing import TYPE_CHECKING, Any

from agi_core.hookspecs import hookimpl

if TYPE_CHECKING:
    from agi_core.tickparts import TickParts


class CoreTickParts:
    """agi-core's own :class:`~agi_core.tickparts.TickParts`."""

    @cached_property
    def commands(self) -> Mapping[str, Callable[..., tuple[Any, ...]]]:
        from agi_core.commands import KERNEL_COMMANDS

        return KERNEL_COMMANDS

    def load_modules(self, plugins: Any) -> Sequence[Any]:
        from agi_core.modules.protocol import load_modules

        return load_modules(plugins)

    def begin_tick(self, store: Any, clock: Callable[[], int] | None, percept: Any, externals: Any) -> int | None:
        from agi_core.scheduling.commands import begin_tick

        return begin_tick(store, clock, percept, externals)

    def module_run(self, scope: Any, ctx: Any, working: Any, contracts: Callable[[], Any]) -> Any:
        from agi_core.modules.runner import ModuleTick

        return ModuleTick(scope, ctx, working=working, contracts=contracts)

    def module_beliefs(self, proposals: list[Any]) -> list[dict[str, Any]]:
        from agi_core.modules.proposals import module_beliefs

        return module_beliefs(proposals)

    def active_goal(self, cached: Any) -> Any:
        from agi_core.scheduling.goals import cached_active

        return cached_active(cached)

    def goal_after_tick(self, ctx: Any, before: Any) -> Any:
        from agi_core.scheduling.goals import active_after_tick

        return active_after_tick(ctx, before)

    def plan_caller(self, externals: Any, provider: bool, caller: Callable[[], Any]) -> Any:
        from agi_core.scheduling.planning import caller_for

        return caller_for(externals, provider, caller)

    def observe_plan(self, ctx: Any, plan: Any, observation: Any) -> tuple[Any, str]:
        from agi_core.scheduling.planning import planner_for
        from agi_core.scheduling.plans import observe

        return observe(ctx, plan, observation, planner_for(ctx))

    def too_many_steps(self, count: int) -> str:
        from agi_core.scheduling.plans import too_many_steps

        return too_many_steps(count)


@hookimpl
def agi_tick_parts() -> TickParts:
    return CoreTickParts()
