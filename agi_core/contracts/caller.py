"""Contract calls made by kernel code during a tick: modules, planning, beliefs.

A :class:`ContractCaller` answers ``call(name, variables)`` with a :class:`ContractOutcome`:

- with a provider configured (``KernelConfig.contract_provider``, ``--contract-provider`` or
  ``AGI_CONTRACT_PROVIDER``), the model is asked through the contract pipeline (validation,
  repairs, retries with the errors fed back) and a violation falls back to the contract's
  heuristic;
- without one, or when the caller asks with ``model=False``, the contract's heuristic fallback
  answers at once (no model is loaded);
- a contract with neither gives ``source="none"`` and the reasons in ``errors``;
- once a call of the tick finds the provider unreachable (no connection, a timeout, no model:
  ``ProviderError.unreachable``), the tick's later calls do not ask it: the heuristic answers at
  once, its ``errors`` saying why, and ``report`` says it on one line (the next tick asks again).

The whole outcome (value, source, errors, one summary per model attempt) is recorded as the
tick's ``contract_call`` external, so ``agi replay`` serves it back and never calls the model
or re-runs the heuristic. The record is plain data nothing else holds (a heuristic's output is
checked into a copy, never frozen and thawed); the caller gets a copy of its own. The provider
is separate from the LLM brain's on purpose: the embedded SmolLM2 takes seconds per call, so
contract calls in every tick need an opt-in.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Literal

import attrs

from agi_core.contracts.errors import ContractViolation
from agi_core.contracts.frozen import plain_copy, thaw
from agi_core.contracts.model import Contract
from agi_core.contracts.pipeline import Budget, call_contract, run_fallback_plain
from agi_core.contracts.provider import Provider
from agi_core.contracts.registry import ContractRegistry
from agi_core.externals import Externals

Source = Literal["llm", "fallback", "none"]
EXTERNAL = "contract_call"
#: the default limits of one contract call made by kernel code
DEFAULT_BUDGET = Budget(attempts=2, tokens=4000, max_tokens=256)


@attrs.frozen
class ContractOutcome:
    """What one contract call gave: ``value`` (plain JSON data) or ``None``, and where it came from.

    ``source`` is ``llm`` (the model's output satisfied the contract), ``fallback`` (the
    contract's heuristic answered: no provider, or the model's output was refused) or
    ``none`` (nothing usable; ``errors`` says why).
    """

    contract: str
    value: dict[str, Any] | None
    source: Source
    errors: list[str] = attrs.field(factory=list)
    attempts: list[dict[str, Any]] = attrs.field(factory=list)

    @property
    def ok(self) -> bool:
        return self.value is not None

    def to_dict(self) -> dict[str, Any]:
        """Plain data (the recorded external); ``value`` is shared, not copied (see :meth:`ContractCaller.call`)."""
        return {
            "contract": self.contract,
            "value": self.value,
            "source": self.source,
            "errors": list(self.errors),
            "attempts": list(self.attempts),
        }

    def advised(self, key: str, accept: Callable[[Any], object] = lambda _: True) -> Any:
        """The model's ``value[key]`` when the model answered (``source == "llm"``) and ``accept`` takes it (returns
        a truthy value), else None: the caller's own heuristic decides (a contract's fallback is no better than the
        caller's)."""
        if self.source != "llm" or not isinstance(self.value, Mapping) or key not in self.value:
            return None
        found = self.value[key]
        try:
            return found if accept(found) else None
        except (TypeError, ValueError, KeyError, AttributeError):  # a value of the wrong shape is refused
            return None

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ContractOutcome:
        """The outcome of a recorded external; ``value`` and ``attempts`` are shared with ``data``, not copied."""
        return cls(
            contract=str(data["contract"]),
            value=data.get("value"),
            source=data["source"],
            errors=list(data.get("errors", [])),
            attempts=list(data.get("attempts", [])),
        )


