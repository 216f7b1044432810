"""Deep freezing of JSON values, with the checks that keep hostile values out.

A result handed out by the engine is immutable all the way down: mappings become
:class:`types.MappingProxyType`, lists become tuples. The fast path assumes the value came
from ``json.loads`` or :func:`copy_checked` (string keys, JSON types, nobody else holding
it) and raises :class:`Unfit` on a non-finite number or nesting deeper than
:data:`MAX_DEPTH`; :func:`problems` then finds where. Values kept as plain data (a contract
call's record) are checked by :func:`copy_checked` and handed out through :func:`plain_copy`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any

import orjson

from agi_core.contracts.model import Issue
from agi_core.contracts.paths import format_path
from agi_core.errors import AgiError

#: deepest nesting a result may have (the seed's deepest contract field is 4 levels down)
MAX_DEPTH = 64
_MAX_PROBLEMS = 20
_PLAIN = frozenset({str, int, bool, type(None)})
#: the scalar types taken as they are, with nothing to check
_EXACT = frozenset({int, bool, type(None)})
#: an unpaired UTF-16 surrogate: text that cannot be encoded, stored or validated
SURROGATE = re.compile("[\ud800-\udfff]")


class Unfit(AgiError):
    """Raised by :func:`freeze` when a value needs :func:`problems` to explain it."""


def _freezer(limit: float) -> Callable[..., Any]:
    """A deep-freeze that raises :class:`Unfit` on floats that are NaN or not within ±``limit``."""

    def freeze(value: Any, depth: int = 0) -> Any:
        kind = type(value)
        if kind is dict:
            if depth >= MAX_DEPTH:
                raise Unfit
            depth += 1
            for key, item in value.items():
                if type(item) not in _PLAIN:
                    value[key] = freeze(item, depth)
            return MappingProxyType(value)
        if kind is list:
            if depth >= MAX_DEPTH:
                raise Unfit
            depth += 1
            return tuple([item if type(item) in _PLAIN else freeze(item, depth) for item in value])
        if kind is float and not -limit < value < limit:  # NaN, ±Infinity (or too large)
            raise Unfit
        return value

    return freeze


#: Deep-freeze a JSON value the caller owns (fast path, no paths kept). Mappings are frozen in
#: place (values replaced, then wrapped in a read-only proxy): nothing else may hold them.
freeze = _freezer(math.inf)
#: :func:`freeze` for values parsed by ``orjson``, which turns integers beyond 64 bits into
#: floats: a float of that size sends the text back to ``json`` for an exact parse.
freeze_fast_parsed = _freezer(2.0**63)


def problems(value: Any) -> tuple[Issue, ...]:
    """Every reason (up to 20) :func:`freeze` or :func:`copy_checked` refuses ``value``."""
    found: list[Issue] = []
    _walk(value, [], found, copy=False)
    return tuple(found)


def copy_checked(value: Any) -> tuple[Any, tuple[Issue, ...]]:
    """A plain (dict/list) copy of any Python value, and the problems that make it unfit JSON.

    Accepts mappings, lists, tuples and JSON scalars (frozen results thaw back this way);
    anything else, a non-string key, a non-finite number or too deep a nesting is a problem.
    """
    try:
        return _plain_copy(value, 0), ()
    except Unfit:  # something to report (or an unusual type): the walk names every problem
        found: list[Issue] = []
        return _walk(value, [], found, copy=True), tuple(found)


def _plain_copy(value: Any, depth: int) -> Any:
    """:func:`copy_checked`'s copy of a value with nothing to report, built by exact type; :class:`Unfit`
    for anything the walk would report or convert (it then decides, so both give the same).

    Strings and the other plain scalars of a container are taken in its own loop (no call each), and
    a string is searched for surrogates only when it is not ASCII (``isascii`` is a flag read)."""
    kind = type(value)
    if kind is dict or kind is MappingProxyType:
        if depth >= MAX_DEPTH:
            raise Unfit
        depth += 1
        out: dict[str, Any] = {}
        for key, item in value.items():
            if type(key) is not str or not (key.isascii() or not SURROGATE.search(key)):
                raise Unfit
            kind = type(item)
            if kind in _EXACT:
                out[key] = item
            elif kind is str:
                if not item.isascii() and SURROGATE.search(item):
                    raise Unfit
                out[key] = item
            elif kind is float:
                if item - item != 0:  # NaN or ±Infinity
                    raise Unfit
                out[key] = item
            else:
                out[key] = _plain_copy(item, depth)
        return out
    if kind is list or kind is tuple:
        if depth >= MAX_DEPTH:
            raise Unfit
        depth += 1
        return [
            item
            if type(item) in _EXACT or (type(item) is str and (item.isascii() or not SURROGATE.search(item)))
            else _plain_copy(item, depth)
            for item in value
        ]
    if kind is float:
        if value - value != 0:
            raise Unfit
        return value
    if kind in _EXACT:
        return value
    raise Unfit  # a string with a surrogate, a subclass, or no JSON type


def plain_copy(value: Any) -> Any:
    """A fresh ``dict``/``list`` copy of a plain JSON value that was checked already (by :func:`copy_checked`,
    or decoded from the journal): ``orjson`` writes and reads it back, about 4x faster than a walk in Python;
    what it cannot write (an integer beyond 64 bits) is copied by :func:`thaw`."""
    try:
        return orjson.loads(orjson.dumps(value))
    except (TypeError, ValueError):  # orjson.JSONEncodeError is a TypeError
        return thaw(value)


def _walk(value: Any, trail: list[str | int], found: list[Issue], *, copy: bool) -> Any:
    if len(found) >= _MAX_PROBLEMS:
        return None
    if isinstance(value, Mapping) or isinstance(value, (list, tuple)):
        if len(trail) >= MAX_DEPTH:
            found.append(Issue(format_path(trail), f"nested deeper than {MAX_DEPTH} levels", "too_deep"))
            return None
    if isinstance(value, Mapping):
        out: dict[str, Any] = {}
        for key, item in value.items():
            if not isinstance(key, str):
                found.append(Issue(format_path(trail), f"object key {str(key)[:40]!r} is not a string", "type"))
                continue
            if SURROGATE.search(key):
                found.append(
                    Issue(format_path(trail), "an object key is not valid Unicode (unpaired surrogate)", "encoding")
                )
                continue
            trail.append(key)
            out[key] = _walk(item, trail, found, copy=copy)
            trail.pop()
        return out if copy else value
    if isinstance(value, (list, tuple)):
        items = []
        for index, item in enumerate(value):
            trail.append(index)
            items.append(_walk(item, trail, found, copy=copy))
            trail.pop()
        return items if copy else value
    if isinstance(value, float):
        if value - value != 0:
            found.append(Issue(format_path(trail), f"number must be finite, got {value!r}", "non_finite"))
        return float(value)
    if isinstance(value, str) and SURROGATE.search(value):
        found.append(Issue(format_path(trail), "text is not valid Unicode (unpaired surrogate)", "encoding"))
        return None
    if value is None or isinstance(value, (str, bool, int)):
        return value if type(value) in (str, bool, int) or value is None else _plain(value)
    found.append(Issue(format_path(trail), f"{type(value).__name__} is not a JSON value", "type"))
    return None


def _plain(value: Any) -> Any:
    """A str/int subclass (an enum, say) as its plain built-in value."""
    return bool(value) if isinstance(value, bool) else (int(value) if isinstance(value, int) else str(value))


def thaw(value: Any) -> Any:
    """Plain ``dict``/``list`` copy of a frozen value (for ``json.dumps`` or editing)."""
    if isinstance(value, Mapping):
        return {key: thaw(item) for key, item in value.items()}
    if isinstance(value, (tuple, list)):
        return [thaw(item) for item in value]
    return value


def is_frozen(value: Any) -> bool:
    """True when no mapping or list inside ``value`` can be changed in place."""
    if isinstance(value, MappingProxyType):
        return all(is_frozen(item) for item in value.values())
    if isinstance(value, tuple):
        return all(is_frozen(item) for item in value)
    return not isinstance(value, (dict, list, set, bytearray))


__all__ = [
    "MAX_DEPTH",
    "Unfit",
    "copy_checked",
    "freeze",
    "freeze_fast_parsed",
    "is_frozen",
    "plain_copy",
    "problems",
    "thaw",
]
