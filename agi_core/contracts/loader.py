"""Loading contract files: JSON -> checked against ``schemas/contract.json`` -> :class:`Contract`.

A malformed file is refused with one line naming the file and the JSON path of the first
problem, e.g. ``contract file x.json is invalid @ $.normalize[2].op: must be one of ...``.
Besides the meta-schema, loading checks that the output schema compiles, that every rule
path parses and that the prompt's example output satisfies the contract.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

import jsonschema_rs

from agi_core.contracts.errors import ContractFileError
from agi_core.contracts.model import Contract, Prompt, Rule
from agi_core.contracts.validate import compile_schema, schema_issues, validate_and_normalize
from agi_core.schemas import RemoteReference, remote_problem, schemas_dir

_RANK = {"unevaluatedProperties": 1, "anyOf": 1}


def meta_schema_path() -> Path:
    """The meta-schema every contract file is validated against (``schemas/contract.json``)."""
    return schemas_dir() / "contract.json"


@lru_cache(maxsize=1)
def _meta_validator() -> Any:
    return compile_schema(json.loads(meta_schema_path().read_text(encoding="utf-8")))


def load_contract(path: str | os.PathLike[str]) -> Contract:
    """Read, check and build the contract in the file ``path``."""
    where = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ContractFileError(where, "$", f"cannot be read ({type(exc).__name__}: {exc})") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ContractFileError(
            where, "$", f"not valid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"
        ) from None
    contract = contract_from_dict(data, source=where)
    stem = Path(path).stem
    if contract.name != stem:
        raise ContractFileError(
            where, "$.name", f"{contract.name!r} does not match the file name; rename the file to {contract.name}.json"
        )
    return contract


def contract_from_dict(data: Any, *, source: str = "<object>") -> Contract:
    """Check ``data`` (a parsed contract file) and build the :class:`Contract`."""
    if not isinstance(data, Mapping):
        raise ContractFileError(source, "$", "a contract must be a JSON object")
    data = dict(data)
    validator = _meta_validator()
    if not validator.is_valid(data):
        issues = sorted(schema_issues(validator, data), key=lambda i: (_RANK.get(i.code, 0), i.path))
        raise ContractFileError(source, issues[0].path, issues[0].message)
    try:
        compile_schema(data["output_schema"])
    except RemoteReference as exc:
        raise ContractFileError(source, "$.output_schema" + exc.path[1:], remote_problem(exc.ref)) from None
    except (ValueError, jsonschema_rs.ValidationError) as exc:
        raise ContractFileError(source, "$.output_schema", f"does not compile: {exc}") from None
    rules = tuple(
        Rule(raw["op"], raw["path"], {k: v for k, v in raw.items() if k not in ("op", "path", "$comment")})
        for raw in data.get("normalize", ())
    )
    for index, rule in enumerate(rules):
        if rule.op == "clamp" and rule.params["min"] > rule.params["max"]:
            raise ContractFileError(source, f"$.normalize[{index}]", "clamp has min greater than max")
    prompt = data["prompt"]
    contract = Contract(
        name=data["name"],
        family=data["family"],
        owner_module=data["owner_module"],
        description=data["description"],
        output_schema=data["output_schema"],
        prompt=Prompt(prompt["goal"], tuple(prompt["instructions"]), prompt["example"]),
        normalize=rules,
        fallback=data.get("fallback"),
        inputs=data.get("inputs", {}),
        max_tokens=data.get("limits", {}).get("max_tokens", 512),
        version=data.get("version", 1),
        notes=tuple(data.get("notes", ())),
        source=source,
    )
    result = validate_and_normalize(contract, prompt["example"])
    if not result.ok:
        first = result.errors[0]
        raise ContractFileError(
            source,
            "$.prompt.example" + first.path[1:],
            f"the example output does not satisfy the contract: {first.message}",
        )
    return contract


__all__ = ["contract_from_dict", "load_contract", "meta_schema_path"]
