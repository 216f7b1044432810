"""Goal steps that call a write tool, through the real ``agi`` in subprocesses.

``agi goals step --allow-tool NAME`` settles the step's intent as ``agi run`` does: the tool
runs once, after the intent's tick commits, and a receipt tick follows; nothing is left
for ``agi intents``. ``agi run --follow --step-every 1s`` advances the active goal's plan by
itself, one step per tick (source ``goal:ID``), until SIGINT (exit 0); replay is equal.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from agi_core.testing import installed_plugin

ROOT = Path(__file__).resolve().parents[2]
WRITER = """
from agi_core import Tool, ToolDefinition, hookimpl


def _append(context, args):
    context.workspace.mkdir(parents=True, exist_ok=True)
    with open(context.workspace / "effects.log", "a") as log:
        log.write(args["line"] + "\\n")
    return {"appended": args["line"]}


@hookimpl
def agi_register_actuators(register):
    register(Tool(ToolDefinition("append_line", "Append a line.", {"line": "string"}, "write"), _append))
"""


@pytest.fixture
def agi(tmp_path):
    env = installed_plugin(tmp_path / "site", "writer", WRITER)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env["PYTHONPATH"]])
    db = tmp_path / "agent.db"

    def run(*args: str, ok: bool = True) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            [sys.executable, "-m", "agi_core", "--db", str(db), *args],
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
        )
        if ok:
            assert done.returncode == 0, done.stderr
        return done

    run.env, run.db, run.log = env, db, tmp_path / "workspace" / "effects.log"  # type: ignore[attr-defined]
    return run


def _records(agi):
    return [json.loads(line)["record"] for line in agi("journal", "export", "--jsonl").stdout.splitlines()]


def _goal_id(added: str) -> str:
    return added.split()[2]


def test_goals_step_settles_a_write_step_once_and_leaves_no_intent(agi):
    gid = _goal_id(agi("goals", "add", "note it", "--step", "/append_line hi | the log takes a line").stdout)
    stepped = agi("goals", "step", "--allow-tool", "append_line")
    assert stepped.stderr == ""  # no orphaned-intent warning, now or later
    assert stepped.stdout == (
        "append_line: intent recorded at tick 2; it runs once the tick is stored "
        f"That was the last step: goal {gid} (note it) is done.\n"
        'append_line: {"appended":"hi"}\n'
    )
    assert agi.log.read_text() == "hi\n"
    listed = agi("intents")
    assert (listed.stdout, listed.stderr) == ("no pending intents\n", "")
    records = _records(agi)
    assert [(r["input"]["source"], r["router_decision"]["agent"]) for r in records] == [
        ("event", "command:goal_add"),
        ("event", "command:goal_step"),
        ("event", "command:receipt"),
    ]
    assert records[1]["observation"]["payload"]["intent"] == "pending"
    assert records[2]["observation"]["payload"] == {"policy": "intent of tick 2", "appended": "hi"}
    assert [g["status"] for g in json.loads(agi("goals", "list", "--json").stdout)] == ["done"]
    assert agi("replay").stdout == "replay equal: 3 ticks (1..3), 16 fields each\n"
    assert agi.log.read_text() == "hi\n"  # replay never runs the tool


def test_goals_step_without_the_policy_refuses_the_tool_and_replans(agi):
    gid = _goal_id(agi("goals", "add", "note it", "--step", "/append_line hi", "--step", "list files").stdout)
    stepped = agi("goals", "step")
    assert stepped.stdout == (
        "append_line failed: refused: write tool 'append_line' needs an explicit policy; allow it with "
        f"--allow-tool append_line or confirm it in agi chat Replanned goal {gid} (revised by heuristics); "
        "next: list files.\n"
    )
    assert not agi.log.exists()
    assert agi("intents").stdout == "no pending intents\n"


def test_follow_advances_the_plan_by_itself_until_sigint(agi):
    gid = _goal_id(agi("goals", "add", "note it", "--step", "list files", "--step", "/append_line hi").stdout)
    follow = ["run", "--follow", "--step-every", "1s", "--allow-tool", "append_line", "--clock-every", "0"]
    process = subprocess.Popen(
        [sys.executable, "-m", "agi_core", "--db", str(agi.db), *follow],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=agi.env,
    )
    watchdog = threading.Timer(90, process.kill)  # a hang fails the test instead of blocking it
    watchdog.start()
    try:
        assert process.stderr is not None and process.stderr.readline().startswith("agi: following")
        assert process.stdout is not None
        said = [process.stdout.readline() for _ in range(3)]  # step 1, step 2's intent, its receipt
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=60)
    finally:
        watchdog.cancel()
        if process.poll() is None:
            process.kill()
    assert process.returncode == 0, err
    assert said[0].startswith("file_list: ")
    assert said[1:] == [
        "append_line: intent recorded at tick 3; it runs once the tick is stored "
        f"That was the last step: goal {gid} (note it) is done.\n",
        'append_line: {"appended":"hi"}\n',
    ]
    assert out == ""  # the goal is done: nothing more acts
    assert err == "agi: stopped at tick 4\n"
    assert agi.log.read_text() == "hi\n"
    records = _records(agi)
    assert [r["input"]["source"] for r in records] == ["event", f"goal:{gid}", f"goal:{gid}", "event"]
    clocks = [r["externals"]["tick_clock"][0] for r in records[1:3]]
    assert clocks[1] - clocks[0] >= 1000  # one step per period
    assert agi("intents").stdout == "no pending intents\n"
    assert [g["status"] for g in json.loads(agi("goals", "list", "--json").stdout)] == ["done"]
    assert agi("replay").stdout == "replay equal: 4 ticks (1..4), 16 fields each\n"
