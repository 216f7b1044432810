"""Each contract the autonomy module calls changes what it does, shown through a real kernel and SQLite file on
the heuristic path (no provider): what it asks, whether it knows the answer already, whether it asks now,
what the user allows, why it asked, how hard it works, which goals go first, fade or expire, and its report."""

from __future__ import annotations

import agi_plugin_autonomy.plugin as autonomy
import jsonschema
import pytest
from agi_plugin_autonomy import pacing, pursuit
from agi_plugin_autonomy.module import STATE_SCHEMA

from agi_core.hookspecs import hookimpl
from agi_core.model import ToolDefinition
from agi_core.modules.state import dump_state
from agi_core.replay import replay
from agi_core.replies import F3_NO_AGENT, F3_NOTED_NOT_STORED
from agi_core.scheduling.clock import PinnedClock, SimulatedClock
from agi_core.settings.schema import env_name
from agi_core.testing import builtin_plugins, open_kernel
from agi_core.tools import Tool, ToolPolicy

START_MS = 1_795_000_000_000
PLUGIN = "autonomy"  # its installed name (the entry point), which a test registering the module gets too
MAYA_JOB = "You mentioned your sister Maya. What does Maya do for a living?"
MAYA_CITY = "You mentioned your sister Maya. Where does Maya live?"


@pytest.fixture(autouse=True)
def _idle_at_once(monkeypatch):
    monkeypatch.setenv(env_name(PLUGIN, "idle_after_s"), "0")


def maintained(kernel):
    record = kernel.maintain()
    return next(c["output"] for c in record.modules["calls"] if (c["module"], c["phase"]) == ("autonomy", "maintain"))


def state(kernel):
    return dump_state(kernel.store, "autonomy")


def agent(tmp_path, name="agent.db"):
    return open_kernel(tmp_path / name, autonomy, clock=PinnedClock(SimulatedClock(START_MS)))


def test_what_the_user_already_said_is_not_asked_the_next_thing_is(tmp_path):
    db = tmp_path / "agent.db"
    with agent(tmp_path) as kernel:
        kernel.tick("my sister Maya is coming over")
        kernel.tick("Maya is a nurse")
        assert maintained(kernel)["why"]["goal"]["text"] == MAYA_CITY  # question_auto_answer: the job is known
        assert state(kernel)["answers"] == {"person/maya/job": "nurse"}
        assert kernel.tick("hello again").final_output == f"{F3_NO_AGENT} {MAYA_CITY}"  # question_manager's question
    assert replay(db, plugins=builtin_plugins(autonomy)).ok


@pytest.mark.parametrize(("reply", "asks_again"), [("ok", False), ("Maya is a teacher at the school", True)])
def test_a_person_is_asked_about_again_only_when_the_last_question_was_answered(tmp_path, reply, asks_again):
    with agent(tmp_path) as kernel:
        kernel.tick("my sister Maya is coming over")
        maintained(kernel)
        assert kernel.tick("hello again").final_output.endswith(MAYA_JOB)
        kernel.tick(reply)
        goal = state(kernel)["goals"][0]
        assert goal["answered"] is asks_again
        then = maintained(kernel)["why"]["goal"]  # autonomy_core: wait after an ignored question
        assert (then is not None and then["text"] == MAYA_CITY) is asks_again
        if asks_again:  # cognition_proposer: an answered question raises the base of the next ones to 0.6
            signal = state(kernel)["signals"]["unresolved_questions"]
            curiosity = state(kernel)["drives"]["curiosity"]
            lift = pacing.ROUTED_LIFT if pacing.route(state(kernel)["signals"])[0] == "questions" else 0
            expected = 0.6 + 0.3 * pacing.pressure(signal) + 0.2 * curiosity + lift
            assert then["priority"] == round(min(1.0, expected), 4)


