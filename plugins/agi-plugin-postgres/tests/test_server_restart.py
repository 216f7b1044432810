"""A PostgreSQL server restarted under a running agent (``pg_ctl restart -m immediate``): every
input line gets exactly one tick, the agent says so in a line or two on stderr and goes on.

These tests start a server of their own (scripts/start_postgres.sh in a temporary folder), so
restarting it disturbs no other test.
"""

from __future__ import annotations

import contextlib
import glob
import json
import os
import queue
import signal
import subprocess
import sys
import tempfile
import threading
import time
import types
import uuid
from pathlib import Path

import pytest

from agi_core.hookspecs import hookimpl
from agi_core.integrity import verify_agent
from agi_core.testing import open_kernel

psycopg = pytest.importorskip("psycopg", reason="pip install -e plugins/agi-plugin-postgres")

ROOT = Path(__file__).resolve().parents[3]
PLUGIN = Path(__file__).resolve().parents[1]


class Server:
    """The server of scripts/start_postgres.sh in ``folder``; :meth:`restart` is pg_ctl's immediate restart."""

    def __init__(self, folder: Path) -> None:
        done = subprocess.run(
            [str(ROOT / "scripts" / "start_postgres.sh"), str(folder)],
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        lines = dict(line.split("=", 1) for line in done.stdout.splitlines() if "=" in line)
        self.dsn, self.stop_script, self.folder = lines["DSN"], lines["STOP"], folder
        bindir = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(p.split("/")[-2].split(".")[0]))
        owner = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []  # as start_postgres.sh runs it
        self.pg_ctl = [*owner, f"{bindir[-1]}/pg_ctl", "-D", str(folder / "data"), "-l", str(folder / "server.log")]

    def restart(self) -> None:
        subprocess.run([*self.pg_ctl, "-w", "-t", "60", "-m", "immediate", "restart"], check=True, capture_output=True)

    def stop(self) -> None:
        subprocess.run([*self.pg_ctl, "-w", "-m", "fast", "stop"], check=True, capture_output=True)

    def start(self) -> None:
        """Start it again as start_postgres.sh does (idempotent on its folder)."""
        done = subprocess.run([str(ROOT / "scripts" / "start_postgres.sh"), str(self.folder)], capture_output=True)
        assert done.returncode == 0, done.stderr

    def url(self, name: str, home: Path) -> str:
        return f"{self.dsn}&agent={name}_{uuid.uuid4().hex[:8]}&home={home}"

    def close(self) -> None:
        subprocess.run([self.stop_script], check=False, timeout=60)


@pytest.fixture(scope="module")
def server():
    """A server of this module's own, in a folder under /tmp (pytest's are closed to the postgres user)."""
    own = Server(Path(tempfile.mkdtemp(prefix="agi-pg-restart.", dir="/tmp")))
    try:
        yield own
    finally:
        own.close()


def _env() -> dict[str, str]:
    path = os.pathsep.join([str(ROOT), str(PLUGIN), *filter(None, [os.environ.get("PYTHONPATH", "")])])
    env = {k: v for k, v in os.environ.items() if k not in ("AGI_DEBUG", "AGI_RAISE_ERRORS")}
    return {**env, "PYTHONPATH": path, "AGI_LOAD_PLUGINS": "postgres"}


def _agi(db: str, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "agi_core", "--db", db, *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=_env(),
        text=True,
    )


def _lines_of(stream) -> queue.Queue[str]:
    """The lines ``stream`` gives, read by a thread of their own (so a test can wait with a limit)."""
    found: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [found.put(line) for line in stream], daemon=True).start()
    return found


def _wait_for(out: queue.Queue[str], count: int, agent: subprocess.Popen[str]) -> None:
    """Until ``count`` lines came out; fails when the agent exits first or after 60 s."""
    deadline = time.monotonic() + 60
    while out.qsize() < count:
        assert agent.poll() is None, f"agi exited {agent.returncode} after {out.qsize()} ticks: {agent.stderr.read()}"
        assert time.monotonic() < deadline, f"only {out.qsize()} of {count} ticks after 60 s"
        time.sleep(0.01)


