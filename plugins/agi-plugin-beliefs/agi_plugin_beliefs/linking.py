"""Linking a mention to a belief across spellings: case, accents, British spellings, articles, typos.

The heuristic path of ``entity_linker``: normalize both sides, then the best
:class:`difflib.SequenceMatcher` ratio at or above :data:`THRESHOLD` wins (ties: the first).
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections.abc import Iterable, Mapping
from typing import Any

THRESHOLD = 0.8
SPELLINGS = {
    "favourite": "favorite",
    "colour": "color",
    "colours": "colors",
    "neighbour": "neighbor",
    "centre": "center",
    "theatre": "theater",
    "organisation": "organization",
    "fav": "favorite",
}
FILLER = frozenset({"the", "a", "an", "my", "your", "of", "about", "that", "is", "are"})


def normalized(text: str) -> str:
    plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()
    words = [SPELLINGS.get(w, w) for w in re.findall(r"[a-z0-9]+", plain)]
    return " ".join(w for w in words if w not in FILLER)


def best_match(mention: str, candidates: Iterable[Mapping[str, Any]]) -> tuple[str, float] | None:
    """``(id, score)`` of the candidate whose id or an alias is closest to ``mention``; None below the threshold."""
    target = normalized(mention)
    best: tuple[str, float] | None = None
    for candidate in candidates:
        ident = candidate.get("id")
        if not isinstance(ident, str) or not target:
            continue
        names = [
            ident.replace("/", " ").replace("_", " "),
            *[a for a in candidate.get("aliases", []) if isinstance(a, str)],
        ]
        score = max(difflib.SequenceMatcher(None, target, normalized(name)).ratio() for name in names)
        if score >= THRESHOLD and (best is None or score > best[1]):
            best = (ident, round(score, 4))
    return best
