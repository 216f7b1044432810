"""Built-in plugin: the core contract files and the ``agi contracts`` command group."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from agi_core.hookspecs import hookimpl
from agi_core.plugins import contract_folder_hook

if TYPE_CHECKING:
    import click

SPECS = Path(__file__).resolve().parent.parent / "contracts" / "specs"

agi_register_contracts = contract_folder_hook(SPECS)


@hookimpl
def agi_register_commands(cli: click.Group) -> None:
    from agi_core.default_plugins.commands import add_lazy

    add_lazy(cli, {"contracts": ("agi_core.contracts.cli:contracts", CONTRACTS_SUMMARY)})


CONTRACTS_SUMMARY = "LLM output contracts: list them, check an output against one."
