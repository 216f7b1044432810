"""The social critic's contracts through a real kernel and SQLite file, heuristic path: the turn's
context (an upset writer is de-escalated, the mood kept), the conversation's analysis written in
maintenance ticks (a hostile history de-escalates an unanswered question), and rules mined from
outcomes, scored by simulation and adopted with their checks, which change the tactic chosen."""

from __future__ import annotations

import agi_plugin_social.plugin as social
import jsonschema
from agi_plugin_social.module import STATE_SCHEMA

from agi_core.modules.state import dump_state
from agi_core.replay import replay
from agi_core.replies import F3_NO_AGENT, F3_NOTED_NOT_STORED
from agi_core.testing import builtin_plugins, open_kernel


def sources(record, contract):
    return [c["source"] for c in record.externals.get("contract_call", []) if c["contract"] == contract]


def test_an_upset_writer_is_de_escalated_and_the_mood_follows_the_turns(tmp_path):
    db = tmp_path / "agent.db"
    with open_kernel(db, social) as kernel:
        calm = kernel.tick("The sky is green.")
        upset = kernel.tick("I am so frustrated with this printer")
        state = dump_state(kernel.store, "social")
    assert calm.final_output == f"{F3_NO_AGENT} What do you mean?"  # clarify
    assert upset.final_output == f"I hear your frustration. {F3_NOTED_NOT_STORED}"  # not rude, but upset
    assert sources(upset, "social_interaction_context") == ["fallback"]
    assert state["profile/user"]["mood"] == -0.2  # 0.6 x 0 + 0.4 x -0.5
    assert state["profile/user"]["topics"] == {"green": 1, "frustrated": 1, "printer": 1}
    assert replay(db, plugins=builtin_plugins(social)).ok


def test_maintenance_analyses_each_conversation_and_a_hostile_history_is_de_escalated(tmp_path):
    db = tmp_path / "agent.db"
    with open_kernel(db, social) as kernel:
        kernel.tick("you stupid bot")
        kernel.tick("useless thing")
        kernel.tick("The sky is green.")
        before = kernel.tick("Is the sea blue?")
        done = kernel.maintain()
        again = kernel.maintain()  # no new turn since: not analysed again
        after = kernel.tick("Is the sea blue?")
        state = dump_state(kernel.store, "social")
    assert before.final_output == f"{F3_NO_AGENT} What do you mean?"
    assert after.final_output == f"I hear your frustration. {F3_NO_AGENT}"
    analysis = state["analysis/user"]
    assert analysis["risks"] == ["hostility"] and analysis["source"] == "fallback" and analysis["turns"] == 4
    assert analysis["summary"] == "4 turn(s) with user, neutral register; topics: blue, green, thing"
    assert sources(done, "social_conversation_analysis") == ["fallback"]
    assert sources(again, "social_conversation_analysis") == []
    jsonschema.Draft202012Validator(STATE_SCHEMA).validate(state)
    assert replay(db, plugins=builtin_plugins(social)).ok


def test_a_rule_mined_from_rewarded_outcomes_is_adopted_with_its_checks_and_changes_the_tactic(tmp_path):
    script = ["My favorite color is teal.", "thanks", "My dog is called Rex.", "thanks"]

    def run(db, maintain):
        with open_kernel(db, social) as kernel:
            for line in script:
                kernel.tick(line)
            done = kernel.maintain() if maintain else None
            reply = kernel.tick("The sky is green.")
            upset = kernel.tick("I am so frustrated with this printer")
            return done, reply, upset, dump_state(kernel.store, "social")

    _, plain, _, _ = run(tmp_path / "plain.db", maintain=False)
    done, mined, upset, state = run(tmp_path / "mined.db", maintain=True)
    assert plain.final_output == f"{F3_NO_AGENT} What do you mean?"  # clarify
    assert mined.final_output == f"Thanks for telling me. {F3_NO_AGENT}"  # the proven acknowledgement
    revise = next(c for c in mined.modules["calls"] if c["phase"] == "revise")
    assert revise["output"]["reason"] == "acknowledge (neutral); mined rule-acknowledge_neutral"
    assert upset.final_output.startswith("I hear your frustration.")  # an upset writer: the built-in fit wins
    rule = state["mined/rule-acknowledge_neutral"]
    assert rule["score"] == 1.0 and rule["checks"] == [
        "Watch the next 5 turns where register=neutral using acknowledge"
    ]
    called = [c["contract"] for c in done.externals["contract_call"]]
    assert called == [
        "social_conversation_analysis",
        "social_interaction_miner",
        "social_simulation_score",
        "social_rule_self_evaluation",
        "conversation_context",
    ]
    jsonschema.Draft202012Validator(STATE_SCHEMA).validate(state)
    assert replay(tmp_path / "mined.db", plugins=builtin_plugins(social)).ok


def test_a_mined_rule_whose_simulation_scores_low_is_not_adopted(tmp_path):
    with open_kernel(tmp_path / "agent.db", social) as kernel:
        for line in [
            "Zorp blat.",  # clarify ...
            "thanks",  # ... rewarded 1
            "Quux frob.",
            "thanks",
            "My favorite color is teal.",  # acknowledge ...
            "thanks",  # ... rewarded 1
            "My dog is called Rex.",
            "Fine.",  # ... 0.6
            "My cat is called Tom.",
            "thanks",
        ]:
            kernel.tick(line)
        done = kernel.maintain()
        state = dump_state(kernel.store, "social")
    calls = {c["contract"]: c["value"] for c in done.externals["contract_call"]}
    mined = [rule["id"] for rule in calls["social_interaction_miner"]["rules"]]
    scores = [c["value"]["score"] for c in done.externals["contract_call"] if c["contract"].endswith("_score")]
    assert mined == ["rule-acknowledge_neutral", "rule-clarify_neutral"]  # both mean 0.8667 ...
    assert len(scores) == 2 and max(scores) < 0.6  # ... and neither simulates past the bar: no rule is adopted
    assert not [k for k in state if k.startswith("mined/")]
