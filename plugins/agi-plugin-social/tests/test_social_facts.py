"""The social module changes a reply's form, never its facts: F1-F5 and every number survive every rewrite,
and a model's rewrite that changes a fact is refused."""

from __future__ import annotations

import json

import agi_plugin_social.plugin as social
from agi_plugin_social import rewrite, signals
from agi_plugin_social.tactics import TACTICS
from hypothesis import given, settings
from hypothesis import strategies as st

from agi_core.contracts.testing import ScriptedProvider
from agi_core.hookspecs import hookimpl
from agi_core.replies import F1_SEM_MISS, F3_NO_AGENT, F4_AGENT_FAILURE, F5_SEM_WRITE_FAILURE
from agi_core.testing import open_kernel

RULEBOOK = [F1_SEM_MISS, F3_NO_AGENT, F4_AGENT_FAILURE, F5_SEM_WRITE_FAILURE]
sentences = st.one_of(
    st.sampled_from(RULEBOOK),
    st.sampled_from(["Got it: your dog is called Rex.", "Noted: the capital of France is Paris.", "2 + 3 = 5"]),
    st.builds(lambda a, b: f"{a} = {b}", st.integers(-(10**6), 10**6), st.floats(-1e6, 1e6, allow_nan=False)),
    st.text(min_size=1, max_size=60),
)
contexts = st.fixed_dictionaries(
    {
        "tactic": st.sampled_from(TACTICS),
        "register": st.sampled_from(["formal", "informal", "neutral"]),
        "rude": st.booleans(),
        "name": st.one_of(st.none(), st.sampled_from(["Ada", "bob"])),
    }
)


def test_a_blank_reply_rewritten_blank_keeps_its_facts_and_a_blank_rewrite_of_words_does_not():
    # found by the property below (reply=' ', match_register): a blank rewrite was refused for a blank reply
    assert rewrite.keeps_facts(" ", " ") and rewrite.keeps_facts("", "")
    assert not rewrite.keeps_facts("Your age is 35.", " ") and not rewrite.keeps_facts("hi", "")


@settings(max_examples=400, deadline=None)
@given(st.lists(sentences, min_size=1, max_size=3).map(" ".join), contexts)
def test_every_heuristic_rewrite_keeps_the_rulebook_sentences_and_the_numbers(reply, context):
    out = rewrite.rewrite(reply, context)
    for sentence in RULEBOOK:
        if sentence in reply:
            assert sentence in out
    assert rewrite.numbers(out) == rewrite.numbers(reply)
    assert rewrite.keeps_facts(reply, out)


def test_a_name_is_the_speakers_own_not_hearsay_or_an_adjective():
    """ "Eve said my name is Mallory" made the profile's name Mallory, "I am French …" made it French."""
    assert signals.read("Eve said my name is Mallory").name is None
    assert signals.read("I am French and my name is Alice").name == "Alice"
    assert signals.read("I am French").name is None
    assert signals.read("Hi, I'm Bob.").name == "Bob" and signals.read("call me Ishmael").name == "Ishmael"


@given(st.text(max_size=200))
def test_reading_any_text_gives_a_register_in_range(text):
    seen = signals.read(text)
    assert -1 <= seen.register_score <= 1 and len(seen.topics) <= 3


def test_the_guard_refuses_a_changed_number_a_changed_word_or_a_dropped_rulebook_reply():
    assert rewrite.keeps_facts("2 + 3 = 5", "Certainly: 2 + 3 = 5.")
    assert not rewrite.keeps_facts("2 + 3 = 5", "Certainly: 2 + 3 = 6.")
    assert not rewrite.keeps_facts("Your favorite color is teal.", "Your favorite color is red.")
    assert not rewrite.keeps_facts(F1_SEM_MISS, "I do not know that yet.")


class FakeRewriter:
    """A named fake model: it picks match_register and rewrites the reply with a different fact,
    the fault a real model makes now and then but not on demand."""

    @hookimpl
    def agi_register_llm_providers(self, register):
        answers = [
            json.dumps({"matched": False, "state": {"tokens": []}}),  # social_adaptive_lexicon
            json.dumps({"baseline": {}, "context": {"upset": False}, "signals": {"valence": 0.0, "risk": 0.0}}),
            json.dumps({"reward": 0.6, "confidence": 0.5, "signals": {}}),  # social_interaction_outcome
            json.dumps({"rule": {"id": "rule-match_register", "confidence": 0.75}}),  # social_rule_update
            json.dumps({"intent": {"label": "QUESTION", "confidence": 0.9}}),  # intent_ingestion
            json.dumps({"selected_rule": {"id": "rule-match_register", "tactic": {"name": "match_register"}}}),
            json.dumps({"rewritten": "Certainly. Your favorite color is red."}),  # a fact changed
            json.dumps({"summary": "A question answered.", "open_commitments": [], "pending_questions": []}),
        ]
        register(lambda: ScriptedProvider(answers, name="fake-rewriter"), name="fake-rewriter")


def test_a_model_rewrite_that_changes_a_fact_is_refused_and_the_heuristic_form_used(tmp_path):
    db = tmp_path / "agent.db"
    with open_kernel(db, social) as kernel:
        kernel.tick("Good afternoon.")
        kernel.tick("My favorite color is teal.")
    with open_kernel(db, social, FakeRewriter(), contract_provider="fake-rewriter") as kernel:
        record = kernel.tick("What is my favorite color?")
        rules = kernel.store.module_state_get("social", "rules")
    assert record.final_output == "Certainly. Your favorite color is teal."
    revise = next(c for c in record.modules["calls"] if c["phase"] == "revise")
    assert revise["output"]["reason"] == "match_register (formal); the model's rewrite changed a fact and was refused"
    sources = [call["source"] for call in record.externals["contract_call"]]
    assert sources == ["llm"] * 8  # each answer validated against its contract, and journaled
    assert rules["match_register"]["confidence"] == 0.75  # the model's rule update, within [0, 1], applied
