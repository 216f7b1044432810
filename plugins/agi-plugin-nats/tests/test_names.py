"""One name, one mailbox: an agent of another database under a live agent's name is refused on the broker, and a
SIGKILLed holder's claim lapses with the lease (?lease=), so a restart after a kill works."""

from __future__ import annotations

import importlib.util
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest


def _conversation_helpers():
    """test_conversation.py's ``agi``, ``child_env`` and ``ticks`` (tests are no package)."""
    spec = importlib.util.spec_from_file_location("agi_nats_names", Path(__file__).with_name("test_conversation.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.agi, module.child_env, module.ticks


agi, child_env, ticks = _conversation_helpers()

REFUSED = (
    "Error: agent name 'alice' is in use on nats://127.0.0.1:{port}/{deployment} by an agent of another database; "
    "stop that agent (a killed one's claim lapses within 2 s) or run this one on another deployment (two databases "
    "with one name would take each other's messages)\n"
)


def _follow(db, url):
    """``agi run --follow`` on ``db`` (a live holder of its name), once it has claimed it (it printed its banner)."""
    process = subprocess.Popen(
        [sys.executable, "-m", "agi_core", "--db", str(db), "run", "--follow", "--clock-every", "0"],
        stdin=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        env=child_env(url),
        text=True,
    )
    assert process.stderr is not None and "following" in process.stderr.readline()
    return process


def test_a_second_database_under_a_live_agents_name_is_refused_until_the_holder_is_killed(tmp_path, deployment):
    url = deployment + "&lease=2"
    first, second, bob = tmp_path / "first" / "alice.db", tmp_path / "second" / "alice.db", tmp_path / "bob.db"
    for db, name in ((first, "alice"), (second, "alice"), (bob, "bob")):
        db.parent.mkdir(exist_ok=True)
        assert agi(db, "init", "--name", name).returncode == 0
    holder = _follow(first, url)
    try:
        refused = agi(second, "run", url=url, stdin="hello\n")
        server, _, name = deployment.partition("?")[0].rpartition("/")
        assert (refused.returncode, refused.stdout) == (1, "")
        assert refused.stderr == REFUSED.format(port=server.rpartition(":")[2], deployment=name)
        assert ticks(second) == [(1, "event")]  # the naming only: nothing ticked, nothing taken from alice's mailbox
        sent = agi(
            first, "send", "alice", "a note to self", url=url
        )  # another process of the same database: one holder
        assert sent.returncode == 0, sent.stderr
        os.kill(holder.pid, signal.SIGKILL)
        holder.wait(10)
        killed_at, started = time.monotonic(), None
        while started is None or started.returncode != 0:
            assert time.monotonic() - killed_at < 15, started.stderr if started else "never tried"
            started = agi(second, "run", url=url)
        assert time.monotonic() - killed_at < 2 + 5  # the lease (2 s), plus one `agi run`'s start
        assert agi(bob, "send", "alice", "hi", url=url).returncode == 0
        assert agi(second, "run", url=url).stdout != ""  # the mailbox is the second database's now
        assert ticks(second)[-1][1] == "message:bob"
    finally:
        if holder.poll() is None:
            holder.kill()
            holder.wait(10)
        holder.stderr.close()


def test_a_clean_stop_lets_go_of_the_name_at_once(tmp_path, deployment):
    url = deployment + "&lease=60"
    first, second = tmp_path / "first" / "alice.db", tmp_path / "second" / "alice.db"
    for db in (first, second):
        db.parent.mkdir()
        assert agi(db, "init", "--name", "alice").returncode == 0
    assert agi(first, "run", url=url, stdin="hello\n").returncode == 0  # claims, then lets go when it closes
    began = time.monotonic()
    done = agi(second, "run", url=url, stdin="hello\n")
    assert done.returncode == 0, done.stderr
    assert time.monotonic() - began < 30  # not the 60 s lease


def test_another_process_of_the_live_agent_stopping_does_not_free_its_name(tmp_path, deployment):
    """`agi send` (or a plain `agi run`) of alice's own database beside her `agi run --follow` claims the name too;
    its clean stop deleted the claim it had renewed last, and another database's alice took the name (and the
    mailbox) until the follow process renewed it, a third of the lease later (20 s here)."""
    url = deployment + "&lease=60"
    first, second = tmp_path / "first" / "alice.db", tmp_path / "second" / "alice.db"
    for db in (first, second):
        db.parent.mkdir()
        assert agi(db, "init", "--name", "alice").returncode == 0
    holder = _follow(first, url)
    try:
        for command in (("send", "alice", "a note to self"), ("run",)):
            assert agi(first, *command, url=url).returncode == 0  # another process of the same database
            refused = agi(second, "run", url=url, stdin="hello\n")
            assert (refused.returncode, refused.stdout) == (1, ""), command
            assert "agent name 'alice' is in use on nats://" in refused.stderr
        holder.send_signal(signal.SIGTERM)  # the last process of the agent stops: the name is free at once
        assert holder.wait(30) == 0
        began = time.monotonic()
        done = agi(second, "run", url=url, stdin="hello\n")
        assert done.returncode == 0, done.stderr
        assert time.monotonic() - began < 30  # not the 60 s lease
    finally:
        if holder.poll() is None:
            holder.kill()
            holder.wait(10)
        holder.stderr.close()


def test_a_lease_out_of_range_is_one_line(tmp_path, nats_url):
    from agi_plugin_nats.transport import NatsTransport

    from agi_core.errors import ConfigError

    for lease in ("0", "nan", "x", "3601"):
        with pytest.raises(ConfigError, match=r"^lease in .* must be 1 to 3600 seconds; write \?lease=10$"):
            NatsTransport(f"{nats_url}/x?lease={lease}", agent="carol")
