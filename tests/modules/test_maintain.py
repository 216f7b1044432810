"""Maintenance ticks: ``agi run --follow`` runs the modules' ``maintain`` when idle, at a bounded rate."""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from agi_core.replay import replay
from agi_core.scheduling.clock import PinnedClock, SimulatedClock
from agi_core.scheduling.follow import Follow
from agi_core.scheduling.sensors import StdinReader
from agi_core.testing import builtin_plugins, open_kernel

S = 1000
START_MS = 1_795_000_000_000
PLUGIN_FILE = Path(__file__).with_name("notebook_plugin.py")


def notebook_plugin():
    spec = importlib.util.spec_from_file_location("notebook_plugin", PLUGIN_FILE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_idle_follow_runs_one_maintain_tick_per_interval_journaled_and_replayed_equal(tmp_path):
    sim, plugin, db = SimulatedClock(START_MS), notebook_plugin(), tmp_path / "a.db"
    with open_kernel(db, plugin, clock=PinnedClock(sim)) as kernel:
        kernel.tick("hello")  # a conversation tick first
        loop = Follow(kernel, maintain_every_ms=60 * S, idle_sleep_s=1.0)
        records = list(loop.run(until=lambda: sim.ms >= START_MS + 200 * S))
        assert [(r.input.source, r.final_output) for r in records] == [("maintain", "maintenance: 1 module(s) ran")] * 3
        assert [r.externals["tick_clock"] for r in records] == [[START_MS + k * 60 * S] for k in (1, 2, 3)]
        assert [r.modules["calls"][0]["output"] for r in records] == [{"tidied": 1}, {"tidied": 2}, {"tidied": 3}]
    assert replay(db, plugins=builtin_plugins(plugin)).ok


def test_other_ticks_go_first_but_never_postpone_maintenance_and_no_module_with_maintain_means_none(tmp_path):
    sim = SimulatedClock(START_MS)
    with open_kernel(tmp_path / "a.db", notebook_plugin(), clock=PinnedClock(sim)) as kernel:
        loop = Follow(kernel, clock_every_ms=10 * S, maintain_every_ms=60 * S, idle_sleep_s=1.0)
        sources = []
        while sim.ms < START_MS + 130 * S:  # a clock tick every 10 s: the agent is never idle for 60 s
            record = loop.step()
            sources.append(record.input.source if record else None)
            sim.advance(5)
        assert sources.count("maintain") == 2 and sources.count("clock") == 12
        kernel.submit("hello")
        sim.advance(60)
        assert [loop.step().input.source for _ in range(3)] == ["user", "maintain", "clock"]  # one turn late
        assert loop.step() is None
    with open_kernel(tmp_path / "b.db", clock=PinnedClock(sim)) as kernel:  # only sem_council: no maintain
        loop = Follow(kernel, maintain_every_ms=S, idle_sleep_s=1.0)
        assert loop.maintain_every_ms is None
        sim.advance(3600)
        assert loop.step() is None


def test_a_steady_stream_of_lines_does_not_postpone_maintenance(tmp_path):
    """Lines queued on standard input in every turn postponed maintenance for as long as they came (a
    real loop under 6 s of piped lines, --maintain-every 1s: 1 maintenance tick). A due maintenance now
    gives way for one turn, then goes first."""
    sim = SimulatedClock(START_MS)
    read_fd, write_fd = os.pipe()
    with open_kernel(tmp_path / "a.db", notebook_plugin(), clock=PinnedClock(sim)) as kernel:
        with os.fdopen(read_fd, "rb") as stream:
            reader = StdinReader(stream, kernel.config.max_input_bytes)
            with os.fdopen(write_fd, "wb") as pipe:
                pipe.write(b"".join(b"note %d\n" % n for n in range(16 * 40)))
            reader.closed.wait(10)
            loop = Follow(kernel, stdin=reader, maintain_every_ms=60 * S, idle_sleep_s=1.0)
            turns = []
            for _ in range(40):  # each turn 16 lines, 10 s: input never runs dry for 400 s
                turns.append([(record.input.source, record.externals["tick_clock"][0]) for record in loop.turn()])
                sim.advance(10)
    maintained = [at for turn in turns for source, at in turn if source == "maintain"]
    assert maintained == [START_MS + k * S for k in (70, 140, 210, 280, 350)]  # due at 60, one turn late
    assert sum(source == "user" for turn in turns for source, _ in turn) == 16 * 35


def test_a_clock_that_steps_back_keeps_maintenance_at_its_interval(tmp_path):
    """A wall clock stepped back an hour (NTP, a VM restored) postponed maintenance for the hour: the
    last maintenance stayed in the future. An interval now starts from the new time."""
    sim = SimulatedClock(START_MS)
    with open_kernel(tmp_path / "a.db", notebook_plugin(), clock=PinnedClock(sim)) as kernel:
        loop = Follow(kernel, maintain_every_ms=60 * S, idle_sleep_s=1.0)
        assert [r.input.source for r in loop.run(until=lambda: sim.ms >= START_MS + 61 * S)] == ["maintain"]
        sim.ms -= 3600 * S  # the clock steps back an hour
        stepped_ms = sim.ms
        records = list(loop.run(until=lambda: sim.ms >= stepped_ms + 130 * S))
        assert [r.externals["tick_clock"] for r in records] == [[stepped_ms + 60 * S], [stepped_ms + 120 * S]]


def test_agi_run_follow_maintain_every_runs_maintenance_ticks_in_a_real_process(tmp_path, plugin_site):
    site = plugin_site("notebook", PLUGIN_FILE.read_text(encoding="utf-8"))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path(__file__).parents[2]), str(site)])}
    env["AGI_LOAD_PLUGINS"] = "notebook"
    db = tmp_path / "agent.db"
    args = [sys.executable, "-m", "agi_core", "--db", str(db)]
    process = subprocess.Popen(
        [*args, "run", "--follow", "--jsonl", "--clock-every", "0", "--maintain-every", "1s"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert process.stderr.readline().startswith("agi: following")
        time.sleep(3.5)
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 0, err
    sources = [json.loads(line)["input"]["source"] for line in out.splitlines()]
    assert len(sources) >= 2 and set(sources) == {"maintain"}
    shown = subprocess.run([*args, "modules", "show", "notebook", "--json"], capture_output=True, text=True, env=env)
    assert json.loads(shown.stdout) == {"tidied": len(sources)}
    replayed = subprocess.run([*args, "replay"], capture_output=True, text=True, env=env)
    assert replayed.stdout.startswith(f"replay equal: {len(sources)} ticks"), replayed.stdout + replayed.stderr
