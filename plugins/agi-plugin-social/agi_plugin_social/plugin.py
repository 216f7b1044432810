"""agi plugin: registers the social cognition contracts (entry point ``social``)."""

from __future__ import annotations

from agi_core.hookspecs import Register, hookimpl
from agi_plugin_social import CONTRACTS


@hookimpl
def agi_register_contracts(register: Register) -> None:
    for path in sorted(CONTRACTS.glob("*.json")):
        register(path, name=path.stem)
