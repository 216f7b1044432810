"""agi plugin: the beliefs module and the beliefs contracts it calls (entry point ``beliefs``)."""

from __future__ import annotations

from agi_core.hookspecs import Register, hookimpl
from agi_core.plugins import register_json_files
from agi_plugin_beliefs import CONTRACTS
from agi_plugin_beliefs.module import BeliefsModule


@hookimpl
def agi_register_contracts(register: Register) -> None:
    register_json_files(register, CONTRACTS)


@hookimpl
def agi_register_modules(register: Register) -> None:
    register(BeliefsModule())
