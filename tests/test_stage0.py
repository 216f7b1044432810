"""The Stage-0 rulebook: routing (R1-R4), SEM rules (S1-S9), failure replies (F1-F5), council."""

from __future__ import annotations

import hashlib

import pytest

from agi_core.hookspecs import hookimpl
from agi_core.reasoning import content_id
from agi_core.replies import F1_SEM_MISS, F3_NO_AGENT, F4_AGENT_FAILURE, F5_SEM_WRITE_FAILURE
from agi_core.serialization import dumps
from agi_core.testing import open_kernel

DIALOGUE = [
    ("2 + 3", "2 + 3 = 5", "math_agent", "matched_R1_math"),
    ("2^10", "2^10 = 1024", "math_agent", "matched_R1_math"),
    ("7 / 2", "7 / 2 = 3.5", "math_agent", "matched_R1_math"),
    ("12 / 0", "I can’t divide by zero: the result is undefined.", "math_agent", "matched_R1_math"),
    ("my favourite colour is green", "Got it: your favourite colour is green.", "profile_agent", "matched_R2_profile"),
    ("what is my favorite color?", "Your favorite color is green.", "profile_agent", "matched_R2_profile"),
    ("what is my favorite food?", F1_SEM_MISS, "profile_agent", "matched_R2_profile"),
    (
        "the capital of France is Paris",
        "Noted: the capital of France is Paris.",
        "knowledge_agent",
        "matched_R3_knowledge",
    ),
    ("what is the capital of France?", "The capital of France is Paris.", "knowledge_agent", "matched_R3_knowledge"),
    ("what is the capital of Peru?", F1_SEM_MISS, "knowledge_agent", "matched_R3_knowledge"),
    ("tell me a joke", F3_NO_AGENT, "generic_agent", "matched_R4_fallback"),
]


def test_scripted_dialogue_follows_the_rulebook(agi_kernel):
    for text, reply, agent, why in DIALOGUE:
        record = agi_kernel.tick(text)
        assert (record.final_output, record.router_decision.agent, record.router_decision.why) == (reply, agent, why)


def test_f_sentences_are_the_rulebook_words():
    assert F1_SEM_MISS == "I don’t have this information stored yet."
    assert F3_NO_AGENT == "I currently don’t have a module for this type of request."
    assert F4_AGENT_FAILURE == (
        "One of my internal modules failed while processing this; here is a partial "
        "answer based on the remaining modules."
    )
    assert F5_SEM_WRITE_FAILURE == (
        "I tried to store this, but my memory backend failed. I may not remember this next time."
    )


def test_synonyms_map_to_one_key_and_last_write_wins(agi_kernel):
    agi_kernel.tick("my favourite colour is green")
    agi_kernel.tick("my favorite color is blue")
    facts = agi_kernel.store.facts("user/")
    assert [(f.key, f.value) for f in facts] == [("user/person/self/favorite_color", "blue")]
    assert agi_kernel.tick("what is my fave colour?").final_output == "Your fave colour is blue."


def test_read_records_sem_read_claim_evidence_and_votes(agi_kernel):
    agi_kernel.tick("the capital of France is Paris")
    record = agi_kernel.tick("what is the capital of France?")
    key = "world/entity/france/capital"
    assert [(r["key"], r["exists"], r["value"]) for r in record.sem_reads] == [(key, True, "Paris")]
    evidence = {"source": "sem_read", "key": key, "value": "Paris", "last_updated": record.sem_reads[0]["last_updated"]}
    # ids are derived from content (sha256 of the canonical JSON), never from position
    assert record.evidence_items == [{"id": content_id("ev", evidence), **evidence}]
    claim = {"key": key, "value": "Paris", "text": record.final_output, "evidence": record.evidence_items[0]["id"]}
    assert record.claims == [{"id": content_id("cl", claim), **claim}]
    assert content_id("cl", claim) == "cl-" + hashlib.sha256(dumps(claim).encode()).hexdigest()[:12]
    assert [(v["voter"], v["vote"]) for v in record.council_votes] == [
        ("evidence_check", "approve"),
        ("value_check", "approve"),
    ]


def test_miss_is_exists_false_and_no_inference(agi_kernel):
    record = agi_kernel.tick("what is my favorite food?")
    assert record.sem_reads == [
        {"key": "user/person/self/favorite_food", "exists": False, "value": None, "last_updated": None}
    ]
    assert record.claims == [] and record.final_output == F1_SEM_MISS


