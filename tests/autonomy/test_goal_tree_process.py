"""A goal with three subgoals runs as an RLM task tree under ``agi run --follow --step-every``,
through the real ``agi`` in subprocesses; ``agi state tree`` shows the tree and each Final."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SUBGOALS = ["vocabulary", "grammar", "listening"]


def test_a_goal_with_three_subgoals_runs_as_a_task_tree_under_follow(tmp_path: Path) -> None:
    db = tmp_path / "agent.db"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}

    def agi(*args: str) -> str:
        done = subprocess.run(
            [sys.executable, "-m", "agi_core", "--db", str(db), *args], capture_output=True, text=True, env=env
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    parent = agi("goals", "add", "learn Spanish", "--priority", "0.1", "--step", "list files").split()[2]
    subs = []
    for n, title in enumerate(SUBGOALS):
        extra = ["--activate"] if n == 0 else []
        subs.append(agi("goals", "add", title, "--parent", parent, "--priority", "0.9", "--step", "list files", *extra))
    subs = [line.split()[2] for line in subs]
    running = agi("state", "tree", "--goal", parent).splitlines()
    assert [line.strip().split(" ", 2)[1:] for line in running] == [
        ["[incomplete]", "learn Spanish"],
        *(
            ["[incomplete]", f"{title} -> subgoal_{sub.replace('-', '_')}"]
            for title, sub in zip(SUBGOALS, subs, strict=True)
        ),
    ]

    follow = ["run", "--follow", "--step-every", "1s", "--clock-every", "0"]
    process = subprocess.Popen(
        [sys.executable, "-m", "agi_core", "--db", str(db), *follow],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    watchdog = threading.Timer(90, process.kill)  # a hang fails the test instead of blocking it
    watchdog.start()
    try:
        assert process.stderr is not None and process.stderr.readline().startswith("agi: following")
        assert process.stdout is not None
        said = [process.stdout.readline() for _ in range(4)]  # each subgoal's step, then the goal's own
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=60)
    finally:
        watchdog.cancel()
        if process.poll() is None:
            process.kill()
    assert process.returncode == 0, err
    assert out == ""  # every goal is done: nothing more acts
    assert [line.split(" That was")[1].strip() for line in said] == [
        *(f"the last step: goal {sub} ({title}) is done." for sub, title in zip(subs, SUBGOALS, strict=True)),
        f"the last step: goal {parent} (learn Spanish) is done.",
    ]
    tree = agi("state", "tree", "--goal", subs[2]).splitlines()
    shape = [(len(line) - len(line.lstrip()), line.strip().split(" ", 2)[2]) for line in tree]
    step = 'list files -> step_1  Final: "{\\"entries\\":[]}"'
    assert [(depth, text) for depth, text in shape] == [
        (0, 'learn Spanish  Final: "done: learn Spanish"'),
        (2, f'vocabulary -> subgoal_{subs[0].replace("-", "_")}  Final: "done: vocabulary"'),
        (4, step),
        (2, f'grammar -> subgoal_{subs[1].replace("-", "_")}  Final: "done: grammar"'),
        (4, step),
        (2, f'listening -> subgoal_{subs[2].replace("-", "_")}  Final: "done: listening"'),
        (4, step),
        (2, step),
    ]
    assert all("[complete]" in line for line in tree)
    assert agi("replay").startswith("replay equal")
