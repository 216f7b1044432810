"""A large module state value is journaled as a JSON Patch (RFC 6902) from its previous value.

The ``module_state`` row always holds the whole value; only the journal's record of the write
(``{"key", "patch"}`` instead of ``{"key", "value"}``) shrinks, so a 100k-float state updated by
one element costs a few bytes of journal, not the whole list. Lists of the same length and
objects are compared element by element here (fast: no alignment search); any other change
of shape goes to ``jsonpatch.make_patch``. A patch that would not be much smaller than the
value is not used. ``jsonpatch.apply_patch(previous, patch)`` gives the value back.
"""

from __future__ import annotations

from typing import Any

import jsonpatch

from agi_core.serialization import dumps

DELTA_MIN_CHARS = 4096
"""Values whose canonical JSON is shorter are journaled whole."""


def _escape(part: str | int) -> str:
    return str(part).replace("~", "~0").replace("/", "~1")


def _same_leaf(old: Any, new: Any) -> bool:
    """Equal scalars of the same type (1, 1.0 and True differ in JSON text, so they differ here)."""
    return type(old) is type(new) and not isinstance(old, list | dict) and old == new


def _diff(before: Any, after: Any, path: str, ops: list[dict[str, Any]]) -> None:
    if isinstance(before, list) and isinstance(after, list) and len(before) == len(after):
        for index, (old, new) in enumerate(zip(before, after, strict=True)):
            if not _same_leaf(old, new):
                _diff(old, new, f"{path}/{index}", ops)
        return
    if isinstance(before, dict) and isinstance(after, dict):
        for key in sorted(before.keys() - after.keys()):  # sorted: a set's order varies between processes
            ops.append({"op": "remove", "path": f"{path}/{_escape(key)}"})
        for key, new in after.items():
            if key not in before:
                ops.append({"op": "add", "path": f"{path}/{_escape(key)}", "value": new})
            elif not _same_leaf(before[key], new):
                _diff(before[key], new, f"{path}/{_escape(key)}", ops)
        return
    if isinstance(before, list) and isinstance(after, list):  # another length: jsonpatch aligns them
        found = jsonpatch.make_patch({"v": before}, {"v": after}).patch  # paths under /v
        for op in found:
            op["path"] = path + op["path"][2:]
            if "from" in op:
                op["from"] = path + op["from"][2:]
        ops.extend(found)
        return
    if not _same_leaf(before, after):
        ops.append({"op": "replace", "path": path, "value": after})


def delta(before: Any, after: Any, after_chars: int) -> list[dict[str, Any]] | None:
    """The JSON Patch from ``before`` to ``after``, when it is under half the value's ``after_chars``."""
    ops: list[dict[str, Any]] = []
    _diff(before, after, "", ops)
    if len(dumps(ops)) * 2 >= after_chars:
        return None
    return ops
