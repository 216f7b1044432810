"""agi plugin: the learning module and the learning contracts it calls (entry point ``learning``)."""

from __future__ import annotations

from agi_core.hookspecs import Register, hookimpl
from agi_core.plugins import contract_folder_hook
from agi_plugin_learning import CONTRACTS

agi_register_contracts = contract_folder_hook(CONTRACTS)


@hookimpl
def agi_register_modules(register: Register) -> None:
    from agi_plugin_learning.module import LearningModule  # on use: agi --help imports every plugin

    register(LearningModule())
