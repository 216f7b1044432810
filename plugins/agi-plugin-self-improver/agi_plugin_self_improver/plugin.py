"""agi plugin: registers the self-improvement contracts (entry point ``self_improver``)."""

from agi_core.plugins import contract_folder_hook
from agi_plugin_self_improver import CONTRACTS

agi_register_contracts = contract_folder_hook(CONTRACTS)
