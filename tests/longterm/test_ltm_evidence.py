"""Evidence beyond facts: a claim may cite a long-term memory (ltm-…); council voters are weighed by setting."""

from __future__ import annotations

from agi_core.hookspecs import hookimpl
from agi_core.modules import Candidate, Claim, CognitiveModule, ModuleContext, Proposals
from agi_core.replay import replay
from agi_core.replies import F1_SEM_MISS
from agi_core.testing import builtin_plugins, open_kernel


class Recaller(CognitiveModule):
    """Answers "dog?" from long-term memory, citing the memory it recalled."""

    name = "recaller"

    def __init__(self, claimed: str = "Rex") -> None:
        self.claimed = claimed

    def deliberate(self, ctx: ModuleContext) -> Proposals | None:
        if ctx.text != "dog?":
            return None
        (hit,) = ctx.memory.long_term("what is my dog called", 1)
        claim = Claim("user/pet/dog/name", self.claimed, f"Your dog is {self.claimed}.", hit["id"])
        return Proposals(candidates=[Candidate(f"Your dog is {self.claimed}.", 0.9, claims=[claim])])


def plugin(module):
    class Plugin:
        @hookimpl
        def agi_register_modules(self, register):
            register(module)

    return Plugin()


def test_a_claim_citing_a_long_term_memory_is_accepted_and_a_false_one_rejected(tmp_path, _minilm_loaded):
    db = tmp_path / "a.db"
    with open_kernel(db, plugin(Recaller()), seed="ltm") as kernel:
        kernel.tick("my dog is called Rex")
        record = kernel.tick("dog?")
    assert (record.final_output, record.router_decision.agent) == ("Your dog is Rex.", "module:recaller")
    (item,) = [item for item in record.evidence_items if item["source"] == "ltm"]
    assert item["id"].startswith("ltm-") and item["value"] == "my dog is called Rex"
    assert record.claims[0]["evidence"] == item["id"]
    assert [(v["voter"], v["vote"], v["reason"]) for v in record.council_votes] == [
        ("evidence_check", "approve", "every claim cites evidence of this tick"),
        ("value_check", "approve", "claimed values are held by their evidence"),
    ]
    assert replay(db, seed="ltm", plugins=builtin_plugins(plugin(Recaller()))).ok

    with open_kernel(tmp_path / "b.db", plugin(Recaller("Max")), seed="ltm") as kernel:
        kernel.tick("my dog is called Rex")
        record = kernel.tick("dog?")
    assert record.final_output == F1_SEM_MISS
    assert [(v["voter"], v["vote"]) for v in record.council_votes] == [
        ("evidence_check", "approve"),
        ("value_check", "reject"),
    ]


class Eager(CognitiveModule):
    """Claims without evidence; its own voter stands in for evidence_check once that weighs 0."""

    name = "eager"

    def deliberate(self, ctx):
        claim = Claim("user/person/self/name", "Bob", "You are Bob.", None)
        return Proposals(candidates=[Candidate("You are Bob.", score=1.0, claims=[claim])])

    def vote(self, claims, evidence_items):
        return [{"voter": "eager_check", "vote": "approve", "reason": "trusting"}]


def test_council_voters_are_weighed_by_setting_and_replay_is_equal(tmp_path):
    db = tmp_path / "a.db"
    with open_kernel(db, plugin(Eager())) as kernel:
        assert kernel.tick("who is talking?").final_output == F1_SEM_MISS  # evidence_check rejects
        kernel.command("config_set", {"plugin": "stage0", "key": "council_weights", "value": {"evidence_check": 0}})
        record = kernel.tick("who is talking?")
    assert record.final_output == "You are Bob."
    assert [(v["voter"], v["vote"], v.get("weight", 1)) for v in record.council_votes] == [
        ("evidence_check", "reject", 0),
        ("value_check", "approve", 1),
        ("eager_check", "approve", 1),
    ]
    assert replay(db, plugins=builtin_plugins(plugin(Eager()))).ok
