"""A stand-in for main's ContractCaller until it is merged: the contract's heuristic fallback, recorded."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from agi_core.externals import Externals


@attrs.frozen
class ContractOutcome:
    contract: str
    value: dict[str, Any] | None
    source: str
    errors: list[str] = attrs.field(factory=list)


class StandinCaller:
    def __init__(self, kernel: Any, externals: Externals) -> None:
        self.kernel, self.externals = kernel, externals

    def call(self, name: str, variables: Mapping[str, Any]) -> ContractOutcome:
        def compute() -> dict[str, Any]:
            from agi_core.contracts.frozen import thaw
            from agi_core.contracts.pipeline import run_fallback
            from agi_core.contracts.registry import registry_from_plugins

            registry = getattr(self.kernel, "_standin_contracts", None)
            if registry is None:
                registry = self.kernel._standin_contracts = registry_from_plugins(self.kernel.plugins)
            result = run_fallback(registry[name], variables)
            if result.value is None:
                return {"contract": name, "value": None, "source": "none", "errors": [str(e) for e in result.errors]}
            return {"contract": name, "value": thaw(result.value), "source": "fallback", "errors": []}

        return ContractOutcome(**self.externals.fetch("contract_call", compute))