def _ended(agent: subprocess.Popen[str], out: queue.Queue[str]) -> tuple[int, list[str], list[str]]:
    """``(exit status, stdout lines, stderr lines)`` once ``agent`` exits; its pipes closed."""
    code = agent.wait(timeout=120)
    err = agent.stderr.read().splitlines()
    deadline = time.monotonic() + 10
    while not agent.stdout.closed and time.monotonic() < deadline:
        try:
            agent.stdout.close()
        except ValueError:  # the reader thread is in the middle of a read: it reaches EOF shortly
            time.sleep(0.01)
    agent.stderr.close()
    return code, [out.get() for _ in range(out.qsize())], err


def _inputs(records: list[str]) -> list[str]:
    return [json.loads(record)["input"]["raw"] for record in records]


def _verified(db: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "agi_core", "--db", db, "journal", "verify"],
        env=_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout.splitlines()[0]


def test_agi_run_survives_two_restarts_with_every_line_ticked_once(server, tmp_path):
    """The issue-18 case: it exited 1 after the first restart, with 12-21 lines of pool warnings."""
    db = server.url("restarted", tmp_path)
    agent = _agi(db, "run", "--jsonl")
    out = _lines_of(agent.stdout)
    said = [f"note {n}: the value of item {n} is {n * 7}" for n in range(40)]

    def feed() -> None:  # one line every 25 ms, restarts or not: some arrive while the server is away
        with contextlib.suppress(BrokenPipeError):  # (an agent that died: the test says so)
            for line in said:
                agent.stdin.write(line + "\n")
                agent.stdin.flush()
                time.sleep(0.025)
            agent.stdin.close()

    feeder = threading.Thread(target=feed)
    feeder.start()
    for restart_after in (8, 24):
        _wait_for(out, restart_after, agent)
        server.restart()
    feeder.join(timeout=120)
    code, records, err = _ended(agent, out)
    assert code == 0, err
    assert _inputs(records) == said  # each line once, in order: none lost, none repeated
    assert [json.loads(r)["tick"] for r in records] == list(range(1, 41))
    assert 1 <= len(err) <= 4, err  # at most "unreachable …; retrying" and "reconnected …" per restart
    assert all(line.startswith("agi: ") for line in err), err
    assert _verified(db) == "journal OK: 40 records, chain intact"


def test_a_groups_ticks_survive_a_server_crash_once_the_group_ends(server, tmp_path):
    """Ticks inside ``Kernel.group_commit`` commit lazily; leaving the block makes them durable (the sync
    must write, or PostgreSQL commits it asynchronously too and a crash loses the group)."""
    import agi_plugin_postgres.plugin as postgres_plugin

    db = server.url("group", tmp_path)
    said = [f"fact {n}: the colour of box {n} is red" for n in range(5)]
    kernel = open_kernel(db, postgres_plugin)
    try:
        with kernel.group_commit():
            for line in said:
                kernel.tick(line)
        server.restart()  # immediate, the agent still open: what the server had not flushed is gone
    finally:
        with contextlib.suppress(Exception):
            kernel.close()
    assert _verified(db) == "journal OK: 5 records, chain intact"


