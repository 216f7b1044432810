"""Sensors: the clock sensor, standard input under --follow, and run/chat polling every sensor."""

from __future__ import annotations

import io
import os
import threading

from click.testing import CliRunner

from agi_core import plugins as plugins_module
from agi_core.cli.main import make_cli
from agi_core.hookspecs import hookimpl
from agi_core.inputs import read_lines
from agi_core.kernel import Kernel
from agi_core.model import Input
from agi_core.plugins import Plugins
from agi_core.scheduling.clock import iso_ms
from agi_core.scheduling.follow import Follow
from agi_core.scheduling.sensors import DRAIN_TICKS_MAX, FdReader, StdinReader, drain
from tests.autonomy.conftest import START_MS

S = 1000


class ListSensor:
    """Hands out its percepts one per poll (a real sensor object, registered through the hook)."""

    name = "env_list"

    def __init__(self, texts):
        self.texts = list(texts)

    def poll(self, kernel):
        if not self.texts:
            return None
        text = self.texts.pop(0)
        return Input(raw=text, normalized=text, source="env")


class EndlessSensor:
    name = "endless"

    def poll(self, kernel):
        return Input(raw="again", normalized="again", source="env")


class SensorPlugin:
    def __init__(self, sensor):
        self.sensor = sensor

    @hookimpl
    def agi_register_sensors(self, register):
        register(self.sensor)


def test_the_clock_sensor_ticks_every_period_under_follow(kernel, sim):
    loop = Follow(kernel, clock_every_ms=30 * S, idle_sleep_s=1.0)
    records = list(loop.run(until=lambda: sim.ms >= START_MS + 95 * S))
    assert [r.input.source for r in records] == ["clock"] * 3
    assert [r.input.raw for r in records] == [f"clock {iso_ms(START_MS + k * 30 * S)}" for k in (1, 2, 3)]


def test_the_clock_sensor_coalesces_and_is_off_without_a_period(kernel, sim):
    assert Follow(kernel, idle_sleep_s=1.0).step() is None  # off: no --clock-every
    loop = Follow(kernel, clock_every_ms=30 * S)
    assert loop.step() is None  # the first period starts now
    sim.advance(100)
    assert loop.step().input.source == "clock"
    assert loop.step() is None
    sim.advance(20)
    assert loop.step().input.source == "clock"  # the period after 120 s: one tick for 3 missed


def test_a_clock_that_steps_back_keeps_the_clock_sensor_ticking(kernel, sim):
    """A wall clock stepped back an hour (NTP, a VM resumed) silenced the clock sensor for that hour: its
    next percept stayed due at the old time. A period now starts from the new time."""
    loop = Follow(kernel, clock_every_ms=30 * S)
    assert loop.step() is None
    sim.advance(31)
    assert loop.step().input.source == "clock"
    sim.ms -= 3600 * S  # the clock steps back an hour
    assert loop.step() is None  # a period from now …
    sim.advance(31)
    assert loop.step().input.raw == f"clock {iso_ms(sim.ms)}"  # … not an hour from now


def test_stdin_lines_become_ticks_and_a_due_job_goes_first(kernel, sim):
    read_fd, write_fd = os.pipe()
    with os.fdopen(read_fd, "rb") as stream:
        reader = StdinReader(stream, max_bytes=100)
        with os.fdopen(write_fd, "wb") as pipe:
            pipe.write(b"2+2\n" + b"x" * 500 + b"\n")
        reader.closed.wait(10)
        kernel.command("schedule_add", {"name": "ping", "say": "time check", "every_ms": 5 * S})
        sim.advance(5)
        loop = Follow(kernel, stdin=reader)
        (first,), (second, third) = loop.turn(), loop.turn()  # the job, then both queued lines in one turn
        assert loop.step() is None
    assert (first.input.source, first.input.raw) == ("schedule:ping", "time check")
    assert (second.input.source, second.final_output) == ("user", "2+2 = 4")
    assert third.router_decision.agent == "command:refuse_input" and "[500 bytes" in third.input.raw