def test_an_answer_to_the_question_is_understood_in_its_context_or_the_goal_stays_open(tmp_path):
    """ "she is a nurse" after "What does Maya do for a living?" answers it (kept in ``answers``, the next
    question follows); a line that speaks of her without saying it leaves the goal open, never done."""
    with agent(tmp_path) as kernel:
        kernel.tick("my sister Maya is coming over")
        maintained(kernel)
        assert kernel.tick("hello again").final_output.endswith(MAYA_JOB)
        kernel.tick("she is a nurse")
        goal = state(kernel)["goals"][0]
        assert (goal["status"], goal["answered"]) == ("done", True)
        assert state(kernel)["answers"] == {"person/maya/job": "nurse"}
        assert maintained(kernel)["why"]["goal"]["text"] == MAYA_CITY
    with agent(tmp_path, "other.db") as kernel:
        kernel.tick("my sister Maya is coming over")
        maintained(kernel)
        assert kernel.tick("hello again").final_output.endswith(MAYA_JOB)
        kernel.tick("she will tell you herself")
        goal = state(kernel)["goals"][0]
        assert (goal["status"], "answered" in goal) == ("open", False)  # nothing stored or understood: still open
        assert "answers" not in state(kernel)
    assert replay(tmp_path / "agent.db", plugins=builtin_plugins(autonomy)).ok


def test_no_question_while_the_user_is_busy_or_just_got_an_answer_it_waits_for_a_better_moment(tmp_path):
    with agent(tmp_path) as kernel:
        kernel.tick("my sister Maya is coming over")
        kernel.tick("I'm at work")
        assert state(kernel)["where"]["busy"] is True  # cognition_context_inference
        maintained(kernel)
        assert kernel.tick("hello again").final_output == F3_NO_AGENT  # world_model: wait
        back = kernel.tick("I'm free now")
        assert state(kernel)["where"]["busy"] is False
        assert back.final_output == f"{F3_NOTED_NOT_STORED} {MAYA_JOB}"  # the held question, now
        kernel.tick("my friend Bob says hi")
        maintained(kernel)
        assert kernel.tick("what is 2+2?").final_output == "2+2 = 4"  # a real answer: not the moment
        assert kernel.tick("hello again").final_output == (  # question_manager: not the job again, after Maya's
            f"{F3_NO_AGENT} You mentioned your friend Bob. Where does Bob live?"
        )


def test_a_reply_without_a_full_stop_gets_one_before_the_question(tmp_path):
    with agent(tmp_path) as kernel:
        kernel.tick("my sister Maya is coming over")
        maintained(kernel)
        assert kernel.tick("what is 2+2").final_output == f"2+2 = 4. {MAYA_JOB}"  # response_formatter


def test_stop_asking_me_questions_is_obeyed_until_allowed_again(tmp_path):
    with agent(tmp_path) as kernel:
        kernel.tick("my sister Maya is coming over. Stop asking me questions")
        assert state(kernel)["mission"] == {"questions": False, "reminders": True}  # identity_mission
        assert maintained(kernel)["why"]["goal"] is None
        assert kernel.tick("hello again").final_output == F3_NO_AGENT
        kernel.tick("ok, you can ask me questions again")
        assert maintained(kernel)["why"]["goal"]["text"] == MAYA_JOB
        assert kernel.tick("hello again").final_output.endswith(MAYA_JOB)


def test_stop_reminding_me_leaves_the_goal_alone(tmp_path):
    with agent(tmp_path) as kernel:
        kernel.tick("my goal is to learn French")
        kernel.tick("please stop reminding me")
        assert state(kernel)["mission"] == {"questions": True, "reminders": False}  # identity_mission
        assert maintained(kernel)["why"]["goal"] is None
        kernel.tick("you can remind me again")
        assert maintained(kernel)["why"]["goal"]["kind"] == "reminder"


def test_why_did_you_ask_gets_the_reason(tmp_path):
    with agent(tmp_path) as kernel:
        kernel.tick("my sister Maya is coming over")
        maintained(kernel)
        kernel.tick("hello again")
        why = kernel.tick("why did you ask me that?")  # reasoning_episode
        assert why.final_output == (
            f'I asked because I did not know Maya\'s job and unresolved_questions was 1 (target 0): "{MAYA_JOB}"'
        )


