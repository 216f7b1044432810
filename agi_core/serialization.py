"""cattrs (un)structuring with JSON-path error messages, and canonical JSON text."""

from __future__ import annotations

import json
import math
import typing
from typing import Any, TypeGuard, TypeVar

import cattrs
import orjson
from cattrs.v import transform_error

from agi_core.errors import ValidationError
from agi_core.inputs import clean_text
from agi_core.model import Input

T = TypeVar("T")

converter = cattrs.Converter(forbid_extra_keys=True, detailed_validation=True)


def _is_plain_json(tp: Any) -> bool:
    """``dict[str, Any]``, ``list[dict[str, Any]]`` …: fields that already hold plain JSON data."""
    origin = typing.get_origin(tp)
    if origin not in (dict, list):
        return False
    return all(arg is Any or arg is str or _is_plain_json(arg) for arg in typing.get_args(tp))


# JSON-typed fields are passed through as they are instead of being walked value by value:
# they hold plain data by construction, and this halves the cost of journaling a tick.
converter.register_unstructure_hook_func(_is_plain_json, lambda value: value)


def _unstructure_input(percept: Input) -> dict[str, Any]:
    """An input's speaker, channel, conversation and metadata are left out when unset: records of
    inputs without them are byte for byte what they were before those fields existed."""
    data: dict[str, Any] = {"raw": percept.raw, "normalized": percept.normalized, "source": percept.source}
    if percept.speaker is not None:
        data["speaker"] = percept.speaker
    if percept.channel is not None:
        data["channel"] = percept.channel
    if percept.conversation is not None:
        data["conversation"] = percept.conversation
    if percept.metadata:
        data["metadata"] = percept.metadata
    return data


converter.register_unstructure_hook(Input, _unstructure_input)


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


def is_number(value: object) -> TypeGuard[float]:
    """Whether a JSON value is a number: an ``int`` or a ``float``, never a ``bool`` (a type checker then
    reads it as a float, so ``is_number(v) and 0 <= v <= 1`` type-checks)."""
    return type(value) in (int, float)


def dumps(data: Any) -> str:
    """Canonical JSON: sorted keys, no spaces, UTF-8 kept; equal data gives equal text.

    orjson does the work (several times faster than ``json`` on the tick's hot path);
    what it refuses (integers past 64 bits, non-string keys, lone surrogates) goes through
    ``json`` with the same layout, lone surrogates becoming U+FFFD. NaN and infinities are
    not JSON: they raise :class:`ValidationError` naming their path (orjson would write null).
    """
    try:
        raw = orjson.dumps(data, option=orjson.OPT_SORT_KEYS)
    except TypeError:
        _refuse_non_finite(data)
        text = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
        return clean_text(text)
    if b"null" in raw and _reads_back_unequal(raw, data):  # orjson writes NaN and infinities as null
        _refuse_non_finite(data)
    return raw.decode("utf-8")


def _reads_back_unequal(raw: bytes, data: Any) -> bool:
    """Whether ``raw`` (orjson's text of ``data``) reads back as something other than ``data``.

    Equal proves there is no NaN or infinity in ``data`` (orjson wrote it as null, and null
    reads back as None, which equals no float): the usual case, a record with nulls, is
    settled in C instead of a walk. Unequal (a NaN, or tuples, which read back as lists)
    sends ``data`` to the walk that names the path.
    """
    try:
        return bool(orjson.loads(raw) != data)
    except (TypeError, ValueError, RecursionError):  # an odd comparison: the walk decides
        return True


def _refuse_non_finite(data: Any) -> None:
    path = non_finite_path(data)
    if path is not None:
        raise ValidationError(f"{path} is not a finite number (NaN or infinity); store a finite number or null", path)


_FLOAT = float
_WALKED = frozenset({dict, list, tuple, float})
NEVER_NAN = frozenset({str, int, bool, type(None)})
"""The exact types of a JSON scalar that is never NaN or infinity."""


def non_finite_path(data: Any) -> str | None:
    """The JSON path of the first NaN or infinity in ``data``, or None."""
    kind = type(data)
    if kind in NEVER_NAN:  # a bare scalar (a belief's value): no text to write
        return None
    if kind is _FLOAT:
        return None if math.isfinite(data) else "$"
    try:
        raw = orjson.dumps(data)
    except TypeError:  # not plain JSON to orjson (a big integer, a non-string key): walk it all
        pass
    else:
        if b"null" not in raw or not _reads_back_unequal(raw, data):  # no null, or every null a None
            return None
    trail = _non_finite(data)
    if trail is None:
        return None
    return "$" + "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in reversed(trail))


def not_json(data: Any) -> tuple[str, str] | None:
    """The JSON path and type name of the first value in ``data`` that is not JSON (a set, bytes, an
    object; a dict key that is not a string), or None. For a one-line error after :func:`dumps` refused ``data``."""
    trail = _not_json(data, set())
    if trail is None:
        return None
    *parts, kind = trail
    return "$" + "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in reversed(parts)), kind


def _not_json(data: Any, seen: set[int]) -> list[Any] | None:
    if data is None or isinstance(data, str | int | float):  # bool is an int
        return None
    if id(data) in seen:
        return ["a circular reference"]
    if isinstance(data, dict):
        seen.add(id(data))
        for key, value in data.items():
            if key is not None and not isinstance(key, str | int | float):  # json writes these as strings
                return [key if isinstance(key, int) else repr(key), f"{type(key).__name__} key"]
            if (trail := _not_json(value, seen)) is not None:
                return [*trail[:-1], key, trail[-1]] if len(trail) > 1 else [key, trail[-1]]
        return None
    if isinstance(data, list | tuple):
        seen.add(id(data))
        for index, value in enumerate(data):
            if (trail := _not_json(value, seen)) is not None:
                return [*trail[:-1], index, trail[-1]]
        return None
    return [type(data).__name__]


def _non_finite(data: Any) -> list[Any] | None:
    """Reversed path parts of the first non-finite float (only containers and floats are walked)."""
    kind = type(data)
    if kind is _FLOAT:
        return None if math.isfinite(data) else []
    if kind is dict:
        for key, value in data.items():
            if (type(value) in _WALKED or isinstance(value, float)) and (trail := _non_finite(value)) is not None:
                return [*trail, key]
    elif kind is list or kind is tuple:
        for index, value in enumerate(data):
            if (type(value) in _WALKED or isinstance(value, float)) and (trail := _non_finite(value)) is not None:
                return [*trail, index]
    elif isinstance(data, float) and not math.isfinite(data):  # a float subclass (numpy.float64)
        return []
    return None
