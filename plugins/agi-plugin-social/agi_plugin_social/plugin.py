"""agi plugin: the social module and the social cognition contracts it calls (entry point ``social``)."""

from __future__ import annotations

from agi_core.hookspecs import Register, hookimpl
from agi_core.plugins import register_json_files
from agi_plugin_social import CONTRACTS
from agi_plugin_social.module import SocialModule


@hookimpl
def agi_register_contracts(register: Register) -> None:
    register_json_files(register, CONTRACTS)


@hookimpl
def agi_register_modules(register: Register) -> None:
    register(SocialModule())
