"""cattrs (un)structuring with JSON-path error messages, and canonical JSON text."""

from __future__ import annotations

import json
from typing import Any, TypeVar

import cattrs
from cattrs.v import transform_error

from agi_core.errors import ValidationError

T = TypeVar("T")

converter = cattrs.Converter(forbid_extra_keys=True, detailed_validation=True)


def to_data(obj: Any) -> Any:
    """An attrs object as plain JSON-compatible data."""
    return converter.unstructure(obj)


def from_data(data: Any, cls: type[T]) -> T:
    """Plain data as ``cls``; raises :class:`ValidationError` naming the first bad path."""
    try:
        return converter.structure(data, cls)
    except Exception as exc:  # noqa: BLE001 - cattrs raises several exception types
        messages = transform_error(exc, path="$") if isinstance(exc, cattrs.BaseValidationError) else [str(exc)]
        first = messages[0] if messages else str(exc)
        path = first.rsplit(" @ ", 1)[1] if " @ " in first else "$"
        raise ValidationError(f"invalid {cls.__name__}: {first}", path=path) from None


def dumps(data: Any) -> str:
    """Canonical JSON: sorted keys, no spaces, UTF-8 kept; equal data gives equal text."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
