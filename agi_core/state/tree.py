"""Task trees and completion: child states, input passing, ``Final`` propagation, handlers.

A child state gets named inputs copied from its parent when it is created. When the
child's ``Final`` goes from null to non-null, its value is written into the parent under
the child's ``result_name`` (source = the child's id), then the completion handlers run.
``file_path`` values cross states as copies under ``from/<source state>/`` in the
receiving state's folder, so every state's files stay inside its own folder.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from agi_core.errors import AgiError
from agi_core.state.errors import StateError, VariableValueError
from agi_core.state.model import SPECIAL_NAMES, CompletionEvent, StateInfo
from agi_core.state.storage import copy_file
from agi_core.state.values import check_name
from agi_core.state.variables import VariablesMixin

Handler = Callable[[CompletionEvent], None]


class TreeMixin(VariablesMixin):
    """Parent/child variable passing and completion handlers; mixed into ``StateService``."""

    _handlers: list[Handler]

    create_state: Callable[..., StateInfo]  # provided by StateService

    def spawn_child(
        self,
        parent_state_id: str,
        prompt: str,
        *,
        inputs: Mapping[str, str] | None = None,
        result_name: str | None = None,
    ) -> StateInfo:
        """A child of ``parent_state_id`` in the same session and tree.

        :param inputs: child variable name -> parent variable name, copied in at creation.
        :param result_name: parent variable that receives the child's ``Final``.
        """
        return self.create_state(
            prompt, parent_state_id=parent_state_id, inputs=inputs, result_name=result_name, source=parent_state_id
        )

    def children(self, state_id: str) -> list[StateInfo]:
        """The child states of ``state_id``, oldest first."""
        self.state(state_id)
        return [self.state(child) for child in self.rows.state_ids(parent=state_id)]

    def on_complete(self, handler: Handler) -> Handler:
        """Call ``handler(event)`` each time a state's ``Final`` goes from null to non-null.

        Handlers run inside the write, after the parent got the child's result: a handler
        that raises undoes the ``Final`` write. Returns ``handler`` (usable as a decorator).
        """
        self._handlers.append(handler)
        return handler

    def _completed(self, state: StateInfo, value: Any, vtype: str, now: str) -> None:
        if state.parent_state_id is not None and state.result_name is not None:
            parent = self.state(state.parent_state_id)
            self._purge(parent, now)
            if vtype == "file_path":
                value = copy_file(self.root, state.state_id, value, parent.state_id)
            self._write(parent, state.result_name, value, now, vtype=vtype, source=state.state_id)
        event = CompletionEvent(
            state_id=state.state_id, value=value, parent_state_id=state.parent_state_id, result_name=state.result_name
        )
        for handler in list(self._handlers):
            try:
                handler(event)
            except AgiError:
                raise
            except Exception as exc:
                name = getattr(handler, "__qualname__", repr(handler))
                raise StateError(
                    f"completion handler {name} failed for {state.state_id}: {exc!r}; "
                    "fix the handler (the Final write was undone)"
                ) from exc

    def _pass_inputs(self, parent: StateInfo, child: StateInfo, inputs: Mapping[str, str], now: str) -> None:
        for name, parent_name in inputs.items():
            if check_name(name, self.limits) in SPECIAL_NAMES:
                raise VariableValueError(
                    f"input {name!r} would overwrite the child's {name}; give the input another name",
                    path="$.variables",
                )
            self._copy_in(parent, parent_name, child, name, now)

    def _copy_in(self, parent: StateInfo, parent_name: str, child: StateInfo, name: str, now: str) -> None:
        variable = self.describe(parent.state_id, parent_name)
        value = variable.value
        if variable.type == "file_path":
            value = copy_file(self.root, parent.state_id, value, child.state_id)
        self._write(
            child, name, value, now, vtype=variable.type, source=parent.state_id, description=variable.description
        )
