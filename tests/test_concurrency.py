"""Many ``agi`` processes on one database: real processes, real SQLite files, no fakes.

Each test starts real ``python -m agi_core`` processes on one database file and then checks
the stored result: every tick journaled exactly once, numbered 1..n without a gap, the chain
verifying and the journal replaying equal. A helper process that holds SQLite's write lock
(``BEGIN IMMEDIATE``, then sleep) stands in for a busy writer where a bound must be hit.
"""

from __future__ import annotations

import collections
import contextlib
import json
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from agi_core import Kernel, Plugins, checkpoints, journal_key
from agi_core import journal as journal_module
from agi_core.errors import ConfigError
from agi_core.memory.sqlite_store import SqliteStore
from agi_core.replay import replay

TIMEOUT = 120

_HOLD = """
import sqlite3, sys, time
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("BEGIN IMMEDIATE" if sys.argv[2] == "write" else "BEGIN")
conn.execute("SELECT count(*) FROM meta").fetchone()
print("held", flush=True)
time.sleep(60)
"""


def agi(db: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "agi_core", "--db", str(db), *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )


@contextlib.contextmanager
def spawn(db: Path, *args: str) -> Iterator[subprocess.Popen[str]]:
    """A running ``agi`` process with piped input and output; killed and reaped on exit."""
    process = subprocess.Popen(
        [sys.executable, "-m", "agi_core", "--db", str(db), *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        encoding="utf-8",
    )
    with process:
        try:
            yield process
        finally:
            if process.poll() is None:
                process.kill()


def say(process: subprocess.Popen[str], line: str) -> str:
    """Send one input line to a running ``agi run`` and return its reply line."""
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(line + "\n")
    process.stdin.flush()
    reply = process.stdout.readline()
    assert reply, f"agi run died: {process.stderr.read() if process.stderr else ''}"
    return reply.rstrip("\n")


def finish(process: subprocess.Popen[str]) -> tuple[str, str]:
    out, err = process.communicate(timeout=TIMEOUT)
    assert process.returncode == 0, err
    return out, err


def drain(process: subprocess.Popen[str]) -> tuple[str, str]:
    """Output and errors of a process whose input was closed already."""
    assert process.stdout is not None and process.stderr is not None
    out, err = process.stdout.read(), process.stderr.read()
    process.wait(timeout=TIMEOUT)
    return out, err


@contextlib.contextmanager
def hold_lock(db: Path, kind: str) -> Iterator[None]:
    """Another process holding the database's write lock (``write``) or a read snapshot (``read``)."""
    with subprocess.Popen([sys.executable, "-c", _HOLD, str(db), kind], stdout=subprocess.PIPE, text=True) as holder:
        try:
            assert holder.stdout is not None and holder.stdout.readline() == "held\n"
            yield
        finally:
            holder.kill()


def journal(db: Path) -> list[tuple[int, dict]]:
    conn = sqlite3.connect(db)
    try:
        return [
            (tick, json.loads(text)) for tick, text in conn.execute("SELECT tick, record FROM journal ORDER BY tick")
        ]
    finally:
        conn.close()


def assert_consistent(db: Path, expected_inputs: list[str], *, cli: bool = False) -> None:
    """Every input journaled exactly once, ticks 1..n, chain intact, replay equal (through
    ``agi journal verify`` and ``agi replay`` when ``cli``, else through the same functions in-process)."""
    records = journal(db)
    assert [tick for tick, _ in records] == list(range(1, len(expected_inputs) + 1))
    seen = collections.Counter(record["input"]["raw"] for _, record in records)
    assert seen == collections.Counter(expected_inputs)
    conn = sqlite3.connect(db)
    try:
        (episodes,) = conn.execute("SELECT count(*) FROM episodes").fetchone()
        (meta_tick,) = conn.execute("SELECT value FROM meta WHERE key = 'tick'").fetchone()
    finally:
        conn.close()
    assert episodes == 2 * len(expected_inputs)
    assert int(meta_tick) == len(expected_inputs)
    if not cli:
        store = SqliteStore(db)
        try:
            assert str(journal_module.verify(store, journal_key.load(store, "0"))) == (
                f"journal OK: {len(expected_inputs)} records, chain intact"
            )
        finally:
            store.close()
        report = replay(db, seed="0", plugins=Plugins.builtins())
        assert report.ok and report.ticks == len(expected_inputs), report.summary()
        return
    verified = agi(db, "journal", "verify")
    assert verified.returncode == 0 and verified.stdout.splitlines()[0] == (
        f"journal OK: {len(expected_inputs)} records, chain intact"
    ), verified.stderr
    replayed = agi(db, "replay")
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr
    assert replayed.stdout.startswith(f"replay equal: {len(expected_inputs)} ticks"), replayed.stdout


def tick_once(db: Path, *lines: str) -> None:
    with Kernel.open(db, plugins=Plugins.builtins()) as kernel:
        for line in lines:
            kernel.tick(line)


def lines_of(writer: int, count: int) -> list[str]:
    return [f"my w{writer} item {j} is v{j}" if j % 2 else f"{writer} + {j}" for j in range(count)]


@pytest.mark.parametrize("writers", [2, 4])
def test_concurrent_runs_journal_every_tick_once(tmp_path, writers):
    """k ``agi run`` on one new database, all started and past their first tick before the
    rest of their input arrives at once: N*k ticks, each exactly once, chain and replay OK."""
    db, per_writer = tmp_path / "agent.db", 25
    inputs = {w: lines_of(w, per_writer) for w in range(writers)}
    with contextlib.ExitStack() as stack:
        processes = [stack.enter_context(spawn(db, "run")) for _ in range(writers)]
        for w, process in enumerate(processes):  # every process has opened the agent and ticked once
            say(process, inputs[w][0])
        for w, process in enumerate(processes):  # then they all write at the same time
            assert process.stdin is not None
            process.stdin.write("".join(line + "\n" for line in inputs[w][1:]))
            process.stdin.close()
        outputs = [drain(process) for process in processes]
    for process, (out, err) in zip(processes, outputs, strict=True):
        assert process.returncode == 0 and "Traceback" not in err, err
        assert len(out.splitlines()) == per_writer - 1
    assert_consistent(db, [line for w in range(writers) for line in inputs[w]], cli=writers == 4)


def test_concurrent_runs_keep_each_writers_facts(tmp_path):
    """The facts of both writers are there afterwards, read back by a third process."""
    db = tmp_path / "agent.db"
    with spawn(db, "run") as first, spawn(db, "run") as second:
        say(first, "my color is blue")
        say(second, "my city is paris")
        say(first, "my dog is rex")
        say(second, "my cat is tom")
        finish(first)
        finish(second)
    with Kernel.open(db, plugins=Plugins.builtins()) as kernel:
        facts = kernel.store.facts()
    assert {fact.key: fact.value for fact in facts} == {
        "user/person/self/color": "blue",
        "user/person/self/city": "paris",
        "user/person/self/dog": "rex",
        "user/person/self/cat": "tom",
    }


@pytest.mark.parametrize(
    ("command", "journaled"),
    [
        (("memory", "put", "user/person/self/name", "Ada"), True),
        (("ingest", "{notes}", "--no-embed", "--no-progress"), True),
        (("state", "create", "find the bug"), True),
        (("checkpoint", "create", "cp{round}"), False),
    ],
    ids=["memory-put", "ingest", "state-create", "checkpoint-create"],
)
def test_other_writers_between_ticks_of_a_running_agent(tmp_path, command, journaled):
    """A second writer commits between two ticks of a running ``agi run``: the running
    agent goes on from what is stored (no duplicate tick, no lost line, no traceback)."""
    db, notes = tmp_path / "agent.db", tmp_path / "notes.txt"
    notes.write_text("alpha note\n\nbeta note\n", encoding="utf-8")
    said: list[str] = []
    with spawn(db, "run") as runner:
        for round_ in range(2):
            said.append(f"my item {round_} is v{round_}")
            assert say(runner, said[-1]) == f"Got it: your item {round_} is v{round_}."
            args = [part.format(notes=notes, round=round_) for part in command]
            other = agi(db, *args)
            assert other.returncode == 0 and other.stderr.count("\n") <= 1, other.stderr
            if journaled:
                said.append(journal(db)[-1][1]["input"]["raw"])
        said.append("12 + 30")
        assert say(runner, "12 + 30") == "12 + 30 = 42"
        finish(runner)
    assert_consistent(db, said)
    if command[0] == "checkpoint":
        report = replay(db, seed="0", plugins=Plugins.builtins(), checkpoint="cp1")
        assert report.ok and (report.first_tick, report.ticks) == (3, 1), report.summary()


def test_readers_while_a_writer_runs(tmp_path):
    """``journal verify`` and ``replay`` run while ``agi run`` is writing, and both agree."""
    db = tmp_path / "agent.db"
    stop = threading.Event()
    said: list[str] = []

    def feed(runner: subprocess.Popen[str]) -> None:
        assert runner.stdin is not None
        for j in range(2000):  # at most ~20 KB of replies: the output pipe never fills
            if stop.wait(0.02):
                break
            said.append(f"{j} + 1")
            runner.stdin.write(said[-1] + "\n")
            runner.stdin.flush()
        runner.stdin.close()

    with spawn(db, "run") as runner:
        say(runner, "hello")
        feeder = threading.Thread(target=feed, args=(runner,))
        feeder.start()
        try:
            verified, replayed = agi(db, "journal", "verify"), agi(db, "replay")
            ticks_during = len(journal(db))
        finally:
            stop.set()
            feeder.join()
        out, _err = drain(runner)
    assert verified.returncode == 0 and verified.stdout.startswith("journal OK:"), verified.stdout + verified.stderr
    assert replayed.returncode == 0 and replayed.stdout.startswith("replay equal:"), replayed.stdout
    # each reader saw a consistent snapshot taken while the writer went on
    checked, replayed_ticks = int(verified.stdout.split()[2]), int(replayed.stdout.split()[2])
    assert 1 <= checked <= ticks_during and checked < len(said) + 1
    assert 1 <= replayed_ticks <= ticks_during
    assert len(out.splitlines()) == len(said)
    assert_consistent(db, ["hello", *said], cli=True)


def test_readers_do_not_wait_for_a_writer(tmp_path):
    """With another process holding the write lock, reads answer at once (lock timeout 0.2 s)."""
    db = tmp_path / "agent.db"
    tick_once(db, "my color is blue", "1 + 1")
    with hold_lock(db, "write"):
        verified = agi(db, "--lock-timeout", "0.2", "journal", "verify")
        replayed = agi(db, "--lock-timeout", "0.2", "replay")
    assert verified.stdout.splitlines()[0] == "journal OK: 2 records, chain intact", verified.stderr
    assert replayed.stdout.startswith("replay equal: 2 ticks"), replayed.stdout + replayed.stderr


def test_writers_do_not_wait_for_a_reader(tmp_path):
    """An open read snapshot in another process does not hold back a writer (WAL)."""
    db = tmp_path / "agent.db"
    tick_once(db, "1 + 1")
    with hold_lock(db, "read"):
        put = agi(db, "--lock-timeout", "0.2", "memory", "put", "user/person/self/name", "Ada")
    assert put.returncode == 0, put.stderr
    assert_consistent(db, ["1 + 1", journal(db)[-1][1]["input"]["raw"]])


@pytest.mark.parametrize(
    "command",
    [
        ("run",),
        ("memory", "put", "user/person/self/name", "Ada"),
        ("ingest", "{notes}", "--no-embed", "--no-progress"),
        ("state", "create", "find the bug"),
        ("checkpoint", "create", "before"),
    ],
    ids=["run", "memory-put", "ingest", "state-create", "checkpoint-create"],
)
def test_a_writer_that_waits_too_long_says_so_in_one_line(tmp_path, command):
    db, notes = tmp_path / "agent.db", tmp_path / "notes.txt"
    notes.write_text("alpha note\n", encoding="utf-8")
    tick_once(db, "1 + 1")
    with hold_lock(db, "write"):
        args = [part.format(notes=notes) for part in command]
        result = agi(db, "--lock-timeout", "0.3", *args, stdin="2 + 2\n")
    assert result.returncode == 1
    assert result.stderr == (
        f"Error: database {db} is locked by another writer for more than 0.3 s; "
        "retry, or raise --lock-timeout (KernelConfig.lock_timeout_s)\n"
    )
    assert_consistent(db, ["1 + 1"])  # nothing half-written


def test_kernel_api_raises_database_locked(tmp_path):
    from agi_core import DatabaseLocked

    db = tmp_path / "agent.db"
    with Kernel.open(db, plugins=Plugins.builtins(), lock_timeout_s=0.1) as kernel:
        kernel.tick("1 + 1")
        with hold_lock(db, "write"), pytest.raises(DatabaseLocked, match=r"another writer for more than 0\.1 s"):
            kernel.tick("2 + 2")
        assert kernel.tick("3 + 3").tick == 2  # the failed tick left nothing behind


def test_an_agent_that_lives_for_ever_waits_for_a_writer_past_the_lock_timeout(tmp_path, capfd):
    """``agi run --follow`` (reconnect_s=inf: the agent's life outlasts its database's hiccups) died with
    DatabaseLocked when another process held the write lock past the lock timeout (a slow checkpoint, a
    backup tool). Its tick had not begun: it now waits, said once, and runs when the lock is free."""
    db = tmp_path / "agent.db"
    with Kernel.open(db, plugins=Plugins.builtins(), lock_timeout_s=0.1, reconnect_s=float("inf")) as kernel:
        kernel.tick("1 + 1")
        done: list[str] = []
        with hold_lock(db, "write"):
            ticking = threading.Thread(target=lambda: done.append(kernel.tick("2 + 2").final_output))
            ticking.start()
            ticking.join(timeout=1.0)  # ten lock timeouts: still waiting
            assert ticking.is_alive() and done == []
        ticking.join(timeout=30)
        assert done == ["2 + 2 = 4"] and kernel.tick_count == 2
    waited = [line for line in capfd.readouterr().err.splitlines() if "waiting for it" in line]
    assert waited == [
        f"agi: database {db} is locked by another writer for more than 0.1 s; retry, or raise --lock-timeout "
        "(KernelConfig.lock_timeout_s); waiting for it (the tick has not begun)"
    ]
    assert_consistent(db, ["1 + 1", "2 + 2"])


def test_checkpoint_records_the_tick_it_copied(tmp_path):
    """A kernel opened before another process ticked checkpoints the stored tick, not its stale copy."""
    db = tmp_path / "agent.db"
    with Kernel.open(db, plugins=Plugins.builtins()) as kernel:
        kernel.tick("1 + 1")
        assert agi(db, "run", stdin="2 + 2\n3 + 3\n").returncode == 0
        info = checkpoints.create(kernel, "after-three")
        assert info.tick == 3
        copy = sqlite3.connect(checkpoints.folder_of(kernel.store) / info.file)
        try:
            assert copy.execute("SELECT max(tick) FROM journal").fetchone() == (3,)
        finally:
            copy.close()
        assert kernel.tick("4 + 4").tick == 4
    report = replay(db, seed="0", plugins=Plugins.builtins(), checkpoint="after-three")
    assert report.ok and (report.first_tick, report.ticks) == (4, 1), report.summary()


def test_chat_goes_on_after_another_process_wrote(tmp_path):
    """``agi chat`` answers from a fact ``agi memory put`` stored between two of its ticks."""
    db = tmp_path / "agent.db"
    with spawn(db, "chat") as chat:
        assert chat.stdin is not None and chat.stdout is not None
        chat.stdin.write("my color is blue\n")
        chat.stdin.flush()
        assert chat.stdout.readline().startswith("agi chat")
        assert chat.stdout.readline() == "you> agent> Got it: your color is blue.\n"
        put = agi(db, "memory", "put", "user/person/self/name", "Ada")
        assert put.returncode == 0, put.stderr
        out, err = chat.communicate("what is my name?\n", timeout=TIMEOUT)
    assert chat.returncode == 0 and err == "", err
    assert out.endswith("agent> Your name is Ada.\nyou> \n")  # (the prompt before it was read ahead above)
    assert_consistent(db, ["my color is blue", journal(db)[1][1]["input"]["raw"], "what is my name?"])


def test_two_creators_with_different_seeds_cannot_both_win(tmp_path, monkeypatch):
    """FAKE (named as such): the interleaving where a second process reads "no seed yet" just
    before the first commits cannot be provoked reliably; a stale first read stands in for it.
    The seed is re-read under the write lock, so the second creator is refused, not obeyed."""
    db = tmp_path / "a.db"
    Kernel.open(db, seed="1", plugins=Plugins.builtins()).close()
    real_meta_get = SqliteStore.meta_get
    stale = {"seed", "seed_check"}

    def stale_meta_get(self, key, default=None):
        if key in stale:
            stale.discard(key)
            return default  # what the second process saw before the first committed
        return real_meta_get(self, key, default)

    monkeypatch.setattr(SqliteStore, "meta_get", stale_meta_get)
    with pytest.raises(ConfigError, match="was created with another seed"):
        Kernel.open(db, seed="2", plugins=Plugins.builtins())
    monkeypatch.undo()
    with Kernel.open(db, plugins=Plugins.builtins()) as kernel:
        assert kernel.config.seed == "1"


def test_checkpoints_removed_and_made_beside_a_ticking_process_leave_the_agent_and_the_others_whole(tmp_path):
    """A real ``agi run`` ticks 60 lines while this process makes, removes and prunes checkpoints."""
    db = tmp_path / "agent.db"
    assert agi(db, "run", stdin="my favorite color is red\n").returncode == 0
    with spawn(db, "run") as writer, Kernel.open(db, plugins=Plugins.builtins()) as kernel:
        assert writer.stdin is not None
        writer.stdin.write("".join(f"{i} + 1\n" for i in range(60)))
        writer.stdin.close()
        for round_ in range(8):
            checkpoints.create(kernel, f"r{round_}")
            checkpoints.create(kernel, f"s{round_}", keep=6)
            checkpoints.remove(kernel.store, f"r{round_}")
        assert writer.wait(TIMEOUT) == 0, writer.stderr.read() if writer.stderr else ""
        kept = [info.name for info in checkpoints.list_checkpoints(kernel.store)]
        assert kept == [f"s{i}" for i in range(3, 8)]  # r{k} counted among the six, then removed
        files = sorted(path.name for path in checkpoints.folder_of(kernel.store).iterdir())
        assert files == sorted(info.file for info in checkpoints.list_checkpoints(kernel.store))
        for name in kept:
            assert kernel.store.checkpoint_problems(name, kernel.journal_key) == []
        assert kernel.store.seal_problems(kernel.journal_key, 61) == []
    verified = agi(db, "journal", "verify")
    assert verified.returncode == 0, verified.stdout + verified.stderr
    report = replay(db, seed="0", plugins=Plugins.builtins(), checkpoint="s3")
    assert report.ok, report.summary()
