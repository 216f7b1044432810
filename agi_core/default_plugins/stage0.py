"""The Stage-0 brain, its router agents and its council (the module ``sem_council``)."""

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


@hookimpl
def agi_register_modules(register: Register) -> None:
    """The Stage-0 council (evidence_check, value_check) as the built-in module ``sem_council``."""
    from agi_core.modules.council import SemCouncil

    register(SemCouncil())
