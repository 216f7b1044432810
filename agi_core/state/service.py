"""The RLM variable state service: states, typed variables, scopes, TTL, completion.

Everything lives in the agent's SQLite database (``rlm_*`` tables) plus one folder per
state under ``root``. The service never commits: every method runs inside a savepoint
of the caller's transaction, so a failed call leaves nothing behind.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from agi_core.determinism import Determinism
from agi_core.memory.backend import RlmRows
from agi_core.state import checkpoints as ckpts
from agi_core.state import history, paths
from agi_core.state.db import rows_of
from agi_core.state.errors import ReadOnlyVariable, StateError, StateNotFound, VariableValueError
from agi_core.state.model import (
    DEFAULT_LIMITS,
    FINAL,
    PROMPT,
    Checkpoint,
    Limits,
    Mutation,
    StateInfo,
)
from agi_core.state.tree import Handler, TreeMixin
from agi_core.state.values import check_name

TREE_ID = re.compile(r"tree-[a-f0-9]{8}")


class StateService(TreeMixin):
    """RLM states over one backend's rows, one :class:`Determinism` and one root folder.

    :param conn: the agent's :class:`~agi_core.memory.backend.RlmRows` (``backend.rlm_rows()``) or a
        SQLite connection; the caller owns (commits or rolls back) the transaction.
    :param determinism: source of every id and timestamp (the deterministic clock).
    :param root: folder holding one sub-folder per state (``<root>/<state_id>/``).
    :param limits: the documented limits; lower them only in tests.
    :param wall_ms: the wall clock TTLs count on (ms since the epoch), called only when a TTL is
        set or checked; the kernel passes the tick's recorded reading. None: TTLs count on the
        deterministic clock.
    """

    def __init__(
        self,
        conn: RlmRows | Any,
        determinism: Determinism,
        root: Path,
        *,
        limits: Limits = DEFAULT_LIMITS,
        wall_ms: Callable[[], int] | None = None,
    ) -> None:
        self.conn = conn
        self.rows = rows_of(conn)
        self.determinism = determinism
        self.root = Path(root)
        self.limits = limits
        self.wall_ms = wall_ms
        self._handlers: list[Handler] = []
        if not self.rows.ready():
            raise StateError("the rlm_* tables do not exist in this database; call agi_core.state.migrate(conn) first")

    # -- states -------------------------------------------------------------------------
    def create_state(
        self,
        prompt: str,
        *,
        session_id: str | None = None,
        tree_id: str | None = None,
        parent_state_id: str | None = None,
        result_name: str | None = None,
        inputs: Mapping[str, str] | None = None,
        source: str = "user_input",
    ) -> StateInfo:
        """A new state with read-only ``prompt``, ``Final = null`` and checkpoint ``initial_state``.

        With ``parent_state_id``, the state is a child: it inherits the parent's session and
        tree unless given, ``inputs`` maps child names to parent names whose values are
        copied in, and ``result_name`` is where the child's ``Final`` lands in the parent.
        """
        _check_options(prompt, session_id, tree_id, parent_state_id, result_name, inputs)
        parent = self.state(parent_state_id) if parent_state_id is not None else None
        if parent is not None:
            session_id = parent.session_id if session_id is None else session_id
            tree_id = parent.tree_id if tree_id is None else tree_id
        with self.rows.atomic():
            state_id = history.fresh_id(
                self.determinism,
                "state",
                f"{session_id}|{parent_state_id}",
                lambda s: self.rows.state_row(s) is not None,
            )
            now = self.determinism.now()
            self.rows.insert_state(state_id, session_id, tree_id, parent_state_id, result_name, now)
            state = self.state(state_id)
            paths.state_folder(self.root, state_id).mkdir(parents=True, exist_ok=True)
            self._write(state, PROMPT, prompt, now, vtype="text", source=source, read_only=True)
            self._put(state, FINAL, None, "null", now)
            if parent is not None and inputs:
                self._pass_inputs(parent, state, inputs, now)
            ckpts.take(
                self.rows,
                self.determinism,
                self.limits,
                self.state(state_id),
                "initial_state",
                now,
                "State initialized with the prompt",
            )
        return self.state(state_id)

    def state(self, state_id: str | None) -> StateInfo:
        """The state ``state_id``; raises :class:`StateNotFound`."""
        row = self.rows.state_row(state_id) if isinstance(state_id, str) else None
        if row is None:
            raise StateNotFound(
                f"no RLM state {state_id!r}; create one with create_state() "
                "(agi state create) or list them (agi state list --states)"
            )
        return StateInfo(**row)

    def states(self) -> list[StateInfo]:
        """Every state, oldest first."""
        return [self.state(s) for s in self.rows.state_ids()]

    def latest_state(self) -> StateInfo | None:
        """The most recently created state, or None."""
        ids = self.rows.state_ids()
        return self.state(ids[-1]) if ids else None

    def new_tree_id(self) -> str:
        """A fresh ``tree-xxxxxxxx`` id for a new task tree."""
        return self.determinism.short_id("tree")

    def is_complete(self, state_id: str) -> bool:
        """True when the state's ``Final`` is non-null."""
        return self.state(state_id).completion_status == "complete"

    # -- history and checkpoints ----------------------------------------------------------
    def history(self, state_id: str, limit: int | None = None) -> list[Mutation]:
        """The mutation log of ``state_id``, oldest first (the newest ``limit`` if given)."""
        self.state(state_id)
        return history.entries(self.rows, state_id, limit)

    def checkpoint(self, state_id: str, name: str, description: str | None = None) -> Checkpoint:
        """Snapshot the variables the state owns; at most ``limits.max_checkpoints`` per state."""
        state = self.state(state_id)
        with self.rows.atomic():
            now = self.determinism.now()
            self._purge(state, now)
            return ckpts.take(self.rows, self.determinism, self.limits, self.state(state_id), name, now, description)

    def checkpoints(self, state_id: str) -> list[Checkpoint]:
        """The checkpoints of ``state_id``, oldest first."""
        self.state(state_id)
        return ckpts.listing(self.rows, state_id)

    def rollback(self, state_id: str, checkpoint_id: str, *, source: str | None = None) -> Checkpoint:
        """Restore the state's own variables exactly as they were at ``checkpoint_id``.

        The mutation log and later checkpoints are kept; a ``rollback`` entry is logged.
        Completion handlers do not fire for a ``Final`` restored by a rollback.
        """
        self.state(state_id)
        with self.rows.atomic():
            checkpoint, snapshot = ckpts.get(self.rows, state_id, checkpoint_id)
            ckpts.restore(self.rows, state_id, snapshot)
            history.log(
                self.rows,
                self.determinism,
                self.limits,
                state_id,
                self.determinism.now(),
                "rollback",
                "*",
                source=source,
                metadata={"checkpoint_id": checkpoint_id},
            )
        return checkpoint

    def delete_checkpoint(self, state_id: str, checkpoint_id: str) -> None:
        """Remove a checkpoint (to make room under the checkpoint limit)."""
        self.state(state_id)
        with self.rows.atomic():
            ckpts.delete(self.rows, state_id, checkpoint_id)

    # -- export and files ---------------------------------------------------------------
    def export(self, state_id: str, *, include_shared: bool = False, validate: bool = True) -> dict[str, Any]:
        """The state as a JSON document of ``schemas/rlm_state.json`` (values inlined)."""
        from agi_core.state.export import document

        return document(self, state_id, include_shared=include_shared, validate=validate)

    def collect_garbage(self, state_id: str) -> list[str]:
        """Delete blobs of the state no variable or checkpoint references; return their refs.

        Run it after the transaction committed and when no whole-agent checkpoint older
        than now must stay restorable: deleted files cannot come back.
        """
        self.state(state_id)
        keep = {r["file"] for r in self.rows.variables(owner=state_id) if r["file"]}
        keep |= ckpts.referenced_files(self.rows, state_id)
        return paths.remove_unreferenced(paths.state_folder(self.root, state_id), keep)


