"""Built-in plugin: the core contract files and the ``agi contracts`` command group."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from agi_core.hookspecs import hookimpl
from agi_core.plugins import contract_folder_hook

if TYPE_CHECKING:
    import click

#: the core contract files' folder (a str, not a Path: pathlib is not imported for agi --help)
SPECS = os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(__file__))), "contracts", "specs")

agi_register_contracts = contract_folder_hook(SPECS)


@hookimpl
def agi_register_commands(cli: click.Group) -> None:
    from agi_core.default_plugins.commands import add_lazy

    add_lazy(cli, {"contracts": ("agi_core.contracts.cli:contracts", CONTRACTS_SUMMARY)})


CONTRACTS_SUMMARY = "LLM output contracts: list them, check an output against one."
