"""No code of ours opens and closes an agent's database file beside SQLite's own connections.

Closing any file descriptor of a file drops every POSIX lock the process holds on it (SQLite's "How To
Corrupt An SQLite Database File", 2.2). A second store opened in a process whose kernel holds the
database (the inspector running a replay) read the file's header with Python's open(): the kernel's
lock went with the close, and a rollback by another process then reset the write-ahead log under it
("database disk image is malformed" on every page until a restart).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agi_core.memory.sqlite_store import SqliteStore
from agi_core.testing import open_kernel

pytestmark = pytest.mark.skipif(not Path("/proc/locks").exists(), reason="reads the kernel's lock table (Linux)")


def _locks(path: Path) -> list[str]:
    """This process's POSIX locks on ``path`` (its inode), from /proc/locks."""
    inode, mine = os.stat(path).st_ino, f" {os.getpid()} "
    with open("/proc/locks") as table:
        return sorted(line.split(":", 1)[1] for line in table if mine in line and line.split()[5].endswith(f":{inode}"))


def test_a_second_store_in_the_process_leaves_the_first_ones_locks_held(tmp_path):
    db = tmp_path / "a.db"
    with open_kernel(db) as kernel:
        kernel.tick("hello")
        held = _locks(db)
        assert held  # the kernel's connection holds a read lock on the database file (WAL mode)
        SqliteStore(db).close()  # what a replay or an inspector page does
        assert _locks(db) == held
        assert kernel.tick("2+2").final_output == "2+2 = 4"
