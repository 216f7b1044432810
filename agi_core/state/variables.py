"""Variable operations of :class:`~agi_core.state.service.StateService`: get, set, delete ...

Name resolution and scopes are described in :mod:`agi_core.state.rows`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agi_core.state import clock, paths
from agi_core.state.errors import ReadOnlyVariable, VariableValueError
from agi_core.state.model import FINAL, PROMPT, SPECIAL_NAMES, Variable
from agi_core.state.rows import Row, RowStore, logged
from agi_core.state.storage import to_variable
from agi_core.state.values import check_name


class VariablesMixin(RowStore):
    """Get/set/delete/rename of named variables; mixed into ``StateService``."""

    # -- reads --------------------------------------------------------------------------
    def get(self, state_id: str, name: str) -> Any:
        """The value of ``name`` as the state sees it; counts one access."""
        state = self.state(state_id)
        check_name(name, self.limits)
        with self.rows.atomic():
            row, expired = self._visible(state, name)
            if row is not None:
                self.rows.count_access(row["namespace"], name)
                row["access_count"] += 1
        if row is None:
            raise self._missing(state, name, expired)
        return to_variable(self.root, row).value

    def describe(self, state_id: str, name: str) -> Variable:
        """The full variable (value, type, scope, timestamps ...) without counting an access."""
        state = self.state(state_id)
        check_name(name, self.limits)
        row = self._resolve(state, name, skip_expired=True)
        if row is None:
            raise self._missing(state, name, None)
        return to_variable(self.root, row)

    def variables(self, state_id: str, *, include_shared: bool = True) -> list[Variable]:
        """Every unexpired variable the state sees (nearest wins), sorted by name."""
        state = self.state(state_id)
        spaces = state.namespaces() if include_shared else state.namespaces()[:1]
        seen: dict[str, Row] = {}
        now: str | None = None
        for namespace in spaces:
            for row in self.rows.variables(namespace):
                if row["name"] in seen:
                    continue
                if row["expires_at"] is not None:
                    now = now or self._ttl_now()
                    if clock.is_expired(row["expires_at"], now):
                        continue
                seen[row["name"]] = row
        return [to_variable(self.root, seen[n]) for n in sorted(seen)]

    def path(self, state_id: str, name: str) -> Path:
        """The file behind a ``file_path`` variable or a value kept in a blob, checked again."""
        variable = self.describe(state_id, name)
        ref = variable.value if variable.type == "file_path" else variable.file
        if ref is None:
            raise VariableValueError(
                f"{name!r} of {state_id} is stored inline, not in a file; use get() for its value",
                path=f"$.variables.{name}",
            )
        owner = variable.owner_state_id
        return paths.resolve_ref(paths.state_folder(self.root, owner), ref, owner)

    # -- writes -------------------------------------------------------------------------
    def set(
        self,
        state_id: str,
        name: str,
        value: Any,
        *,
        type: str | None = None,
        scope: str | None = None,
        ttl_seconds: int | None = None,
        description: str | None = None,
        source: str | None = None,
        read_only: bool | None = None,
    ) -> Variable:
        """Create or update ``name``; a non-null ``Final`` completes the state.

        :param type: one of the schema's types; inferred from the value when omitted.
        :param scope: ``state`` (default for new names), ``temporary`` (needs ``ttl_seconds``,
            counted from this write on the service's wall clock, else on the deterministic clock),
            ``tree``, ``session`` or ``global``.
        """
        state = self.state(state_id)
        check_name(name, self.limits)
        if name == PROMPT:
            raise ReadOnlyVariable(
                f"prompt of {state_id} is read-only after initialization; store new text under another name"
            )
        if name == FINAL and scope not in (None, "state"):
            raise VariableValueError(
                "Final always has scope 'state'; drop the scope argument", path="$.variables.Final.metadata.scope"
            )
        with self.rows.atomic():
            now = self.determinism.now()
            self._purge(state, now)
            row = self._write(
                state,
                name,
                value,
                now,
                vtype=type,
                scope=scope,
                ttl_seconds=ttl_seconds,
                description=description,
                source=source,
                read_only=read_only,
            )
        return to_variable(self.root, row)

    def delete(self, state_id: str, name: str, *, source: str | None = None) -> None:
        """Remove ``name`` from the scope it resolves to (``Final`` and ``prompt`` stay)."""
        state = self.state(state_id)
        check_name(name, self.limits)
        if name in SPECIAL_NAMES:
            raise ReadOnlyVariable(
                f"{name} cannot be deleted"
                + (
                    "; set it to None to mark the state incomplete"
                    if name == FINAL
                    else "; it is read-only after initialization"
                )
            )
        with self.rows.atomic():
            now = self.determinism.now()
            self._purge(state, now)
            row = self._writable(state, name)
            self.rows.delete_variable(row["namespace"], name)
            self._log(state, now, "delete", name, row, old=logged(row), source=source)

    def rename(self, state_id: str, name: str, new_name: str, *, source: str | None = None) -> Variable:
        """Give ``name`` a new name in the same scope; fails if ``new_name`` is taken there."""
        state = self.state(state_id)
        check_name(name, self.limits)
        check_name(new_name, self.limits)
        if name in SPECIAL_NAMES or new_name in SPECIAL_NAMES:
            raise ReadOnlyVariable(
                f"cannot rename {name} to {new_name}: Final and prompt are "
                "special names; copy the value with set() instead"
            )
        with self.rows.atomic():
            now = self.determinism.now()
            self._purge(state, now)
            row = self._writable(state, name)
            if self.rows.variable(row["namespace"], new_name) is not None:
                raise VariableValueError(
                    f"{new_name!r} already exists in scope {row['scope']} of "
                    f"{state_id}; delete it first or pick another name",
                    path=f"$.variables.{new_name}",
                )
            self.rows.delete_variable(row["namespace"], name)
            renamed = {**row, "name": new_name, "updated_at": now}
            self.rows.put_variable(renamed)
            self._log(state, now, "rename", name, row, source=source, extra={"new_name": new_name})
        return to_variable(self.root, renamed)

    def purge_expired(self, state_id: str) -> list[str]:
        """Delete the state's temporary variables whose TTL ran out; return their names."""
        state = self.state(state_id)
        with self.rows.atomic():
            return self._purge(state, self.determinism.now())
