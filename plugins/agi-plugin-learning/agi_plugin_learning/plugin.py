"""agi plugin: registers the learning contracts (entry point ``learning``)."""

from agi_core.plugins import contract_folder_hook
from agi_plugin_learning import CONTRACTS

agi_register_contracts = contract_folder_hook(CONTRACTS)
