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
        self._shared: dict[str, Any] = {}  # name: the kernel's one LazyProvider of that name (brain and contracts)
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

    def provider(self, name: str) -> Any:
        """The kernel's one provider ``name`` (a :class:`~agi_core.llm.lazy.LazyProvider`, built on its first
        call), shared by the LLM brain and the contract calls: an in-process model is loaded once, not once
        for each. ``name`` must be one of :attr:`providers`."""
        kept = self._shared.get(name)
        if kept is None:
            from agi_core.llm.lazy import LazyProvider

            kept = self._shared[name] = LazyProvider(name, self.providers[name], timeout_s=self._config().llm_timeout_s)
        return kept

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
            providers = self.providers
            if name not in providers:
                raise ConfigError(
                    f"no LLM provider named {name!r} for contract calls (--contract-provider); "
                    f"installed: {', '.join(sorted(providers)) or 'none'}"
                )
            self._provider = self.provider(name)
        report = None
        if name:
            report = functools.partial(self._plugins.report_failure, "contracts", f"contract provider {name!r}")
        provider = None if self._provider is None else functools.partial(self._timed_provider, externals)
        self._caller = ContractCaller(self.registry, externals, provider, report=report)
        return self._caller

    def close(self) -> None:
        """Close the providers that were made (an in-process model frees its memory)."""
        for provider in self._shared.values():
            provider.close()

    def _timed_provider(self, externals: Externals) -> Provider:
        """The contract provider, its requests under ``--llm-timeout`` (else an in-process model's own limit);
        none is made for a module's call that was abandoned (the model may be the brain's too)."""
        from agi_core.llm.lazy import TimedRequests

        return TimedRequests(self._provider(), self._config().llm_timeout_s, externals.abandonment)
