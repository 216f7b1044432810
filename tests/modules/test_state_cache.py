"""The kernel's copy of module state (agi_core.memory.state_cache): a module's state is read from the store
once, not once a tick, and never stale: another process's commit, a failed tick and a rollback are seen."""

from __future__ import annotations

from typing import ClassVar

import pytest

from agi_core.hookspecs import hookimpl
from agi_core.modules import CognitiveModule
from agi_core.testing import open_kernel


class Counter(CognitiveModule):
    """Counts the ticks in its state; its observe raises what ``Counter.fail`` holds (once)."""

    name = "counter"
    inline = True
    fail: ClassVar[BaseException | None] = None

    def perceive(self, ctx):
        seen = ctx.own.get("n", 0) + 1
        ctx.own.put("n", seen)
        return seen

    def observe(self, ctx):
        failure, Counter.fail = Counter.fail, None
        if failure is not None:
            raise failure


class Plugin:
    @hookimpl
    def agi_register_modules(self, register):
        register(Counter())


def counted(kernel) -> int:
    return kernel.tick("hello").modules["calls"][0]["output"]


def test_a_modules_state_is_read_from_the_store_once_not_once_a_tick(tmp_path):
    with open_kernel(tmp_path / "a.db", Plugin()) as kernel:
        statements: list[str] = []
        kernel.store.conn.set_trace_callback(statements.append)
        assert [counted(kernel) for _ in range(3)] == [1, 2, 3]
    reads = [sql for sql in statements if sql.startswith("SELECT value FROM module_state")]
    assert len(reads) == 1  # the first tick's; the others read the kernel's copy


def test_another_process_s_commit_is_seen(tmp_path):
    db = tmp_path / "a.db"
    with open_kernel(db, Plugin()) as mine, open_kernel(db, Plugin()) as other:
        assert counted(mine) == 1
        assert counted(other) == 2  # another connection (as another process) counts on from the store
        assert counted(mine) == 3  # not 2: its copy was dropped when the other one committed


def test_a_failed_tick_leaves_nothing_of_its_writes_in_the_copy(tmp_path):
    with open_kernel(tmp_path / "a.db", Plugin()) as kernel:
        assert counted(kernel) == 1
        Counter.fail = KeyboardInterrupt()  # passes every isolation: the tick fails, its transaction rolled back
        with pytest.raises(KeyboardInterrupt):
            kernel.tick("hello")  # its perceive wrote n = 2 before observe failed
        assert counted(kernel) == 2  # n = 1 was stored: not 3


def test_a_rollback_is_seen(tmp_path):
    with open_kernel(tmp_path / "a.db", Plugin()) as kernel:
        assert counted(kernel) == 1
        kernel.checkpoint("one")
        assert [counted(kernel) for _ in range(2)] == [2, 3]
        kernel.rollback("one")
        assert counted(kernel) == 2