def test_low_energy_means_flanerie_no_new_goals_only_upkeep(tmp_path, monkeypatch):
    monkeypatch.setenv(env_name(PLUGIN, "autonomous_ticks_per_hour"), "5")
    with agent(tmp_path) as kernel:
        moods = [maintained(kernel)["mood"] for _ in range(4)]
        assert [m["energy"] for m in moods] == [0.8, 0.6, 0.4, 0.2]  # phenomenal_kernel
        assert {m["mode"] for m in moods} == {"travail"}
        kernel.tick("my friend Bob says hi")
        tired = maintained(kernel)
        assert (tired["mood"]["energy"], tired["mood"]["mode"]) == (0.0, "flanerie")  # phenomenal_mode_manager
        assert tired["why"]["goal"] is None and state(kernel).get("goals", []) == []


def test_risks_raise_the_rest_drive(tmp_path):
    with agent(tmp_path) as kernel:
        kernel.tick("my favorite color is teal")
        assert maintained(kernel)["drives"]["rest"] == round(1 / 6, 4)
        kernel.tick("my favorite color is red")  # a contradiction: system_monitor's risk
        assert maintained(kernel)["drives"]["rest"] == round(2 / 6 + pacing.RISK_REST, 4)


def test_the_worst_signal_routes_reminders_first_when_replies_miss(tmp_path):
    with agent(tmp_path) as kernel:
        kernel.tick("my goal is to learn French")
        for _ in range(3):
            kernel.tick("hello again")  # F3: the F3 rate is the worst signal
        why = maintained(kernel)
        signals = state(kernel)["signals"]
        assert pacing.route(signals)[0] == "reminders"  # trigger_router
        expected = 0.4 + 0.3 * pacing.pressure(signals["f3_rate"]) + 0.2 * (1 - why["drives"]["rest"]) + 0.05
        assert why["why"]["goal"]["priority"] == round(expected, 4)


def test_the_f3_rate_weighs_more_after_three_autonomous_ticks_off_target(tmp_path):
    with agent(tmp_path) as kernel:
        kernel.tick("hello again")
        weights = []
        for _ in range(4):
            maintained(kernel)
            weights.append(state(kernel)["signals"]["f3_rate"]["weight"])
        assert weights == [0.5, 0.5, 0.7, 0.7]  # auto_evolution promotes "answer better" once
        assert state(kernel)["evolution"]["promoted"] == ["answer_better"]


def test_a_reminder_names_the_next_step_of_its_plan(tmp_path):
    with agent(tmp_path) as kernel:
        kernel.tick("my goal is to learn French and visit Paris")
        goal = kernel.store.goals()[0]
        text = maintained(kernel)["why"]["goal"]["text"]  # goal_interpreter, planner_support
        assert text == (
            f"Reminder: you wanted to {goal['description']} (goal {goal['id']}, 0% done). Next step: learn French."
        )


def test_goals_left_open_fade_then_expire(tmp_path):
    with agent(tmp_path) as kernel:
        kernel.tick("my friend Bob says hi")
        kernel.tick("I'm at work")  # busy: Bob's question stays open
        created = maintained(kernel)["why"]["goal"]
        for i in range(pursuit.FADE_EVERY):
            kernel.tick(f"still working {i}")
        later = maintained(kernel)
        signals, drives = state(kernel)["signals"], later["drives"]
        lift = pacing.ROUTED_LIFT if pacing.route(signals)[0] == "questions" else 0
        fresh = min(
            1.0, 0.5 + 0.3 * pacing.pressure(signals["unresolved_questions"]) + 0.2 * drives["curiosity"] + lift
        )
        assert later["why"]["goal"]["id"] == created["id"]
        assert later["why"]["goal"]["priority"] == round(round(fresh, 4) - pursuit.FADE, 4)  # goal_priority_review
        for i in range(pursuit.EXPIRE_AFTER):
            kernel.tick(f"busy {i}")
        assert maintained(kernel)["why"]["goal"] is None  # scheduler: expired
        assert [g for g in state(kernel)["goals"] if g["status"] == "open"] == []


