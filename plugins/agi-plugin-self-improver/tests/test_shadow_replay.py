"""Shadow replay: a proposal scored on the journal re-run with it applied, in the sandbox, then promoted or refused."""

from __future__ import annotations

import pytest
from agi_plugin_self_improver import improver
from agi_plugin_self_improver.proposals import code
from agi_plugin_self_improver.scoring import score

from agi_core import Kernel, Plugins
from agi_core.checkpoints import list_checkpoints
from agi_core.errors import ConfigError
from agi_core.replies import F3_NO_AGENT

#: answers the two F3 inputs, but also takes over the answered "what is …" questions: a regression
GREEDY = """
from agi_core.reasoning import AgentReply
from agi_core.hookspecs import hookimpl


class Greedy:
    name, rule, priority, inline = "greedy_agent", "matched_greedy", 1, True

    def matches(self, text):
        return "capital" in text and not text.startswith("the ")

    def handle(self, ctx):
        return AgentReply("I think it is a capital.")


@hookimpl
def agi_register_router_agents(register):
    register(Greedy())
"""


def test_score_counts_improvements_and_regressions():
    recorded = [{"tick": 1, "final_output": "2 + 3 = 5"}, {"tick": 2, "final_output": F3_NO_AGENT}]
    assert score(recorded, [{"tick": 1, "final_output": "2 + 3 = 5"}, {"tick": 2, "final_output": "5"}]) == {
        "ticks": 2,
        "f3_before": 1,
        "f3_after": 0,
        "improved": [2],
        "regressed": [],
        "verdict": "accept",
    }
    worse = score(recorded, [{"tick": 1, "final_output": "five"}, {"tick": 2, "final_output": "5"}])
    assert (worse["regressed"], worse["verdict"]) == ([1], "reject")
    assert score(recorded, recorded)["verdict"] == "reject"  # nothing improves: nothing to promote


#: retrieval's reply to "whats the capital of Japan?" (no rule matched), and the rule's reply to the rephrasing
FROM_MEMORY = {
    "tick": 4,
    "final_output": "Tokyo [fact world/entity/japan/capital] [ltm-b53f]",
    "claims": [
        {"key": "world/entity/japan/capital", "value": "Tokyo", "evidence": "ev-85de"},
        {"key": "ltm-b53f", "value": "the capital of Japan is Tokyo", "evidence": "ltm-b53f"},
    ],
    "router_decision": {"agent": "module:retrieval", "why": "module_candidate"},
}
BY_RULE = {
    "tick": 4,
    "final_output": "The capital of Japan is Tokyo.",
    "claims": [{"key": "world/entity/japan/capital", "value": "Tokyo", "evidence": "ev-85de"}],
    "router_decision": {"agent": "knowledge_agent", "why": "matched_R3_knowledge"},
}


def test_the_same_facts_in_a_rules_words_improve_and_a_changed_or_lost_answer_regresses():
    assert score([FROM_MEMORY], [BY_RULE])["improved"] == [4]  # the same answer, now a rule's sentence
    assert score([FROM_MEMORY], [BY_RULE])["regressed"] == []
    osaka = {
        **BY_RULE,
        "final_output": "The capital of Japan is Osaka.",
        "claims": [{**BY_RULE["claims"][0], "value": "Osaka"}],
    }
    assert score([FROM_MEMORY], [osaka])["regressed"] == [4]  # another value: the answer changed
    no_claims = {**BY_RULE, "claims": []}
    assert score([FROM_MEMORY], [no_claims])["regressed"] == [4]  # the facts are no longer claimed
    assert score([BY_RULE], [FROM_MEMORY])["regressed"] == []  # a rule's answer in retrieval's form: not improved
    assert score([BY_RULE], [FROM_MEMORY])["improved"] == []
    f1 = {**BY_RULE, "final_output": "I don’t have this information stored yet.", "claims": []}
    assert score([BY_RULE], [f1])["regressed"] == [4]  # an answer lost
    assert score([f1], [BY_RULE])["improved"] == [4]  # an F1 answered


def test_with_retrieval_a_rephrasing_that_a_rule_answers_is_learned_and_accepted(
    tmp_path, rephrased, bwrap, monkeypatch
):
    """Retrieval answers "whats the capital of Japan?" from memory (no F3 to learn from); the rephrasing
    a rule answers with the same facts is still learned, and its shadow replay improves ticks 4 and 6."""
    monkeypatch.setenv("AGI_LOAD_PLUGINS", "retrieval,self_improver")  # the shadow replay loads the same
    with Kernel.open(tmp_path / "agent.db", seed="improve", plugins=Plugins.from_environment()) as kernel:
        said = [kernel.tick(line).final_output for line in rephrased]
        # retrieval's answer (no F3), the name spelled as asked
        assert said[3].startswith("The capital of Japan is Tokyo. [fact world/entity/japan/capital]")
        (proposal,) = improver.propose(kernel)
        assert proposal["changes"] == {"self_improver": {"phrasings": {"whats": "what is"}}}
        scores = improver.evaluate(kernel, proposal["id"])["scores"]
        assert (scores["improved"], scores["regressed"], scores["verdict"]) == ([4, 6], [], "accept")
        improver.promote(kernel, proposal["id"])
        assert kernel.tick("whats the capital of France?").final_output == "The capital of France is Paris."
        assert kernel.replay().ok


