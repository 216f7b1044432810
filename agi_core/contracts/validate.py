"""The hot path: parse -> repair -> normalize -> validate -> freeze, per contract.

Each contract's compiled ``jsonschema_rs`` validator and normalizer are built on first use
and cached on the contract. Validation runs on the normalized value, so a result that passes
is both normalized and valid; errors carry JSON paths such as ``$.intent.confidence``.

A text is first parsed by ``orjson`` (a dependency of agi-core; about 4x faster than
``json``). What ``orjson`` would parse differently is redone through ``json`` — a parse
error, a float beyond 2**63 in a valid result, 19 digits in a row in an invalid one
(``orjson`` turns integers beyond 64 bits into floats) — so every result and every error
is exactly what ``json`` semantics give.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from typing import Any

import attrs

from agi_core.contracts import frozen
from agi_core.contracts.model import Contract, Issue, Result
from agi_core.contracts.normalize import compile_rules
from agi_core.contracts.paths import format_path
from agi_core.contracts.repair import parse_output
from agi_core.schemas import offline_validator

_MAX_ERRORS = 20
_CLIP = 160
#: a raw surrogate, or a \\uD800-\\uDFFF escape (paired ones are legal; the walk tells them apart)
_SUSPECT_TEXT = re.compile(r"[\ud800-\udfff]|\\u[dD][89a-fA-F]")
#: 19 digits in a row: maybe an integer beyond 64 bits, which orjson would make a float
_LONG_DIGITS = re.compile(r"[0-9]{19}")

_fast_loads: Callable[[str], Any] | None
try:
    from orjson import loads as _fast_loads
except ImportError:  # pragma: no cover - agi-core depends on orjson; json alone still works
    _fast_loads = None


@attrs.frozen
class Engine:
    """What validating one contract needs, compiled once."""

    validator: Any
    normalize: Callable[[Any], Any]


def engine(contract: Contract) -> Engine:
    """The contract's compiled engine (built on first call, then cached on the contract)."""
    found = contract._cache.get("engine")
    if found is None:
        found = Engine(compile_schema(contract.output_schema), compile_rules(contract.normalize))
        contract._cache["engine"] = found
    return found


def compile_schema(schema: Mapping[str, Any], what: str = "the output_schema") -> Any:
    """A ``jsonschema_rs`` Draft 2020-12 validator that never reaches the network (a reference to another
    document is :class:`~agi_core.schemas.RemoteReference`)."""
    return offline_validator(dict(schema), what, validate_formats=False)


def validate_and_normalize(contract: Contract, raw: str | bytes | Mapping[str, Any] | Any) -> Result:
    """Check one output against ``contract`` and return its normalized, frozen form.

    ``raw`` is the model's text (repaired cheaply if needed) or an already-parsed value,
    which is copied, never changed. Bad output never raises: the :class:`Result` says why.
    """
    eng = contract._cache.get("engine") or engine(contract)
    if isinstance(raw, (str, bytes, bytearray)):
        text = raw if type(raw) is str else _text(raw)
        if _fast_loads is not None:
            try:
                value = eng.normalize(_fast_loads(text))
                if eng.validator.is_valid(value):
                    return Result(frozen.freeze_fast_parsed(value))
                if not _LONG_DIGITS.search(text):  # json would parse it the same: report from here
                    return Result(errors=_issues(eng.validator, value, False), reason="schema")
            except (ValueError, frozen.Unfit):
                pass  # not JSON to orjson, or too large a float: json decides below
        return _from_text(eng, text)
    value, problems = frozen.copy_checked(raw)
    if problems:
        return Result(errors=problems, reason="schema")
    return _checked(eng, eng.normalize(value), (), unfit=False)


def validate_plain(contract: Contract, raw: Any) -> tuple[Any, tuple[Issue, ...]]:
    """:func:`validate_and_normalize` for a value the caller keeps as plain data (a heuristic's output
    to journal): ``(value, ())`` with ``value`` a normalized ``dict``/``list`` copy nothing else holds,
    not frozen (no freeze and thaw walks), or ``(None, errors)``.

    Same checks and result: the one copy refuses what :func:`~agi_core.contracts.frozen.copy_checked`
    refuses, and normalization keeps a fit value fit (its numbers are finite), so what passes the
    schema here passes :func:`validate_and_normalize` too."""
    if isinstance(raw, (str, bytes, bytearray)):
        result = validate_and_normalize(contract, raw)
        return (None if result.value is None else frozen.thaw(result.value)), result.errors
    eng = contract._cache.get("engine") or engine(contract)
    value, problems = frozen.copy_checked(raw)
    if problems:
        return None, problems
    value = eng.normalize(value)
    try:
        if eng.validator.is_valid(value):
            return value, ()
    except (ValueError, UnicodeError, OverflowError):  # unconvertible for the validator
        return None, _issues(eng.validator, value, True)
    return None, _issues(eng.validator, value, False)


