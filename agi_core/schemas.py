"""Access to the JSON Schemas shipped with agi-core, and validation with JSON paths.

The schemas live in the repository's ``schemas/`` folder and are copied into the wheel
as ``agi_core/_schemas`` (see pyproject); an editable install reads the folder directly.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urldefrag, urljoin

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

    return jsonschema_rs.validator_for(load_schema(name), offline=True)


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


#: the schema's own URL when it names no ``$id`` (a URL urljoin resolves against; .invalid names no host)
_DEFAULT_BASE = "https://schema.invalid/"
#: the meta-schemas jsonschema-rs holds itself: a reference to one is no fetch
_BUNDLED = ("https://json-schema.org/", "http://json-schema.org/")
#: keywords whose values are data, not schemas: a "$ref" key inside one is no reference
_DATA_KEYWORDS = frozenset({"const", "enum", "default", "examples"})
REMOTE_FIX = 'put that schema under "$defs" and refer to it as "#/$defs/NAME"'


class RemoteReference(ValidationError):
    """A schema refers to another document by URL: it is never fetched (agents run offline and replay equal).

    ``ref`` is the reference as written, ``path`` its JSON path in the schema."""

    def __init__(self, what: str, ref: str, path: str) -> None:
        super().__init__(f"{what} {remote_problem(ref, path)}", path=path)
        self.ref = ref


def remote_problem(ref: str, path: str | None = None, fix: str = REMOTE_FIX) -> str:
    """What is wrong with a reference to another document, and the fix (no subject)."""
    where = "" if path is None else f" at {path}"
    return f"refers to {ref!r}{where}, another document, which agi-core never fetches; {fix}"


def offline_validator(schema: Any, what: str, **options: Any) -> Any:
    """A jsonschema-rs Draft 2020-12 validator of ``schema`` that never reaches the network.

    A reference to another document (``"$ref": "http://…"``, a relative one under an ``$id``) is
    refused with :class:`RemoteReference`, one line naming ``what``, the reference, its JSON path
    and the fix; references inside the schema (``#/$defs/…``, an ``$id`` it declares) and to the
    JSON Schema meta-schemas still work. Other compile errors are jsonschema-rs's ``ValueError``.
    """
    import jsonschema_rs

    try:
        return jsonschema_rs.Draft202012Validator(schema, offline=True, **options)
    except ValueError:
        found = remote_reference(schema)
        if found is None:
            raise
        where, ref = found
        raise RemoteReference(what, ref, where) from None


def remote_reference(schema: Any) -> tuple[str, str] | None:
    """The JSON path and value of the first ``$ref`` / ``$dynamicRef`` / ``$schema`` of ``schema`` that
    names a document it does not hold (None: every reference stays inside it or names a meta-schema)."""
    held: set[str] = set()
    refs: list[tuple[str, str, str]] = []  # (path, value, the URL it resolves to)

    def walk(node: Any, base: str, path: str) -> None:
        if isinstance(node, list):
            for index, item in enumerate(node):
                walk(item, base, f"{path}[{index}]")
            return
        if not isinstance(node, dict):
            return
        if isinstance(node.get("$id"), str):
            base = urldefrag(urljoin(base, node["$id"])).url
            held.add(base)
        for key, value in node.items():
            if key in ("$ref", "$dynamicRef", "$schema") and isinstance(value, str):
                refs.append((f"{path}.{key}", value, urldefrag(urljoin(base, value)).url))
            elif key not in _DATA_KEYWORDS:
                walk(value, base, f"{path}.{key}")

    walk(schema, _DEFAULT_BASE, "$")
    held.add(_DEFAULT_BASE)
    for where, value, url in refs:
        if url not in held and not url.startswith(_BUNDLED):
            return where, value
    return None