def test_queued_stdin_lines_are_ticks_with_one_durable_point(kernel, sim):
    """Lines standard input has queued run in one turn, as one transaction committed without waiting for the
    disk, then one sync (Kernel.group_commit); a line alone commits durably, as before."""
    read_fd, write_fd = os.pipe()
    commits: list[str] = []
    kernel.conn.set_trace_callback(
        lambda sql: commits.append(sql) if sql.startswith(("PRAGMA synchronous=N", "COMMIT")) else None
    )
    sync = kernel.store.sync
    kernel.store.sync = lambda: (sync(), commits.append("sync"))[0]  # logged once done
    with os.fdopen(read_fd, "rb") as stream:
        reader = StdinReader(stream, max_bytes=100)
        with os.fdopen(write_fd, "wb") as pipe:
            pipe.write(b"1+1\n\n2+2\n3+3\n")
        reader.closed.wait(10)
        loop = Follow(kernel, stdin=reader)
        assert [record.final_output for record in loop.turn()] == ["1+1 = 2", "2+2 = 4", "3+3 = 6"]
        assert commits == ["PRAGMA synchronous=NORMAL", "COMMIT", "sync"]  # one transaction for the group
    commits.clear()
    kernel.tick("4+4")
    assert commits == ["COMMIT"]


def test_reading_a_descriptor_gives_the_lines_a_buffered_file_gives():
    """FdReader (stdin under --follow) splits lines as a buffered file does: an oversized line spanning
    several reads, a CRLF line, an empty line, and a last line without a newline."""
    data = b"2+2\n" + b"y" * 200_000 + b"\nshort\r\n\n" + b"z" * 100 + b"\nlast"
    read_fd, write_fd = os.pipe()

    def write() -> None:
        with os.fdopen(write_fd, "wb") as pipe:
            pipe.write(data)

    writer = threading.Thread(target=write)
    writer.start()
    try:
        lines = list(read_lines(FdReader(read_fd), 100))
    finally:
        writer.join()
        os.close(read_fd)
    assert lines == list(read_lines(io.BytesIO(data), 100))
    sizes = [line if isinstance(line, str) else line.size for line in lines]
    assert sizes == ["2+2", 200_000, "short", "", "z" * 100, "last"]


def test_agi_run_polls_every_sensor_after_stdin(tmp_path):
    plugins_module._default = Plugins.builtins(SensorPlugin(ListSensor(["3+4", "5*6"])))
    db = tmp_path / "a.db"
    result = CliRunner().invoke(make_cli(), ["--db", str(db), "run"], input="2+2\n")
    assert result.exit_code == 0, result.output
    assert result.output == "2+2 = 4\n3+4 = 7\n5*6 = 30\n"
    with Kernel.open(db) as kernel:
        sources = [r["record"]["input"]["source"] for r in _records(kernel)]
    assert sources == ["user", "env", "env"]


def test_agi_chat_polls_every_sensor_after_each_line(tmp_path):
    plugins_module._default = Plugins.builtins(SensorPlugin(ListSensor(["3+4"])))
    result = CliRunner().invoke(make_cli(), ["--db", str(tmp_path / "a.db"), "chat"], input="2+2\nexit\n")
    assert result.exit_code == 0, result.output
    assert "agent> 2+2 = 4\nagent> [env] 3+4 = 7\n" in result.output


def test_a_sensor_that_never_runs_dry_cannot_hold_a_drain_forever(tmp_path):
    with Kernel.open(tmp_path / "a.db", plugins=Plugins.builtins(SensorPlugin(EndlessSensor()))) as kernel:
        assert len(list(drain(kernel))) == DRAIN_TICKS_MAX
        assert kernel.tick_count == DRAIN_TICKS_MAX


def _records(kernel):
    import orjson

    return [{"record": orjson.loads(text)} for _t, _i, text, _c in kernel.store.journal_rows()]


