"""Issue 22 item 6: what a user meets in the first hour, each defect with the test that found it."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from agi_core.cli.main import make_cli
from agi_core.replies import F1_SEM_MISS, F3_NO_AGENT


def agi(db, *args, input=None):
    return CliRunner().invoke(make_cli(), ["--db", str(db), "--seed", "0", *args], input=input)


def test_the_readmes_dog_is_called_rex_and_is_asked_back(agi_kernel):
    record = agi_kernel.tick("my dog is called Rex")
    assert [(w["key"], w["value"]) for w in record.sem_writes] == [("user/relation/dog/name", "Rex")]
    assert agi_kernel.tick("what is my dog called?").final_output == "Your dog's name is Rex."
    assert agi_kernel.tick("what's my dog's name?").final_output == "Your dog's name is Rex."


@pytest.mark.parametrize(
    ("said", "starts"),
    [
        ("hello", "Hello!"),
        ("Hi there!", "Hello!"),
        ("good morning, agent", "Hello!"),
        ("how are you?", "I’m running well"),
        ("thanks!", "You’re welcome."),
        ("bye", "Goodbye!"),
        ("what can you do?", "I’m a deterministic Stage-0 agent"),
    ],
)
def test_hello_and_small_talk_get_an_answer_not_f3(agi_kernel, said, starts):
    record = agi_kernel.tick(said)
    assert record.final_output.startswith(starts), record.final_output
    assert record.router_decision.agent == "generic_agent"  # R4 answers small talk itself


def test_small_talk_inside_a_statement_is_still_the_statement(agi_kernel):
    assert agi_kernel.tick("my name is Ada").final_output == "Got it: your name is Ada."
    assert agi_kernel.tick("tell me a joke").final_output == F3_NO_AGENT


def test_actually_my_name_is_carol_and_forget_my_name(agi_kernel):
    agi_kernel.tick("my name is Alice")
    assert agi_kernel.tick("actually my name is Carol").final_output == "Got it: your name is Carol."
    assert agi_kernel.tick("what is my name?").final_output == "Your name is Carol."
    assert agi_kernel.tick("forget my name").final_output == "Done: I forgot your name."
    assert agi_kernel.tick("what is my name?").final_output == F1_SEM_MISS


def test_agi_memory_forget_forgets_a_key_in_a_journaled_tick(tmp_path):
    db = tmp_path / "a.db"
    agi(db, "memory", "put", "user/person/self/name", "Ada")
    done = agi(db, "memory", "forget", "user/person/self/name")
    assert (done.exit_code, done.output) == (0, "forgot user/person/self/name\n")
    assert json.loads(agi(db, "memory", "get", "user/person/self/name").output)["value"] is None
    assert agi(db, "run", input="what is my name?\n").output == F1_SEM_MISS + "\n"
    again = agi(db, "memory", "forget", "user/person/self/name")
    assert again.exit_code == 1
    assert "nothing is stored under user/person/self/name" in again.output
    assert agi(db, "replay").output.startswith("replay equal")


def test_a_mistyped_db_whose_folder_does_not_exist_creates_nothing(tmp_path):
    db = tmp_path / "typo" / "agent.db"
    done = agi(db, "run", input="hello\n")
    assert done.exit_code == 1
    assert "its folder" in done.output and "does not exist" in done.output and "init" in done.output
    assert not (tmp_path / "typo").exists()
    made = agi(db, "init", "--name", "ada")
    assert made.exit_code == 0, made.output
    assert agi(db, "run", input="hello\n").exit_code == 0


def test_agi_status_shows_ticks_facts_goals_jobs_modules_and_the_last_tick(tmp_path):
    db = tmp_path / "a.db"
    agi(db, "run", input="my name is Ada\nmy goal is to learn Spanish\n2 + 3\n")
    agi(db, "schedule", "add", "tea", "--every", "1h", "--say", "time for tea")
    shown = agi(db, "status")
    assert shown.exit_code == 0, shown.output
    lines = shown.output.splitlines()
    assert lines[0].startswith("ticks: ") and int(lines[0].split()[1]) >= 4
    assert lines[1] == "facts: 1 (1 about the user)"
    assert lines[2].startswith("goals: 1 active; active: “learn Spanish”")
    assert lines[3].startswith("jobs: 1, next due ")
    assert lines[4].startswith("modules: ")
    assert lines[5].startswith("last tick: ")
    data = json.loads(agi(db, "status", "--json").output)
    assert (data["facts"], data["goals"], data["jobs"]) == (1, {"active": 1}, 1)
    missing = agi(tmp_path / "none.db", "status")
    assert missing.exit_code == 1 and not (tmp_path / "none.db").exists()


def test_an_ingested_document_answers_a_question_no_rule_answers(tmp_path):
    from agi_core.testing import open_kernel

    notes = tmp_path / "mars.txt"
    notes.write_text(
        "The sky on Mars is butterscotch by day and blue at sunset.\nOlympus Mons is the tallest volcano known.\n"
    )
    with open_kernel(tmp_path / "a.db") as kernel:
        assert kernel.tick("what colour is the sky on Mars?").final_output == F3_NO_AGENT  # nothing ingested yet
        kernel.command("ingest", {"path": str(notes)})
        record = kernel.tick("what colour is the sky on Mars?")
        assert record.final_output == "From mars.txt: “The sky on Mars is butterscotch by day and blue at sunset.”"
        assert record.router_decision.why == "matched_R4_fallback"
        assert kernel.tick("tell me a joke").final_output == F3_NO_AGENT  # no question: no search
        assert kernel.tick("why do cats purr?").final_output == F3_NO_AGENT  # no word in common
        assert kernel.tick("what do you remember?").final_output.startswith("I don’t have anything stored")
    with open_kernel(tmp_path / "a.db") as kernel:
        assert kernel.replay().ok


def _follow_until(kernel, sim, until_ms):
    from agi_core.scheduling.follow import Follow

    return list(Follow(kernel, idle_sleep_s=1.0).run(until=lambda: sim.ms >= until_ms))


def test_a_jobs_message_is_the_agents_output_never_the_users_words(tmp_path):
    from agi_core.kernel import Kernel
    from agi_core.scheduling.clock import PinnedClock, SimulatedClock

    sim = SimulatedClock(1_795_000_000_000)
    with Kernel.open(tmp_path / "a.db", seed="jobs", clock=PinnedClock(sim)) as kernel:
        kernel.tick("my name is Ada")
        kernel.command("schedule_add", {"name": "tea", "say": "time for tea", "every_ms": 5000})
        records = _follow_until(kernel, sim, sim.ms + 11_000)
        assert [(r.input.source, r.final_output) for r in records] == [("schedule:tea", "time for tea")] * 2
        recalled = kernel.tick("what do you remember?").final_output
        assert "you said “time for tea”" not in recalled and "I said “time for tea”" in recalled
        assert kernel.replay().ok


def test_a_clock_tick_notes_the_time_instead_of_f3(tmp_path):
    from agi_core.kernel import Kernel

    with Kernel.open(tmp_path / "a.db", seed="clock") as kernel:
        record = kernel.tick("clock 2026-11-23T13:00:00.000Z", source="clock")
        assert record.final_output == "Time noted: 2026-11-23T13:00:00.000Z."
        assert "you said" not in kernel.tick("what do you remember?").final_output


def test_goal_wording_a_finished_goals_steps_and_abandoning_a_goal(agi_kernel):
    from agi_core.scheduling import goals

    set_reply = agi_kernel.tick("my goal is to learn Spanish").final_output
    assert "Tell me 'I finished learn Spanish'" not in set_reply
    assert "When it is done, say “done: learn Spanish”." in set_reply
    assert agi_kernel.tick("done: learn Spanish").final_output.startswith("Well done: goal ")
    [done] = goals.all_goals(agi_kernel.store)
    assert (done.status, [step.status for step in done.plan]) == ("done", ["done"])
    assert "[done] learn Spanish (priority 0.5, progress 100%, step 1/1)" in goals.line(done)
    agi_kernel.tick("my goal is to run a marathon")
    reply = agi_kernel.tick("I give up on the marathon").final_output
    assert reply.startswith("OK: goal ") and reply.endswith("(run a marathon) is abandoned.")
    statuses = {goal.description: goal.status for goal in goals.all_goals(agi_kernel.store)}
    assert statuses == {"learn Spanish": "done", "run a marathon": "abandoned"}
    assert "[abandoned] run a marathon" in agi_kernel.tick("what are my goals?").final_output


def test_agi_goals_abandon_marks_a_goal_abandoned(tmp_path):
    db = tmp_path / "a.db"
    agi(db, "goals", "add", "learn Go")
    [goal] = json.loads(agi(db, "goals", "list", "--json").output)
    done = agi(db, "goals", "abandon", goal["id"])
    assert done.exit_code == 0, done.output
    assert json.loads(agi(db, "goals", "list", "--json").output)[0]["status"] == "abandoned"


def test_a_reminder_set_in_agi_chat_fires_in_agi_chat(tmp_path):
    import os
    import subprocess
    import sys
    import time

    env = {k: v for k, v in os.environ.items() if k not in ("AGI_DEBUG", "AGI_RAISE_ERRORS")}
    chat = subprocess.Popen(
        [sys.executable, "-m", "agi_core", "--db", str(tmp_path / "a.db"), "chat"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert chat.stdin is not None and chat.stdout is not None
    chat.stdin.write("remind me to stretch in 1 second\n")
    chat.stdin.flush()
    first = ""
    while "I will remind you" not in first:  # the reminder is set (the agent has started and answered)
        first = chat.stdout.readline()
        assert first, chat.stderr.read() if chat.stderr else ""
    time.sleep(1.5)  # it falls due; the next line lets the chat run it
    out, err = chat.communicate("2 + 2\nexit\n", timeout=120)
    assert chat.returncode == 0, err
    assert "agent> 2 + 2 = 4" in out
    assert "] Reminder: stretch (goal g-" in out.split("agent> 2 + 2 = 4", 1)[1]


def test_agi_chat_sets_a_reminder_for_tomorrow_at_9_local(tmp_path):
    """``agi chat`` (a real process, TZ=Asia/Kolkata) answered "remind me to call Ana tomorrow at 9" with F3; it
    now sets the job at 09:00 Kolkata time the day after the tick's recorded clock, and says so."""
    import os
    import subprocess
    import sys
    from datetime import UTC, datetime, timedelta
    from zoneinfo import ZoneInfo

    from agi_core.kernel import Kernel
    from agi_core.replay import replay

    db = tmp_path / "a.db"
    env = {k: v for k, v in os.environ.items() if k not in ("AGI_DEBUG", "AGI_RAISE_ERRORS")} | {"TZ": "Asia/Kolkata"}
    lines = "remind me to call Ana tomorrow at 9\nremind me to call Ana at 25:00\nexit\n"
    done = subprocess.run(
        [sys.executable, "-m", "agi_core", "--db", str(db), "chat"],
        input=lines,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    kolkata = ZoneInfo("Asia/Kolkata")
    with Kernel.open(db) as kernel:
        [job] = kernel.store.all_jobs()
        [(_tick, _id, text, _chain), *_] = kernel.store.journal_rows()
    clock_ms = json.loads(text)["externals"]["tick_clock"][0]
    tomorrow = datetime.fromtimestamp(clock_ms / 1000, UTC).astimezone(kolkata).date() + timedelta(days=1)
    due = datetime(tomorrow.year, tomorrow.month, tomorrow.day, 9, 0, tzinfo=kolkata)
    assert job["next_due_ms"] == round(due.timestamp() * 1000)
    assert f"agent> I will remind you to call Ana at 09:00 tomorrow ({due:%A} {due.day} {due:%B}) (job " in done.stdout
    assert "agent> I couldn't read the time 'at 25:00'; say e.g. 'tomorrow at 9am' or 'in 10 minutes'." in done.stdout
    assert replay(db).ok
