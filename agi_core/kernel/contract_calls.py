"""The kernel's contracts: the registry, the LLM provider factories and each tick's contract caller,
each made on first use (a rule-only agent loads none of them)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from agi_core.contracts.caller import ContractCaller
from agi_core.errors import ConfigError
from agi_core.externals import Externals
from agi_core.plugins import Plugins

if TYPE_CHECKING:
    from agi_core.contracts.provider import Provider
    from agi_core.contracts.registry import ContractRegistry
    from agi_core.kernel.config import KernelConfig


class ContractCalls:
    """``plugins``' contracts and providers; ``config()`` is the kernel's configuration, read when a caller is made."""

    def __init__(self, plugins: Plugins, config: Callable[[], KernelConfig]) -> None:
        self._plugins, self._config = plugins, config
        self._registry: ContractRegistry | None = None
        self._providers: dict[str, Any] | None = None
        self._provider: Any = None  # the contract provider (a LazyProvider), made on the first caller that needs it
        self._caller: ContractCaller | None = None  # the last tick's

    @property
    def registry(self) -> ContractRegistry:
        """The contracts the plugins register, collected on first use (``agi_register_contracts`` runs once)."""
        if self._registry is None:
            from agi_core.contracts.registry import registry_from_plugins

            self._registry = registry_from_plugins(self._plugins)
        return self._registry

    @property
    def providers(self) -> dict[str, Any]:
        """The LLM provider factories, by name, collected on first use (``agi_register_llm_providers`` runs once)."""
        if self._providers is None:
            self._providers = {name: reg.obj for name, reg in self._plugins.register_llm_providers().items()}
        return self._providers

    def for_tick(self, externals: Externals) -> ContractCaller:
        """The :class:`ContractCaller` of the tick whose externals are ``externals`` (one per tick, shared by
        planning and the modules): the model of ``contract_provider`` when one is configured, the contracts'
        heuristic fallbacks otherwise; every outcome recorded in ``externals``. A provider found unreachable
        is reported once (``plugins.report_failure``) and not asked again in that tick."""
        kept = self._caller
        if kept is not None and kept.externals is externals:
            return kept
        config = self._config()
        name = config.contract_provider
        if name and self._provider is None:
            from agi_core.llm.lazy import LazyProvider

            providers = self.providers
            if name not in providers:
                raise ConfigError(
                    f"no LLM provider named {name!r} for contract calls (--contract-provider); "
                    f"installed: {', '.join(sorted(providers)) or 'none'}"
                )
            self._provider = LazyProvider(name, providers[name], timeout_s=config.llm_timeout_s)
        report = None
        if name:
            report = functools.partial(self._plugins.report_failure, "contracts", f"contract provider {name!r}")
        provider = None if self._provider is None else self._timed_provider
        self._caller = ContractCaller(self.registry, externals, provider, report=report)
        return self._caller

    def close(self) -> None:
        """Close the contract provider, if one was made (an in-process model frees its memory)."""
        if self._provider is not None:
            self._provider.close()

    def _timed_provider(self) -> Provider:
        """The contract provider, its requests under ``--llm-timeout`` (else an in-process model's own limit)."""
        from agi_core.llm.lazy import TimedRequests

        return TimedRequests(self._provider(), self._config().llm_timeout_s)
