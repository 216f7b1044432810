"""Goals in the kernel on a real SQLite file: finishing by name (ambiguous asks), reminders as
scheduled ticks, plan steps one per tick, beliefs, and the journal fields replay compares."""

from __future__ import annotations

from datetime import UTC, datetime

from agi_core import journal_form
from agi_core.beliefs import beliefs_for
from agi_core.kernel import Kernel
from agi_core.model import Goal, JournalRecord, Recalled, TickState, WorkingMemory
from agi_core.replay import replay, replay_records
from agi_core.scheduling.follow import Follow
from agi_core.scheduling.goal_phrases import goal_request
from agi_core.scheduling.goals import all_goals
from agi_core.serialization import from_data, to_data
from tests.autonomy.conftest import START_MS


def _say(kernel, *lines):
    return [kernel.tick(line).final_output for line in lines]


def test_an_ambiguous_finish_asks_which_with_the_ids(tmp_path):
    with Kernel.open(tmp_path / "a.db") as kernel:
        _say(kernel, "my goal is to read a book", "my goal is to read a paper")
        book, paper = (goal.id for goal in all_goals(kernel.store))
        assert _say(kernel, "I finished reading") == [
            f"Which one did you finish? {book} (read a book); {paper} (read a paper). "
            "Say 'I finished ID' with one of the ids."
        ]
        assert [goal.status for goal in all_goals(kernel.store)] == ["open", "active"]
        assert _say(kernel, f"I finished {paper}", "I finished the book.") == [
            f"Well done: goal {paper} (read a paper) is done. Your active goal is now read a book ({book}).",
            f"Well done: goal {book} (read a book) is done.",
        ]
        assert _say(kernel, "I finished the novel")[0].startswith("I have no unfinished goal matching “the novel”.")
    assert replay(tmp_path / "a.db").ok


def test_the_goal_agent_comes_before_the_profile_rule():
    assert goal_request("My goal is to learn French.") == ("set", "learn French")
    assert goal_request("what are my goals?") == ("list", "")
    assert goal_request("I’m done with the report!") == ("finish", "the report")
    assert goal_request("remind me to call Ada in 10 minutes") == ("remind", "call Ada\x1f10m")
    assert goal_request("remind me to call Ada in an hour") == ("remind", "call Ada\x1f1h")
    assert goal_request("remind me to call Ada tomorrow") == ("remind_on", "call Ada\x1ftomorrow\x1f09:00")
    assert goal_request("remind me to call Ada tomorrow", new_times=False) is None  # before remind_when
    assert goal_request("my favorite goal is fun") is None


def test_a_reminder_is_a_one_shot_job_whose_tick_reminds_of_its_goal(kernel, sim):
    said = kernel.tick("remind me to call Ada in 10 minutes").final_output
    [goal] = all_goals(kernel.store)
    at = datetime.fromtimestamp((START_MS + 600_000) / 1000, UTC).astimezone()  # local time (before: UTC, ISO 8601)
    assert (
        said
        == f"I will remind you to call Ada at {at:%H:%M} today (in 10 minutes) (job remind-{goal.id}, goal {goal.id})."
    )
    assert (goal.description, goal.status) == ("call Ada", "active")  # no other goal was active
    loop = Follow(kernel, idle_sleep_s=30.0)
    ticks = list(loop.run(until=lambda: sim.ms >= START_MS + 660_000))
    assert [(t.input.source, t.final_output) for t in ticks] == [
        (f"schedule:remind-{goal.id}", f"Reminder: call Ada (goal {goal.id}, active, 0% done).")
    ]
    assert ticks[0].externals["tick_clock"] == [START_MS + 600_000]
    kernel.tick("I finished calling Ada")
    assert all_goals(kernel.store)[0].status == "done"


def test_a_reminder_without_a_tick_clock_records_its_clock_read(tmp_path):
    with Kernel.open(tmp_path / "a.db") as kernel:  # plain agi chat: no clock per tick
        record = kernel.tick("remind me to water the plants in 1 hour")
        assert "wall_clock" in record.externals and "tick_clock" not in record.externals
        assert record.final_output.startswith("I will remind you to water the plants at ")
    assert replay(tmp_path / "a.db").ok


