"""The learning module through a real kernel and SQLite file: feedback becomes weights on the decisions
behind a reply, the weights change the next choice, deterministically; schema, rollback, replay, hostile
input and the CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import agi_plugin_learning.plugin as learning
import jsonschema
from agi_plugin_learning.module import STATE_SCHEMA, LearningModule

from agi_core import checkpoints
from agi_core.hookspecs import hookimpl
from agi_core.modules import Candidate, CognitiveModule, ModuleContext, Proposals
from agi_core.modules.state import dump_state
from agi_core.replay import replay
from agi_core.replies import F1_SEM_MISS
from agi_core.testing import builtin_plugins, open_kernel

ROOT = Path(__file__).resolve().parents[3]
JOKE = "tell me a joke"


class Joker(CognitiveModule):
    """A module that proposes a joke: two of them compete for the same line (a real module, not a fake)."""

    def __init__(self, name: str, reply: str, score: float) -> None:
        self.name, self.reply, self.score = name, reply, score

    def deliberate(self, ctx: ModuleContext) -> Proposals | None:
        return Proposals(candidates=[Candidate(self.reply, self.score)]) if ctx.text == JOKE else None


def jokers() -> ModuleType:
    plugin = ModuleType("jokers")

    @hookimpl
    def agi_register_modules(register):
        register(Joker("alpha", "Why did the chicken cross the road?", 0.9))
        register(Joker("beta", "I told my computer a joke; it did not get it.", 0.8))

    plugin.agi_register_modules = agi_register_modules  # type: ignore[attr-defined]
    return plugin


def perceived(record):
    return next(
        c.get("output") for c in record.modules["calls"] if (c["module"], c["phase"]) == ("learning", "perceive")
    )


def test_feedback_moves_the_weights_and_the_next_choice_follows_them_and_replays_equal(tmp_path):
    db, plugins = tmp_path / "agent.db", (learning, jokers())
    with open_kernel(db, *plugins) as kernel:
        assert kernel.tick(JOKE).final_output == "Why did the chicken cross the road?"
        wrong = kernel.tick("that's wrong")
        assert perceived(wrong) == {
            "feedback": "wrong",
            "reward": -1.0,
            "about_tick": 1,
            "weights": {"agent:module:alpha": -0.3},
        }
        again = kernel.tick(JOKE)
        assert again.final_output == "I told my computer a joke; it did not get it."  # learned: beta, not alpha
        assert again.router_decision.agent == "module:alpha"  # the brain still chose alpha; learning replaced it
        thanks = kernel.tick("thanks!")
        assert perceived(thanks)["weights"] == {"agent:module:beta": 0.3}  # the reward goes to what was said
        kernel.tick(JOKE)
        repeated = kernel.tick("tell me a joke!")
        assert perceived(repeated)["feedback"] == "repeated"
        assert perceived(repeated)["weights"] == {"agent:module:beta": 0.06}  # 0.3 + 0.3 × (−0.5 − 0.3)
        corrected = kernel.tick("no, I meant a knock-knock joke")
        assert perceived(corrected)["feedback"] == "meant"
        state = dump_state(kernel.store, "learning")
        assert state["corrections"] == {"tell me a joke": "a knock-knock joke"}
        assert [e["feedback"] for e in state["weights"]["agent:module:beta"]["evidence"]] == ["thanks", "repeated"]
    report = replay(db, plugins=builtin_plugins(*plugins))
    assert (report.ok, report.ticks) == (True, 7)


def test_a_fact_said_again_with_a_new_value_is_news_not_a_repeat(tmp_path):
    """Updating a fact is no complaint about the reply before: four updates left the profile agent's weight
    below the avoid bar, and the next question's right answer was replaced by an older memory's."""
    lines = [f"my weight is {kg} kg" for kg in (70, 71, 72, 73)] + ["my dog is called Rex", "my dog is named Max"]
    with open_kernel(tmp_path / "a.db", learning) as kernel:
        assert [(perceived(kernel.tick(line)) or {}).get("feedback") for line in lines] == [None] * len(lines)
        assert kernel.tick("what is my dog called?").final_output == "Your dog's name is Max."
        assert perceived(kernel.tick("what is my dog called ?"))["feedback"] == "repeated"  # the same, asked again


def test_the_same_feedback_gives_the_same_weights_in_a_fresh_agent(tmp_path):
    lines = [JOKE, "that's wrong", JOKE, "thanks", "what is the capital of Peru?", "that is wrong", "thank you"]
    states = []
    for name in ("a.db", "b.db"):
        with open_kernel(tmp_path / name, learning, jokers()) as kernel:
            for line in lines:
                kernel.tick(line)
            states.append(dump_state(kernel.store, "learning")["weights"])
    assert states[0] == states[1]
    assert states[0]["agent:knowledge_agent"]["weight"] == -0.3


def test_the_weights_survive_rollback_and_the_agent_answers_as_before(tmp_path):
    with open_kernel(tmp_path / "agent.db", learning, jokers()) as kernel:
        kernel.tick(JOKE)
        checkpoints.create(kernel, "before")
        saved = dump_state(kernel.store, "learning")
        kernel.tick("that's wrong")
        assert kernel.tick(JOKE).final_output.startswith("I told my computer")
        jsonschema.Draft202012Validator(STATE_SCHEMA).validate(dump_state(kernel.store, "learning"))
        checkpoints.rollback(kernel, "before")
        assert dump_state(kernel.store, "learning") == saved
        assert kernel.tick(JOKE).final_output == "Why did the chicken cross the road?"


def test_hostile_feedback_keeps_the_weights_bounded_and_the_state_valid(tmp_path):
    with open_kernel(tmp_path / "agent.db", learning, jokers()) as kernel:
        kernel.tick(JOKE)
        for _ in range(40):
            kernel.tick("that's wrong")  # every line punishes the previous one, its own feedback included
        kernel.tick("no, I meant " + "x" * 5000 + "\x00\ud800")
        kernel.tick("thanks " * 1000)
        for i in range(120):
            kernel.tick(f"/file_write evil{i}.txt x")
            kernel.tick("that's wrong")
        state = dump_state(kernel.store, "learning")
        jsonschema.Draft202012Validator(STATE_SCHEMA).validate(state)
        assert all(-1 <= w["weight"] <= 1 and len(w["evidence"]) <= 5 for w in state["weights"].values())
        assert len(state["weights"]) <= 100 and len(state["corrections"]) <= 20
        assert kernel.maintain().modules["calls"][0]["output"]["feedbacks"] > 0


def test_agi_modules_show_learning_prints_the_weights_with_their_evidence(tmp_path):
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "plugins" / "agi-plugin-learning")]),
        "AGI_LOAD_PLUGINS": "learning",
    }
    args = [sys.executable, "-m", "agi_core", "--db", str(tmp_path / "agent.db")]

    def agi(*more, stdin=""):
        done = subprocess.run([*args, *more], input=stdin, env=env, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        return done.stdout

    assert agi("run", stdin="what is the capital of Peru?\nthat's wrong\n").splitlines()[0] == F1_SEM_MISS
    shown = json.loads(agi("modules", "show", "learning", "--json"))
    assert shown["weights"] == {
        "agent:knowledge_agent": {
            "weight": -0.3,
            "n": 1,
            "evidence": [{"tick": 1, "feedback": "wrong", "reward": -1.0, "line": "that's wrong"}],
        }
    }
    assert shown["lessons"][0]["text"] == "wrong on tick 1: agent:knowledge_agent → -0.3"
    jsonschema.Draft202012Validator(STATE_SCHEMA).validate(shown)
    assert agi("replay").startswith("replay equal: 2 ticks")
    used = {row["name"]: row["used_by"] for row in json.loads(agi("contracts", "list", "--json"))}
    for name in LearningModule.contracts:
        assert used[name] == ["learning"], name


def test_the_council_rejects_a_claim_the_user_said_was_wrong_until_the_fact_changes(tmp_path, monkeypatch):
    db = tmp_path / "agent.db"
    with open_kernel(db, learning) as kernel:
        kernel.tick("my favorite color is teal")
        assert kernel.tick("what is my favorite color?").final_output == "Your favorite color is teal."
        wrong = kernel.tick("that's wrong")
        assert perceived(wrong)["weights"]["claim:user/person/self/favorite_color=teal"] == -0.3
        again = kernel.tick("what is my favorite color?")
        assert again.final_output == F1_SEM_MISS  # the council's learned seat rejects the punished claim
        assert again.council_votes[-1] == {
            "voter": "learned_feedback",
            "vote": "reject",
            "reason": "the user said claim:user/person/self/favorite_color=teal was wrong (weight -0.3)",
        }
        kernel.tick("my favorite color is red")
        assert kernel.tick("what is my favorite color?").final_output == "Your favorite color is red."
    assert replay(db, plugins=builtin_plugins(learning)).ok
    monkeypatch.setenv("AGI_PLUGIN_STAGE0_COUNCIL_WEIGHTS", '{"learned_feedback": 0}')
    with open_kernel(tmp_path / "silenced.db", learning) as kernel:  # the setting weighs the seat 0: heard, not obeyed
        for line in ["my favorite color is teal", "what is my favorite color?", "that's wrong"]:
            kernel.tick(line)
        silenced = kernel.tick("what is my favorite color?")
        assert silenced.final_output == "Your favorite color is teal."
        assert (silenced.council_votes[-1]["vote"], silenced.council_votes[-1]["weight"]) == ("reject", 0)
