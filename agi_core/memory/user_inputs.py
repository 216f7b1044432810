"""Which episodes are the user's inputs, for stores that read them past the agent's bookkeeping.

An input episode's context is canonical JSON (sorted keys, quotes escaped inside strings), so
``"kind":"input"`` and ``"source":"user"`` appear in its text only as its own keys (or a nested
object's): a store filters on both texts in SQL, then :func:`is_user_input` checks the parsed
context. A context kept as a blob reference is not matched (an input's context is a few keys).
"""

from __future__ import annotations

from typing import Any

USER_INPUT_LIKE = """context LIKE '%"kind":"input"%' AND context LIKE '%"source":"user"%'"""
"""The SQL condition, on an episodes row, that every user input meets (SQLite and PostgreSQL)."""


def user_input_index(table: str) -> str:
    """The partial index on ``table`` (``episodes``, or ``schema.episodes``) that a read of the newest user
    inputs walks instead of every episode since. Its condition is the read's own, word for word: SQLite and
    PostgreSQL use a partial index only for a query whose condition implies the index's."""
    return f"CREATE INDEX IF NOT EXISTS episodes_user_inputs ON {table} (seq) WHERE {USER_INPUT_LIKE}"


def is_user_input(context: Any) -> bool:
    """An episode context of the user's input."""
    return isinstance(context, dict) and context.get("kind") == "input" and context.get("source") == "user"
