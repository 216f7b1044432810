"""A ``Kernel.group_commit`` block is one transaction on SQLite: a real SIGKILL inside it stores none of its
ticks. (Its own module: a test that starts processes marks its whole module ``slow``.)"""

from __future__ import annotations

import os
import signal
import subprocess
import sys

from agi_core import Kernel, journal


def test_a_kill_inside_a_group_stores_none_of_its_ticks(tmp_path, committed_ticks):
    """A real SIGKILL (``AGI_FAULT``) inside a ``group_commit`` block, at the third tick's commit: the block is one
    transaction, so none of its ticks is stored (nothing it returned had been shown) and the journal verifies."""
    db = tmp_path / "host.db"
    host = (
        "import sys\nfrom agi_core import Kernel\n"
        "kernel = Kernel.open(sys.argv[1])\n"
        "kernel.tick('my name is Ada')\n"
        "with kernel.group_commit():\n"
        "    for n in range(4):\n"
        "        kernel.tick(f'{n}+1')\n"
    )
    env = {**os.environ, "AGI_FAULT": "tick.before_commit:4"}  # the first tick, then the block's third
    killed = subprocess.run([sys.executable, "-c", host, str(db)], env=env, capture_output=True, timeout=120)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    assert committed_ticks(db) == 1  # the tick before the block only
    with Kernel.open(db) as kernel:
        assert journal.verify(kernel.store, kernel.journal_key).ok and kernel.tick_count == 1