def test_plan_steps_act_one_per_tick_and_the_last_one_finishes_the_goal(tmp_path):
    with Kernel.open(tmp_path / "a.db", workspace=tmp_path / "ws") as kernel:
        (tmp_path / "ws").mkdir()
        (tmp_path / "ws" / "notes.txt").write_text("buy milk\n", encoding="utf-8")
        _say(kernel, "my goal is to tidy up", "my goal is to read file notes.txt then list files")
        _tidy, notes = all_goals(kernel.store)
        first = kernel.tick("next step")
        assert (first.action.name, first.plan.goal, first.plan.current_index) == ("file_read", notes.id, 0)
        assert first.plan.assumption == "the step's action succeeds"
        second = kernel.tick("next step")
        assert second.action.name == "file_list"
        assert second.final_output.endswith(f" That was the last step: goal {notes.id} ({notes.description}) is done.")
        assert [(g.status, g.progress) for g in all_goals(kernel.store)] == [("active", 0.0), ("done", 1.0)]
        assert kernel.working().active_goal == all_goals(kernel.store)[0]
        assert second.goal == all_goals(kernel.store)[0]
    assert replay(tmp_path / "a.db").ok


def test_beliefs_are_filled_every_tick_from_reads_recalls_and_module_proposals(tmp_path):
    with Kernel.open(tmp_path / "a.db") as kernel:
        kernel.tick("my favorite color is green")
        asked = kernel.tick("what is my favorite color?")
        assert to_data(asked.beliefs) == {
            "facts": [
                {"key": "user/person/self/favorite_color", "value": "green", "confidence": 1.0, "source": "sem_read"}
            ],
            "uncertainties": [],
        }
        recalled = kernel.tick("what is my favorite food?")  # the focus recalls the color; the food is unknown
        assert to_data(recalled.beliefs) == {
            "facts": [
                {"key": "user/person/self/favorite_color", "value": "green", "confidence": 0.9, "source": "recalled"}
            ],
            "uncertainties": ["nothing stored under user/person/self/favorite_food"],
        }
    state = TickState(input=asked.input, recalled=Recalled(semantic=[{"key": "k/a/b/c", "value": 1}]))
    proposals = [
        {"key": "k/a/b/c", "value": 2, "confidence": 7, "source": "beliefs"},  # clamped to 1, beats the recall
        {"text": "it may rain", "confidence": 0.2, "module": "weather"},
        {"key": "k/a/b/d", "value": 3, "confidence": 0.6, "source": "beliefs"},  # replaces the read's 1.0
        {"key": "k/a/b/d", "value": 4, "confidence": 0.5, "source": "other"},  # between modules: the highest
        {"key": "bad", "confidence": float("nan")},
        {"key": "bad", "value": float("inf")},
        "not a dict",
        {"confidence": 0.9},
    ]
    read = [{"key": "k/a/b/d", "exists": True, "value": 3}]
    assert to_data(beliefs_for(state, proposals, sem_reads=read)) == {
        "facts": [
            {"key": "k/a/b/c", "value": 2, "confidence": 1.0, "source": "beliefs"},
            {"key": "k/a/b/d", "value": 3, "confidence": 0.6, "source": "beliefs"},
            {"key": "it may rain", "value": None, "confidence": 0.2, "source": "weather"},
        ],
        "uncertainties": ["it may rain (confidence 0.2, weather)"],
    }