class _UnbackedClaimAgent:
    """Claims a fact without reading SEM: the council must reject it (S9)."""

    name, rule, priority = "liar_agent", "matched_liar", 1

    def matches(self, text):
        return text.startswith("lie")

    def handle(self, ctx):
        from agi_core.reasoning import AgentReply

        return AgentReply(
            "The capital of Mars is Olympus.",
            claims=[
                {"id": "c1", "key": "world/entity/mars/capital", "value": "Olympus", "text": "x", "evidence": None}
            ],
        )


class _FailingAgent:
    name, rule, priority = "broken_agent", "matched_broken", 1

    def matches(self, text):
        return text.startswith("break")

    def handle(self, ctx):
        raise RuntimeError("boom")


class _SlowAgent:
    name, rule, priority = "slow_agent", "matched_slow", 1

    def matches(self, text):
        return text.startswith("slow")

    def handle(self, ctx):
        import threading

        threading.Event().wait(2)
        return ctx and None


class _AgentsPlugin:
    @hookimpl
    def agi_register_router_agents(self, register):
        register(_UnbackedClaimAgent())
        register(_FailingAgent())
        register(_SlowAgent())


@pytest.fixture
def kernel_with_test_agents(tmp_path):
    kernel = open_kernel(tmp_path / "a.db", _AgentsPlugin(), timeout_s=0.3)
    yield kernel
    kernel.close()


def test_council_rejects_a_claim_without_evidence(kernel_with_test_agents):
    record = kernel_with_test_agents.tick("lie to me")
    assert record.final_output == F1_SEM_MISS
    assert record.council_votes[0] == {
        "voter": "evidence_check",
        "vote": "reject",
        "reason": "claim c1 cites no SEM read or other evidence of this tick",
    }


def test_failing_agent_degrades_to_generic_with_f4(kernel_with_test_agents):
    record = kernel_with_test_agents.tick("break please")
    assert record.final_output == F4_AGENT_FAILURE
    assert record.selected_agents == ["broken_agent", "generic_agent"]
    assert record.degraded == ["broken_agent"]
    assert record.agent_outputs["broken_agent"] == {"error": "RuntimeError: boom"}
    assert kernel_with_test_agents.tick("2+2").final_output == "2+2 = 4"


def test_timed_out_agent_gets_f4_and_the_tick_completes(kernel_with_test_agents):
    record = kernel_with_test_agents.tick("slow down")
    assert record.final_output == F4_AGENT_FAILURE
    assert record.agent_outputs["slow_agent"]["error"].startswith("TimeoutError: slow_agent took longer than 0.3 s")
    assert kernel_with_test_agents.tick("1+1").final_output == "1+1 = 2"


def test_sem_write_failure_replies_f5_and_keeps_the_tick(agi_kernel):
    agi_kernel.store.conn.execute(
        "CREATE TRIGGER fail_facts BEFORE INSERT ON facts BEGIN SELECT RAISE(ABORT, 'disk is full'); END"
    )
    record = agi_kernel.tick("my favorite color is red")
    assert record.final_output == F5_SEM_WRITE_FAILURE
    assert record.sem_writes == [
        {"key": "user/person/self/favorite_color", "value": "red", "ok": False, "error": "disk is full"}
    ]
    assert agi_kernel.store.facts() == [] and agi_kernel.tick_count == 1


@pytest.mark.parametrize(
    ("expression", "reply"),
    [
        ("3 ^ 4", "3 ^ 4 = 81"),
        ("10-15", "10-15 = -5"),
        ("6 * 7", "6 * 7 = 42"),
        ("1/3", "1/3 = 0.3333333333"),
        ("9 ^ 99999", "That exponent is too large; I compute powers up to 10000."),
    ],
)
def test_math_agent(agi_kernel, expression, reply):
    assert agi_kernel.tick(expression).final_output == reply


def test_math_parser_never_evaluates_code():
    from agi_core.brain.stage0.mathparse import MathError, evaluate

    for hostile in ["__import__('os').system('true')", "(1).__class__", "[1]*9", "a+1", "lambda: 1"]:
        with pytest.raises(MathError):
            evaluate(hostile)
