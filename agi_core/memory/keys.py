"""Canonical semantic-memory keys (rulebook S1-S4).

A key is ``<scope>/<entity_type>/<entity_id>/<attribute>``, every segment snake_case
over ``[a-z0-9_]``. Words pass through the synonym table first, so "favourite colour"
and "favorite color" land on one key; a whole segment maps too when the table names it
(``date_of_birth`` → ``birth_date``). The entity type is singular (S3): :func:`make_key`
makes it so and :func:`check_key` refuses a plural one.
"""

from __future__ import annotations

import functools
import hashlib
import re
import unicodedata
from collections.abc import Mapping

from agi_core.errors import MemoryKeyError

MAX_KEY_CHARS = 200
"""The longest canonical key accepted (longer keys are refused with a one-line error)."""
KEY_RE = re.compile(r"^[a-z0-9_]+/[a-z0-9_]+/[a-z0-9_]+/[a-z0-9_]+$")
_NON_WORD = re.compile(r"[^a-z0-9]+")


def words(text: str, synonyms: Mapping[str, str]) -> list[str]:
    """Lower-cased words of ``text`` with synonyms mapped to their canonical spelling."""
    return [synonyms.get(word, word) for word in _NON_WORD.split(text.lower()) if word]


def segment(text: str, synonyms: Mapping[str, str], *, mapped: bool = True) -> str:
    """One snake_case key segment; raises if nothing usable is left.

    With ``mapped`` (the default) words and then the whole segment pass through ``synonyms``
    (``date of birth`` → ``birth_date``, ``e-mail address`` → ``email``); without, the text is
    only lowered and joined (a thing's name: "Rocket Lab" stays ``rocket_lab``).
    """
    raw = "_".join(words(text, {}))
    if not mapped or raw in synonyms:
        result = synonyms.get(raw, raw) if mapped else raw
    else:
        result = "_".join(words(text, synonyms))
        result = synonyms.get(result, result)
    if not result:
        raise MemoryKeyError(
            f"{_shown(text)} has no letters or digits to build a key segment from; use a name made of a-z, 0-9 or _"
        )
    return result


IRREGULAR_PLURALS = {
    "people": "person",
    "persons": "person",
    "children": "child",
    "men": "man",
    "women": "woman",
    "mice": "mouse",
    "geese": "goose",
    "feet": "foot",
    "teeth": "tooth",
    "oxen": "ox",
    "wives": "wife",
    "knives": "knife",
    "lives": "life",
    "leaves": "leaf",
    "wolves": "wolf",
    "halves": "half",
    "shelves": "shelf",
    "thieves": "thief",
    "loaves": "loaf",
    "calves": "calf",
    "criteria": "criterion",
    "phenomena": "phenomenon",
    "cacti": "cactus",
    "fungi": "fungus",
    "indices": "index",
    "matrices": "matrix",
    "vertices": "vertex",
    "analyses": "analysis",
    "theses": "thesis",
    "crises": "crisis",
    "movies": "movie",
    "cookies": "cookie",
    "pies": "pie",
    "ties": "tie",
    "lies": "lie",
}
"""Plurals the suffix rules of :func:`singular` get wrong."""
SAME_IN_PLURAL = frozenset(
    {
        "news",
        "series",
        "species",
        "physics",
        "mathematics",
        "economics",
        "politics",
        "athletics",
        "ethics",
        "canvas",
        "atlas",
        "alias",
        "bias",
        "lens",
        "gas",
        "bus",
        "sheep",
        "fish",
        "deer",
        "aircraft",
        "data",
        "police",
        "scissors",
        "trousers",
        "jeans",
        "glasses",
        "clothes",
        "headquarters",
        "means",
        "status",
        "chess",
        "iris",
        "yes",
    }
)
"""Words that are already singular though they end like a plural."""


def singular(word: str) -> str:
    """The singular of an entity type (S3): countries → country, boxes → box, people → person.

    Snake_case words change only in their last part (``tv_series`` stays, ``blog_posts`` →
    ``blog_post``).
    """
    head, _, last = word.rpartition("_")
    if last in SAME_IN_PLURAL or len(last) <= 3:
        return word
    if last in IRREGULAR_PLURALS:
        one = IRREGULAR_PLURALS[last]
    elif last.endswith("ies"):
        one = last[:-3] + "y"
    elif last.endswith(("ches", "shes", "sses", "xes", "zzes")):
        one = last[:-2]
    elif last.endswith("s") and not last.endswith(("ss", "us", "is", "os")):
        one = last[:-1]
    else:
        one = last
    return f"{head}_{one}" if head else one


def make_key(
    scope: str,
    entity_type: str,
    entity_id: str,
    attribute: str,
    synonyms: Mapping[str, str] | None = None,
    *,
    map_entity_id: bool = True,
) -> str:
    """Build and check a canonical key from free-text parts.

    ``map_entity_id=False`` keeps a named thing's id out of the synonyms ("the Rocket Lab").
    """
    table = synonyms or {}
    key = "/".join(
        (
            segment(scope, table),
            singular(segment(entity_type, table)),
            segment(entity_id, table, mapped=map_entity_id),
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
    entity_type = key.split("/", 2)[1]
    if (one := singular(entity_type)) != entity_type:
        raise MemoryKeyError(
            f"entity type {entity_type!r} of {_shown(key)} is plural; rule S3 wants it singular: use {one!r}"
        )
    return key


SELF_ENTITY = "self"
"""The entity id of the user who names no speaker (the terminal user): ``user/person/self/…``."""
SPEAKER_ENTITY_CHARS = 60
"""The longest speaker entity id spelled out; a longer name is known by its hash."""


@functools.lru_cache(maxsize=256)  # a pure function of the name, asked on every tick a named speaker says
def speaker_entity(speaker: str | None) -> str:
    """The entity id a speaker's own facts are kept under: ``user/person/<this>/<attribute>``.

    No speaker is :data:`SELF_ENTITY`. A name is lowered and its words joined (accents dropped:
    "Zoë Martin" → ``zoe_martin``); a name with letters that have no ASCII form ("李雷"), no letters
    or digits at all, longer than :data:`SPEAKER_ENTITY_CHARS`, or spelled ``self`` (or ``speaker_…``) is
    ``speaker_<16 hex digits of its SHA-256>``: any text makes a valid key segment, two such names
    never share one, and no named speaker's facts land on the terminal user's.
    """
    if speaker is None:
        return SELF_ENTITY
    plain = unicodedata.normalize("NFKD", speaker).encode("ascii", "ignore").decode("ascii")
    slug = "_".join(words(plain, {}))
    lossy = any(c.isalnum() and not c.isascii() and not _has_ascii_form(c) for c in speaker)
    hashed = slug.startswith("speaker_")  # the hashed form's own spelling: a name never takes it
    if lossy or hashed or not slug or slug == SELF_ENTITY or len(slug) > SPEAKER_ENTITY_CHARS:
        return "speaker_" + hashlib.sha256(speaker.casefold().encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return slug


def _has_ascii_form(char: str) -> bool:
    return bool(unicodedata.normalize("NFKD", char).encode("ascii", "ignore"))


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
