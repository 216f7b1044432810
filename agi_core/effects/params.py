"""Tool parameters: the declared JSON types, checked (and read from text) before a tool runs.

A tool declares ``parameters={"name": "<json type>"}`` with a JSON Schema type name. A
``/tool`` command gives every argument as text: a text argument for a non-string
parameter is read as JSON (``count=3``, ``flag=true``, ``items='[1, 2]'``) and must then
have the declared type. A mismatch is a one-line :class:`~agi_core.errors.ToolError`.
"""

from __future__ import annotations

import json
from typing import Any

from agi_core.errors import ToolError

JSON_TYPES: dict[str, str] = {
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "boolean": "a boolean (true or false)",
    "object": "a JSON object",
    "array": "a JSON array",
    "null": "null",
}


def check_declared_types(tool: str, parameters: dict[str, str]) -> None:
    """Registration check: every declared type is a JSON type name."""
    for name, declared in parameters.items():
        if declared not in JSON_TYPES:
            raise ToolError(
                f"tool {tool!r} declares parameter {name!r} as {declared!r}; use a JSON type: {', '.join(JSON_TYPES)}"
            )


def _not_json(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _has_type(value: Any, declared: str) -> bool:
    if declared == "string":
        return isinstance(value, str)
    if declared == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if declared == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    if declared == "boolean":
        return isinstance(value, bool)
    if declared == "object":
        return isinstance(value, dict)
    if declared == "array":
        return isinstance(value, list)
    return value is None


def check_param_types(tool: str, parameters: dict[str, str], args: dict[str, Any]) -> dict[str, Any]:
    """``args`` with text read as JSON where a non-string type is declared; ToolError on a mismatch."""
    checked: dict[str, Any] = {}
    for name, value in args.items():
        declared = parameters.get(name, "string")
        if declared not in JSON_TYPES:
            checked[name] = value
            continue
        if isinstance(value, str) and declared != "string":
            try:
                value = json.loads(value, parse_constant=_not_json)
            except ValueError:
                pass
        if not _has_type(value, declared):
            shown = json.dumps(args[name], ensure_ascii=False, default=repr)
            raise ToolError(
                f"tool {tool!r} parameter {name!r} must be {JSON_TYPES[declared]}, got {shown[:80]}; "
                f"pass {name}=<{declared}>"
            )
        checked[name] = value
    return checked
