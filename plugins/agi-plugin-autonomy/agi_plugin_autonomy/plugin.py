"""agi plugin: the autonomy module and the autonomy contracts it calls (entry point ``autonomy``)."""

from __future__ import annotations

from agi_core.hookspecs import Register, hookimpl
from agi_core.plugins import contract_folder_hook
from agi_plugin_autonomy import CONTRACTS

agi_manifest = {
    "description": "The autonomy module: its own goals, pursued while the user is away, bounded and explained.",
    "settings": {
        "type": "object",
        "properties": {
            "idle_after_s": {
                "type": "number",
                "minimum": 0,
                "default": 300,
                "description": "Seconds without a line from the user before a maintenance tick acts on its own.",
            },
            "action_risk_limit": {
                "type": "number",
                "minimum": 0,
                "maximum": 1.01,
                "default": 0.8,
                "description": "A tool call the brain chose whose estimated risk (action_interface) reaches this "
                "is vetoed before it runs (without a model: read 0.1, write 0.5, external 0.7; above 1: never).",
            },
            "autonomous_ticks_per_hour": {
                "type": "integer",
                "minimum": 0,
                "maximum": 3600,
                "default": 6,
                "description": "At most this many maintenance ticks act on their own per hour (0: never).",
            },
            "model_calls_per_idle_tick": {
                "type": "integer",
                "minimum": 0,
                "maximum": 100,
                "default": 1,
                "description": "With a contract provider, at most this many of an idle tick's contract calls ask "
                "the model, taking turns over its contracts (the others: their heuristic); 0: never; 24: all.",
            },
        },
    },
}

agi_register_contracts = contract_folder_hook(CONTRACTS)


@hookimpl
def agi_register_modules(register: Register) -> None:
    from agi_plugin_autonomy.module import AutonomyModule  # on use: agi --help imports every plugin

    register(AutonomyModule())
