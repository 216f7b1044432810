"""Row-level internals of the variable operations: resolve, write, log, TTL purge.

Lookup goes nearest first: the state's own variables (scopes ``state`` and ``temporary``),
then its tree's, its session's, and the global ones. A write without ``scope`` updates the
variable the name resolves to, or creates a ``state`` variable; with ``scope`` it writes to
that scope's namespace (shadowing a farther variable of the same name).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from agi_core.determinism import Determinism
from agi_core.memory.backend import RlmRows
from agi_core.state import clock, history
from agi_core.state.errors import ReadOnlyVariable, StateLimitError, VariableNotFound
from agi_core.state.model import FINAL, SPECIAL_NAMES, Limits, StateInfo
from agi_core.state.storage import Stored, encode
from agi_core.state.values import canonical, check_scope, check_value, infer_type

Row = dict[str, Any]


def logged(row: Row) -> str:
    """JSON text of a row's value for the mutation log (a blob appears as its ``file:`` ref)."""
    return row["value"] if row["file"] is None else canonical(row["file"])


class RowStore:
    """Internals shared by the variable, tree and checkpoint operations of ``StateService``."""

    rows: RlmRows
    determinism: Determinism
    root: Path
    limits: Limits
    wall_ms: Callable[[], int] | None

    def _ttl_now(self, drawn: str | None = None) -> str:
        """The time TTLs count on: the service's wall clock (the kernel's: the tick's recorded
        reading), else the deterministic clock (``drawn``, or a fresh draw)."""
        if self.wall_ms is not None:
            return clock.from_ms(self.wall_ms())
        return drawn if drawn is not None else self.determinism.now()

    def state(self, state_id: str | None) -> StateInfo:
        """The state ``state_id`` (implemented by ``StateService``)."""
        raise NotImplementedError

    def _completed(self, state: StateInfo, value: Any, vtype: str, now: str) -> None:
        """Hook run when ``Final`` becomes non-null (implemented by ``TreeMixin``)."""

    def _write(
        self,
        state: StateInfo,
        name: str,
        value: Any,
        now: str,
        *,
        vtype: str | None = None,
        scope: str | None = None,
        ttl_seconds: int | None = None,
        description: str | None = None,
        source: str | None = None,
        read_only: bool | None = None,
    ) -> Row:
        row = self.rows.variable(state.namespace(scope), name) if scope else self._resolve(state, name)
        if row is not None and row["read_only"]:
            raise self._read_only(state, name)
        target = scope or (row["scope"] if row else "state")
        if ttl_seconds is None and row is not None and target == "temporary":
            ttl_seconds = row["ttl_seconds"]
        check_scope(target, ttl_seconds)
        vtype = vtype or infer_type(value)
        value = check_value(vtype, value)
        namespace = row["namespace"] if row else state.namespace(target)
        owner = row["owner_state_id"] if row else state.state_id
        if row is None:
            count = self.rows.count_variables(namespace)
            if count >= self.limits.max_variables:
                raise StateLimitError(
                    f"{namespace} already holds {count} variables (the limit is "
                    f"{self.limits.max_variables}); delete one before adding {name!r}"
                )
        value, stored = encode(self.root, owner, vtype, value, self.limits)
        was_null = row is None or (row["file"] is None and row["value"] == "null")
        self._put(
            state,
            name,
            value,
            vtype,
            now,
            row=row,
            namespace=namespace,
            owner=owner,
            scope=target,
            ttl_seconds=ttl_seconds,
            description=description,
            source=source,
            read_only=read_only,
            stored=stored,
        )
        self._log(
            state,
            now,
            "update" if row else "create",
            name,
            row or {"scope": target},
            old=logged(row) if row else None,
            new=stored.logged,
            source=source,
        )
        if name == FINAL:
            self.rows.set_completion(state.state_id, "incomplete" if value is None else "complete")
            if was_null and value is not None:
                self._completed(state, value, vtype, now)
        written = self.rows.variable(namespace, name)
        assert written is not None
        return written

    def _put(
        self,
        state: StateInfo,
        name: str,
        value: Any,
        vtype: str,
        now: str,
        *,
        row: Row | None = None,
        namespace: str | None = None,
        owner: str | None = None,
        scope: str = "state",
        ttl_seconds: int | None = None,
        description: str | None = None,
        source: str | None = None,
        read_only: bool | None = None,
        stored: Stored | None = None,
    ) -> None:
        if stored is None:
            value, stored = encode(self.root, state.state_id, vtype, value, self.limits)
        old = row or {}
        self.rows.put_variable(
            {
                "namespace": namespace or state.namespace(scope),
                "name": name,
                "owner_state_id": owner or state.state_id,
                "type": vtype,
                "value": stored.value,
                "file": stored.file,
                "size_bytes": stored.size_bytes,
                "description": description if description is not None else old.get("description"),
                "source": source if source is not None else old.get("source"),
                "created_at": old.get("created_at", now),
                "updated_at": now,
                "access_count": old.get("access_count", 0),
                "read_only": int(read_only if read_only is not None else old.get("read_only", 0)),
                "scope": scope,
                "ttl_seconds": ttl_seconds,
                "expires_at": (
                    clock.add_seconds(self._ttl_now(now), ttl_seconds)
                    if scope == "temporary" and ttl_seconds is not None
                    else None
                ),
            },
        )

    def _log(
        self,
        state: StateInfo,
        now: str,
        op: str,
        name: str,
        row: Row,
        *,
        old: str | None = None,
        new: str | None = None,
        source: str | None = None,
        extra: dict[str, Any] | None = None,
    ) -> None:
        meta = dict(extra or {})
        if row.get("scope", "state") != "state":
            meta["scope"] = row["scope"]
        history.log(
            self.rows,
            self.determinism,
            self.limits,
            state.state_id,
            now,
            op,
            name,
            old=old,
            new=new,
            source=source,
            metadata=meta,
        )

    def _resolve(self, state: StateInfo, name: str, *, skip_expired: bool = False) -> Row | None:
        spaces = state.namespaces()[:1] if name in SPECIAL_NAMES else state.namespaces()
        for namespace in spaces:
            row = self.rows.variable(namespace, name)
            if row is None:
                continue
            if skip_expired and row["expires_at"] is not None and clock.is_expired(row["expires_at"], self._ttl_now()):
                continue
            return row
        return None

    def _visible(self, state: StateInfo, name: str) -> tuple[Row | None, str | None]:
        row = self._resolve(state, name)
        if row is None or row["expires_at"] is None:
            return row, None
        drawn = None if self.wall_ms is not None else self.determinism.now()
        if not clock.is_expired(row["expires_at"], self._ttl_now(drawn)):
            return row, None
        self._purge(state, drawn or self.determinism.now())
        return self._resolve(state, name), row["expires_at"]

    def _writable(self, state: StateInfo, name: str) -> Row:
        row = self._resolve(state, name)
        if row is None:
            raise self._missing(state, name, None)
        if row["read_only"]:
            raise self._read_only(state, name)
        return row

    def _purge(self, state: StateInfo, now: str) -> list[str]:
        rows = self.rows.variables(f"state:{state.state_id}", expiring=True)
        ttl_now = self._ttl_now(now) if rows else now  # the wall clock is read only when a TTL is there
        gone = [r for r in rows if clock.is_expired(r["expires_at"], ttl_now)]
        for row in gone:
            self.rows.delete_variable(row["namespace"], row["name"])
            self._log(
                state,
                now,
                "delete",
                row["name"],
                row,
                old=logged(row),
                source="ttl",
                extra={"reason": f"ttl of {row['ttl_seconds']}s expired at {row['expires_at']}"},
            )
        return [r["name"] for r in gone]

    @staticmethod
    def _missing(state: StateInfo, name: str, expired_at: str | None) -> VariableNotFound:
        why = f"expired at {expired_at}" if expired_at else "does not exist"
        return VariableNotFound(
            f"variable {name!r} of {state.state_id} {why}; set it first "
            "(agi state set NAME VALUE) or list names (agi state list)"
        )

    @staticmethod
    def _read_only(state: StateInfo, name: str) -> ReadOnlyVariable:
        return ReadOnlyVariable(
            f"variable {name!r} of {state.state_id} is read-only; store the new value under another name"
        )
