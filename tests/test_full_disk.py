"""A full disk in the middle of a tick (a real one: SQLite's ``max_page_count``): the tick stores nothing.

SQLite rolls the whole transaction back by itself when a write finds the disk full. The tick must not
go on in autocommit mode (each later statement committed on its own: a module's state, an episode,
without the journal record): the next statement raises, and the tick fails with one line.
"""

from __future__ import annotations

import sqlite3

import pytest

from agi_core.errors import StorageError, TransactionLost
from agi_core.integrity import verify_agent
from agi_core.journal_key import load as load_key
from agi_core.memory.locking import connect
from agi_core.testing import open_kernel
from tests.modules.test_modules import notebook_plugin  # writes its state in perceive, and in observe


def _stored(path):
    with sqlite3.connect(path) as conn:
        tables = ("journal", "episodes", "facts", "module_state")
        counts = {table: conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0] for table in tables}
        return counts, dict(conn.execute("SELECT key, value FROM module_state"))


def _fill(kernel):
    """The database may not grow by a page: the next write that needs one finds the disk full."""
    pages = kernel.conn.execute("PRAGMA page_count").fetchone()[0]
    kernel.conn.execute(f"PRAGMA max_page_count={pages}")


def test_a_full_disk_mid_tick_stores_nothing_of_it_and_says_so_in_one_line(tmp_path):
    path = tmp_path / "full.db"
    with open_kernel(path, notebook_plugin()) as kernel:
        kernel.tick("my name is Ada")
        before = _stored(path)
        _fill(kernel)
        with pytest.raises(StorageError) as raised:
            kernel.tick("my favorite color is " + "blue" * 3000)  # the fact write needs pages: SQLite rolls back
        message = str(raised.value)
        assert f"disk full while writing {path}; free space and retry" in message and "\n" not in message
        assert _stored(path) == before  # no module state, episode or fact of the failed tick committed alone
        assert kernel.tick_count == 1
        kernel.conn.execute("PRAGMA max_page_count=1073741823")
        assert kernel.tick("what is my name?").tick == 2
        assert verify_agent(kernel.store, load_key(kernel.store, "test")).problems() == []


def test_a_failed_write_that_ends_the_tick_is_one_line_naming_the_fix(tmp_path):
    """A write SQLite refuses without rolling the transaction back (here a trigger's ABORT) ends the tick
    too: a StorageError, not a raw sqlite3 error, and the tick is rolled back whole."""
    path = tmp_path / "a.db"
    with open_kernel(path) as kernel:
        kernel.tick("hello")
        before = _stored(path)
        kernel.conn.execute("CREATE TRIGGER refuse BEFORE INSERT ON journal BEGIN SELECT RAISE(ABORT, 'no'); END")
        with pytest.raises(StorageError, match=r"failed \(IntegrityError: no\); retry") as raised:
            kernel.tick("2+2")
        assert isinstance(raised.value.__cause__, sqlite3.IntegrityError) and _stored(path) == before


def test_a_connection_whose_transaction_sqlite_dropped_refuses_to_write_on_its_own(tmp_path):
    """The guard itself: after SQLite rolled back a transaction it was in, a statement raises TransactionLost
    (it would commit on its own); the owner's ROLLBACK ends it quietly, and then statements run again."""
    conn = connect(tmp_path / "g.db")
    conn.execute("CREATE TABLE t (v TEXT)")
    conn.execute("INSERT INTO t VALUES ('kept')")
    pages = conn.execute("PRAGMA page_count").fetchone()[0]
    conn.execute(f"PRAGMA max_page_count={pages}")
    conn.execute("BEGIN IMMEDIATE")
    with pytest.raises(sqlite3.OperationalError, match="full"):
        conn.execute("INSERT INTO t VALUES (?)", ("x" * 100_000,))
    assert not conn.in_transaction  # SQLite rolled it back by itself
    with pytest.raises(TransactionLost, match=r"disk full while writing .*g\.db; free space and retry"):
        conn.execute("INSERT INTO t VALUES ('alone')")
    with pytest.raises(TransactionLost):
        conn.execute("COMMIT")
    conn.execute("ROLLBACK")  # the owner's: nothing to undo, no error
    assert [row[0] for row in conn.execute("SELECT v FROM t")] == ["kept"]
    conn.execute("INSERT INTO t VALUES ('after')")  # autocommit again, as asked
    assert conn.execute("SELECT count(*) FROM t").fetchone()[0] == 2
    conn.close()


def test_a_transaction_dropped_outside_a_tick_does_not_wedge_the_next_tick(tmp_path):
    """A write outside any tick whose transaction SQLite dropped (RLM state opens its own) fails and its
    owner never rolls back; the connection refuses statements until then, yet the next tick runs: a tick
    is a new owner."""
    with open_kernel(tmp_path / "a.db") as kernel:
        kernel.tick("hello")
        kernel.conn.execute("CREATE TABLE filler (v TEXT)")
        _fill(kernel)
        rows = kernel.store.rlm_rows()
        with pytest.raises(TransactionLost), rows.atomic():  # BEGIN IMMEDIATE, SAVEPOINT, then the disk is full
            rows.conn.execute("INSERT INTO filler VALUES (?)", ("x" * 100_000,))
        with pytest.raises(TransactionLost):
            kernel.conn.execute("SELECT 1")  # its owner has not rolled back: refused
        sqlite3.Connection.execute(kernel.conn, "PRAGMA max_page_count=1073741823")  # space again (past the guard)
        assert kernel.tick("2+2").final_output == "2+2 = 4" and kernel.tick_count == 2
