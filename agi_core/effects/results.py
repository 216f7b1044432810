"""What a tool may return: a JSON object of JSON values, checked before it is journaled.

JSON values are ``None``, booleans, integers, finite floats, strings that encode as UTF-8,
lists and string-keyed dicts of JSON values. Anything else (``None`` as the whole result,
a set, a tuple, NaN, an object) is refused with the JSON path of the first problem.
"""

from __future__ import annotations

import math
from typing import Any

from agi_core.errors import ToolError

MAX_DEPTH = 64


class BadResult(ToolError):
    """A tool returned something that is not a JSON object of JSON values."""


def check_result(tool: str, value: Any) -> dict[str, Any]:
    """``value`` if it is a JSON object of JSON values, else :class:`BadResult` naming the problem."""
    if not isinstance(value, dict):
        raise BadResult(
            f"tool {tool!r} returned {_kind(value)}, not a JSON object; return a dict such as {{'ok': True}}"
        )
    problem = _problem(value, "$", 0)
    if problem is not None:
        raise BadResult(f"tool {tool!r} returned an invalid result: {problem}; return only JSON values")
    return value


def _problem(value: Any, path: str, depth: int) -> str | None:
    if depth > MAX_DEPTH:
        return f"nesting deeper than {MAX_DEPTH} levels (or a cycle) at {path}"
    if value is None or isinstance(value, bool | int):
        return None
    if isinstance(value, float):
        return None if math.isfinite(value) else f"{value} at {path} is not a JSON number"
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return f"a string with a lone surrogate at {path}"
        return None
    if isinstance(value, list):
        for index, item in enumerate(value):
            problem = _problem(item, f"{path}[{index}]", depth + 1)
            if problem is not None:
                return problem
        return None
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                return f"key {key!r} at {path} is not a string"
            problem = _problem(item, f"{path}.{key}", depth + 1)
            if problem is not None:
                return problem
        return None
    return f"{_kind(value)} at {path} is not JSON"


def _kind(value: Any) -> str:
    return "None" if value is None else f"a {type(value).__name__}"