def test_follow_keeps_running_across_a_restart(server, tmp_path):
    db = server.url("follower", tmp_path)
    agent = _agi(db, "run", "--follow", "--jsonl", "--clock-every", "0", "--maintain-every", "0")
    out = _lines_of(agent.stdout)
    said = [f"fact {n}: the colour of box {n} is red" for n in range(10)]

    def say(lines: list[str], total: int) -> None:
        for line in lines:
            agent.stdin.write(line + "\n")
            agent.stdin.flush()
        _wait_for(out, total, agent)

    say(said[:5], 5)
    server.restart()
    time.sleep(0.5)  # the idle loop's reads meet the lost connections
    say(said[5:], 10)
    agent.stdin.close()
    agent.send_signal(signal.SIGTERM)
    code, records, err = _ended(agent, out)
    assert code == 0, err
    assert _inputs(records) == said
    assert err[0].startswith("agi: following") and err[-1] == "agi: stopped at tick 10", err
    assert 1 <= len(err) - 2 <= 4 and all(line.startswith("agi: ") for line in err), err
    assert _verified(db) == "journal OK: 10 records, chain intact"


def test_follow_started_while_the_server_is_down_waits_for_it(server, tmp_path):
    """It exited at once (status 1), though a follower whose server goes away mid-run waits for it.
    Plain agi run still fails fast, in one line."""
    db = server.url("early", tmp_path)
    server.stop()
    try:
        plain = subprocess.run(
            [sys.executable, "-m", "agi_core", "--db", db, "run"],
            input="hello\n",
            env=_env(),
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert plain.returncode == 1 and plain.stderr.count("\n") == 1, plain.stderr
        assert plain.stderr.startswith(f"Error: no PostgreSQL server answers at {db} (")
        agent = _agi(db, "run", "--follow", "--jsonl", "--clock-every", "0", "--maintain-every", "0")
        err = _lines_of(agent.stderr)
        first = err.get(timeout=60)
        assert first.startswith(f"agi: no PostgreSQL server answers at {db} (") and first.endswith(
            "; waiting until it is up\n"
        ), first
        time.sleep(3)  # it keeps trying (0.1 s doubling to 2 s), saying nothing more
        assert agent.poll() is None and err.empty()
    finally:
        server.start()
    assert err.get(timeout=60).startswith("agi: connected after ")
    assert err.get(timeout=60).startswith("agi: following")
    out = _lines_of(agent.stdout)
    agent.stdin.write("the colour of the box is red\n")
    agent.stdin.close()
    _wait_for(out, 1, agent)
    agent.send_signal(signal.SIGTERM)
    assert agent.wait(timeout=60) == 0
    for stream in (agent.stdout, agent.stderr):  # their reader threads are at EOF
        deadline = time.monotonic() + 10
        while not stream.closed and time.monotonic() < deadline:
            with contextlib.suppress(ValueError):
                stream.close()
    assert _inputs([out.get()]) == ["the colour of the box is red"]
    assert _verified(db) == "journal OK: 1 records, chain intact"


def test_a_tick_in_flight_when_the_server_restarts_is_run_again_once(server, tmp_path, capfd):
    """The server restarts inside a tick's transaction: nothing of that attempt commits, the tick runs again."""
    restarted: list[str] = []

    @hookimpl
    def agi_before_tick(kernel, state):
        if state.input.raw == "my favorite color is green" and not restarted:
            restarted.append(state.input.raw)
            server.restart()  # the transaction's connection (holding the advisory lock) dies here

    restarter = types.SimpleNamespace(agi_before_tick=agi_before_tick, __name__="restarter")
    import agi_plugin_postgres.plugin

    kernel = open_kernel(server.url("inflight", tmp_path), agi_plugin_postgres.plugin, restarter)  # type: ignore[arg-type]
    try:
        kernel.tick("hello")
        record = kernel.tick("my favorite color is green")
        assert record is not None and record.tick == 2 and restarted
        assert kernel.tick("what is my favorite color?").final_output.endswith("green.")
        rows = [json.loads(text)["input"]["raw"] for _t, _i, text, _c in kernel.store.journal_rows()]
        assert rows == ["hello", "my favorite color is green", "what is my favorite color?"]
        assert verify_agent(kernel.store, kernel.journal_key).ok
    finally:
        kernel.close()
    err = capfd.readouterr().err.splitlines()
    assert len(err) == 2 and "is unreachable for agent" in err[0] and err[1].startswith("agi: reconnected after")
