"""agi plugin: the social module and the social contracts it calls (entry point ``social``)."""

from __future__ import annotations

from agi_core.hookspecs import Register, hookimpl
from agi_core.plugins import contract_folder_hook
from agi_plugin_social import CONTRACTS

agi_register_contracts = contract_folder_hook(CONTRACTS)


@hookimpl
def agi_register_modules(register: Register) -> None:
    from agi_plugin_social.module import SocialModule  # on use: agi --help imports every plugin

    register(SocialModule())
