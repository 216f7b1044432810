"""agi plugin: registers the beliefs contracts (entry point ``beliefs``)."""

from agi_core.plugins import contract_folder_hook
from agi_plugin_beliefs import CONTRACTS

agi_register_contracts = contract_folder_hook(CONTRACTS)
