"""agi plugin: registers the retrieval contracts (entry point ``retrieval``)."""

from __future__ import annotations

from agi_core.hookspecs import Register, hookimpl
from agi_plugin_retrieval import CONTRACTS


@hookimpl
def agi_register_contracts(register: Register) -> None:
    for path in sorted(CONTRACTS.glob("*.json")):
        register(path, name=path.stem)
