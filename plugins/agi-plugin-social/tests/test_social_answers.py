"""A statement answers an open question only when it stores a fact the question read and missed
(``agi_plugin_social.answers``), through a real kernel and SQLite file: "my sister lives in Paris" does not
answer "what does my sister do?" (it said so before), "my sister works as a teacher" does; a question whose
tick read no key is left to ``dialogue_state``'s content words, for a turn that stored a fact."""

from __future__ import annotations

import agi_plugin_social.plugin as social
import jsonschema
from agi_plugin_social.module import STATE_SCHEMA

from agi_core.modules.state import dump_state
from agi_core.replay import replay
from agi_core.replies import F1_SEM_MISS
from agi_core.testing import builtin_plugins, open_kernel

ASKED = "what does my sister do?"
ANSWERS = f'That answers your question "{ASKED}".'


def test_a_home_does_not_answer_a_job_question_and_the_job_does(tmp_path):
    db = tmp_path / "agent.db"
    with open_kernel(db, social, seed="0") as kernel:
        asked = kernel.tick(ASKED)
        kept = dump_state(kernel.store, "social")
        home = kernel.tick("my sister lives in Paris")
        named = kernel.tick("my sister is called Maya")  # the name the question read to go on to Maya's job
        job = kernel.tick("my sister works as a teacher")
        state = dump_state(kernel.store, "social")
    assert asked.final_output == F1_SEM_MISS
    # the job is what it missed; the sister's name, read on the way to the entity it names, is left out
    assert kept["missed/user"] == {ASKED: ["user/relation/sister/job"]}
    assert kept["dialogue/user"]["pending_questions"] == [ASKED]
    assert "That answers" not in home.final_output, home.final_output
    assert "That answers" not in named.final_output, named.final_output
    assert job.final_output.endswith(f"Got it: your sister's job is teacher. {ANSWERS}"), job.final_output
    assert state["dialogue/user"]["pending_questions"] == []
    assert "missed/user" not in state
    jsonschema.Draft202012Validator(STATE_SCHEMA).validate(kept)
    assert replay(db, plugins=builtin_plugins(social)).ok


def test_a_question_that_read_no_key_is_answered_by_its_words_only_in_a_turn_that_stored_a_fact(tmp_path):
    db = tmp_path / "agent.db"
    with open_kernel(db, social, seed="0") as kernel:
        kernel.tick("is my sister a teacher?")  # no rule reads it (F3): no key to wait for
        kept = dump_state(kernel.store, "social")
        noted = kernel.tick("my sister the teacher, she teaches")  # its words, noted as an episode: nothing stored
        forgot = kernel.tick("forget that my sister is a teacher")  # its words, taken in, but nothing stored
        told = kernel.tick("my sister is a teacher, I think")
        state = dump_state(kernel.store, "social")
    assert kept["dialogue/user"]["pending_questions"] == ["is my sister a teacher?"] and "missed/user" not in kept
    assert "That answers" not in noted.final_output, noted.final_output
    assert "That answers" not in forgot.final_output, forgot.final_output  # said so before (a forgetting)
    assert told.final_output.endswith('That answers your question "is my sister a teacher?".'), told.final_output
    assert state["dialogue/user"]["pending_questions"] == []
    assert replay(db, plugins=builtin_plugins(social)).ok
