"""A module's own persistent state: a namespaced key/value store written in the tick's transaction.

Values are JSON, checked against the module's ``state_schema`` (the JSON Schema of its
state object, one property per key) before they are stored. A refused value raises
:class:`ModuleStateError` (one line) and stores nothing; if the module lets it through, the
runner skips the module for the tick and the tick goes on.
"""

from __future__ import annotations

import copy
import inspect
import threading
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import orjson

from agi_core.errors import ValidationError
from agi_core.inputs import clean_text
from agi_core.memory.backend import MAX_STATE_VALUE_BYTES, ModuleStateStore
from agi_core.memory.state_cache import StateCache
from agi_core.modules.delta import DELTA_MIN_CHARS, delta
from agi_core.schemas import offline_validator
from agi_core.serialization import dumps

if TYPE_CHECKING:
    import jsonschema

    from agi_core.externals import Externals

MAX_KEY_CHARS = 200


class ModuleStateError(ValidationError):
    """A module tried to store a value its state schema (or JSON) does not allow."""


class KeyValidator:
    """Checks one-key state objects: jsonschema-rs for the check (the hot path, every ``put``),
    Python jsonschema only to name the problem of a value it refuses."""

    def __init__(self, schema: dict[str, Any], what: str = "state_schema") -> None:
        self.schema = schema
        self._fast = offline_validator(schema, what)  # a remote $ref: RemoteReference, never a fetch

    def is_valid(self, instance: Any) -> bool:
        return bool(self._fast.is_valid(instance))

    def best_error(self, instance: Any) -> jsonschema.ValidationError | None:
        """The error Python jsonschema names first for ``instance`` (None if it finds none)."""
        import jsonschema

        return jsonschema.exceptions.best_match(jsonschema.Draft202012Validator(self.schema).iter_errors(instance))


def key_validator(schema: dict[str, Any] | None, what: str = "state_schema") -> KeyValidator | None:
    """A validator of one-key state objects: ``schema`` without its top-level ``required``."""
    if schema is None:
        return None
    one_key = {k: v for k, v in copy.deepcopy(schema).items() if k not in ("required", "minProperties")}
    return KeyValidator(one_key, what)


_DELETED = object()  # a pending delete
_MISSING = object()  # no value stored under a key (a stored JSON null is None)
_TAKES_DEFAULT: dict[type, bool] = {}
_GOOD_KEYS: set[str] = set()  # state keys already found fit (a key's fitness is a property of its text alone)
GOOD_KEYS_MAX = 4096


class StateWrites:
    """The module-state writes a tick's successful calls kept, held until the run of calls ends (:meth:`flush`):
    one statement for all (``module_state_put_many``) instead of one a key. A read of the store, a delete, and
    the end of each run of phase calls write what is held first, so the store is never read behind it."""

    def __init__(self, store: Any) -> None:
        self._store = store
        self._many = getattr(store, "module_state_put_many", None)
        self._rows: list[tuple[str, str, Any, int, str]] = []  # module, key, value, tick, its JSON text

    def put(self, module: str, key: str, value: Any, tick: int, text: str) -> None:
        self._rows.append((module, key, value, tick, text))

    def flush(self) -> None:
        rows, self._rows = self._rows, []
        if not rows:
            return
        if self._many is not None:
            self._many([(module, key, text, tick) for module, key, _value, tick, text in rows])
            return
        for module, key, value, tick, text in rows:  # a backend without it: a statement a key, as before
            self._store.module_state_put(module, key, value, tick, text=text)


OWN_NULL_READ = "module_state_null"
"""The external that records a module's ``get(key, default)`` of a stored null, given None (journals from
before it were given ``default``, and replay them so)."""


def takes_default(store: Any) -> bool:
    """Whether ``store.module_state_get`` takes ``default`` (tells a stored null from none); checked once per
    backend class: a backend written before it cannot, and its stored nulls read as missing."""
    kind = type(store)
    found = _TAKES_DEFAULT.get(kind)
    if found is None:
        try:
            found = "default" in inspect.signature(store.module_state_get).parameters
        except (TypeError, ValueError):
            found = False
        _TAKES_DEFAULT[kind] = found
    return found


