"""Content-addressed blobs: large strings stored once, referenced by their sha256.

Any string of ``BLOB_THRESHOLD`` characters or more inside stored JSON (a journal record,
a fact value, an episode) is replaced by the reference ``agi:blob:sha256:<hex>`` and its
UTF-8 bytes go to the ``blobs`` table, in the same transaction. Equal strings share one
blob, so an input that appears in the record (older journals: in its externals too) and its episode is stored
once. A string that starts with ``agi:json:`` (:data:`JSON_MARKER`: a journal record's working
memory, ``agi_core.journal_form``) is a blob whatever its length, so that it is stored once too.
A string that merely *looks* like a reference is always stored as a blob itself, so
every reference in the database is a real one. Blobs are immutable and covered by the journal's
chain through their hash; ``agi journal archive`` deletes those no row refers to any more (SQLite:
:mod:`agi_core.memory.sqlite.blob_collect`), and a rollback brings back those its checkpoint's rows need.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from typing import Any

import orjson

from agi_core.inputs import normalize

BLOB_THRESHOLD = 4096
MARKER = "agi:blob:sha256:"
JSON_MARKER = "agi:json:"
"""Prefix of a JSON value written as a string so that it is stored once, as a blob, whatever its length
(``agi_core.journal_form``: a record's working memory, the same tick after tick)."""
NORMALIZED = ":normalized"
"""Suffix of a reference to the ``normalized`` form of an input stored as a blob."""

REF_RE = re.compile(r"agi:blob:sha256:([0-9a-f]{64})")

Put = Callable[[str, bytes], None]
Get = Callable[[str], str]


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def needs_blob(text: str) -> bool:
    return len(text) >= BLOB_THRESHOLD or text.startswith((MARKER, JSON_MARKER))


def maybe_refs(json_text: str) -> bool:
    """Cheap test: could this JSON text hold references (or strings that must become blobs)?

    Conservative: True when it holds the marker, or a string literal (key or value) of
    ``BLOB_THRESHOLD`` characters or more, escapes counted, which a string needing a blob
    always has; a long text of short strings (a record with many modules) is False.
    """
    if MARKER in json_text or JSON_MARKER in json_text:
        return True
    return _may_hold_long_literal(json_text)


def _may_hold_long_literal(json_text: str) -> bool:
    """:func:`maybe_refs`'s length test: could ``json_text`` hold a string literal of ``BLOB_THRESHOLD`` characters?"""
    if len(json_text) < BLOB_THRESHOLD:
        return False
    # escapes become two plain characters (same length): then a literal of BLOB_THRESHOLD characters
    # or more holds a whole half-threshold window with no quote (the windows tile the text)
    plain = json_text if "\\" not in json_text else json_text.replace("\\\\", "__").replace('\\"', "__")
    half = BLOB_THRESHOLD // 2
    return any('"' not in plain[i : i + half] for i in range(0, len(plain) - half + 1, half))


def put_text(text: str, put: Put, seen: dict[str, str] | None = None) -> str:
    """The reference of ``text`` (stored through ``put``), or ``text`` itself when it is short."""
    if not needs_blob(text):
        return text
    if seen is not None and text in seen:
        return seen[text]
    data = text.encode("utf-8")
    ref = MARKER + hashlib.sha256(data).hexdigest()
    put(ref[len(MARKER) :], data)
    if seen is not None:
        seen[text] = ref
    return ref


def externalize(data: Any, put: Put, seen: dict[str, str] | None = None) -> Any:
    """``data`` with its large strings (values only, never keys) replaced by references."""
    seen = {} if seen is None else seen
    if isinstance(data, str):
        return put_text(data, put, seen)
    if isinstance(data, dict):
        return {key: externalize(value, put, seen) for key, value in data.items()}
    if isinstance(data, list):
        return [externalize(value, put, seen) for value in data]
    return data


def externalize_record(data: dict[str, Any], put: Put) -> dict[str, Any]:
    """A journal record with large strings as references; a large input is stored once.

    The input's ``normalized`` form, when it is the kernel's normalization of ``raw``,
    becomes ``<ref of raw>:normalized`` instead of a second blob.
    """
    seen: dict[str, str] = {}
    raw = (data.get("input") or {}).get("raw")
    if isinstance(raw, str) and needs_blob(raw):
        ref = put_text(raw, put, seen)
        normalized = normalize(raw)
        if normalized not in seen:
            seen[normalized] = ref + NORMALIZED
    result = externalize(data, put, seen)
    return result if isinstance(result, dict) else data


def stored_record_text(data: dict[str, Any], put: Put) -> str:
    """The text a journal record is stored (and chained) as: canonical JSON, large strings as references."""
    from agi_core.serialization import dumps

    text = dumps(data)
    if not maybe_refs(text):
        return text
    places = _json_marked_states(data, text)
    if places is not None:  # the compact form's working memories are its only blobs: no walk of the whole record
        seen: dict[str, str] = {}
        for field in places:
            put_text(data[field]["working"], put, seen)
        fast = _with_refs(text, data, places, seen)
        if fast is not None:
            return fast
        return dumps({**data, **{field: {**data[field], "working": seen[data[field]["working"]]} for field in places}})
    return dumps(externalize_record(data, put))


def _with_refs(text: str, data: dict[str, Any], places: list[str], refs: dict[str, str]) -> str | None:
    """``text`` with each working memory's string literal replaced by its reference's: the canonical text of
    the record with references, without serializing (and checking) the whole record again. None when a
    literal is not found where the marker is (the caller then serializes).

    The marker is in these literals only, once each (:func:`_json_marked_states`), and a JSON string ends at its
    first unescaped quote: the literal that starts at a marker's quote is the string there, whole."""
    literals = {_literal(working): _literal(ref) for working, ref in refs.items()}
    opening, at = '"' + JSON_MARKER, 0
    parts: list[str] = []
    for _place in places:
        found = text.find(opening, at)
        literal = next((known for known in literals if text.startswith(known, found)), None) if found >= 0 else None
        if literal is None:
            return None
        parts += (text[at:found], literals[literal])
        at = found + len(literal)
    return None if text.find(opening, at) >= 0 else "".join([*parts, text[at:]])


def _literal(text: str) -> str:
    """``text`` as canonical JSON writes it (a string holds no NaN: no check to make)."""
    try:
        return orjson.dumps(text).decode("utf-8")
    except TypeError:  # a lone surrogate: the canonical fallback's way
        from agi_core.serialization import dumps

        return dumps(text)


def _json_marked_states(data: dict[str, Any], text: str) -> list[str] | None:
    """The top-level fields whose ``working`` is a :data:`JSON_MARKER` string (``agi_core.journal_form``) when
    they hold every string of ``data`` (``text`` its JSON) that needs a blob: no reference, no long literal, and
    the marker nowhere else. None otherwise: :func:`externalize_record` walks it all."""
    places = [
        field
        for field, state in data.items()
        if isinstance(state, dict)
        and isinstance(state.get("working"), str)
        and state["working"].startswith(JSON_MARKER)
    ]
    if not places or MARKER in text or text.count(JSON_MARKER) != len(places) or _may_hold_long_literal(text):
        return None
    return places


def resolve_text(text: str, get: Get) -> str:
    """The string a reference stands for (``text`` itself when it is not a reference)."""
    if not text.startswith(MARKER):
        return text
    hex_digest = text[len(MARKER) : len(MARKER) + 64]
    full = get(hex_digest)
    if text.endswith(NORMALIZED):
        return normalize(full)
    return full


def resolve(data: Any, get: Get) -> Any:
    """``data`` with every reference replaced by the string it stands for."""
    if isinstance(data, str):
        return resolve_text(data, get)
    if isinstance(data, dict):
        return {key: resolve(value, get) for key, value in data.items()}
    if isinstance(data, list):
        return [resolve(value, get) for value in data]
    return data


def refs_in(json_text: str) -> set[str]:
    """The blob hashes a stored text refers to."""
    return set(REF_RE.findall(json_text)) if MARKER in json_text else set()
