"""Parsing a model's text into JSON, with the cheap repairs models usually need.

Tried in order, each only when the plain parse failed: strip a BOM and whitespace, take the
body of a Markdown code fence, skip prose before the first ``{`` (and after its matching
``}``), drop trailing commas, turn typographic quotes into ASCII ones. A text whose object
never closes (unbalanced braces, an unterminated string) is reported as ``truncated``: more
attempts with the same token limit would be cut off the same way.
"""

from __future__ import annotations

import json
import re
from typing import Any

import attrs

from agi_core.contracts.model import Issue

#: texts longer than this are refused unread (reason ``too_large``)
MAX_TEXT_CHARS = 2_000_000
_MAX_STARTS = 8

_FENCE = re.compile(r"```[A-Za-z0-9_+-]*[ \t]*\n?(.*?)(?:```|\Z)", re.S)
_STRING = r'"[^"\\]*(?:\\.[^"\\]*)*"'
_TOKEN = re.compile(_STRING + r'|"|[{}\[\]]', re.S)
_TRAILING_COMMA = re.compile(f"({_STRING})|,(\\s*[}}\\]])", re.S)
_SMART = str.maketrans(
    {
        "\u201c": '"',
        "\u201d": '"',
        "\u201e": '"',
        "\u201f": '"',
        "\u2033": '"',
        "\u2018": "'",
        "\u2019": "'",
        "\u201a": "'",
        "\u201b": "'",
        "\u2032": "'",
    }
)
_SMART_CHARS = re.compile("[\u201c\u201d\u201e\u201f\u2033]")


@attrs.frozen
class Parsed:
    """The parsed value (or ``None``), the repairs used, and the problem when it failed."""

    value: Any = None
    repairs: tuple[str, ...] = ()
    issue: Issue | None = None
    reason: str | None = None


def parse_output(text: str) -> Parsed:
    """Parse ``text`` as one JSON value, repairing cheaply; never raises on bad input."""
    if len(text) > MAX_TEXT_CHARS:
        return _fail("too_large", f"output has {len(text)} characters, more than {MAX_TEXT_CHARS}")
    value, error = _loads(text)
    if error is None:
        return Parsed(value)
    repairs: list[str] = []
    body = text.strip().lstrip("\ufeff").strip()
    if body != text:
        repairs.append("whitespace")
    fence = _FENCE.search(body)
    if fence is not None:
        body = fence.group(1).strip()
        repairs.append("code_fence")
    start = body.find("{")
    if start < 0:
        return _fail("parse", "no JSON object found in the output", repairs)
    if start > 0:
        repairs.append("leading_prose")
    first_error: str | None = None
    for _ in range(_MAX_STARTS):
        end = _matching_brace(body, start)
        if end is None:
            return _fail(
                "truncated",
                "the JSON object is cut off (unbalanced braces or an unterminated string); the output was truncated",
                repairs,
            )
        parsed = _parse_candidate(body[start : end + 1], repairs, trailing=end + 1 < len(body.rstrip()))
        if parsed.issue is None:
            return parsed
        first_error = first_error or (parsed.issue.message if parsed.issue else None)
        start = body.find("{", start + 1)
        if start < 0:
            break
    return _fail("parse", first_error or "not valid JSON", repairs)


def _parse_candidate(candidate: str, repairs: list[str], *, trailing: bool) -> Parsed:
    steps = [*repairs, "trailing_prose"] if trailing else list(repairs)
    value, error = _loads(candidate)
    if error is None:
        return Parsed(value, tuple(steps))
    fixed = _TRAILING_COMMA.sub(lambda m: m.group(1) or m.group(2), candidate)
    if fixed != candidate:
        steps.append("trailing_commas")
        value, error = _loads(fixed)
        if error is None:
            return Parsed(value, tuple(steps))
    if _SMART_CHARS.search(fixed):
        steps.append("smart_quotes")
        value, error = _loads(fixed.translate(_SMART))
        if error is None:
            return Parsed(value, tuple(steps))
    return Parsed(issue=Issue("$", error or "not valid JSON", "parse"), reason="parse")


def _loads(text: str) -> tuple[Any, str | None]:
    try:
        return json.loads(text), None
    except json.JSONDecodeError as exc:
        return None, f"not valid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"
    except RecursionError:
        return None, "the JSON nests too deeply to parse"
    except ValueError as exc:  # e.g. an integer with more than 4300 digits
        return None, f"not usable JSON: {str(exc)[:120]}"


def _matching_brace(text: str, start: int) -> int | None:
    """Index of the bracket closing the one at ``start``; None if the text ends first."""
    depth = 0
    for match in _TOKEN.finditer(text, start):
        token = match.group()
        if token in "{[":
            depth += 1
        elif token in "}]":
            depth -= 1
            if depth == 0:
                return match.start()
        elif token == '"':  # a quote that opens a string which never closes
            return None
    return None


def _fail(reason: str, message: str, repairs: list[str] | tuple[str, ...] = ()) -> Parsed:
    return Parsed(None, tuple(repairs), Issue("$", message, reason), reason)


__all__ = ["MAX_TEXT_CHARS", "Parsed", "parse_output"]
