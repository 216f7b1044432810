"""The learning module tunes itself through its contracts' heuristic fallbacks (no provider), through a real
kernel and SQLite file: curiosity asks back (``learning_curiosity_update``, ``response_contract``), the rate
(``learning_meta_controller``), the threshold (``learning_auto_curriculum``), retries
(``learning_curriculum_planner``) and priors (``learning_transfer_mapping``) each change what comes next."""

from __future__ import annotations

import agi_plugin_learning.plugin as learning
import jsonschema
from agi_plugin_learning.module import STATE_SCHEMA
from agi_plugin_learning.tuning import NEXT_TEST, RETRY_AFTER

from agi_core.hookspecs import hookimpl
from agi_core.modules import Candidate, CognitiveModule, ModuleContext, Proposals
from agi_core.modules.state import dump_state
from agi_core.replay import replay
from agi_core.testing import builtin_plugins, open_kernel

JOKE = "tell me a joke"
ALPHA, BETA = "Why did the chicken cross the road?", "I told my computer a joke; it did not get it."


class Joker(CognitiveModule):
    """A module that proposes a joke: two of them compete for the same line (a real module, not a fake)."""

    def __init__(self, name: str, reply: str, score: float) -> None:
        self.name, self.reply, self.score = name, reply, score

    def deliberate(self, ctx: ModuleContext) -> Proposals | None:
        return Proposals(candidates=[Candidate(self.reply, self.score)]) if ctx.text == JOKE else None


class jokers:  # a plugin object, named like the plugin module it stands for
    @staticmethod
    @hookimpl
    def agi_register_modules(register):
        register(Joker("alpha", ALPHA, 0.9))
        register(Joker("beta", BETA, 0.8))


def perceived(record):
    return next(
        c.get("output") for c in record.modules["calls"] if (c["module"], c["phase"]) == ("learning", "perceive")
    )


def maintained(kernel):
    record = kernel.maintain()
    return next(c["output"] for c in record.modules["calls"] if c["module"] == "learning")


def test_a_criticism_without_a_correction_gets_a_question_back_once_curious_enough(tmp_path):
    db = tmp_path / "agent.db"
    with open_kernel(db, learning, jokers) as kernel:
        kernel.tick(JOKE)
        kernel.tick("thanks")  # curiosity 0.3 → 0.1
        kernel.tick(JOKE)
        calm = kernel.tick("that's wrong")  # 0.1 → 0.4: not curious enough to ask
        assert not calm.final_output.endswith(NEXT_TEST)
        kernel.tick(JOKE)
        asked = kernel.tick("that's wrong")  # 0.4 → 0.7
        assert asked.final_output.endswith(NEXT_TEST)
        assert dump_state(kernel.store, "learning")["curiosity"] == 0.7
        meant = kernel.tick("no, I meant a pun")  # a correction: nothing to ask
        assert not meant.final_output.endswith(NEXT_TEST)
    assert replay(db, plugins=builtin_plugins(learning, jokers)).ok


def test_mostly_negative_feedback_raises_the_learning_rate(tmp_path):
    with open_kernel(tmp_path / "agent.db", learning) as kernel:
        for i in range(5):
            kernel.tick(f"what is the capital of country number {i}?")
            kernel.tick("that's wrong")
        tuned = maintained(kernel)
        assert tuned["rate"] == 0.5  # 0.3 + 0.2 × 5/5 negative
        prior = tuned["priors"]["agent"]  # knowledge_agent's weight, halved
        kernel.tick("what is 2+2?")
        moved = perceived(kernel.tick("thanks"))["weights"]["agent:math_agent"]
        assert moved == round(prior + 0.5 * (1 - prior), 4)  # at the rate 0.5, not 0.3


def test_replies_that_do_well_make_the_threshold_stricter_and_a_mildly_punished_module_is_avoided(tmp_path):
    with open_kernel(tmp_path / "agent.db", learning, jokers) as kernel:
        for _ in range(3):
            kernel.tick("what is 2+2?")
            kernel.tick("thanks")
        kernel.tick(JOKE)
        assert perceived(kernel.tick("tell me a joke!"))["weights"]["agent:module:alpha"] == -0.15
        kernel.tick("hello")  # so that the next joke is not a repetition
        assert kernel.tick(JOKE).final_output == ALPHA  # -0.15 is above the default threshold -0.25
        assert maintained(kernel)["avoid_below"] == -0.1  # mean reward 0.625 ≥ 0.5
        assert kernel.tick(JOKE).final_output == BETA


def test_a_punished_module_left_alone_long_enough_is_tried_again(tmp_path):
    with open_kernel(tmp_path / "agent.db", learning, jokers) as kernel:
        kernel.tick(JOKE)
        kernel.tick("that's wrong")
        assert kernel.tick(JOKE).final_output == BETA
        assert maintained(kernel)["retried"] == []  # too recent
        for i in range(RETRY_AFTER):
            kernel.tick(f"hello {i}")
        done = maintained(kernel)
        assert done["retried"] == ["agent:module:alpha"]
        assert dump_state(kernel.store, "learning")["weights"]["agent:module:alpha"]["weight"] == -0.125
        assert kernel.tick(JOKE).final_output == ALPHA  # tried again


def test_a_new_decision_starts_from_its_familys_prior(tmp_path):
    with open_kernel(tmp_path / "agent.db", learning) as kernel:
        for country in ("Peru", "France"):
            kernel.tick(f"what is the capital of {country}?")
            kernel.tick("that's wrong")
        assert maintained(kernel)["priors"] == {"agent": -0.255}  # half of knowledge_agent's -0.51
        kernel.tick("what is 2+2?")
        assert perceived(kernel.tick("thanks"))["weights"] == {"agent:math_agent": 0.1215}  # -0.255 + 0.3 × 1.255
        jsonschema.Draft202012Validator(STATE_SCHEMA).validate(dump_state(kernel.store, "learning"))
