"""The contract call: prompt -> provider -> validate/normalize -> retry -> fallback -> violation.

::

    variables ─► build_messages ─► provider.complete(schema=…) ─► validate_and_normalize ─► CallResult
                        ▲                                   │ invalid
                        └── errors fed back (attempt budget, token budget) ◄┘
                                                            │ out of budget / truncated / provider error
                                                            ▼
                                         fallback(variables) ─► ContractViolation(errors, fallback=…)

Every attempt (and the fallback) is reported to ``journal`` as a JSON-ready dict, so a replay
can serve the recorded completions with :class:`~agi_core.contracts.provider.RecordedProvider`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any

import attrs

from agi_core.contracts.errors import ContractError, ContractViolation, ReplayExhausted
from agi_core.contracts.model import Contract, Issue, Result
from agi_core.contracts.prompt import build_messages, estimate_tokens, feedback_messages, truncation_message
from agi_core.contracts.provider import Completion, Provider, completion_to_dict, messages_digest
from agi_core.contracts.validate import validate_and_normalize, validate_plain
from agi_core.errors import ReplayMismatch

Journal = Callable[[dict[str, Any]], Any]
#: an attempt is not started when fewer completion tokens than this remain
MIN_COMPLETION_TOKENS = 16


@attrs.frozen
class Budget:
    """Limits of one contract call: attempts, total tokens (prompt + completion), tokens per answer."""

    attempts: int = attrs.field(default=3, validator=attrs.validators.ge(1))
    tokens: int = attrs.field(default=8192, validator=attrs.validators.ge(1))
    max_tokens: int | None = None  # per answer; None: the contract's limit


@attrs.frozen
class CallResult:
    """A satisfied contract call: the normalized, frozen value and what it cost."""

    contract: str
    value: Mapping[str, Any]
    attempts: int
    tokens: int
    repairs: tuple[str, ...] = ()
    #: the model's native tool calls, when it answered with some and the call asked to
    #: stop there (``tool_calls_end``); ``value`` is then empty
    tool_calls: tuple[Any, ...] = ()


def call_contract(
    contract: Contract,
    provider: Provider,
    variables: Mapping[str, Any],
    *,
    budget: Budget,
    journal: Journal | None = None,
    fallback: bool = True,
    temperature: float = 0.0,
    seed: int | None = None,
    tool_calls_end: bool = False,
) -> CallResult:
    """Ask ``provider`` for an output satisfying ``contract``, within ``budget``.

    Returns a :class:`CallResult`, or raises :class:`ContractViolation` carrying the last
    errors and, when ``fallback`` is true and the contract names one, the fallback's
    normalized result in ``.fallback``. Replay divergences are re-raised as they are.
    With ``tool_calls_end``, an answer made of native tool calls ends the call at once
    (outcome ``tool_call``, no retry): the result carries the calls and an empty value.
    """
    base = build_messages(contract, variables)
    messages, schema = base, contract.schema()
    per_answer = budget.max_tokens or contract.max_tokens
    spent = attempts = 0
    errors: tuple[Issue, ...] = ()
    reason = "budget"
    while attempts < budget.attempts:
        room = budget.tokens - spent - estimate_tokens(messages)
        max_tokens = min(per_answer, room)
        if max_tokens < MIN_COMPLETION_TOKENS:
            reason = "budget"
            errors = errors or (Issue("$", f"token budget of {budget.tokens} exhausted ({spent} spent)", "budget"),)
            break
        attempts += 1
        record: dict[str, Any] = {
            "kind": "contract_attempt",
            "contract": contract.name,
            "attempt": attempts,
            "provider": getattr(provider, "name", "?"),
            "request": {
                "messages": messages,
                "messages_sha256": messages_digest(messages),
                "max_tokens": max_tokens,
                "temperature": temperature,
                "seed": seed,
            },
        }
        try:
            completion = provider.complete(
                list(messages), schema=schema, max_tokens=max_tokens, temperature=temperature, seed=seed
            )
        except (ReplayExhausted, ReplayMismatch):
            raise
        except Exception as exc:  # noqa: BLE001 - a provider failure ends the attempts, not the agent
            cause = f"{type(exc).__name__}: {' '.join(str(exc).split())}"
            reason, errors = "provider", (Issue("$", f"provider failed: {cause}"[:300], "provider"),)
            _report(
                journal,
                {
                    **record,
                    "completion": None,
                    "error": cause,
                    "outcome": "provider",
                    "errors": [e.to_dict() for e in errors],
                },
            )
            break
        spent += _tokens(completion, messages)
        if tool_calls_end and completion.tool_calls:
            _report(journal, {**record, "completion": completion_to_dict(completion), "outcome": "tool_call"})
            return CallResult(contract.name, MappingProxyType({}), attempts, spent, tool_calls=completion.tool_calls)
        result = validate_and_normalize(contract, completion.text)
        truncated = not result.ok and (result.reason == "truncated" or completion.finish_reason == "length")
        outcome = "ok" if result.ok else "truncated" if truncated else result.reason or "schema"
        _report(
            journal,
            {
                **record,
                "completion": completion_to_dict(completion),
                "outcome": outcome,
                "errors": [e.to_dict() for e in result.errors],
                "repairs": list(result.repairs),
            },
        )
        if result.value is not None:
            return CallResult(contract.name, result.value, attempts, spent, result.repairs)
        reason, errors = outcome, result.errors or (Issue("$", "the answer was cut off", "truncated"),)
        if truncated:
            grown = min(2 * max_tokens, budget.tokens - spent - estimate_tokens(base) - 64)
            if grown <= max_tokens:
                break  # the same limit would cut the answer off again: fail fast
            per_answer, messages = grown, base + truncation_message(max_tokens)
        else:
            messages = base + feedback_messages(completion.text, result.errors)
    value, problem = _run_fallback(contract, variables, journal) if fallback and contract.fallback else (None, None)
    raise ContractViolation(contract.name, reason, errors, attempts=attempts, fallback=value, fallback_error=problem)


def _tokens(completion: Completion, messages: list[dict[str, Any]]) -> int:
    reported = completion.prompt_tokens + completion.completion_tokens
    return reported if reported > 0 else estimate_tokens(messages) + len(completion.text) // 4 + 1


def _report(journal: Journal | None, record: dict[str, Any]) -> None:
    if journal is not None:
        journal(record)


def resolve_fallback(contract: Contract) -> Callable[[Mapping[str, Any]], Any]:
    """Import the contract's ``module:function`` fallback (cached on the contract)."""
    found = contract._cache.get("fallback")
    if found is None:
        if not contract.fallback:
            raise ContractError(f"contract {contract.name!r} declares no fallback")
        module_name, _, attr = contract.fallback.partition(":")
        try:
            found = getattr(importlib.import_module(module_name), attr)
        except (ImportError, AttributeError) as exc:
            raise ContractError(
                f"fallback {contract.fallback!r} of contract {contract.name!r} cannot be "
                f"imported ({type(exc).__name__}: {exc}); fix the contract file"
            ) from None
        contract._cache["fallback"] = found
    return found


