"""The done-when test of issue 11 (deliverable 3), with real processes and the real clock.

``agi schedule add ping --every 1s``, then ``agi run --follow`` for about 6 s, then a
signal: exit 0, at least 3 ticks from ``schedule:ping``, and ``agi replay`` equal.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

FOLLOW_S = 6.0
READY = "agi: following"


def _agi(db, *args, **kwargs):
    return subprocess.run(
        [sys.executable, "-m", "agi_core", "--db", str(db), *args],
        capture_output=True,
        text=True,
        env={**os.environ, "AGI_LOAD_PLUGINS": ""},
        timeout=120,
        **kwargs,
    )


def _wait_ready(process: subprocess.Popen[str]) -> None:
    assert process.stderr is not None
    line = process.stderr.readline()
    assert line.startswith(READY), line


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_follow_runs_a_scheduled_job_until_a_signal_and_replays_equal(tmp_path, signum):
    db = tmp_path / "agent.db"
    added = _agi(db, "schedule", "add", "ping", "--every", "1s", "--say", "time check")
    assert added.returncode == 0, added.stderr
    assert added.stdout == "scheduled ping: every 1s\n"

    process = subprocess.Popen(
        [sys.executable, "-m", "agi_core", "--db", str(db), "run", "--follow", "--jsonl"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "AGI_LOAD_PLUGINS": ""},
    )
    try:
        _wait_ready(process)
        time.sleep(FOLLOW_S)
        process.send_signal(signum)
        out, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 0, err
    assert "agi: stopped at tick" in err

    exported = _agi(db, "journal", "export")
    records = [json.loads(line)["record"] for line in exported.stdout.splitlines()]
    pings = [r for r in records if r["input"]["source"] == "schedule:ping"]
    assert len(pings) >= 3
    assert all(r["input"]["raw"] == "time check" for r in pings)
    assert all(isinstance(r["externals"]["tick_clock"][0], int) for r in pings)
    assert [json.loads(line)["tick"] for line in out.splitlines()] == [r["tick"] for r in records[1:]]

    listed = json.loads(_agi(db, "schedule", "list", "--json").stdout)
    assert listed[0]["runs"] == len(pings)
    assert listed[0]["next_due_ms"] > pings[-1]["externals"]["tick_clock"][0]

    replayed = _agi(db, "replay")
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr
    assert replayed.stdout.startswith(f"replay equal: {len(records)} ticks")


HUNG_FOLLOWER = """
import sys, time
from agi_core.scheduling.clock import PinnedClock, WallClock
from agi_core.scheduling.follow import Follow, stop_on_signals
from agi_core.hookspecs import hookimpl
from agi_core.kernel import Kernel
from agi_core.plugins import Plugins

class Hung:
    name = "hung"
    def poll(self, kernel):
        print("polling", flush=True)
        time.sleep(120)  # a sensor that hangs: the turn under way never finishes

class Plugin:
    @hookimpl
    def agi_register_sensors(self, register):
        register(Hung())

kernel = Kernel.open(sys.argv[1], clock=PinnedClock(WallClock()), plugins=Plugins.builtins(Plugin()))
loop = Follow(kernel)
with stop_on_signals(loop.stop):
    for _ in loop.run():
        pass
"""


@pytest.mark.parametrize(
    ("signum", "returncode"),
    [(signal.SIGINT, -signal.SIGINT), (signal.SIGTERM, -signal.SIGTERM)],
    ids=["SIGINT", "SIGTERM"],
)
def test_a_second_signal_stops_a_hung_turn(tmp_path, signum, returncode):
    process = subprocess.Popen(
        [sys.executable, "-c", HUNG_FOLLOWER, str(tmp_path / "agent.db")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "AGI_LOAD_PLUGINS": ""},
    )
    try:
        assert process.stdout is not None and process.stdout.readline() == "polling\n"
        process.send_signal(signum)
        with pytest.raises(subprocess.TimeoutExpired):
            process.wait(timeout=1.5)  # the first signal waits for the turn under way
        process.send_signal(signum)
        _out, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == returncode
    if signum == signal.SIGINT:
        assert "KeyboardInterrupt" in err


@pytest.mark.parametrize("stdin_kind", ["pipe", "terminal"])
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_follow_with_stdin_still_open_exits_0_on_a_signal(tmp_path, signum, stdin_kind):
    """stdin a pipe or a terminal that stays open (``sleep 15 | agi run --follow``, or an interactive
    shell): the reader thread is still waiting on it when the process exits, which must not abort it."""
    if stdin_kind == "terminal":
        writer, reader = os.openpty()  # the parent writes on the terminal's master side
    else:
        reader, writer = os.pipe()
    command = [sys.executable, "-m", "agi_core", "--db", str(tmp_path / "agent.db"), "run", "--follow"]
    try:
        with subprocess.Popen(
            [*command, "--clock-every", "0"],
            stdin=reader,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "AGI_LOAD_PLUGINS": ""},
        ) as process:
            os.close(reader)
            assert process.stdout is not None and process.stderr is not None
            try:
                _wait_ready(process)
                os.write(writer, b"2+2\n")
                assert process.stdout.readline() == "2+2 = 4\n"  # read and answered; the reader waits for more
                process.send_signal(signum)
                process.wait(timeout=60)  # stdin stays open until the process has exited
                err = process.stderr.read()
            finally:
                if process.poll() is None:
                    process.kill()
    finally:
        os.close(writer)
    assert "Fatal Python error" not in err
    assert process.returncode == 0, err
    assert err == "agi: stopped at tick 1\n"
