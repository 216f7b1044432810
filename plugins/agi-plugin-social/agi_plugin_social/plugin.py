"""agi plugin: registers the social cognition contracts (entry point ``social``)."""

from agi_core.plugins import contract_folder_hook
from agi_plugin_social import CONTRACTS

agi_register_contracts = contract_folder_hook(CONTRACTS)
