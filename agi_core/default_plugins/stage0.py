"""The Stage-0 brain and its router agents."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agi_core.hookspecs import Register, hookimpl

if TYPE_CHECKING:
    from agi_core.brain.stage0.brain import Stage0Brain


def stage0_brain(kernel: Any) -> Stage0Brain:
    from agi_core.brain.stage0.brain import Stage0Brain

    return Stage0Brain(kernel.router_agents.values(), timeout_s=kernel.config.timeout_s)


@hookimpl
def agi_register_router_agents(register: Register) -> None:
    from agi_core.brain.stage0.agents import STAGE0_AGENTS

    for agent in STAGE0_AGENTS:
        register(agent)


@hookimpl
def agi_register_brains(register: Register) -> None:
    register(stage0_brain, name="stage0")
