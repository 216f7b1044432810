"""Variable names, types and values: the checks, type inference and canonical JSON text."""

from __future__ import annotations

import json
import re
from typing import Any

from agi_core.state.errors import StateLimitError, VariableValueError
from agi_core.state.model import DEFAULT_LIMITS, SCOPES, VARIABLE_TYPES, Limits

NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
"""The schema's identifier rule (ASCII only; matched with ``fullmatch``)."""

MAX_TTL_SECONDS = 2**31 - 1
"""About 68 years: expiry times stay representable (a larger TTL would overflow the clock)."""


def check_name(name: object, limits: Limits = DEFAULT_LIMITS) -> str:
    """Return ``name`` if it is a valid variable name, else raise one clear error."""
    if not isinstance(name, str) or NAME_RE.fullmatch(name) is None:
        raise VariableValueError(
            f"invalid variable name {name!r}; use a letter or '_' followed by letters, "
            "digits or '_' (ASCII), e.g. doc_summary",
            path="$.variables",
        )
    if len(name) > limits.max_name_length:
        raise StateLimitError(
            f"variable name {name[:20]}... is {len(name)} characters long; "
            f"shorten it to at most {limits.max_name_length}"
        )
    return name


def check_scope(scope: str, ttl_seconds: int | None) -> None:
    """A known scope; ``temporary`` needs a TTL of at least 1 s and only it may have one."""
    if scope not in SCOPES:
        raise VariableValueError(f"unknown scope {scope!r}; use one of {', '.join(SCOPES)}", path="$.metadata.scope")
    if scope == "temporary":
        if isinstance(ttl_seconds, bool) or not isinstance(ttl_seconds, int) or not 1 <= ttl_seconds <= MAX_TTL_SECONDS:
            raise VariableValueError(
                f"a temporary variable needs 1 <= ttl_seconds <= {MAX_TTL_SECONDS}, got {ttl_seconds!r}; "
                "pass ttl_seconds=<seconds>",
                path="$.metadata.ttl_seconds",
            )
    elif ttl_seconds is not None:
        raise VariableValueError(
            f"ttl_seconds is only for scope 'temporary', not {scope!r}; drop ttl_seconds or use scope='temporary'",
            path="$.metadata.ttl_seconds",
        )


def infer_type(value: Any) -> str:
    """The variable type a Python value gets when none is given."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "text"
    if isinstance(value, (list, tuple)):
        return "array"
    if isinstance(value, dict):
        return "json"
    raise VariableValueError(
        f"cannot store a {type(value).__name__}; use a JSON value (str, int, float, bool, None, list or dict)",
        path="$.value",
    )


_CHECKS = {
    "text": lambda v: isinstance(v, str),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "json": lambda v: isinstance(v, (dict, list)),
    "array": lambda v: isinstance(v, list),
    "file_path": lambda v: isinstance(v, str),
    "file_content": lambda v: isinstance(v, str),
}
_EXPECTED = {
    "text": "a string",
    "number": "an int or a float",
    "boolean": "True or False",
    "null": "None",
    "json": "a dict or a list",
    "array": "a list",
    "file_path": "a 'file:<path in the state folder>' string",
    "file_content": "a string",
}


def check_value(vtype: str, value: Any) -> Any:
    """Check ``value`` against ``vtype``; return it as plain JSON data (tuples become lists)."""
    if vtype not in VARIABLE_TYPES:
        raise VariableValueError(
            f"unknown variable type {vtype!r}; use one of {', '.join(VARIABLE_TYPES)}",
            path="$.type",
        )
    if isinstance(value, tuple):
        value = list(value)
    _check_keys(value)
    if not _CHECKS[vtype](value):
        raise VariableValueError(
            f"a {vtype} variable needs {_EXPECTED[vtype]}, got {type(value).__name__}; "
            "pass a matching value or another type",
            path="$.value",
        )
    return json.loads(canonical(value))


def _check_keys(value: Any, path: str = "$.value") -> None:
    """Refuse dict keys that JSON would silently turn into strings (``{1: "a"}``)."""
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                raise VariableValueError(
                    f"dict key {key!r} at {path} is not a string; JSON objects need string keys",
                    path=path,
                )
            _check_keys(item, f"{path}.{key}")
    elif isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            _check_keys(item, f"{path}[{index}]")


def canonical(value: Any) -> str:
    """Canonical JSON text (sorted keys, no spaces, UTF-8 kept, no NaN): equal data, equal text."""
    try:
        return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise VariableValueError(
            f"value is not JSON data ({exc}); use str, int, finite float, bool, None, lists and dicts with string keys",
            path="$.value",
        ) from None


def size_of(text: str) -> int:
    """Size in bytes of a canonical JSON text (what the 10 KB inline limit measures)."""
    return len(text.encode("utf-8"))
