"""Declarative normalization rules, compiled once per contract into plain functions.

Rules run in file order, on the parsed output, before the final validation, so the schema
describes the normalized shape and a normalized result is always valid. Every operation is
type-guarded: a value of the wrong type is left alone for the validator to report.

=============  ==================================================================
``clamp``      numbers (and numeric strings) into ``[min, max]``
``to_number``  numeric strings to numbers
``round``      numbers to ``digits`` decimals
``upper``      strings to upper case (``lower``, ``strip`` likewise)
``alias``      rename the keys ``from`` to ``to`` in an object (``to`` wins if both exist)
``default_id`` set ``field`` from ``template`` (``{index}``, ``{hash}``) when missing or empty
``cap``        keep the first ``max`` items of a list
``dedupe``     drop repeated list items, keeping the first
``drop_empty`` drop ``null``, blank strings, ``{}`` and ``[]`` from a list
``sort``       sort a list whose items are all strings
``wrap``       turn each string item of a list into ``{key: item}``
=============  ==================================================================
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from agi_core.contracts import paths
from agi_core.contracts.model import Rule

#: applies an operation to ``container[key]``; ``index`` is the position of the enclosing list item
Apply = Callable[[Any, Any, int], None]


def compile_rules(rules: Iterable[Rule]) -> Callable[[Any], Any]:
    """One function ``normalize(value) -> value`` applying ``rules`` in order, in place."""
    fused: list[tuple[str, list[Apply]]] = []  # consecutive rules on one path share one walk
    for rule in rules:
        apply = _OPS[rule.op](rule.params)
        if fused and fused[-1][0] == rule.path:
            fused[-1][1].append(apply)
        else:
            fused.append((rule.path, [apply]))
    visits = [
        _walker(paths.parse(path), applies[0] if len(applies) == 1 else _chain(applies)) for path, applies in fused
    ]
    if not visits:
        return _identity

    def normalize(value: Any) -> Any:
        holder = [value]
        for visit in visits:
            visit(holder, 0, 0)
        return holder[0]

    return normalize


def _identity(value: Any) -> Any:
    return value


def _chain(applies: list[Apply]) -> Apply:
    def chained(container: Any, key: Any, index: int) -> None:
        for apply in applies:
            apply(container, key, index)

    return chained


def _walker(segments: tuple[str, ...], apply: Apply) -> Apply:
    """A chain of closures visiting every match of ``segments`` (no allocation per call)."""
    step = apply
    for segment in reversed(segments):
        step = _step(segment, step)
    return step


def _step(segment: str, then: Apply) -> Apply:
    if segment == paths.ANY_ITEM:

        def each_item(container: Any, key: Any, _index: int) -> None:
            value = container[key]
            if type(value) is list:
                for position in range(len(value)):
                    then(value, position, position)

        return each_item
    if segment == paths.ANY_VALUE:

        def each_value(container: Any, key: Any, index: int) -> None:
            value = container[key]
            if type(value) is dict:
                for name in list(value):
                    then(value, name, index)

        return each_value

    def member(container: Any, key: Any, index: int) -> None:
        value = container[key]
        if type(value) is dict and segment in value:
            then(value, segment, index)

    return member


def _number(value: Any) -> float | int | None:
    """A finite number from a number or a numeric string, else None (bools are not numbers)."""
    kind = type(value)
    if kind is int:
        return value
    if kind is float:
        return value if math.isfinite(value) else None
    if kind is str and len(value) < 64:
        try:
            number = float(value.strip().rstrip("%")) / (100 if value.strip().endswith("%") else 1)
        except ValueError:
            return None
        return number if math.isfinite(number) else None
    return None


def _clamp(params: Mapping[str, Any]) -> Apply:
    low, high = float(params["min"]), float(params["max"])

    def apply(container: Any, key: Any, _index: int) -> None:
        number = _number(container[key])
        if number is not None:
            container[key] = low if number < low else high if number > high else number

    return apply


def _to_number(_params: Mapping[str, Any]) -> Apply:
    def apply(container: Any, key: Any, _index: int) -> None:
        if type(container[key]) is str:
            number = _number(container[key])
            if number is not None:
                container[key] = number

    return apply


def _round(params: Mapping[str, Any]) -> Apply:
    digits = params["digits"]

    def apply(container: Any, key: Any, _index: int) -> None:
        value = container[key]
        if type(value) in (int, float):
            try:
                container[key] = round(float(value), digits) if math.isfinite(value) else value
            except OverflowError:  # an integer too large for a float stays as it is
                pass

    return apply


def _string(method: Callable[[str], str]) -> Callable[[Mapping[str, Any]], Apply]:
    def factory(_params: Mapping[str, Any]) -> Apply:
        def apply(container: Any, key: Any, _index: int) -> None:
            if type(container[key]) is str:
                container[key] = method(container[key])

        return apply

    return factory


def _alias(params: Mapping[str, Any]) -> Apply:
    sources, target = tuple(params["from"]), params["to"]

    def apply(container: Any, key: Any, _index: int) -> None:
        obj = container[key]
        if type(obj) is not dict:
            return
        for source in sources:
            if source in obj:
                value = obj.pop(source)
                if target not in obj:
                    obj[target] = value

    return apply


def _default_id(params: Mapping[str, Any]) -> Apply:
    field, template = params["field"], params["template"]
    hashed = "{hash}" in template

    def apply(container: Any, key: Any, index: int) -> None:
        obj = container[key]
        if type(obj) is not dict or obj.get(field) not in (None, ""):
            return
        digest = ""
        if hashed:
            body = {name: value for name, value in obj.items() if name != field}
            canonical = _canonical(body)
            if canonical is None:
                return
            digest = hashlib.sha256(canonical.encode("utf-8", "surrogatepass")).hexdigest()[:12]
        obj[field] = template.format(index=index + 1, hash=digest)

    return apply


def _canonical(value: Any) -> str | None:
    try:
        return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError, RecursionError):
        return None


def _list_op(transform: Callable[[list[Any], Mapping[str, Any]], list[Any]]) -> Callable[[Mapping[str, Any]], Apply]:
    def factory(params: Mapping[str, Any]) -> Apply:
        def apply(container: Any, key: Any, _index: int) -> None:
            if type(container[key]) is list:
                container[key] = transform(container[key], params)

        return apply

    return factory


def _cap(items: list[Any], params: Mapping[str, Any]) -> list[Any]:
    return items[: params["max"]]


def _dedupe(items: list[Any], _params: Mapping[str, Any]) -> list[Any]:
    seen: set[Any] = set()
    kept = []
    for item in items:
        marker = (type(item), item) if type(item) in (str, int, bool) or item is None else _canonical(item)
        if marker is None or marker not in seen:
            if marker is not None:
                seen.add(marker)
            kept.append(item)
    return kept


def _drop_empty(items: list[Any], _params: Mapping[str, Any]) -> list[Any]:
    return [
        item
        for item in items
        if not (item is None or item == {} or item == [] or (type(item) is str and not item.strip()))
    ]


def _sort(items: list[Any], _params: Mapping[str, Any]) -> list[Any]:
    return sorted(items) if all(type(item) is str for item in items) else items


def _wrap(items: list[Any], params: Mapping[str, Any]) -> list[Any]:
    key = params["key"]
    return [{key: item} if type(item) is str else item for item in items]


_OPS: dict[str, Callable[[Mapping[str, Any]], Apply]] = {
    "clamp": _clamp,
    "to_number": _to_number,
    "round": _round,
    "upper": _string(str.upper),
    "lower": _string(str.lower),
    "strip": _string(str.strip),
    "alias": _alias,
    "default_id": _default_id,
    "cap": _list_op(_cap),
    "dedupe": _list_op(_dedupe),
    "drop_empty": _list_op(_drop_empty),
    "sort": _list_op(_sort),
    "wrap": _list_op(_wrap),
}

#: the operation names a contract file may use
OPERATIONS: tuple[str, ...] = tuple(_OPS)

__all__ = ["OPERATIONS", "compile_rules"]
