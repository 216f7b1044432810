"""The Stage-0 brain, its router agents and its council (the module ``sem_council``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agi_core.hookspecs import Register, hookimpl

if TYPE_CHECKING:
    from agi_core.brain.stage0.brain import Stage0Brain

agi_manifest = {
    "description": "The Stage-0 brain, its router agents and its council (the module sem_council).",
    "settings": {
        "type": "object",
        "properties": {
            "council_weights": {
                "type": "object",
                "additionalProperties": {"type": "number", "minimum": 0},
                "default": {},
                "description": "How much each council voter's vote weighs, by voter name (default 1; 0 silences "
                "a voter, e.g. to replace sem_council's value_check by a module's own voter).",
            },
            "council_reject_weight": {
                "type": "number",
                "exclusiveMinimum": 0,
                "default": 1,
                "description": "A reply is replaced by F1 when its rejecting votes weigh at least this much.",
            },
        },
    },
}


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
    from agi_core.council import SemCouncil

    register(SemCouncil())
