"""Errors raised by the contract engine; all derive from :class:`agi_core.errors.AgiError`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from agi_core.errors import AgiError, ValidationError

if TYPE_CHECKING:
    from agi_core.contracts.model import Issue


class ContractError(AgiError):
    """Something is wrong with a contract or its use (not with a model's output)."""


class UnknownContract(ContractError, KeyError):
    """No contract of that name is registered (a ``KeyError`` too, for ``Mapping`` use)."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "unknown contract"


class ContractFileError(ContractError, ValidationError):
    """A contract file is malformed: ``file`` is where, ``path`` the JSON path of the problem."""

    def __init__(self, file: str, path: str, problem: str) -> None:
        super().__init__(f"contract file {file} is invalid @ {path}: {problem}")
        self.file = file
        self.path = path
        self.problem = problem


class ReplayExhausted(ContractError):
    """A :class:`~agi_core.contracts.provider.RecordedProvider` was asked for more than it holds."""


class ContractViolation(ContractError, ValidationError):
    """A model's output could not be made to satisfy a contract within the budget.

    ``errors`` are the problems of the last attempt, each with a JSON path; ``reason`` is one
    of ``parse``, ``truncated``, ``schema``, ``too_large``, ``budget``, ``provider``;
    ``fallback`` is the contract's heuristic result (a frozen mapping) when one was computed,
    else ``None``. ``path`` is the JSON path of the first error.
    """

    def __init__(
        self,
        contract: str,
        reason: str,
        errors: Sequence[Issue] = (),
        *,
        attempts: int = 0,
        fallback: Mapping[str, Any] | None = None,
        fallback_error: str | None = None,
    ) -> None:
        self.contract = contract
        self.reason = reason
        self.errors = tuple(errors)
        self.attempts = attempts
        self.fallback = fallback
        self.fallback_error = fallback_error
        first = self.errors[0] if self.errors else None
        detail = f": {first}" if first else ""
        more = f" (+{len(self.errors) - 1} more)" if len(self.errors) > 1 else ""
        tail = "; a fallback result is attached" if fallback is not None else ""
        if fallback_error:
            tail = f"; the fallback failed too: {fallback_error}"
        super().__init__(
            f"contract {contract!r} violated after {attempts} attempt(s) ({reason}){detail}{more}{tail}",
            first.path if first else "$",
        )


__all__ = ["ContractError", "ContractFileError", "ContractViolation", "ReplayExhausted", "UnknownContract"]
