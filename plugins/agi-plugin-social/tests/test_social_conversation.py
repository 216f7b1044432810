"""The conversation contracts in the social module through a real kernel and SQLite file, heuristic
path: a greeting is answered with one (``intent_ingestion``, rendered by ``language_nlg``), a
statement that answers an open question says so (``dialogue_state``), and ``clarify`` asks about
the conversation's main topic once maintenance drew its context (``conversation_context``)."""

from __future__ import annotations

import agi_plugin_social.plugin as social
import jsonschema
from agi_plugin_social.module import STATE_SCHEMA

from agi_core.brain.stage0.small_talk import GREETING
from agi_core.contracts.conversation_fallbacks import said_back
from agi_core.modules.state import dump_state
from agi_core.replay import replay
from agi_core.replies import F1_SEM_MISS, F3_NO_AGENT, F3_NOTED_NOT_STORED
from agi_core.testing import builtin_plugins, open_kernel


def called(record):
    return {c["contract"]: c["source"] for c in record.externals.get("contract_call", [])}


def test_a_greeting_is_answered_with_a_greeting_in_the_speakers_register(tmp_path):
    db = tmp_path / "agent.db"
    with open_kernel(db, social) as kernel:
        hello = kernel.tick("hello, the sky is green")
        plain = kernel.tick("the sky is green")
        informal = kernel.tick("hi there, the sea is red", speaker="bob")
        bare = kernel.tick("hi", speaker="bob")
    assert hello.final_output == f"Hello! {F3_NO_AGENT} What do you mean?"
    assert plain.final_output == f"{F3_NO_AGENT} What do you mean?"  # no greeting: none said
    assert informal.final_output == f"Hey! {F3_NO_AGENT}"  # the greeting replaces the register's "Hmm!"
    assert bare.final_output == GREETING  # Stage-0 greets a bare greeting already: no second one
    assert called(hello)["intent_ingestion"] == "fallback" and called(hello)["language_nlg"] == "fallback"
    assert "language_nlg" not in called(plain)  # nothing to render: the model is not asked
    assert replay(db, plugins=builtin_plugins(social)).ok


def test_a_statement_that_answers_an_open_question_says_so(tmp_path):
    db = tmp_path / "agent.db"
    with open_kernel(db, social) as kernel:
        asked = kernel.tick("what is my dog called?")
        open_now = dump_state(kernel.store, "social")["dialogue/user"]["pending_questions"]
        aside = kernel.tick("my dog barks at night")  # noted as an episode only (was F3): answers nothing
        told = kernel.tick("my dog is called Rex")
        state = dump_state(kernel.store, "social")
    assert asked.final_output == F1_SEM_MISS
    assert open_now == ["what is my dog called?"]
    assert "earlier" not in aside.final_output and "That answers" not in aside.final_output
    assert told.final_output == (
        # no "Thanks for telling me." again: the reply before (to "my dog likes the park") opened with it
        'Got it: your dog\'s name is Rex. That answers your question "what is my dog called?".'
    )
    assert state["dialogue/user"] == {"summary": "Last said: my dog is called Rex", "pending_questions": []}
    jsonschema.Draft202012Validator(STATE_SCHEMA).validate(state)
    assert replay(db, plugins=builtin_plugins(social)).ok


def test_clarify_asks_about_the_main_topic_once_the_conversation_context_is_drawn(tmp_path):
    db = tmp_path / "agent.db"
    with open_kernel(db, social) as kernel:
        for line in ["what is my dog called?", "my dog likes the park", "what is my dog called?"]:
            kernel.tick(line)
        before = kernel.tick("the sea is blue")
        done = kernel.maintain()
        again = kernel.maintain()  # no new turn: not drawn again
        after = kernel.tick("the sea is blue")
        state = dump_state(kernel.store, "social")
    assert before.final_output == f"{F3_NO_AGENT} What do you mean?"
    assert after.final_output == f"{F3_NO_AGENT} Would you like to tell me more about your dog?"
    assert called(done)["conversation_context"] == "fallback" and "conversation_context" not in called(again)
    assert state["conversation/user"]["alerts"] == ["asked twice: what is my dog called"]
    assert state["conversation/user"]["topics"][0] == "dog"
    assert said_back("sea", ["the sea is blue"]) == "sea"  # "your" only for what the user called theirs
    assert replay(db, plugins=builtin_plugins(social)).ok


def test_clarify_does_not_ask_a_speaker_the_same_follow_up_again_within_ten_of_their_turns(tmp_path):
    """The follow-up asked is kept in the state (``asked/SPEAKER``, by the speaker's turn): in the next nine
    turns clarify asks what is meant, a context drawn again in between included; the tenth asks it again."""
    db, follow_up = tmp_path / "agent.db", f"{F3_NO_AGENT} Would you like to tell me more about your dog?"
    with open_kernel(db, social) as kernel:
        kernel.tick("my dog likes the park")
        kernel.tick("what is my dog called?")
        kernel.maintain()
        said = [kernel.tick("the sea is blue").final_output]  # turn 3
        kernel.maintain()  # new turns: the context is drawn again, about the dog still
        said += [kernel.tick("the sea is blue").final_output for _ in range(10)]  # turns 4 to 13
        state = dump_state(kernel.store, "social")
    assert said[0] == follow_up
    assert said[1:10] == [f"{F3_NO_AGENT} What do you mean?"] * 9
    assert said[10] == follow_up  # turn 13: ten turns after the first
    assert state["conversation/user"]["follow_up"] == "Would you like to tell me more about your dog?"
    assert [(e["topic"], e["turn"]) for e in state["asked/user"]["follow_ups"]] == [("dog", 13)]  # turn 3's is past
    jsonschema.Draft202012Validator(STATE_SCHEMA).validate(state)
    assert replay(db, plugins=builtin_plugins(social)).ok


def test_a_plain_statement_or_a_full_answer_is_not_asked_what_is_meant(tmp_path):
    """ "my dog barks at night" (F3 then: no rule keeps it; now noted as an episode only) got "… What do you mean?",
    and so did "what do you know about me?", whose full answer quotes that earlier reply ("I said “…”")."""
    db = tmp_path / "agent.db"
    with open_kernel(db, social) as kernel:
        liked = kernel.tick("my dog barks at night")
        known = kernel.tick("what do you know about me?")
        unclear = kernel.tick("blorp")
    assert liked.final_output == f"Thanks for telling me. {F3_NOTED_NOT_STORED}"
    assert "I said “Thanks for telling me. I noted this" in known.final_output  # quoted: no kind of this reply's
    assert "What do you mean?" not in known.final_output
    assert unclear.final_output == f"{F3_NO_AGENT} What do you mean?"  # an unclear line still is
    assert replay(db, plugins=builtin_plugins(social)).ok


def test_a_rulebook_reply_quoted_in_an_answer_is_not_the_answers_kind():
    from agi_plugin_social.rewrite import reply_kind, tells

    assert reply_kind(f"I remember 1 fact about you. Lately: I said “{F3_NO_AGENT}”.") == "answer"
    assert reply_kind(f'Lately: I said "{F3_NO_AGENT}".') == "answer"
    assert reply_kind(f"Hmm! {F3_NO_AGENT}") == "unknown"
    assert tells("I like hiking") and tells("my dog likes the park") and tells("I’m so glad")
    assert not tells("tell me a joke") and not tells("I like what?") and not tells("blorp")
