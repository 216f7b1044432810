"""The set of contracts the loaded plugins registered, each with its owning plugin."""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from agi_core.contracts.errors import UnknownContract
from agi_core.contracts.loader import contract_from_dict, load_contract
from agi_core.contracts.model import Contract
from agi_core.contracts.validate import compile_schema
from agi_core.errors import RegistrationError
from agi_core.schemas import RemoteReference

if TYPE_CHECKING:
    from agi_core.plugins import Plugins

HOOK = "agi_register_contracts"


@attrs.frozen
class Entry:
    """A registered contract and the plugin that registered it."""

    contract: Contract
    plugin: str


class ContractRegistry(Mapping[str, Contract]):
    """Contracts by name. ``registry[name]`` raises :class:`UnknownContract` (a ``KeyError``)."""

    def __init__(self) -> None:
        self._entries: dict[str, Entry] = {}

    def add(self, contract: Contract, plugin: str = "<direct>") -> None:
        """Add one contract; a name registered twice is an error naming both plugins."""
        previous = self._entries.get(contract.name)
        if previous is not None:
            raise RegistrationError.duplicate("contract", contract.name, previous.plugin, plugin)
        self._entries[contract.name] = Entry(contract, plugin)

    def __getitem__(self, name: str) -> Contract:
        try:
            return self._entries[name].contract
        except KeyError:
            raise UnknownContract(
                f"no contract named {name!r}; `agi contracts list` shows the {len(self._entries)} registered ones"
            ) from None

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(self._entries))

    def __len__(self) -> int:
        return len(self._entries)

    def plugin_of(self, name: str) -> str:
        """The name of the plugin that registered contract ``name``."""
        self[name]
        return self._entries[name].plugin

    def entries(self) -> list[Entry]:
        """Every entry, sorted by contract name."""
        return [self._entries[name] for name in self]

    def by_plugin(self) -> dict[str, list[str]]:
        """Contract names grouped by owning plugin."""
        grouped: dict[str, list[str]] = {}
        for entry in self.entries():
            grouped.setdefault(entry.plugin, []).append(entry.contract.name)
        return grouped


def as_contract(name: str, obj: Any) -> Contract:
    """What a plugin passed to ``register`` (file path, Contract or dict) as a checked Contract.

    The registration name must be the contract's name (or, for a path registered without
    ``name=``, the file name); anything else is refused.
    """
    if isinstance(obj, Contract):
        contract = obj
        try:
            compile_schema(contract.output_schema, f"contract {contract.name!r}: output_schema")  # as a file's is
        except RemoteReference as exc:  # refused now, never fetched
            raise RegistrationError(str(exc)) from None
    elif isinstance(obj, (str, os.PathLike)):
        contract = load_contract(obj)
        if name == Path(obj).name:
            return contract
    elif isinstance(obj, Mapping):
        contract = contract_from_dict(obj, source=f"<contract {name}>")
    else:
        raise RegistrationError(
            f"cannot register {type(obj).__name__} as a contract; pass the path "
            f"of a contract file, a Contract or a dict"
        )
    if contract.name != name:
        raise RegistrationError(
            f"contract {contract.name!r} was registered under the name {name!r}; "
            f"call register(obj, name={contract.name!r})"
        )
    return contract


def registry_from_plugins(plugins: Plugins) -> ContractRegistry:
    """Run ``agi_register_contracts`` across ``plugins`` and collect a registry.

    A plugin whose contract is malformed or duplicated is reported in ``plugins.failures``
    (with the file and the JSON path) and that contract is skipped; the others load.
    """
    registry = ContractRegistry()
    for registration in plugins.register_contracts(validate=as_contract).values():
        try:
            registry.add(registration.obj, registration.plugin)
        except RegistrationError as exc:  # a path and a name that both mean one contract
            _report(plugins, registration.plugin, exc)
    return registry


def _report(plugins: Plugins, plugin: str, exc: Exception) -> None:
    plugins.report_failure(plugin, HOOK, exc)


__all__ = ["ContractRegistry", "Entry", "as_contract", "registry_from_plugins"]
