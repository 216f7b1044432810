"""Goal plans advance on their own under the follow loop (simulated clock, real SQLite file).

``Follow(step_every_ms=…)`` runs the active goal's next step when nothing else is due, at
most once per period, each step an ordinary tick with source ``goal:ID``; a contradicted
assumption replans in that tick, the goal is done after its last step, and a write/external
step's intent is settled (tool after the commit, then the receipt tick). Replay is equal.
"""

from __future__ import annotations

import pytest

from agi_core.kernel import Kernel
from agi_core.model import ToolDefinition
from agi_core.replay import replay
from agi_core.scheduling import plans
from agi_core.scheduling.clock import PinnedClock
from agi_core.scheduling.follow import Follow
from agi_core.scheduling.goal_commands import StepTaken
from agi_core.scheduling.goals import all_goals
from agi_core.testing import builtin_plugins, open_kernel, tools_plugin
from agi_core.tools import Tool, ToolPolicy

from .conftest import START_MS

S = 1000
CAPITAL = "world/entity/france/capital"


def _goal(kernel, *steps, title="check the capital"):
    return kernel.command("goal_add", {"title": title, "steps": list(steps)}).agent_outputs["goal_add"]["id"]


def test_the_plan_advances_one_step_per_period_replans_and_finishes(kernel, sim, tmp_path):
    kernel.put_fact(CAPITAL, "Lyon")
    gid = _goal(kernel, f"what is the capital of France? | {CAPITAL} = Paris", "list files")
    loop = Follow(kernel, step_every_ms=10 * S, idle_sleep_s=1.0)
    ticks = list(loop.run(until=lambda: sim.ms >= START_MS + 45 * S))
    assert [t.input.source for t in ticks] == [f"goal:{gid}"] * 3  # the 4th period finds no active goal
    assert [t.externals["tick_clock"][0] - START_MS for t in ticks] == [10 * S, 20 * S, 30 * S]
    reason = f'step 1 (what is the capital of France?) assumed {CAPITAL} = "Paris", but it is "Lyon"'
    assert [t.plan.replan for t in ticks] == [f"{reason} (revised by heuristics)", None, None]
    assert [t.plan.current_index for t in ticks] == [0, 1, 2]
    assert ticks[1].final_output == f"Step 2 of goal {gid}: The capital of France is Lyon."
    assert ticks[2].final_output.endswith(f" That was the last step: goal {gid} (check the capital) is done.")
    [goal] = all_goals(kernel.store)
    assert (goal.status, goal.progress, goal.replans) == ("done", 1.0, 1)
    assert [s.status for s in goal.plan] == ["failed", "done", "done"]
    kernel.close()
    report = replay(tmp_path / "agent.db", seed="autonomy")
    assert report.ok and report.ticks == 5, report.summary()


def test_steps_are_off_by_default_and_other_ticks_go_first(kernel, sim):
    gid = _goal(kernel, "list files", "list files")
    assert list(Follow(kernel, idle_sleep_s=1.0).run(until=lambda: sim.ms >= START_MS + 60 * S)) == []
    kernel.command("schedule_add", {"name": "ping", "every_ms": 10 * S, "say": "time check"})
    loop = Follow(kernel, step_every_ms=10 * S, idle_sleep_s=1.0)
    sim.advance(10)  # the job is due now; the loop's first step period starts now
    assert loop.step().input.source == "schedule:ping"
    assert loop.step() is None  # not a period since the loop started
    sim.advance(10)
    assert [loop.step().input.source, loop.step().input.source] == ["schedule:ping", f"goal:{gid}"]
    assert loop.step() is None


def test_a_step_the_user_does_is_not_run(kernel, sim):
    _goal(kernel, "ask: did you call Ada?", title="call Ada")
    loop = Follow(kernel, step_every_ms=10 * S, idle_sleep_s=1.0)
    assert list(loop.run(until=lambda: sim.ms >= START_MS + 35 * S)) == []  # the user's step: waits on them
    assert [s.status for g in all_goals(kernel.store) for s in g.plan] == ["todo"]


def test_two_followers_that_both_saw_a_step_run_it_once(tmp_path, sim, monkeypatch):
    db = tmp_path / "shared.db"
    with (
        Kernel.open(db, seed="autonomy", clock=PinnedClock(sim)) as first,
        Kernel.open(db, seed="autonomy", clock=PinnedClock(sim)) as second,
    ):
        gid = _goal(first, "list files", "list files")
        loops = [Follow(first, step_every_ms=10 * S), Follow(second, step_every_ms=10 * S)]
        assert [loop.turn() for loop in loops] == [[], []]  # the first period starts
        sim.advance(10)
        seen = plans.next_runnable(second.store)  # the second loop looks: step 1 is next
        assert [t.input.source for t in loops[0].turn()] == [f"goal:{gid}"]  # the first takes it meanwhile
        # fake, for a race no test can time: the second loop acts on what it saw before the first ticked
        monkeypatch.setattr(plans, "next_runnable", lambda store: seen)
        assert loops[1].turn() == []  # its tick re-read the goal under the write lock: nothing stored
        assert (second.tick_count, [s.status for s in all_goals(second.store)[0].plan]) == (2, ["done", "todo"])
        with pytest.raises(StepTaken) as refused:
            second.command("goal_step", {"goal": gid, "step": 0})
        assert str(refused.value) == (
            f"step 1 of goal {gid} is no longer the next step of the active goal (another process took it, "
            "or the goal changed); nothing ran: see agi goals list"
        )
        assert second.tick_count == 2
    report = replay(db, seed="autonomy")
    assert report.ok and report.ticks == 2, report.summary()