def run_fallback(contract: Contract, variables: Mapping[str, Any]) -> Result:
    """Call the contract's fallback and validate its output like a model's."""
    return validate_and_normalize(contract, resolve_fallback(contract)(MappingProxyType(dict(variables))))


def run_fallback_plain(contract: Contract, variables: Mapping[str, Any]) -> tuple[Any, tuple[Issue, ...]]:
    """:func:`run_fallback` with the value as a plain copy (see :func:`validate_plain`): ``(value, ())``
    or ``(None, errors)``."""
    return validate_plain(contract, resolve_fallback(contract)(MappingProxyType(dict(variables))))


def _run_fallback(
    contract: Contract, variables: Mapping[str, Any], journal: Journal | None
) -> tuple[Mapping[str, Any] | None, str | None]:
    record = {"kind": "contract_fallback", "contract": contract.name, "fallback": contract.fallback}
    try:
        result = run_fallback(contract, variables)
    except Exception as exc:  # noqa: BLE001 - a broken heuristic must not hide the violation
        problem = f"{type(exc).__name__}: {exc}"[:300]
        _report(
            journal, {**record, "outcome": "error", "errors": [{"path": "$", "message": problem, "code": "fallback"}]}
        )
        return None, problem
    _report(
        journal, {**record, "outcome": "ok" if result.ok else "invalid", "errors": [e.to_dict() for e in result.errors]}
    )
    if result.value is None:
        return None, f"the fallback returned an invalid object: {result.errors[0]}"
    return result.value, None


__all__ = ["Budget", "CallResult", "Journal", "call_contract", "resolve_fallback", "run_fallback", "run_fallback_plain"]
