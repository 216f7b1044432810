"""JSON paths: the small subset contracts use (``$``, ``.key``, ``.*``, ``[*]``) and formatting."""

from __future__ import annotations

import re
from collections.abc import Iterable

#: one segment: a key, ``*`` (every value of a mapping) or ``[*]`` (every item of a list)
ANY_VALUE = "*"
ANY_ITEM = "[*]"
_SEGMENT = re.compile(r"\.([A-Za-z_][A-Za-z0-9_]*)|\.(\*)|(\[\*\])")
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
PATTERN = r"^\$(\.[A-Za-z_][A-Za-z0-9_]*|\.\*|\[\*\])*$"


def parse(path: str) -> tuple[str, ...]:
    """``"$.rules[*].id"`` -> ``("rules", "[*]", "id")``; raises ValueError if malformed."""
    if not path.startswith("$"):
        raise ValueError(f"JSON path {path!r} must start with '$'")
    segments: list[str] = []
    pos = 1
    while pos < len(path):
        match = _SEGMENT.match(path, pos)
        if match is None:
            raise ValueError(f"JSON path {path!r} is malformed at character {pos}")
        segments.append(match.group(1) or match.group(2) or match.group(3))
        pos = match.end()
    return tuple(segments)


def format_path(parts: Iterable[str | int]) -> str:
    """``["intent", "confidence"]`` -> ``"$.intent.confidence"``; ints become ``[n]``."""
    out = ["$"]
    for part in parts:
        if isinstance(part, int):
            out.append(f"[{part}]")
        elif _IDENT.match(part):
            out.append(f".{part}")
        else:
            escaped = part[:60].replace("\\", "\\\\").replace("'", "\\'")
            out.append(f"['{escaped}']")
    return "".join(out)


def join(base: str, key: str | int) -> str:
    """Append one key or index to a formatted path."""
    return format_path([key]).replace("$", base, 1)


__all__ = ["ANY_ITEM", "ANY_VALUE", "PATTERN", "format_path", "join", "parse"]
