"""Canonical semantic-memory keys (rulebook S1-S4).

A key is ``<scope>/<entity_type>/<entity_id>/<attribute>``, every segment snake_case
over ``[a-z0-9_]``. Words pass through the synonym table first, so "favourite colour"
and "favorite color" land on one key.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from agi_core.errors import MemoryKeyError

MAX_KEY_CHARS = 200
"""The longest canonical key accepted (longer keys are refused with a one-line error)."""
KEY_RE = re.compile(r"^[a-z0-9_]+/[a-z0-9_]+/[a-z0-9_]+/[a-z0-9_]+$")
_NON_WORD = re.compile(r"[^a-z0-9]+")


def words(text: str, synonyms: Mapping[str, str]) -> list[str]:
    """Lower-cased words of ``text`` with synonyms mapped to their canonical spelling."""
    return [synonyms.get(word, word) for word in _NON_WORD.split(text.lower()) if word]


def segment(text: str, synonyms: Mapping[str, str]) -> str:
    """One snake_case key segment; raises if nothing usable is left."""
    result = "_".join(words(text, synonyms))
    if not result:
        raise MemoryKeyError(
            f"{_shown(text)} has no letters or digits to build a key segment from; use a name made of a-z, 0-9 or _"
        )
    return result


def singular(word: str) -> str:
    """A cheap singular for entity types (S3): countries → country, cities → city."""
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("s") and not word.endswith(("ss", "us", "is")) and len(word) > 3:
        return word[:-1]
    return word


def make_key(
    scope: str, entity_type: str, entity_id: str, attribute: str, synonyms: Mapping[str, str] | None = None
) -> str:
    """Build and check a canonical key from free-text parts."""
    table = synonyms or {}
    key = "/".join(
        (
            segment(scope, table),
            singular(segment(entity_type, table)),
            segment(entity_id, table),
            segment(attribute, table),
        )
    )
    return check_key(key)


def check_key(key: str) -> str:
    """Return ``key`` if it is canonical (S1-S2) and at most ``MAX_KEY_CHARS`` long, else raise naming the fix."""
    if isinstance(key, str) and len(key) > MAX_KEY_CHARS:
        raise MemoryKeyError(
            f"key {_shown(key)} is {len(key):,} characters; canonical keys are at most {MAX_KEY_CHARS}, "
            "so use a shorter entity name or attribute"
        )
    if not isinstance(key, str) or not KEY_RE.match(key):
        raise MemoryKeyError(
            f"{_shown(key)} is not a canonical key; use <scope>/<entity_type>/<entity_id>/<attribute> "
            "with lowercase letters, digits and underscores, e.g. user/person/self/favorite_color"
        )
    return key


def _shown(value: object) -> str:
    """``repr`` of a value in an error message, cut to a readable length and to one line."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def merge_synonyms(tables: Mapping[str, Mapping[str, str]]) -> dict[str, str]:
    """Merge per-plugin synonym tables; a word mapped two ways is an error naming both."""
    merged: dict[str, str] = {}
    owner: dict[str, str] = {}
    for plugin, table in tables.items():
        for word, canonical in table.items():
            word, canonical = word.lower(), canonical.lower()
            if word in merged and merged[word] != canonical:
                raise MemoryKeyError(
                    f"synonym {word!r} maps to {merged[word]!r} in plugin {owner[word]!r} and to "
                    f"{canonical!r} in plugin {plugin!r}; remove one of the two mappings"
                )
            merged[word], owner[word] = canonical, plugin
    return merged
