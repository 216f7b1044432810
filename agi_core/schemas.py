"""Access to the JSON Schemas shipped with agi-core, and validation with JSON paths.

The schemas live in the repository's ``schemas/`` folder and are copied into the wheel
as ``agi_core/_schemas`` (see pyproject); an editable install reads the folder directly.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agi_core.errors import ValidationError

if TYPE_CHECKING:
    import jsonschema

SCHEMA_BASE_URI = "https://agi-core.dev/schemas/"


def schemas_dir() -> Path:
    """The folder holding the schema files (wheel copy first, then the source tree)."""
    packaged = Path(__file__).parent / "_schemas"
    return packaged if packaged.is_dir() else Path(__file__).resolve().parent.parent / "schemas"


@cache
def load_schema(name: str) -> dict[str, Any]:
    """The schema ``schemas/<name>.json`` as a dict."""
    path = schemas_dir() / f"{name}.json"
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ValidationError(f"schema {name!r} not found at {path}; reinstall agi-core") from None


@cache
def validator(name: str) -> jsonschema.protocols.Validator:
    """A compiled Draft 2020-12 validator for ``schemas/<name>.json``."""
    import jsonschema  # on use: it imports attrs, which agi --help (plugin manifests) does without

    schema = load_schema(name)
    return jsonschema.Draft202012Validator(schema, format_checker=jsonschema.FormatChecker())


@cache
def _fast_validator(name: str) -> Any:
    import jsonschema_rs

    return jsonschema_rs.validator_for(load_schema(name))


def is_valid(name: str, instance: Any) -> bool:
    """Whether ``instance`` matches ``schemas/<name>.json``: jsonschema-rs, cheap to import and to run;
    :func:`validate` names the problem when it does not."""
    return bool(_fast_validator(name).is_valid(instance))


def json_path(error: jsonschema.ValidationError) -> str:
    path = "$"
    for part in error.absolute_path:
        path += f"[{part}]" if isinstance(part, int) else f".{part}"
    return path


def validate(name: str, instance: Any, what: str | None = None) -> None:
    """Raise :class:`ValidationError` naming the first problem and its JSON path."""
    import jsonschema

    error = jsonschema.exceptions.best_match(validator(name).iter_errors(instance))
    if error is not None:
        where = json_path(error)
        label = what or name
        raise ValidationError(f"invalid {label}: {error.message} @ {where}", path=where)