class ModuleState:
    """``get``/``put``/``delete``/``items`` over one module's rows; every change is logged for the journal.

    A call's writes are held here until it ends: :meth:`keep` writes them into the tick's
    transaction (the call succeeded), :meth:`undo` drops them (it failed or timed out), so a
    failed call never touched the store and a successful one costs no savepoint. Reads see
    the call's own pending writes.
    """

    def __init__(
        self,
        store: Any,
        module: str,
        tick: int,
        validator: KeyValidator | None,
        check_open: Callable[[], None],
        keeps_state: bool | None = None,
        max_bytes: int = MAX_STATE_VALUE_BYTES,
        externals: Externals | None = None,
        cache: StateCache | None = None,
        held: StateWrites | None = None,
    ) -> None:
        """``cache``: the kernel's copy of module state (:class:`StateCache`), for a backend whose
        ``module_state_get`` takes ``default`` (:func:`takes_default`); None reads the store each time.
        ``held``: the tick's writes held for one statement (:class:`StateWrites`; only with a ``cache``)."""
        self._store, self.module, self._tick, self._externals = store, module, tick, externals
        self._cache, self._held = cache, held
        # does the backend keep module state? (a slow runtime Protocol check: the runner passes it once per tick)
        self._keeps = isinstance(store, ModuleStateStore) if keeps_state is None else keeps_state
        self._validator, self._check_open, self._max_bytes = validator, check_open, max_bytes
        self.writes: list[dict[str, Any]] = []
        self._pending: dict[str, tuple[Any, str] | object] = {}  # key: (value, its JSON text) or _DELETED
        self._lock = threading.Lock()  # a write and the end of the call never interleave
        self._closed = False

    def close(self) -> None:
        """The call is over (returned, raised or timed out): later writes are refused."""
        with self._lock:
            self._closed = True

    def _writable(self) -> None:
        self._check_open()
        if self._closed:
            raise ModuleStateError(
                f"module {self.module!r}: its call has ended, so the write is refused; write before the phase returns"
            )

    def _keeping(self) -> None:
        if not self._keeps:
            raise ModuleStateError(f"module {self.module!r}: this memory backend keeps no module state; use sqlite")

    def keep(self) -> None:
        """The call succeeded: its writes join the tick's transaction (the last write of each key)."""
        pending, self._pending = self._pending, {}
        cache, held = self._cache, self._held
        for key, write in pending.items():
            if write is _DELETED:
                self._write_held()
                self._store.module_state_delete(self.module, key)
                text = None
            else:
                value, text = write  # type: ignore[misc]
                if held is not None:
                    held.put(self.module, key, value, self._tick, text)
                else:
                    self._store.module_state_put(self.module, key, value, self._tick, text=text)  # serialized once
            if cache is not None:
                cache.note(self.module, key, text)

    def _write_held(self) -> None:
        """The tick's held writes, into the store before it is read or a row deleted."""
        if self._held is not None:
            self._held.flush()

    def undo(self) -> None:
        """The call failed: its writes are dropped (never stored, not journaled)."""
        self._pending = {}
        self.writes.clear()

    def _stored(self, key: str, missing: Any = None) -> Any:
        """The value of ``key`` as this call sees it: its own pending write, else the store's (``missing``: none)."""
        write = self._pending.get(key)
        if write is None:
            if self._cache is not None:
                return self._cached(self._cache, key, missing)
            if missing is not None and takes_default(self._store):
                return self._store.module_state_get(self.module, key, default=missing)
            value = self._store.module_state_get(self.module, key)
            return missing if value is None else value
        return missing if write is _DELETED else orjson.loads(write[1])  # type: ignore[index]

    def _cached(self, cache: StateCache, key: str, missing: Any) -> Any:
        """:meth:`_stored` of a key with no pending write, through the kernel's copy (the store once)."""
        if (self.module, key) not in cache:
            self._write_held()
            value = self._store.module_state_get(self.module, key, default=_MISSING)
            cache.note(self.module, key, None if value is _MISSING else dumps(value))
            return missing if value is _MISSING else value  # the store's own copy: the caller's
        text = cache[self.module, key]
        return missing if text is None else orjson.loads(text)

    def get(self, key: str, default: Any = None) -> Any:
        """The value stored under ``key`` (a stored null is None), else ``default``."""
        self._check_open()
        if not self._keeps:
            return default
        value = self._stored(key, _MISSING)
        if value is _MISSING:
            return default
        if value is None and default is not None and not self._null_is_none(key):
            return default  # replaying a journal from before: its module was given the default
        return value

    def _null_is_none(self, key: str) -> bool:
        """A stored null read with a default is None, recorded (:data:`OWN_NULL_READ`), except in the replay of a
        journal from before (no such external in the tick), where it was the default."""
        externals = self._externals
        if externals is None:
            return True
        recorded = externals.recorded
        if recorded is not None and OWN_NULL_READ not in recorded:
            return False
        externals.fetch(OWN_NULL_READ, lambda: {"module": self.module, "key": key})
        return True

    def put(self, key: str, value: Any) -> None:
        """Store ``value`` under ``key``; :class:`ModuleStateError` if it is not JSON or breaks the schema."""
        with self._lock:
            self._put(key, value)

    def _put(self, key: str, value: Any) -> None:
        self._writable()
        if type(key) is not str or key not in _GOOD_KEYS:
            self._check_key(key)
        try:
            text = dumps(value)
        except (ValidationError, TypeError) as exc:
            raise ModuleStateError(
                f"module {self.module!r}: state {key!r} is not JSON ({exc}); store JSON values"
            ) from None
        if len(text) * 4 > self._max_bytes and (size := len(text.encode("utf-8"))) > self._max_bytes:
            raise ModuleStateError(  # (a character is at most 4 bytes: a small value is settled by its length)
                f"module {self.module!r}: state {key!r} is {size:,} bytes of JSON, over the limit of "
                f"{self._max_bytes:,} bytes per value; store less under one key, or raise the limit "
                "(--module-state-max, KernelConfig.module_state_max_bytes)"
            )
        stored = orjson.loads(text)
        if self._validator is not None and not self._validator.is_valid(state := {key: stored}):
            error = self._validator.best_error(state)
            if error is not None:
                where = "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path)
                raise ModuleStateError(
                    f"module {self.module!r}: state value refused at {where}: {error.message}; "
                    "store a value its state_schema allows"
                )
        self._keeping()
        patch = None
        if len(text) >= DELTA_MIN_CHARS:  # a large value: journal what changed, as a JSON Patch
            previous = self._stored(key)
            patch = None if previous is None else delta(previous, stored, len(text))
        self._pending[key] = (stored, text)
        self.writes.append({"key": key, "value": stored} if patch is None else {"key": key, "patch": patch})

    def _check_key(self, key: Any) -> None:
        # NUL and lone surrogates: no backend stores them alike (PostgreSQL TEXT has no NUL), so none gets them
        if not isinstance(key, str) or not key or len(key) > MAX_KEY_CHARS or "\x00" in key or clean_text(key) != key:
            raise ModuleStateError(
                f"module {self.module!r}: state key {key!r} refused; "
                f"use a non-empty string of at most {MAX_KEY_CHARS} characters, without NUL or lone surrogates"
            )
        if type(key) is str and len(_GOOD_KEYS) < GOOD_KEYS_MAX:
            _GOOD_KEYS.add(key)

    def delete(self, key: str) -> bool:
        with self._lock:
            self._writable()
            self._keeping()
            write = self._pending.get(key)
            if write is None:
                self._write_held()
                existed = any(stored == key for stored, _value in self._store.module_state_items(self.module))
            else:
                existed = write is not _DELETED
            if existed:
                self._pending[key] = _DELETED
                self.writes.append({"key": key, "deleted": True})
            return existed

    def items(self) -> Iterator[tuple[str, Any]]:
        self._check_open()
        if not self._keeps:
            return
        self._write_held()
        if not self._pending:
            yield from self._store.module_state_items(self.module)
            return
        merged = dict(self._store.module_state_items(self.module))
        for key, write in self._pending.items():
            if write is _DELETED:
                merged.pop(key, None)
            else:
                merged[key] = orjson.loads(write[1])  # type: ignore[index]
        yield from sorted(merged.items())


def dump_state(store: Any, module: str) -> dict[str, Any]:
    """A module's whole state as a dict (``agi modules show``)."""
    return dict(store.module_state_items(module)) if isinstance(store, ModuleStateStore) else {}