def test_a_write_step_is_settled_once_after_its_tick_commits(tmp_path, sim):
    calls: list[dict] = []

    def append(context, args):
        calls.append(dict(args))
        return {"appended": args["line"]}

    plugin = tools_plugin(
        "appender", Tool(ToolDefinition("append_line", "Append.", {"line": "string"}, "write"), append)
    )
    policy = ToolPolicy(allow_tools=frozenset({"append_line"}))
    db = tmp_path / "agent.db"
    with open_kernel(db, plugin, seed="autonomy", clock=PinnedClock(sim), policy=policy) as kernel:
        gid = _goal(kernel, "/append_line hi | the log takes it", title="note it")
        loop = Follow(kernel, step_every_ms=10 * S, idle_sleep_s=1.0)
        intent, receipt = loop.run(until=lambda: sim.ms >= START_MS + 25 * S)
        assert (intent.input.source, receipt.input.source) == (f"goal:{gid}", "event")
        assert intent.observation.payload["intent"] == "pending"
        assert receipt.final_output == 'append_line: {"appended":"hi"}'
        assert (receipt.router_decision.agent, receipt.tick) == ("command:receipt", intent.tick + 1)
        assert calls == [{"line": "hi"}]
        assert kernel.pending_intents() == []
        assert [g.status for g in all_goals(kernel.store)] == ["done"]
    report = replay(db, seed="autonomy", plugins=builtin_plugins(plugin))
    assert report.ok and report.ticks == 3, report.summary()
    assert calls == [{"line": "hi"}]  # replay served the observation: the tool never ran again


def test_a_write_step_whose_call_fails_replans_in_its_receipt_tick(tmp_path):
    def append(context, args):
        raise OSError("disk on fire")

    definition = ToolDefinition("append_line", "Append.", {"line": "string"}, "write")
    plugin = tools_plugin("appender", Tool(definition, append))
    policy = ToolPolicy(allow_tools=frozenset({"append_line"}))
    db = tmp_path / "agent.db"
    with open_kernel(db, plugin, seed="autonomy", policy=policy) as kernel:
        gid = _goal(kernel, "/append_line hi | the log takes it", "list files", title="note it")
        intent, receipt = kernel.command_ticks("goal_step", {})
        assert intent.observation.payload["intent"] == "pending"
        assert [s.status for s in all_goals(kernel.store)[0].plan] == ["failed", "todo"]
        error = "tool 'append_line' (plugin 'appender') raised OSError: disk on fire"
        reason = f"step 1 (/append_line hi) assumed the log takes it, but it failed: {error}"
        assert receipt.plan.replan == f"{reason} (revised by heuristics)"
        assert (receipt.plan.goal, receipt.plan.current_index) == (gid, 0)
        assert receipt.final_output == (
            f"append_line failed: {error} Replanned goal {gid} (revised by heuristics); next: list files."
        )
        [goal] = all_goals(kernel.store)
        assert (goal.status, goal.progress, goal.replans) == ("active", 0.0, 1)
        last = _goal(kernel, "/append_line bye", title="say bye")
        kernel.command("goal_set", {"id": gid, "status": "done"})  # `say bye` is active now, one write step left
        kernel.command_ticks("goal_step", {})
        assert [(g.status, g.progress) for g in all_goals(kernel.store)] == [("done", 1.0), ("blocked", 0.0)]
        assert kernel.pending_intents() == [] and last != gid
    report = replay(db, seed="autonomy", plugins=builtin_plugins(plugin))
    assert report.ok and report.ticks == 7, report.summary()


def test_an_abandoned_write_step_replans_its_goal(tmp_path):
    def append(context, args):
        raise KeyboardInterrupt  # Ctrl-C while the tool runs: the intent is committed, its receipt never is

    definition = ToolDefinition("append_line", "Append.", {"line": "string"}, "write")
    plugin = tools_plugin("appender", Tool(definition, append))
    db = tmp_path / "agent.db"
    with open_kernel(db, plugin, seed="autonomy", policy=ToolPolicy(allow_tools=frozenset({"append_line"}))) as kernel:
        gid = _goal(kernel, "/append_line hi", "list files", title="note it")
        with pytest.raises(KeyboardInterrupt):
            kernel.command_ticks("goal_step", {})
        assert [intent.tick for intent in kernel.orphaned_intents()] == [2]
        receipt = kernel.abandon_intent(2)
        reason = (
            "step 1 (/append_line hi) assumed the step's action succeeds, but it failed: "
            "abandoned: the intent of tick 2 was never confirmed; its effect is unknown"
        )
        assert receipt.plan.replan == f"{reason} (revised by heuristics)"
        assert receipt.final_output.endswith(f" Replanned goal {gid} (revised by heuristics); next: list files.")
        [goal] = all_goals(kernel.store)
        assert ([s.status for s in goal.plan], goal.replans) == (["failed", "todo"], 1)
    report = replay(db, seed="autonomy", plugins=builtin_plugins(plugin))
    assert report.ok and report.ticks == 3, report.summary()