def _from_text(eng: Engine, text: str) -> Result:
    """The exact path: ``json``, the cheap repairs, Unicode checks, then :func:`_checked`."""
    repairs: tuple[str, ...] = ()
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        parsed = parse_output(text)
        if parsed.issue is not None:
            return Result(errors=(parsed.issue,), reason=parsed.reason, repairs=parsed.repairs)
        value, repairs = parsed.value, parsed.repairs
    if ("\\u" in text or not text.isascii()) and _SUSPECT_TEXT.search(text):
        problems = frozen.problems(value)
        if problems:
            return Result(errors=problems, reason="schema", repairs=repairs)
    return _checked(eng, eng.normalize(value), repairs, unfit="NaN" in text or "Infinity" in text)


def _checked(eng: Engine, value: Any, repairs: tuple[str, ...], *, unfit: bool) -> Result:
    """Validate a normalized value the caller owns; freeze it, or say why it fails."""
    try:
        if eng.validator.is_valid(value):
            return Result(frozen.freeze(value), repairs=repairs)
    except (frozen.Unfit, ValueError, UnicodeError, OverflowError):  # unfit, or unconvertible for the validator
        unfit = True
    return Result(errors=_issues(eng.validator, value, unfit), reason="schema", repairs=repairs)


def _issues(validator: Any, value: Any, unfit: bool) -> tuple[Issue, ...]:
    """Why ``value`` fails: unfit values (non-finite, too deep) when suspected, else the schema."""
    problems = frozen.problems(value) if unfit else ()
    if problems:
        return problems
    try:
        return schema_issues(validator, value)
    except (ValueError, UnicodeError, OverflowError) as exc:
        return (Issue("$", f"cannot be validated: {_clip_text(str(exc))}", "encoding"),)


def _text(raw: Any) -> str:
    return str(raw) if isinstance(raw, str) else bytes(raw).decode("utf-8", "replace")


def schema_issues(validator: Any, value: Any) -> tuple[Issue, ...]:
    """The validator's errors for ``value`` as short, path-carrying issues (at most 20)."""
    issues: dict[tuple[str, str], Issue] = {}
    for error in validator.iter_errors(value):
        issue = _issue(error)
        issues.setdefault((issue.path, issue.message), issue)
        if len(issues) >= _MAX_ERRORS:
            break
    return tuple(sorted(issues.values(), key=lambda issue: (issue.path, issue.message)))


def _issue(error: Any) -> Issue:
    trail = list(error.instance_path)
    kind = error.kind.name
    try:
        data = error.kind.as_dict()
    except Exception:  # noqa: BLE001 - an unknown kind still gets the library's message
        data = {}
    if kind == "required":
        trail.append(data.get("property", "?"))
        return Issue(format_path(trail), "required field is missing", "required")
    return Issue(format_path(trail), _message(kind, data, error), kind)


def _message(kind: str, data: dict[str, Any], error: Any) -> str:
    if kind == "type":
        return f"expected {' or '.join(data.get('types', ()))}, got {json_type(error.instance)}"
    if kind in _BOUNDS:
        return f"must be {_BOUNDS[kind]} {data.get('limit')}, got {_clip(error.instance)}"
    if kind == "minLength":
        limit = data.get("limit")
        return "must not be empty" if limit == 1 else f"must have at least {limit} characters"
    if kind == "enum":
        options = ", ".join(json.dumps(option, ensure_ascii=False) for option in data.get("options", ()))
        return f"must be one of {options}, got {_clip(error.instance)}"
    if kind == "anyOf":
        names = _alternatives(data.get("context", ()))
        if names:
            return f"one of {', '.join(names)} is required"
        return "matches none of the allowed shapes"
    if kind in ("minItems", "maxItems"):
        word = "at least" if kind == "minItems" else "at most"
        return f"must have {word} {data.get('limit')} items"
    return _clip_text(error.message)


_BOUNDS = {"minimum": ">=", "maximum": "<=", "exclusiveMinimum": ">", "exclusiveMaximum": "<"}


def _alternatives(context: Any) -> list[str]:
    """``["a", "b"]`` when every anyOf branch failed only for one missing property."""
    names = []
    for branch in context:
        if len(branch) != 1 or branch[0].kind.name != "required":
            return []
        names.append(branch[0].kind.as_dict().get("property", "?"))
    return names


def json_type(value: Any) -> str:
    """The JSON type name of a Python value."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, (list, tuple)):
        return "array"
    return "object" if isinstance(value, Mapping) else type(value).__name__


def _clip(value: Any) -> str:
    """A short rendering of an offending value (a string is cut, a container named)."""
    if isinstance(value, str):
        return _clip_text(json.dumps(value[:_CLIP], ensure_ascii=False))
    if value is None or isinstance(value, (bool, int, float)):
        return _clip_text(json.dumps(value))
    return json_type(value)


def _clip_text(text: str) -> str:
    text = text.replace("\n", " ")
    return text if len(text) <= _CLIP else text[: _CLIP - 1] + "…"


__all__ = [
    "Engine",
    "compile_schema",
    "engine",
    "json_type",
    "schema_issues",
    "validate_and_normalize",
    "validate_plain",
]
