"""Built-in plugin: the core contract files and the ``agi contracts`` command group."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from agi_core.hookspecs import Register, hookimpl
from agi_core.plugins import register_json_files

if TYPE_CHECKING:
    import click

SPECS = Path(__file__).resolve().parent.parent / "contracts" / "specs"


@hookimpl
def agi_register_contracts(register: Register) -> None:
    register_json_files(register, SPECS)


@hookimpl
def agi_register_commands(cli: click.Group) -> None:
    from agi_core.default_plugins.commands import add_lazy

    add_lazy(cli, {"contracts": ("agi_core.contracts.cli:contracts", CONTRACTS_SUMMARY)})


CONTRACTS_SUMMARY = "LLM output contracts: list them, check an output against one."
