"""RLM state used by the agent (issue 22 item 5): goals and plans as task trees, completion
handlers from plugins, the LLM brain's scratch variables."""

from __future__ import annotations

import os
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

from agi_core import hookimpl
from agi_core.brain.llm_scratch import SESSION
from agi_core.llm.testing import FakeOpenAIServer, chat_reply
from agi_core.replay import replay
from agi_core.state.commands import run_state_op
from agi_core.testing import builtin_plugins, installed_plugin, open_kernel

ROOT = Path(__file__).resolve().parents[2]


def _state(kernel: Any, op: str, **args: Any) -> Any:
    return kernel.command("state", {"op": op, "args": args}).agent_outputs["state"]


def _learn_spanish(kernel: Any) -> tuple[str, list[str]]:
    """A goal with three subgoals, one step each; the subgoals run first (higher priority)."""
    add = kernel.command
    pid = add("goal_add", {"title": "learn Spanish", "priority": 0.1, "steps": ["list files"]}).final_output.split()[2]
    subs = []
    for n, title in enumerate(["vocabulary", "grammar", "listening"]):
        args = {"title": title, "parent": pid, "priority": 0.9, "steps": ["list files"], "activate": n == 0}
        subs.append(add("goal_add", args).final_output.split()[2])
    return pid, subs


def test_a_goal_with_three_subgoals_runs_as_a_task_tree(tmp_path: Path) -> None:
    db = tmp_path / "a.db"
    with open_kernel(db, seed="tasks") as kernel:
        pid, subs = _learn_spanish(kernel)
        running = _state(kernel, "tree", goal=pid)["tree"]
        assert running["prompt"] == "learn Spanish" and running["status"] == "incomplete"
        assert [c["result_name"] for c in running["children"]] == [f"subgoal_{s.replace('-', '_')}" for s in subs]
        for _ in range(4):
            kernel.command("goal_step", {})
        tree = _state(kernel, "tree", goal=subs[1])["tree"]  # any goal of the tree shows the whole tree
        parent_vars = {
            v["name"]: v["value"] for v in _state(kernel, "variables", state_id=tree["state_id"])["variables"]
        }
    assert (tree["prompt"], tree["status"], tree["final"]) == ("learn Spanish", "complete", "done: learn Spanish")
    subgoals, step = tree["children"][:3], tree["children"][3]
    assert [(c["prompt"], c["final"]) for c in subgoals] == [
        ("vocabulary", "done: vocabulary"),
        ("grammar", "done: grammar"),
        ("listening", "done: listening"),
    ]
    for child in subgoals:  # each subgoal's plan step is its child task, its Final delivered as step_1
        (done,) = child["children"]
        assert (done["prompt"], done["result_name"], done["status"]) == ("list files", "step_1", "complete")
        assert done["final"] == '{"entries":[]}'
    assert (step["prompt"], step["result_name"]) == ("list files", "step_1")
    # each child's Final landed in the parent state
    for sub, title in zip(subs, ["vocabulary", "grammar", "listening"], strict=True):
        assert parent_vars[f"subgoal_{sub.replace('-', '_')}"] == f"done: {title}"
    assert parent_vars["step_1"] == '{"entries":[]}' and parent_vars["goal_id"] == pid
    report = replay(db, seed="tasks", plugins=builtin_plugins())
    assert report.ok, report.summary()