def test_old_records_and_working_memory_still_load():
    old_goal = {"id": "x", "description": "answer: hi", "status": "abandoned"}
    assert from_data({"recent_turns": [], "active_goal": old_goal}, WorkingMemory).active_goal == Goal(
        "x", "answer: hi", "abandoned"
    )
    minimal = {
        "tick": 1,
        "id": "i",
        "timestamp": "2025-01-01T00:00:01.000Z",
        "input": {"raw": "hi", "normalized": "hi"},
        "router_decision": {"agent": "a", "why": "w"},
        "selected_agents": [],
        "agent_outputs": {},
        "sem_reads": [],
        "sem_writes": [],
        "final_output": "",
        "council_votes": [],
        "claims": [],
        "evidence_items": [],
        "brainstate_before": {},
        "brainstate_after": {},
        "action": {"type": "response", "name": "respond"},
        "observation": {"success": True},
        "plan": {"steps": ["x"], "current_index": 0},
    }
    loaded = from_data(minimal, JournalRecord)
    assert (loaded.goal, loaded.beliefs.facts, loaded.plan.replan) == (None, [], None)


def test_replay_compares_the_goal_and_the_beliefs(tmp_path):
    with Kernel.open(tmp_path / "a.db") as kernel:
        _say(kernel, "my goal is to learn French", "my name is Ada", "what is my name?")
        # as stored, a goal equal to working memory's active goal is left out: put back to be edited
        texts = [text for _tick, _id, text, _chain in kernel.store.journal_rows()]
        rows = [journal_form.expand(kernel.store.load_json(text)) for text in texts]
    changed = [dict(row) for row in rows]
    changed[1]["goal"] = {**changed[1]["goal"], "status": "done"}
    report = replay_records(changed, seed="0")
    assert (report.mismatch.tick, report.mismatch.field) == (2, "goal")
    changed = [dict(row) for row in rows]
    changed[2]["beliefs"] = {"facts": [], "uncertainties": []}
    assert replay_records(changed, seed="0").mismatch.field == "beliefs"
    assert replay_records(rows, seed="0").ok


def test_a_step_said_in_conversation_that_fails_replans_and_the_plan_goes_on(tmp_path):
    with Kernel.open(tmp_path / "a.db", workspace=tmp_path / "ws") as kernel:
        kernel.tick("my goal is to read file missing.txt then list files")
        [goal] = all_goals(kernel.store)
        failed = kernel.tick("next step")
        reason = (
            "step 1 (read file missing.txt) assumed the step's action succeeds, but it failed: "
            "no file 'missing.txt' in the workspace; list it with /file_list"
        )
        assert (failed.observation.success, failed.plan.replan) == (False, f"{reason} (revised by heuristics)")
        assert failed.final_output.endswith(f"Replanned goal {goal.id} (revised by heuristics); next: list files.")
        assert [s.status for s in all_goals(kernel.store)[0].plan] == ["failed", "todo"]
        assert kernel.tick("next step").action.name == "file_list"
        [goal] = all_goals(kernel.store)
        assert (goal.status, goal.progress, goal.replans) == ("done", 1.0, 1)
    assert replay(tmp_path / "a.db").ok


def test_a_done_or_failed_goal_stays_so(tmp_path):
    """``goals done`` then ``goals abandon`` then ``goals fail`` gave "[failed] … progress 100%", and ``goals
    block`` then ``goals activate`` made a done goal active again: each is refused, nothing stored."""
    import pytest

    from agi_core.errors import ValidationError

    with Kernel.open(tmp_path / "g.db", seed="goals") as kernel:
        done = kernel.command("goal_add", {"title": "alpha", "steps": ["say: a"]}).agent_outputs["goal_add"]["id"]
        failed = kernel.command("goal_add", {"title": "beta", "steps": ["say: b"]}).agent_outputs["goal_add"]["id"]
        kernel.command("goal_set", {"id": done, "status": "done"})
        kernel.command("goal_set", {"id": failed, "status": "failed"})
        ticks = kernel.tick_count
        for goal, status in [(done, "abandoned"), (done, "failed"), (done, "blocked"), (failed, "open")]:
            with pytest.raises(ValidationError, match=r"is (done|failed); it stays so: add a new goal"):
                kernel.command("goal_set", {"id": goal, "status": status})
        assert kernel.tick_count == ticks
        assert {g.id: g.status for g in all_goals(kernel.store)} == {done: "done", failed: "failed"}
