"""agi plugin: registers the retrieval contracts (entry point ``retrieval``)."""

from agi_core.plugins import contract_folder_hook
from agi_plugin_retrieval import CONTRACTS

agi_register_contracts = contract_folder_hook(CONTRACTS)