class Watcher:
    """A plugin whose completion handler records what it saw."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, Any, bool]] = []

    @hookimpl
    def agi_state_completed(self, event: Any, replaying: bool) -> None:
        self.seen.append((event.state_id, event.value, replaying))


def test_hook_agi_state_completed(tmp_path: Path) -> None:
    watcher = Watcher()
    broken = types.ModuleType("broken_handler")
    broken.agi_state_completed = hookimpl(lambda event: 1 / 0)  # type: ignore[attr-defined]
    db = tmp_path / "a.db"
    with open_kernel(db, watcher, broken, seed="hook") as kernel:
        root = _state(kernel, "create_state", prompt="sum")["state_id"]
        _state(kernel, "set", name="Final", value=3)
        assert _state(kernel, "is_complete", state_id=root)["complete"]  # the broken handler undid nothing
        gid = kernel.command("goal_add", {"title": "tidy up", "steps": ["list files"]}).final_output.split()[2]
        kernel.command("goal_step", {})
        goal_state = _state(kernel, "tree", goal=gid)["state_id"]
    step_state = next(state for state, value, _ in watcher.seen if value == '{"entries":[]}')
    assert watcher.seen == [
        (root, 3, False),
        (step_state, '{"entries":[]}', False),
        (goal_state, "done: tidy up", False),
    ]
    watcher.seen.clear()
    report = replay(db, seed="hook", plugins=builtin_plugins(watcher, broken))
    assert report.ok, report.summary()
    assert [replaying for _, _, replaying in watcher.seen] == [True, True, True]


HANDLER = """
from pathlib import Path

from agi_core import hookimpl


@hookimpl
def agi_state_completed(kernel, event, replaying):
    if not replaying:
        with open(Path(kernel.store.path).parent / "completed.log", "a") as log:
            log.write(f"{event.state_id} {event.value}\\n")
"""


def test_a_completion_from_the_cli_fires_the_plugins_handler(tmp_path: Path) -> None:
    env = installed_plugin(tmp_path / "site", "on_done", HANDLER)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env["PYTHONPATH"]])
    db = tmp_path / "agent.db"

    def agi(*args: str) -> str:
        done = subprocess.run(
            [sys.executable, "-m", "agi_core", "--db", str(db), *args], capture_output=True, text=True, env=env
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    state_id = agi("state", "create", "write the report").strip()
    agi("state", "set", "Final", "report written")
    assert (tmp_path / "completed.log").read_text() == f"{state_id} report written\n"
    assert agi("replay").startswith("replay equal")
    assert (tmp_path / "completed.log").read_text() == f"{state_id} report written\n"  # replay: not again


def test_run_state_op_without_a_handler_completes_silently(tmp_path: Path) -> None:
    with open_kernel(tmp_path / "a.db", seed="plain") as kernel:
        seen: list[Any] = []
        with kernel.store.write_block():
            run_state_op(
                kernel.store, kernel.determinism, kernel.state_dir, {"op": "create_state", "args": {"prompt": "p"}}
            )
            run_state_op(
                kernel.store,
                kernel.determinism,
                kernel.state_dir,
                {"op": "set", "args": {"name": "Final", "value": 1}},
                on_complete=seen.append,
            )
        assert [event.value for event in seen] == [1]


def test_the_llm_brain_keeps_its_scratch_variables_in_rlm_state(tmp_path: Path, monkeypatch) -> None:
    # A scripted server stands in for the model: what is checked is where the brain keeps its scratch.
    db = tmp_path / "a.db"
    with FakeOpenAIServer(lambda path, body: chat_reply("Hello, Ada.")) as server:
        monkeypatch.setenv("AGI_LLM_PROVIDER", "openai")
        monkeypatch.setenv("AGI_OPENAI_BASE_URL", server.url)
        monkeypatch.setenv("AGI_OPENAI_MODEL", "fake-model")
        monkeypatch.setenv("AGI_LLM_MODE", "answer")
        with open_kernel(db, seed="scratch", brain="llm") as kernel:
            kernel.tick("hello there")
            kernel.tick("what is 6 * 7?")
            (scratch,) = [s for s in _state(kernel, "states")["states"] if s["session_id"] == SESSION]
            found = _state(kernel, "variables", state_id=scratch["state_id"])["variables"]
    values = {v["name"]: v["value"] for v in found}
    assert values["question"] == "what is 6 * 7?" and values["reply"] == "6 * 7 = 42"
    assert (values["mode"], values["turns"], values["model"]) == ("rule", 2, "openai")
    monkeypatch.setenv("AGI_OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    report = replay(db, seed="scratch", plugins=builtin_plugins())
    assert report.ok, report.summary()
