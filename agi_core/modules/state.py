"""A module's own persistent state: a namespaced key/value store written in the tick's transaction.

Values are JSON, checked against the module's ``state_schema`` (the JSON Schema of its
state object, one property per key) before they are stored. A refused value raises
:class:`ModuleStateError` (one line) and stores nothing; if the module lets it through, the
runner skips the module for the tick and the tick goes on.
"""

from __future__ import annotations

import copy
import sqlite3
import threading
from collections.abc import Callable, Iterator
from typing import Any

import jsonschema
import orjson

from agi_core.errors import ValidationError
from agi_core.memory import module_state_table as table
from agi_core.serialization import dumps

MAX_KEY_CHARS = 200


class ModuleStateError(ValidationError):
    """A module tried to store a value its state schema (or JSON) does not allow."""


def key_validator(schema: dict[str, Any] | None) -> jsonschema.protocols.Validator | None:
    """A validator of one-key state objects: ``schema`` without its top-level ``required``."""
    if schema is None:
        return None
    single = {k: v for k, v in copy.deepcopy(schema).items() if k not in ("required", "minProperties")}
    return jsonschema.Draft202012Validator(single)


class ModuleState:
    """``get``/``put``/``delete``/``items`` over one module's rows; every change is logged for the journal."""

    def __init__(
        self,
        conn: sqlite3.Connection,
        module: str,
        tick: int,
        validator: jsonschema.protocols.Validator | None,
        check_open: Callable[[], None],
    ) -> None:
        self._conn, self.module, self._tick = conn, module, tick
        self._validator, self._check_open = validator, check_open
        self.writes: list[dict[str, Any]] = []
        self._savepoint = False  # opened at the first write, so a call that only reads costs no SQL
        self._lock = threading.Lock()  # a write and the end of the call never interleave
        self._closed = False

    def close(self) -> None:
        """The call is over (returned, raised or timed out): later writes are refused."""
        with self._lock:
            self._closed = True

    def _writable(self) -> None:
        self._check_open()
        if self._closed:
            raise ModuleStateError(f"module {self.module!r}: its call has ended (timed out); the write is refused")

    def _begin(self) -> None:
        if not self._savepoint:
            self._conn.execute("SAVEPOINT agi_module")
            self._savepoint = True

    def keep(self) -> None:
        """The call succeeded: its writes join the tick's transaction."""
        if self._savepoint:
            self._conn.execute("RELEASE agi_module")
            self._savepoint = False

    def undo(self) -> None:
        """The call failed: its writes are undone (and not journaled)."""
        if self._savepoint:
            self._conn.execute("ROLLBACK TO agi_module")
            self._conn.execute("RELEASE agi_module")
            self._savepoint = False
        self.writes.clear()

    def get(self, key: str, default: Any = None) -> Any:
        self._check_open()
        text = table.get_value(self._conn, self.module, key)
        return default if text is None else orjson.loads(text)

    def put(self, key: str, value: Any) -> None:
        """Store ``value`` under ``key``; :class:`ModuleStateError` if it is not JSON or breaks the schema."""
        with self._lock:
            self._put(key, value)

    def _put(self, key: str, value: Any) -> None:
        self._writable()
        if not isinstance(key, str) or not key or len(key) > MAX_KEY_CHARS:
            raise ModuleStateError(
                f"module {self.module!r}: state key {key!r} refused; "
                f"use a non-empty string of at most {MAX_KEY_CHARS} characters"
            )
        try:
            text = dumps(value)
        except (ValidationError, TypeError) as exc:
            raise ModuleStateError(
                f"module {self.module!r}: state {key!r} is not JSON ({exc}); store JSON values"
            ) from None
        if self._validator is not None and not self._validator.is_valid(state := {key: orjson.loads(text)}):
            error = jsonschema.exceptions.best_match(self._validator.iter_errors(state))
            if error is not None:
                where = "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path)
                raise ModuleStateError(
                    f"module {self.module!r}: state value refused at {where}: {error.message}; "
                    "store a value its state_schema allows"
                )
        self._begin()
        table.put_value(self._conn, self.module, key, text, self._tick)
        self.writes.append({"key": key, "value": orjson.loads(text)})

    def delete(self, key: str) -> bool:
        with self._lock:
            self._writable()
            self._begin()
            deleted = table.delete_value(self._conn, self.module, key)
            if deleted:
                self.writes.append({"key": key, "deleted": True})
            return deleted

    def items(self) -> Iterator[tuple[str, Any]]:
        self._check_open()
        for key, text in table.items(self._conn, self.module):
            yield key, orjson.loads(text)


def dump_state(conn: sqlite3.Connection, module: str) -> dict[str, Any]:
    """A module's whole state as a dict (``agi modules show``)."""
    return {key: orjson.loads(text) for key, text in table.items(conn, module)}
