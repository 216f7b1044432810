"""agi plugin: registers the autonomy contracts (entry point ``autonomy``)."""

from agi_core.plugins import contract_folder_hook
from agi_plugin_autonomy import CONTRACTS

agi_register_contracts = contract_folder_hook(CONTRACTS)
