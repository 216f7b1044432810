"""Generate ``schemas/*.json`` from the attrs classes in :mod:`agi_core.model`.

Run ``python -m agi_core.schemagen`` after changing a model class; a test fails with that
command in its message when a schema file is stale.
"""

from __future__ import annotations

import json
import sys
import types
import typing
from pathlib import Path
from typing import Any, Literal

import attrs

from agi_core import model
from agi_core.schemas import SCHEMA_BASE_URI, schemas_dir

GENERATED: dict[str, type] = {
    "tick_state": model.TickState,
    "semantic_entry": model.SemanticEntry,
    "semantic_read": model.SemanticRead,
    "episodic_entry": model.EpisodicEntry,
    "working_memory": model.WorkingMemory,
    "tool_definition": model.ToolDefinition,
    "journal_record": model.JournalRecord,
}

_SCALARS = {str: "string", int: "integer", float: "number", bool: "boolean"}


def _type_schema(tp: Any, defs: dict[str, Any]) -> dict[str, Any]:
    origin = typing.get_origin(tp)
    if tp is Any:
        return {}
    if tp in _SCALARS:
        return {"type": _SCALARS[tp]}
    if tp is type(None):
        return {"type": "null"}
    if origin is Literal:
        return {"enum": list(typing.get_args(tp))}
    if origin in (typing.Union, types.UnionType):
        return {"anyOf": [_type_schema(arg, defs) for arg in typing.get_args(tp)]}
    if origin is list:
        (item,) = typing.get_args(tp)
        return {"type": "array", "items": _type_schema(item, defs)}
    if origin is dict:
        _key, value = typing.get_args(tp)
        return {"type": "object", "additionalProperties": _type_schema(value, defs)}
    if attrs.has(tp):
        if tp.__name__ not in defs:
            defs[tp.__name__] = {}
            defs[tp.__name__] = _class_schema(tp, defs)
        return {"$ref": f"#/$defs/{tp.__name__}"}
    raise TypeError(f"no JSON Schema mapping for {tp!r}")


def _class_schema(cls: type, defs: dict[str, Any]) -> dict[str, Any]:
    hints = typing.get_type_hints(cls, vars(model))
    properties: dict[str, Any] = {}
    required: list[str] = []
    for field in attrs.fields(cls):
        prop = _type_schema(hints[field.name], defs) | field.metadata.get("schema", {})
        properties[field.name] = prop
        if field.default is attrs.NOTHING:
            required.append(field.name)
    schema: dict[str, Any] = {"type": "object", "properties": properties, "additionalProperties": False}
    if required:
        schema["required"] = required
    if cls.__doc__:
        schema["description"] = " ".join(cls.__doc__.split())
    return schema


def generate(name: str, cls: type) -> dict[str, Any]:
    """The JSON Schema document for ``cls``."""
    defs: dict[str, Any] = {}
    body = _class_schema(cls, defs)
    defs.pop(cls.__name__, None)
    document = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"{SCHEMA_BASE_URI}{name}.json",
        "title": cls.__name__,
        **body,
    }
    if defs:
        document["$defs"] = dict(sorted(defs.items()))
    return document


def render(document: dict[str, Any]) -> str:
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def main(target: Path | None = None) -> int:
    out = target or schemas_dir()
    for name, cls in GENERATED.items():
        path = out / f"{name}.json"
        path.write_text(render(generate(name, cls)), encoding="utf-8")
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
