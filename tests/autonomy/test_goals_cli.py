"""Issue 11, goals and plans, through the real ``agi`` in subprocesses: the Done-when conversation,
``agi goals`` and its JSON, a contradicted assumption replanning in the journal, replay, rollback."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agi_core import journal_form

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def agi(run_agi, tmp_path):
    db = tmp_path / "agent.db"

    def run(*args: str, stdin: str = "", ok: bool = True):
        done = run_agi(db, *args, stdin=stdin)
        if ok:
            assert done.returncode == 0, done.stderr
        return done

    run.db = db  # type: ignore[attr-defined]
    return run


def _goals(agi):
    return json.loads(agi("goals", "list", "--json").stdout)


def _records(agi):
    """The exported records, each as a reader sees it (journal_form.expand: a goal equal to working memory's is
    left out of the stored form)."""
    lines = agi("journal", "export", "--jsonl").stdout.splitlines()
    return [journal_form.expand(json.loads(line)["record"]) for line in lines]


def test_a_conversation_sets_a_goal_asks_for_the_goals_and_finishes_it(agi):
    said = agi("chat", stdin="my goal is to learn French\nwhat are my goals?\n/goals\nexit\n").stdout.splitlines()
    [goal] = _goals(agi)
    gid = goal["id"]
    ask = "ask: How is “learn French” going? When it is done, say “done: learn French”"
    assert said[1:] == [  # a subprocess's input is not echoed: each prompt is followed by the answer
        f"you> agent> Your goal is now: learn French ({gid}). Plan: {ask}.",
        f"you> agent> Your goals: {gid} [active] learn French (priority 0.5, progress 0%, step 0/1).",
        f"you> {gid} [active] learn French (priority 0.5, progress 0%, step 0/1)",
        f"  1. [todo] {ask}.",
        "you> ",
    ]
    assert (goal["status"], goal["progress"], goal["created_tick"], goal["updated_tick"]) == ("active", 0.0, 1, 1)
    said = agi("chat", stdin="I finished learning French\nwhat are my goals?\nexit\n").stdout.splitlines()
    assert said[1:3] == [
        f"you> agent> Well done: goal {gid} (learn French) is done.",
        f"you> agent> Your goals: {gid} [done] learn French (priority 0.5, progress 100%, step 1/1).",
    ]
    [goal] = _goals(agi)
    assert (goal["status"], goal["progress"], goal["updated_tick"]) == ("done", 1.0, 3)
    records = _records(agi)
    assert [r["router_decision"]["agent"] for r in records] == ["goal_agent"] * 4
    assert [r["goal"]["status"] if r["goal"] else None for r in records] == ["active", "active", None, None]
    assert agi("replay").stdout == "replay equal: 4 ticks (1..4), 16 fields each\n"


def test_goals_add_done_fail_block_and_the_next_active_goal(agi):
    first = agi("goals", "add", "write the report").stdout
    assert first.startswith("added goal g-") and first.endswith(" [active]: write the report (1 steps)\n")
    agi("goals", "add", "tidy the desk", "--priority", "0.2")
    agi("goals", "add", "call the bank", "--priority", "0.9")
    report, desk, bank = (goal["id"] for goal in _goals(agi))
    assert [(g["status"], g["priority"]) for g in _goals(agi)] == [("active", 0.5), ("open", 0.2), ("open", 0.9)]
    assert agi("goals", "done", report).stdout == f"goal {report} is done: write the report; active goal: {bank}\n"
    assert agi("goals", "block", bank).stdout == f"goal {bank} is blocked: call the bank; active goal: {desk}\n"
    assert agi("goals", "fail", desk).stdout == f"goal {desk} is failed: tidy the desk; no active goal\n"
    assert [g["status"] for g in _goals(agi)] == ["done", "failed", "blocked"]
    assert [g["updated_tick"] for g in _goals(agi)] == [4, 6, 5]
    missing = agi("goals", "done", "g-00000000", ok=False)
    assert (missing.returncode, missing.stderr) == (
        1,
        "Error: no goal 'g-00000000'; list the goals and their ids with: agi goals list\n",
    )
    assert agi("replay").stdout == "replay equal: 6 ticks (1..6), 16 fields each\n"


def test_subgoals_form_a_dag_and_a_cycle_is_refused_in_one_line(agi):
    agi("goals", "add", "move house")
    [top] = _goals(agi)
    agi("goals", "add", "pack the books", "--parent", top["id"])
    child = _goals(agi)[1]
    assert child["parent"] == top["id"]
    refused = agi("goals", "move", top["id"], "--parent", child["id"], ok=False)
    assert (refused.returncode, refused.stderr) == (
        1,
        f"Error: goal {top['id']} cannot go under {child['id']}: {child['id']} is {top['id']} or one of its "
        "subgoals (goals form a DAG without cycles); choose a parent outside it\n",
    )
    agi("goals", "done", child["id"])
    assert [g["progress"] for g in _goals(agi)] == [1.0, 1.0]  # the parent's progress is its subgoals'
    assert _goals(agi)[0]["status"] == "active"


def test_a_plan_over_20_steps_is_refused_or_split_into_subgoals(agi):
    steps = [f"--step=say: part {n}" for n in range(1, 24)]
    refused = agi("goals", "add", "a long job", *steps, ok=False)
    assert refused.stderr == (
        "Error: This needs 23 steps; plans over 20 steps need a subgoal or your confirmation. "
        "Split the request or confirm it.\n"
    )
    assert _goals(agi) == []
    agi("goals", "add", "a long job", *steps, "--split")
    top, part1, part2 = _goals(agi)
    assert [(g["description"], len(g["plan"]), g["parent"]) for g in (top, part1, part2)] == [
        ("a long job", 0, None),
        ("a long job (part 1/2)", 20, top["id"]),
        ("a long job (part 2/2)", 3, top["id"]),
    ]
    assert [g["status"] for g in (top, part1, part2)] == ["open", "active", "open"]


def test_a_contradicted_fact_replans_visible_in_the_journal_and_replay_is_equal(agi):
    agi("memory", "put", "world/entity/france/capital", '"Lyon"')
    step = "--step=what is the capital of France? | world/entity/france/capital = Paris"
    agi("goals", "add", "check the capital", step, "--step=list files")
    [goal] = _goals(agi)
    assert goal["assumptions"] == ["world/entity/france/capital = Paris", "the step's action succeeds"]
    reply = agi("goals", "step").stdout
    reason = 'step 1 (what is the capital of France?) assumed world/entity/france/capital = "Paris", but it is "Lyon"'
    assert reply == (
        f"Replanned goal {goal['id']}: {reason}; revised by heuristics. Next: what is the capital of France?\n"
    )
    tick = _records(agi)[-1]
    assert tick["plan"] == {
        "steps": ["what is the capital of France?", "what is the capital of France?", "list files"],  # revised
        "current_index": 0,
        "goal": goal["id"],
        "assumption": "world/entity/france/capital = Paris",
        "replan": f"{reason} (revised by heuristics)",
    }
    assert tick["sem_reads"][0]["value"] == "Lyon"
    [goal] = _goals(agi)
    assert [(s["do"], s["assumes"], s["status"]) for s in goal["plan"]] == [
        ("what is the capital of France?", "world/entity/france/capital = Paris", "failed"),
        ("what is the capital of France?", "world/entity/france/capital = Lyon", "todo"),
        ("list files", "the step's action succeeds", "todo"),
    ]
    assert goal["replans"] == 1
    assert agi("goals", "step").stdout == f"Step 2 of goal {goal['id']}: The capital of France is Lyon.\n"
    assert agi("goals", "step").stdout.startswith("file_list: ")
    [goal] = _goals(agi)
    assert (goal["status"], goal["progress"]) == ("done", 1.0)
    assert agi("replay").stdout == "replay equal: 5 ticks (1..5), 16 fields each\n"


def test_a_failing_tool_step_replans_and_a_plan_left_empty_blocks_the_goal(agi):
    agi("goals", "add", "read my notes", "--step=read file notes.txt | notes.txt exists")
    [goal] = _goals(agi)
    reply = agi("goals", "step").stdout
    reason = (
        "step 1 (read file notes.txt) assumed notes.txt exists, but it failed: "
        "no file 'notes.txt' in the workspace; list it with /file_list"
    )
    assert reply == (
        "file_read failed: no file 'notes.txt' in the workspace; list it with /file_list "
        f"Replanned goal {goal['id']} (revised by heuristics); next: nothing left. "
        "The goal is blocked: tell me how to go on.\n"
    )
    tick = _records(agi)[-1]
    assert (tick["observation"]["success"], tick["plan"]["replan"]) == (False, f"{reason} (revised by heuristics)")
    assert [(g["status"], g["plan"][0]["status"]) for g in _goals(agi)] == [("blocked", "failed")]
    assert agi("replay").stdout == "replay equal: 2 ticks (1..2), 16 fields each\n"


def test_checkpoint_and_rollback_restore_the_goals_and_the_seal_covers_them(agi):
    agi("goals", "add", "learn French")
    [goal] = _goals(agi)
    agi("checkpoint", "create", "before")
    agi("goals", "done", goal["id"])
    assert _goals(agi)[0]["status"] == "done"
    agi("rollback", "before")
    assert _goals(agi) == [goal]
    assert agi("journal", "verify").returncode == 0
    with sqlite3.connect(agi.db) as conn:
        conn.execute("UPDATE goals SET status = 'done'")
    tampered = agi("journal", "verify", ok=False)
    assert tampered.returncode == 1
    assert f"goals key {goal['id']!r}: changed outside the journal" in tampered.stdout + tampered.stderr


def test_a_reminder_said_to_follow_comes_back_as_its_own_tick(agi):
    process = subprocess.Popen(
        [sys.executable, "-m", "agi_core", "--db", str(agi.db), "run", "--follow"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "AGI_LOAD_PLUGINS": "", "PYTHONPATH": str(ROOT)},
    )
    try:
        assert process.stderr is not None and process.stderr.readline().startswith("agi: following")
        assert process.stdin is not None
        process.stdin.write("remind me to stretch in 1 second\n")
        process.stdin.flush()
        time.sleep(3.0)
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 0, err
    [goal] = _goals(agi)
    lines = out.splitlines()
    assert lines[0].startswith("I will remind you to stretch at ") and lines[0].endswith(
        f" (job remind-{goal['id']}, goal {goal['id']})."
    )
    assert lines[1] == f"Reminder: stretch (goal {goal['id']}, active, 0% done)."
    records = _records(agi)
    assert [r["input"]["source"] for r in records] == ["user", f"schedule:remind-{goal['id']}"]
    assert records[1]["externals"]["tick_clock"][0] >= records[0]["externals"]["tick_clock"][0] + 1000
    assert agi("replay").stdout == "replay equal: 2 ticks (1..2), 16 fields each\n"


def _main(tmp_path, capsys, *args):
    from agi_core.cli.main import main

    try:
        main(["--db", str(tmp_path / "agent.db"), *args])
        code = 0
    except SystemExit as exit_info:
        code = exit_info.code or 0
    return code, capsys.readouterr()


@pytest.mark.parametrize("step", ["|", " | ", "| it works", "|  "])
def test_a_plan_step_with_nothing_to_do_is_refused_in_one_line(tmp_path, capsys, step):
    code, captured = _main(tmp_path, capsys, "goals", "add", "x", "--step", "list files", "--step", step)
    assert (code, captured.err) == (
        1,
        f"Error: plan step {step!r} says nothing to do; write 'DO' or 'DO | ASSUMPTION'\n",
    )  # before issue 18, '|' was a step whose line '|' ran through the router and counted as done
    assert not (tmp_path / "agent.db").exists() or _main(tmp_path, capsys, "goals", "list", "--json")[1].out == "[]\n"


@pytest.mark.parametrize("timeout", ["-1", "nan", "1e400", "inf", "86401", "soon"])
def test_goals_step_refuses_a_timeout_that_is_not_a_number_of_seconds(tmp_path, capsys, timeout):
    assert _main(tmp_path, capsys, "goals", "add", "look around", "--step", "list files")[0] == 0
    code, captured = _main(tmp_path, capsys, "goals", "step", "--timeout", timeout)
    assert (code, captured.err) == (
        1,
        f"Error: --timeout {timeout} is not a number of seconds from 0 (no limit) to 86400; give e.g. --timeout 5\n",
    )
    [goal] = json.loads(_main(tmp_path, capsys, "goals", "list", "--json")[1].out)
    assert [step["status"] for step in goal["plan"]] == ["todo"]  # nothing ran
    assert _main(tmp_path, capsys, "goals", "step", "--timeout", "0")[0] == 0
    [goal] = json.loads(_main(tmp_path, capsys, "goals", "list", "--json")[1].out)
    assert [step["status"] for step in goal["plan"]] == ["done"]
