"""agi plugin: registers the social cognition contracts (entry point ``social``)."""

from __future__ import annotations

from agi_core.hookspecs import Register, hookimpl
from agi_core.plugins import register_json_files
from agi_plugin_social import CONTRACTS


@hookimpl
def agi_register_contracts(register: Register) -> None:
    register_json_files(register, CONTRACTS)
