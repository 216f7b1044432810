"""The shapes of the contract engine: contracts, rules, prompt parts, issues and results.

A :class:`Contract` is data loaded from a JSON file (see ``schemas/contract.json``); the
engine that validates outputs against it is compiled on first use and cached on the
contract itself, so the hot path does one dictionary lookup to find it.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

import attrs

from agi_core.contracts.errors import ContractViolation
from agi_core.contracts.paths import ANY_ITEM

#: reasons a raw output can fail (``Result.reason``); the pipeline adds ``budget`` and ``provider``
REASONS = ("parse", "truncated", "too_large", "schema")


@attrs.frozen
class Issue:
    """One problem with an output: the JSON path, a short message, a machine-readable code."""

    path: str
    message: str
    code: str = "schema"

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"

    def to_dict(self) -> dict[str, str]:
        return {"path": self.path, "message": self.message, "code": self.code}


@attrs.frozen
class Result:
    """What :func:`~agi_core.contracts.validate.validate_and_normalize` returns.

    ``value`` is the normalized, deep-frozen object when the output satisfies the contract,
    else ``None``; then ``errors`` say why and ``reason`` is one of :data:`REASONS`.
    ``repairs`` names the cheap repairs that were needed to parse the text.
    """

    value: Mapping[str, Any] | None = None
    errors: tuple[Issue, ...] = ()
    reason: str | None = None
    repairs: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return self.value is not None

    def unwrap(self, contract: str = "?") -> Mapping[str, Any]:
        """The value, or raise :class:`ContractViolation` carrying the errors."""
        if self.value is None:
            raise ContractViolation(contract, self.reason or "schema", self.errors, attempts=1)
        return self.value


@attrs.frozen
class Rule:
    """One normalization rule: ``op`` applied at every match of the JSON path ``path``."""

    op: str
    path: str
    params: Mapping[str, Any] = attrs.field(factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"op": self.op, "path": self.path, **copy.deepcopy(dict(self.params))}


@attrs.frozen
class Prompt:
    """The prompt parts: the goal, instructions and one example output that validates."""

    goal: str
    instructions: tuple[str, ...]
    example: Mapping[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return {
            "goal": self.goal,
            "instructions": list(self.instructions),
            "example": copy.deepcopy(dict(self.example)),
        }


@attrs.frozen(eq=False)
class Contract:
    """An LLM output contract. Build it with :func:`agi_core.contracts.load_contract`."""

    name: str
    family: str
    owner_module: str
    description: str
    output_schema: Mapping[str, Any]
    prompt: Prompt
    normalize: tuple[Rule, ...] = ()
    fallback: str | None = None
    inputs: Mapping[str, str] = attrs.field(factory=dict)
    max_tokens: int = 512
    version: int = 1
    notes: tuple[str, ...] = ()
    source: str | None = None
    _cache: dict[str, Any] = attrs.field(factory=dict, init=False, repr=False)

    def schema(self) -> dict[str, Any]:
        """A fresh copy of the output JSON Schema (safe to hand to a provider)."""
        return copy.deepcopy(dict(self.output_schema))

    def required_paths(self) -> tuple[str, ...]:
        """JSON paths of every field the schema requires, e.g. ``$.rules[*].id``."""
        cached = self._cache.get("required")
        if cached is None:
            found: list[str] = []
            _required(self.output_schema, [], found)
            cached = self._cache["required"] = tuple(dict.fromkeys(found))
        return cached

    def to_dict(self) -> dict[str, Any]:
        """The contract as it is written in a contract file."""
        data: dict[str, Any] = {
            "name": self.name,
            "version": self.version,
            "family": self.family,
            "owner_module": self.owner_module,
            "description": self.description,
        }
        if self.inputs:
            data["inputs"] = dict(self.inputs)
        data["output_schema"] = self.schema()
        data["normalize"] = [rule.to_dict() for rule in self.normalize]
        data["prompt"] = self.prompt.to_dict()
        if self.fallback:
            data["fallback"] = self.fallback
        data["limits"] = {"max_tokens": self.max_tokens}
        if self.notes:
            data["notes"] = list(self.notes)
        return data


def _required(schema: Any, trail: list[str], found: list[str]) -> None:
    """Unconditional ``required`` names of each object, through ``properties`` and ``items``.

    Requirements inside ``anyOf`` or ``if``/``then`` are conditional and not listed.
    """
    if not isinstance(schema, Mapping):
        return
    for name in schema.get("required", ()):
        found.append(_text([*trail, name]))
    for name, sub in schema.get("properties", {}).items():
        _required(sub, [*trail, name], found)
    items = schema.get("items")
    if isinstance(items, Mapping):
        _required(items, [*trail, ANY_ITEM], found)


def _text(trail: list[str]) -> str:
    return "$" + "".join(part if part == ANY_ITEM else f".{part}" for part in trail)


__all__ = ["REASONS", "Contract", "Issue", "Prompt", "Result", "Rule"]
