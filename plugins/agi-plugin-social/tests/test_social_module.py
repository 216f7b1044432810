"""The social module through a real kernel and SQLite file: register matching, de-escalation,
profiles per speaker, tactic scores that learn, the state schema, rollback, replay and the CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import agi_plugin_social.plugin as social
import jsonschema
from agi_plugin_social.module import STATE_SCHEMA

from agi_core import checkpoints
from agi_core.brain.stage0.small_talk import GREETING
from agi_core.modules.state import dump_state
from agi_core.replay import replay
from agi_core.replies import F3_NO_AGENT
from agi_core.testing import builtin_plugins, open_kernel

ROOT = Path(__file__).resolve().parents[3]


def revision(record):
    return next(c.get("output") for c in record.modules["calls"] if c["module"] == "social" and c["phase"] == "revise")


def test_a_scripted_chat_matches_the_register_de_escalates_and_replays_equal(tmp_path):
    db = tmp_path / "agent.db"
    with open_kernel(db, social) as kernel:
        replies = [
            kernel.tick(line).final_output
            for line in [
                "Good afternoon.",
                "My favorite color is teal.",
                "What is my favorite color?",
                "you stupid bot!!!",
            ]
        ]
        rude = kernel.tick("WHY ARE YOU SO SLOW")
    assert replies == [
        GREETING,  # a formal greeting: R4's greeting, which opens with one already (no "Certainly.")
        "Understood: your favorite color is teal.",  # "Got it:" in the formal register
        "Certainly. Your favorite color is teal.",
        f"I hear your frustration. {F3_NO_AGENT}",  # rude: calm and short, the reply itself kept
    ]
    assert rude.final_output == f"I hear your frustration. {F3_NO_AGENT}"
    assert revision(rude) == {"kind": "rewrite", "text": rude.final_output, "reason": "de_escalate (neutral)"}
    report = replay(db, plugins=builtin_plugins(social))
    assert (report.ok, report.ticks) == (True, 5)


def test_each_speaker_gets_a_profile_and_the_form_that_suits_them(tmp_path):
    with open_kernel(tmp_path / "agent.db", social) as kernel:
        kernel.tick("the favorite color of Rex is teal")  # a fact every speaker shares ("my …" is each one's own)
        kernel.tick("Good evening. I would like to know something, please.", speaker="ada")
        formal = kernel.tick("What is the favorite color of Rex?", speaker="ada")
        kernel.tick("hey yo lol", speaker="bob")
        informal = kernel.tick("what is the favorite color of Rex", speaker="bob")
        state = dump_state(kernel.store, "social")
    assert formal.final_output == "Certainly. The favorite color of Rex is teal."
    assert informal.final_output == "Sure, bob! The favorite color of Rex is teal."
    assert (state["profile/ada"]["register"], state["profile/bob"]["register"]) == ("formal", "informal")
    assert state["profile/bob"]["name"] == "bob" and state["profile/user"]["turns"] == 1
    assert state["profile/ada"]["topics"] == {"evening": 1, "good": 1, "something": 1, "color": 1}


def test_outcomes_move_the_tactic_scores_deterministically_and_the_choice_learns(tmp_path):
    def run(db):
        with open_kernel(db, social) as kernel:
            reasons = [revision(kernel.tick(line))["reason"] for line in ["you idiot", "stupid bot", "useless!!!"]]
            return reasons, dump_state(kernel.store, "social")

    reasons, state = run(tmp_path / "a.db")
    # rudeness after a de-escalation: reward 0, confidence 0.8 -> 0.56 -> 0.392 < acknowledge's 0.7 x 0.6
    assert reasons == ["de_escalate (neutral)", "de_escalate (neutral)", "acknowledge (neutral)"]
    assert state["rules"]["de_escalate"]["confidence"] == 0.392
    assert [o["reward"] for o in state["profile/user"]["outcomes"]] == [0.0, 0.0]
    assert run(tmp_path / "b.db") == (reasons, state)  # same inputs, same scores


def test_the_state_validates_against_its_schema_and_survives_rollback(tmp_path):
    with open_kernel(tmp_path / "agent.db", social) as kernel:
        kernel.tick("Good morning. My name is Ada.")
        checkpoints.create(kernel, "before")
        saved = dump_state(kernel.store, "social")
        kernel.tick("shut up, you moron")
        kernel.tick("hey lol", speaker="bob")
        assert dump_state(kernel.store, "social") != saved
        jsonschema.Draft202012Validator(STATE_SCHEMA).validate(dump_state(kernel.store, "social"))
        checkpoints.rollback(kernel, "before")
        assert dump_state(kernel.store, "social") == saved
        assert saved["profile/user"]["name"] == "Ada"


def test_agi_modules_show_social_prints_the_profiles_and_rules(tmp_path):
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "plugins" / "agi-plugin-social")]),
        "AGI_LOAD_PLUGINS": "social",
    }
    db = str(tmp_path / "agent.db")

    def agi(*args, stdin=""):
        done = subprocess.run(
            [sys.executable, "-m", "agi_core", "--db", db, *args], input=stdin, env=env, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    assert agi("run", stdin="Good morning, I have a question.\nyou are useless!!!\n").splitlines() == [
        f"My apologies. {F3_NO_AGENT}",
        f"I hear your frustration. {F3_NO_AGENT}",
    ]
    shown = json.loads(agi("modules", "show", "social", "--json"))
    assert shown["profile/user"]["rude_turns"] == 1
    assert shown["profile/user"]["outcomes"] == [
        {"tick": 2, "tactic": "match_register", "reward": 0.0, "source": "fallback"}
    ]
    assert shown["pending/user"]["tactic"] == "de_escalate"
    jsonschema.Draft202012Validator(STATE_SCHEMA).validate(shown)


def test_emphasis_and_acronyms_are_not_rudeness_but_a_shouted_line_is(tmp_path):
    """ "!!!" alone (anywhere in a line) read as rude, so "thanks!!!" lost its thanks; and any eight capital
    letters did, so a list of agencies' acronyms was met with "I hear your frustration"."""
    db = tmp_path / "agent.db"
    with open_kernel(db, social) as kernel:
        calm = [kernel.tick(line) for line in ("!!!", "?!", "what is NASA ESA JAXA CNES?", "I GOT THE JOB!!!")]
        thanks = kernel.tick("thanks!!!")
        calm_state = dump_state(kernel.store, "social")["profile/user"]
        shouted = kernel.tick("STOP IGNORING MY QUESTION")
        rude_state = dump_state(kernel.store, "social")["profile/user"]
    assert [tick.final_output.startswith("I hear your frustration") for tick in calm] == [False] * 4
    assert (thanks.final_output, calm_state["rude_turns"]) == ("You’re welcome.", 0)
    assert shouted.final_output.startswith("I hear your frustration.") and rude_state["rude_turns"] == 1
    assert replay(db, plugins=builtin_plugins(social)).ok