def test_the_python_example_of_docs_autonomy_runs(tmp_path, monkeypatch):
    import re
    from pathlib import Path

    monkeypatch.chdir(tmp_path)
    text = (Path(__file__).resolve().parents[2] / "docs" / "autonomy.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert blocks
    for block in blocks:
        exec(compile(block, "docs/autonomy.md", "exec"), {})


def _agi(db, *args, **kwargs):
    import subprocess
    import sys

    return subprocess.run(
        [sys.executable, "-m", "agi_core", "--db", str(db), *args],
        capture_output=True,
        text=True,
        env={**os.environ, "AGI_LOAD_PLUGINS": ""},
        timeout=120,
        **kwargs,
    )


def test_a_file_that_appeared_while_the_agent_was_down_is_reported_once(tmp_path):
    """Real processes: a follower reports a.txt and is stopped; b.txt appears meanwhile; the next runs
    report b.txt, once, and nothing again; the cursor moves with the ticks, so the journal replays equal."""
    import json
    import signal
    import subprocess
    import sys

    db, inbox = tmp_path / "agent.db", tmp_path / "inbox"
    inbox.mkdir()
    assert _agi(db, "config", "set", "sensors.watch_dir", "inbox").returncode == 0
    (inbox / "a.txt").write_text("first")
    (inbox / ".hidden").write_text("never reported")
    follower = subprocess.Popen(
        [sys.executable, "-m", "agi_core", "--db", str(db), "run", "--follow", "--jsonl"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "AGI_LOAD_PLUGINS": ""},
    )
    try:
        assert follower.stderr.readline().startswith("agi: following")
        first = json.loads(follower.stdout.readline())  # the tick of a.txt
        follower.send_signal(signal.SIGTERM)
        _out, err = follower.communicate(timeout=60)
    finally:
        if follower.poll() is None:
            follower.kill()
    assert follower.returncode == 0, err

    later = inbox / "b.txt"  # appears while the agent is down
    later.write_text("second")
    stamp = (inbox / "a.txt").stat().st_mtime_ns + 1_000_000_000
    os.utime(later, ns=(stamp, stamp))
    assert _agi(db, "run", input="").returncode == 0
    assert _agi(db, "run", input="").returncode == 0  # nothing new: no tick

    records = [json.loads(line)["record"] for line in _agi(db, "journal", "export").stdout.splitlines()]
    files = [(r["input"]["raw"], r["input"]["metadata"]) for r in records if r["input"]["source"] == "env"]
    assert files == [("file a.txt", {"file": "a.txt", "bytes": 5}), ("file b.txt", {"file": "b.txt", "bytes": 6})]
    assert first["tick"] == next(r["tick"] for r in records if r["input"]["raw"] == "file a.txt")
    assert [r["externals"]["sensor_cursor"] for r in records if r["input"]["source"] == "env"] == [
        [{"sensor": "files", "cursor": [(inbox / "a.txt").stat().st_mtime_ns, "a.txt"]}],
        [{"sensor": "files", "cursor": [stamp, "b.txt"]}],
    ]
    replayed = _agi(db, "replay")
    assert replayed.returncode == 0 and replayed.stdout.startswith(f"replay equal: {len(records)} ticks"), (
        replayed.stdout + replayed.stderr
    )


def test_a_sensor_cursor_moves_only_with_a_tick_that_commits(tmp_path):
    """A percept's cursor is stored in its tick's transaction: a tick that fails leaves it where it was."""
    from agi_core.model import Percept

    class Counter:
        name = "counter"

        def poll(self, kernel):
            at = kernel.sensor_cursor(self.name) or 0
            return Percept(Input(raw=f"{at}+1", normalized=f"{at}+1", source="env"), at + 1) if at < 3 else None

    class Failing:
        @hookimpl
        def agi_before_tick(self, kernel, state):
            if state.input.raw == "1+1":
                raise KeyboardInterrupt  # a tick that stops: nothing of it is stored

    with Kernel.open(tmp_path / "a.db", plugins=Plugins.builtins(SensorPlugin(Counter()))) as kernel:
        assert kernel.sensor_cursor("counter") is None
        assert kernel.tick().final_output == "0+1 = 1"
        assert kernel.sensor_cursor("counter") == 1
    plugins = Plugins.builtins(SensorPlugin(Counter()), Failing())
    with Kernel.open(tmp_path / "a.db", plugins=plugins) as kernel:
        try:
            kernel.tick()
        except KeyboardInterrupt:
            pass
        assert (kernel.tick_count, kernel.sensor_cursor("counter")) == (1, 1)
    with Kernel.open(tmp_path / "a.db", plugins=Plugins.builtins(SensorPlugin(Counter()))) as kernel:
        assert [r.final_output for r in drain(kernel)] == ["1+1 = 2", "2+1 = 3"]
        assert kernel.sensor_cursor("counter") == 3
