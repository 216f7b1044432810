"""The checkpoint-transfer contract: a checkpoint read as raw rows and built again from them.

``agi export`` carries the journal's archive point's checkpoint through
:class:`~agi_core.memory.backend.CheckpointTransfer` (``checkpoint_rows``) and ``agi import`` builds it
(``checkpoint_load``). A backend without journal archive may lack it and say so in ``lacks``
(``"checkpoint transfer"``). The checks load the rows back into the same agent under another name, so the
journal key and the history are the agent's own: the copy is listed, verifies, and restores the state the
checkpoint held; rows of another tick are refused; the load commits with the caller's transaction or not at all.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from agi_core import checkpoints
from agi_core.integrity import verify_agent
from agi_core.kernel import Kernel
from agi_core.memory.backend import CheckpointError, CheckpointTransfer
from agi_core.memory.transfer import TABLES
from agi_core.testing.conformance import brains
from agi_core.testing.conformance.harness import Harness
from agi_core.testing.conformance.kernel_contract import stored_state

Opener = Callable[..., Kernel]
Tables = list[tuple[str, list[str], list[list[Any]]]]


class TransferContract(Harness):
    def _checkpointed(self, open_agent: Opener) -> tuple[Kernel, CheckpointTransfer, Tables, dict[str, Any]]:
        """An agent with checkpoint ``one`` at tick 1 (note: blue) and a later tick (note: red); the checkpoint's
        rows as ``checkpoint_rows`` gave them, and the state stored at the checkpoint."""
        kernel = open_agent("agent", brains.PLUGIN, brain=brains.NAME)
        self.require(kernel.store, "checkpoint transfer")
        store: Any = kernel.store
        kernel.tick("remember blue")
        checkpoints.create(kernel, "one")
        saved = stored_state(kernel)
        kernel.tick("remember red")
        with store.checkpoint_rows("one", kernel.journal_key) as rows:
            held = rows.table_names()
            tables = [(t, *_lists(*rows.dump_table(t))) for t in TABLES if t in held]
        return kernel, store, tables, saved

    def test_a_checkpoint_read_as_rows_and_loaded_again_is_the_same_checkpoint(self, open_agent: Opener) -> None:
        kernel, store, tables, saved = self._checkpointed(open_agent)
        facts = next(rows for table, _columns, rows in tables if table == "facts")
        assert any('"blue"' in str(row) for row in facts) and not any('"red"' in str(row) for row in facts)
        with kernel.store.tick_transaction():
            info = store.checkpoint_load("copy", 1, tables, kernel.journal_key)
        assert (info.name, info.tick) == ("copy", 1)
        assert [(i.name, i.tick) for i in kernel.store.checkpoint_list()] == [("one", 1), ("copy", 1)]
        assert kernel.store.checkpoint_problems("copy", kernel.journal_key) == []
        assert checkpoints.rollback(kernel, "copy").tick == 1
        assert stored_state(kernel) == saved
        assert kernel.get_fact(brains.NOTE).value == "blue"
        assert verify_agent(kernel.store, kernel.journal_key).ok
        assert kernel.tick("remember green") is not None and kernel.tick_count == 2

    def test_rows_that_do_not_hold_the_checkpoints_tick_or_a_taken_name_are_refused(self, open_agent: Opener) -> None:
        kernel, store, tables, _saved = self._checkpointed(open_agent)
        for name, tick in (("copy", 2), ("one", 1)):
            with pytest.raises(CheckpointError), kernel.store.tick_transaction():
                store.checkpoint_load(name, tick, tables, kernel.journal_key)
            assert [i.name for i in kernel.store.checkpoint_list()] == ["one"]
        with kernel.store.tick_transaction():
            store.checkpoint_load("copy", 1, tables, kernel.journal_key)  # nothing left behind blocks it
        assert kernel.store.checkpoint_problems("copy", kernel.journal_key) == []

    def test_a_loaded_checkpoint_commits_with_the_callers_transaction_or_not_at_all(self, open_agent: Opener) -> None:
        kernel, store, tables, _saved = self._checkpointed(open_agent)
        with pytest.raises(RuntimeError), kernel.store.tick_transaction():
            store.checkpoint_load("copy", 1, tables, kernel.journal_key)
            raise RuntimeError("the import fails after the checkpoint is built")
        assert [i.name for i in kernel.store.checkpoint_list()] == ["one"]
        with kernel.store.tick_transaction():
            store.checkpoint_load("copy", 1, tables, kernel.journal_key)
        assert [i.name for i in kernel.store.checkpoint_list()] == ["one", "copy"]
        assert checkpoints.rollback(kernel, "copy").tick == 1
        assert verify_agent(kernel.store, kernel.journal_key).ok


def _lists(columns: list[str], rows: list[tuple[Any, ...]]) -> tuple[list[str], list[list[Any]]]:
    return list(columns), [list(row) for row in rows]