def _check_options(
    prompt: object,
    session_id: object,
    tree_id: object,
    parent_state_id: object,
    result_name: str | None,
    inputs: Mapping[str, str] | None,
) -> None:
    """Refuse bad ``create_state`` arguments before anything is written."""
    if not isinstance(prompt, str):
        raise VariableValueError(
            f"prompt must be text, got {type(prompt).__name__}; pass a string", path="$.variables.prompt.value"
        )
    if tree_id is not None and (not isinstance(tree_id, str) or not TREE_ID.fullmatch(tree_id)):
        raise VariableValueError(
            f"tree id {tree_id!r} is not tree-xxxxxxxx (8 hex digits); use new_tree_id()", path="$.tree_id"
        )
    if session_id is not None and (not isinstance(session_id, str) or not session_id):
        raise VariableValueError("session id must be a non-empty string", path="$.session_id")
    if result_name is not None:
        if parent_state_id is None:
            raise VariableValueError("result_name needs a parent_state_id to deliver to", path="$.result_name")
        if check_name(result_name) == PROMPT:
            raise ReadOnlyVariable(
                "a child's result cannot go to the parent's read-only prompt; pick another result_name"
            )
    if inputs and parent_state_id is None:
        raise VariableValueError("inputs need a parent_state_id to copy from", path="$.variables")