def test_rephrasings_lead_to_a_promotion_that_answers_and_a_revert_that_restores(agent, rephrased, bwrap):
    """The issue's scripted session: learn, shadow-replay, promote, answer, revert; both replay equal."""
    with agent() as kernel:
        for line in rephrased:
            kernel.tick(line)
        (proposal,) = improver.propose(kernel)
        evaluated = improver.evaluate(kernel, proposal["id"])
        assert evaluated["status"] == "accepted"
        assert evaluated["scores"] == {
            "ticks": 8,
            "f3_before": 2,
            "f3_after": 0,
            "improved": [4, 6],
            "regressed": [],
            "verdict": "accept",
        }
        promoted = improver.promote(kernel, proposal["id"])
        assert promoted["checkpoint"] == f"improve-{proposal['id']}"
        assert promoted["checkpoint"] in [c.name for c in list_checkpoints(kernel.store)]
        answered = kernel.tick("whats the capital of Japan?")
        assert answered.final_output == "The capital of Japan is Tokyo."
        assert answered.router_decision.agent == "rephrase_agent"
        assert kernel.replay().ok
        improver.revert(kernel, proposal["id"])
        assert kernel.tick("whats the capital of Japan?").final_output.startswith(F3_NO_AGENT)
        assert kernel.tick("what is the capital of Japan?").final_output == "The capital of Japan is Tokyo."
        assert kernel.replay().ok
        assert improver.stored(kernel)[proposal["id"]]["status"] == "reverted"


def test_a_proposal_that_changes_an_answered_tick_is_rejected_and_not_promoted(agent, rephrased, bwrap):
    with agent() as kernel:
        for line in rephrased:
            kernel.tick(line)
        greedy = improver.add(kernel, code(GREEDY, "test", "answer every capital question"))
        evaluated = improver.evaluate(kernel, greedy["id"])
        assert evaluated["status"] == "rejected", evaluated["scores"]
        assert evaluated["scores"]["improved"] == [4, 6] and evaluated["scores"]["regressed"] == [5, 7]
        with pytest.raises(ConfigError, match=f"proposal {greedy['id']} is rejected, not accepted by its shadow"):
            improver.promote(kernel, greedy["id"])
        assert kernel.tick("whats the capital of Japan?").final_output.startswith(F3_NO_AGENT)  # nothing applied


def test_a_proposed_threshold_that_answers_nothing_more_is_rejected(agi, rephrased, bwrap):
    assert agi("run", stdin="\n".join(rephrased) + "\n").returncode == 0
    proposed = agi("improve", "propose", "--set", "stage0.council_reject_weight", "2")
    assert proposed.returncode == 0, proposed.stderr
    pid = proposed.stdout.split("\t")[0]
    assert agi("improve", "show", pid).stdout.splitlines()[1:3] == [
        "- stage0.council_reject_weight = 1",
        "+ stage0.council_reject_weight = 2",
    ]
    evaluated = agi("improve", "evaluate", pid)
    assert evaluated.stdout.split("\t")[1:3] == ["rejected", "reject"]  # nothing regressed, nothing improved
    refused = agi("improve", "promote", pid)
    assert refused.returncode == 1
    assert refused.stderr.strip().endswith(
        f"proposal {pid} is rejected, not accepted by its shadow replay; see `agi improve show {pid}`"
    )
    assert "council_reject_weight = 1" in agi("config", "list").stdout.replace("\t", " ")
    bad = agi("improve", "propose", "--set", "stage0.council_reject_weight", "-1")
    assert bad.returncode == 1 and len(bad.stderr.strip().splitlines()) == 1


def test_a_reverted_proposal_is_scored_with_its_change_on_every_tick(agent, rephrased, bwrap):
    """The journal's own config_set ticks (the promotion, the revert) do not undo the change in the shadow."""
    with agent() as kernel:
        for line in rephrased:
            kernel.tick(line)
        (proposal,) = improver.propose(kernel)
        improver.promote(kernel, proposal["id"])
        improver.revert(kernel, proposal["id"])
        asked_again = kernel.tick("whats the capital of France?").tick
        scores = improver.evaluate(kernel, proposal["id"])["scores"]
        assert scores["improved"] == [4, 6, asked_again] and scores["regressed"] == []
