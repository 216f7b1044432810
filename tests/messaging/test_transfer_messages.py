"""agi export / agi import carry an agent's messages: the inbox (so a redelivery after the move
is still recognized) and the outbox (so a message not yet published is published after it)."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

from agi_core import Kernel
from agi_core.replay import replay

ROOT = Path(__file__).resolve().parents[2]


def _agi(db: Path, *args: str) -> str:
    env = {k: v for k, v in os.environ.items() if k not in ("AGI_JOURNAL_KEY", "AGI_MESSAGING_URL")}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    done = subprocess.run(
        [sys.executable, "-m", "agi_core", "--db", str(db), *args], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def _rows(db: Path) -> dict[str, list[tuple]]:
    with sqlite3.connect(db) as conn:
        return {
            table: conn.execute(f"SELECT * FROM {table} ORDER BY id").fetchall()
            for table in ("messages_in", "messages_out")
        }


def make_talking_agent(folder: Path, hub: str) -> Path:
    """``alice.db``: a message received from bob, one sent and published, one queued (not published)."""
    alice = Kernel.open(folder / "alice.db", messaging=hub)
    bob = Kernel.open(folder / "bob.db", messaging=hub)
    alice.command("set_name", {"name": "alice"})
    bob.command("set_name", {"name": "bob"})
    bob.command("send_message", {"to": "alice", "text": "2+2"})
    assert alice.tick().final_output == "2+2 = 4"  # received; the reply is sent and published
    alice.close()
    bob.close()
    with Kernel.open(folder / "alice.db") as offline:  # no message box: this one waits in the outbox
        offline.command("send_message", {"to": "bob", "text": "later"})
    return folder / "alice.db"


def test_export_import_keeps_the_inbox_and_the_outbox_and_replays_equal(tmp_path):
    alice = make_talking_agent(tmp_path, "memory://transfer-messages")
    before = _rows(alice)
    assert len(before["messages_in"]) == 1 and sorted(row[-1] for row in before["messages_out"]) == [0, 1]
    _agi(alice, "export", "-o", str(tmp_path / "alice.jsonl"))
    moved = tmp_path / "moved.db"
    _agi(moved, "import", str(tmp_path / "alice.jsonl"), "--key-file", str(alice) + ".key")
    assert _rows(moved) == before
    assert replay(moved).ok
    with Kernel.open(moved, messaging="memory://transfer-messages-after") as kernel:
        kernel.tick()  # the moved agent's message box publishes what waited in its outbox
        assert kernel.conn.execute("SELECT count(*) FROM messages_out WHERE published = 0").fetchone()[0] == 0
        assert kernel.store.inbox_has(before["messages_in"][0][0])  # a redelivery would be recognized