class ContractCaller:
    """Calls registered contracts for one tick; every outcome is a recorded external.

    :param contracts: the registered contracts (``registry_from_plugins``).
    :param externals: the tick's externals (live: recorded; replaying: served back).
    :param provider: builds the provider on first use, or ``None`` for heuristics only.
    :param budget: attempts and tokens of one call.
    :param report: told, once, the one-line reason when the provider is found unreachable.
    """

    def __init__(
        self,
        contracts: ContractRegistry,
        externals: Externals,
        provider: Callable[[], Provider] | None = None,
        *,
        budget: Budget = DEFAULT_BUDGET,
        report: Callable[[str], None] | None = None,
    ) -> None:
        self.contracts = contracts
        self.externals = externals
        self.provider = provider
        self.budget = budget
        self.report = report
        #: why the provider cannot answer, once a call found it so: later calls do not ask it
        self.unreachable: str | None = None

    def call(self, name: str, variables: Mapping[str, Any], *, model: bool = True) -> ContractOutcome:
        """The outcome of contract ``name`` on ``variables`` (an unknown name raises ``UnknownContract``).

        ``model=False``: the contract's heuristic answers even with a provider configured (a caller
        that bounds its model calls); the outcome is recorded all the same.

        The outcome's ``value`` and ``attempts`` are the caller's own copies: changing them leaves
        the recorded external (what the journal keeps, what replay serves) as it was.
        """
        contract = self.contracts[name]
        served = self.externals.fetch(EXTERNAL, lambda: self._record(contract, variables, model))
        if served.get("contract") != contract.name:
            from agi_core.errors import ReplayMismatch

            raise ReplayMismatch(
                f"replay asked for contract {name!r} but the journal recorded {served.get('contract')!r}; "
                "the run is not the one that was recorded"
            )
        value, attempts = served.get("value"), served.get("attempts")
        return ContractOutcome(
            contract.name,
            None if value is None else plain_copy(value),
            served["source"],
            list(served.get("errors", [])),
            plain_copy(attempts) if attempts else [],
        )

    def _record(self, contract: Contract, variables: Mapping[str, Any], model: bool) -> dict[str, Any]:
        """The external to record: the heuristic's output checked into a plain copy of its own (no
        outcome object, no freeze and thaw), or the model's outcome."""
        asks = self.provider is not None and model
        if asks and self.unreachable is None:
            return self._ask_model(contract, self.provider(), variables).to_dict()  # type: ignore[misc]
        name = contract.name
        skipped = [f"model not asked: {self.unreachable}"] if asks else []
        if not contract.fallback:
            why = "the model was not asked" if asks else "no provider configured"
            return _record(name, None, "none", [*skipped, f"{why} and {name!r} has no fallback"])
        try:
            value, problems = run_fallback_plain(contract, variables)
        except Exception as exc:  # noqa: BLE001 - a broken heuristic is an outcome, not a crash
            return _record(name, None, "none", [*skipped, f"fallback failed: {type(exc).__name__}: {exc}"[:300]])
        if value is None:
            return _record(name, None, "none", [*skipped, *(f"fallback output refused: {e}" for e in problems)])
        return _record(name, value, "fallback", skipped)

    def _ask_model(self, contract: Contract, provider: Provider, variables: Mapping[str, Any]) -> ContractOutcome:
        """The model's outcome (its heuristic's when the model's output is refused)."""
        name = contract.name
        attempts: list[dict[str, Any]] = []
        watched = _Watched(provider)
        try:
            done = call_contract(
                contract, watched, variables, budget=self.budget, journal=lambda r: attempts.append(_summary(r))
            )
        except ContractViolation as violation:
            if watched.unreachable is not None and self.unreachable is None:
                self.unreachable = watched.unreachable
                if self.report is not None:
                    self.report(f"{watched.unreachable}; the contracts' heuristics answer for the rest of the tick")
            errors = [str(issue) for issue in violation.errors]
            if violation.fallback is not None:
                return ContractOutcome(name, thaw(violation.fallback), "fallback", errors, attempts)
            if violation.fallback_error:
                errors.append(f"fallback failed: {violation.fallback_error}")
            return ContractOutcome(name, None, "none", errors, attempts)
        return ContractOutcome(name, thaw(done.value), "llm", [], attempts)


class _Watched:
    """The provider, keeping the one-line cause of a failure that says it cannot answer now
    (``unreachable`` on the error: ``agi_core.llm.ProviderError``); every call goes through unchanged."""

    def __init__(self, provider: Provider) -> None:
        self.provider = provider
        self.name = getattr(provider, "name", "?")
        self.unreachable: str | None = None

    def complete(self, messages: list[dict[str, Any]], **options: Any) -> Any:
        try:
            return self.provider.complete(messages, **options)
        except Exception as exc:
            if getattr(exc, "unreachable", False) is True:
                self.unreachable = f"{type(exc).__name__}: {' '.join(str(exc).split())}"[:300]
            raise


def _record(contract: str, value: Any, source: Source, errors: list[str]) -> dict[str, Any]:
    """:meth:`ContractOutcome.to_dict` of an outcome with no model attempt, built directly."""
    return {"contract": contract, "value": value, "source": source, "errors": errors, "attempts": []}


def _summary(record: Mapping[str, Any]) -> dict[str, Any]:
    """One model attempt, small: the completion text is enough to see what the model said."""
    completion = record.get("completion") or {}
    return {
        "kind": record.get("kind"),
        "attempt": record.get("attempt"),
        "outcome": record.get("outcome"),
        "text": completion.get("text") if isinstance(completion, Mapping) else None,
        "errors": [error.get("message") for error in record.get("errors", [])],
    }


__all__ = ["ContractCaller", "ContractOutcome"]