def test_after_a_question_a_close_reminder_goes_first(tmp_path):
    with agent(tmp_path) as kernel:
        kernel.tick("my sister Maya is coming over")
        maintained(kernel)
        kernel.tick("hello again")  # Maya's question asked
        kernel.tick("ok")  # and ignored: questions weigh less (0.4)
        kernel.tick("my goal is to learn French")
        kernel.tick("my friend Bob says hi")
        ran = maintained(kernel)
        open_goals = {g["kind"]: g for g in state(kernel)["goals"] if g["status"] == "open"}
        assert open_goals["question"]["priority"] >= open_goals["reminder"]["priority"]
        assert open_goals["question"]["priority"] - open_goals["reminder"]["priority"] <= pursuit.ROTATE_WITHIN
        assert ran["why"]["goal"]["kind"] == "reminder"  # runtime_job_manager: the other kind this time
        assert kernel.tick("hello again").final_output.endswith(ran["why"]["goal"]["text"])


def test_the_report_the_log_and_the_day_are_kept_in_the_state(tmp_path):
    sim = SimulatedClock(START_MS)
    clock = PinnedClock(sim)
    with open_kernel(tmp_path / "agent.db", autonomy, clock=clock) as kernel:
        kernel.tick("what is the capital of Atlantis?")
        maintained(kernel)
        shown = state(kernel)
        assert shown["report"]["summary"].startswith("2 of 4 signals off target: f3_rate 1 (target 0.2)")
        assert [a["metric"] for a in shown["report"]["alerts"]] == ["f3_rate", "unresolved_questions"]  # analytics
        assert shown["log"][-1]["tags"] == ["maintain", "unresolved_questions"]  # jsonl_logger
        assert shown["log"][-1]["priority"] == "high"
        assert shown["dash"]["today"]["autonomous_ticks"] == 1
        sim.advance(86_400)
        clock.refresh()
        maintained(kernel)
        days = state(kernel)["dash"]["days"]  # runtime_dash: yesterday closed with its summary
        assert days == [{"day": shown["dash"]["today"]["day"], "summary": days[0]["summary"]}]
        assert days[0]["summary"].endswith(": 1 autonomous ticks, 0 goals asked, 0 open")
        jsonschema.Draft202012Validator(STATE_SCHEMA).validate(state(kernel))


class Tools:
    """Two tools the brain may call with /NAME: one that writes, one that reaches outside."""

    @hookimpl
    def agi_register_actuators(self, register):
        register(Tool(ToolDefinition("note", "Write a note", {"text": "string"}, effect="write"), _ran("note")))
        register(Tool(ToolDefinition("ping", "Ping a host", {"text": "string"}, effect="external"), _ran("ping")))


RAN: list[str] = []


def _ran(name):
    def run(ctx, args):
        RAN.append(name)
        return {"ok": True}

    return run


@pytest.mark.parametrize(("limit", "vetoed"), [("0.6", ["ping"]), ("0.8", [])])
def test_a_tool_call_whose_estimated_risk_reaches_the_limit_is_vetoed_before_it_runs(
    tmp_path, monkeypatch, limit, vetoed
):
    """action_interface weighs the brain's tool call (no model: risk by declared effect, write 0.5,
    external 0.7); at or over action_risk_limit the call is vetoed and never runs."""
    monkeypatch.setenv(env_name(PLUGIN, "action_risk_limit"), limit)
    RAN.clear()
    policy = ToolPolicy(allow_effects=frozenset({"read", "write", "external"}))
    db = tmp_path / "agent.db"
    with open_kernel(db, autonomy, Tools(), policy=policy) as kernel:
        noted, pinged = kernel.tick("/note hello"), kernel.tick("/ping example.org")
        weighed = [c for c in pinged.modules["calls"] if (c["module"], c["phase"]) == ("autonomy", "revise")]
    assert RAN == ["note", "ping"][: 2 - len(vetoed)]
    assert noted.observation.success
    if vetoed:
        assert pinged.final_output.startswith("I won't run ping: its risk (0.7: heuristic: an external action)")
        assert weighed[0]["output"]["kind"] == "veto"
    else:  # not vetoed: the external call ran after its tick, and this is its receipt
        assert pinged.observation.success and pinged.input.source == "event"
    assert replay(db, plugins=builtin_plugins(autonomy, Tools())).ok
