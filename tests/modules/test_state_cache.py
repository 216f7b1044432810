"""The kernel's copy of module state (agi_core.memory.state_cache): a module's state is read from the store
once, not once a tick, and never stale: another process's commit, a failed tick and a rollback are seen. And
the writes of a run of phase calls go to the store in one statement (StateWrites), never read behind."""

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


class Writer(CognitiveModule):
    """Writes its state in perceive: a big value (over what the kernel's copy keeps) and a small one; reads
    them back in recall and deliberate, in the same run of calls, with another module's write before."""

    big: ClassVar[str] = "x" * 20_000
    seen: ClassVar[list[object]] = []

    def __init__(self, name: str) -> None:
        self.name = name

    def perceive(self, ctx):
        ctx.own.put("big", Writer.big)
        ctx.own.put("n", ctx.own.get("n", 0) + 1)
        ctx.own.put("gone", True)

    def recall(self, ctx):
        Writer.seen.append((self.name, ctx.own.get("big") == Writer.big, ctx.own.get("n")))
        Writer.seen.append((self.name, "gone", ctx.own.delete("gone")))

    def deliberate(self, ctx):
        Writer.seen.append((self.name, sorted(key for key, _value in ctx.own.items())))


class Writers:
    @hookimpl
    def agi_register_modules(self, register):
        register(Writer("first"))
        register(Writer("second"))


def test_a_run_of_calls_writes_its_state_in_one_statement_and_reads_it_back(tmp_path):
    Writer.seen.clear()
    with open_kernel(tmp_path / "a.db", Writers()) as kernel:
        many: list[int] = []
        put_many = kernel.store.module_state_put_many
        kernel.store.module_state_put_many = lambda rows: (many.append(len(rows)), put_many(rows))[1]
        kernel.tick("hello")
        kernel.tick("hello")
        stored = {module: dict(kernel.store.module_state_items(module)) for module in ("first", "second")}
    assert Writer.seen[:6] == [
        ("first", True, 1),  # the big value (not in the kernel's copy) read back from the store, written first
        ("first", "gone", True),
        ("second", True, 1),
        ("second", "gone", True),
        ("first", ["big", "n"]),
        ("second", ["big", "n"]),
    ]
    assert Writer.seen[6] == ("first", True, 2)  # the second tick counts on from the stored 1
    assert stored == {name: {"big": Writer.big, "n": 2} for name in ("first", "second")}
    assert many == [3, 3, 3, 3]  # a call's three writes together, written when a read needs the store


@pytest.fixture
def held(tmp_path):
    """A store, and a call's state whose kept writes are held (StateWrites) behind the kernel's copy."""
    from agi_core.memory.sqlite_store import SqliteStore
    from agi_core.memory.state_cache import StateCache
    from agi_core.modules.state import ModuleState, StateWrites

    store = SqliteStore(tmp_path / "s.db")
    cache, writes = StateCache(), StateWrites(store)

    def call() -> ModuleState:
        return ModuleState(store, "m", 1, None, lambda: None, True, cache=cache, held=writes)

    first = call()
    first.put("big", Writer.big)  # over what the copy keeps: the store must be read for it
    first.put("small", 1)
    first.keep()
    assert store.module_state_get("m", "small") is None  # held, not written yet
    yield call
    store.close()


def test_a_read_the_copy_cannot_answer_writes_what_is_held_first(held):
    assert held().get("big") == Writer.big


def test_a_delete_writes_what_is_held_first(held):
    later = held()
    assert later.delete("small") is True  # the held row counts as stored
    later.keep()
    assert held().get("small") is None


def test_listing_the_state_writes_what_is_held_first(held):
    assert [key for key, _value in held().items()] == ["big", "small"]


class LastWord(CognitiveModule):
    """Writes its state in observe, the tick's last run of calls, and reads nothing."""

    name = "last_word"

    def observe(self, ctx):
        ctx.own.put("said", ctx.outcome["final_output"])


class LastWordPlugin:
    @hookimpl
    def agi_register_modules(self, register):
        register(LastWord())


def test_what_the_last_run_of_calls_kept_is_stored_with_the_tick(tmp_path):
    with open_kernel(tmp_path / "a.db", LastWordPlugin()) as kernel:
        said = kernel.tick("12 + 30").final_output
    with open_kernel(tmp_path / "a.db", LastWordPlugin()) as reopened:
        assert reopened.store.module_state_get("last_word", "said") == said
