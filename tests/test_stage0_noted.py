"""A statement of the user's that no rule stores is said to be noted as an episode, not stored as a fact; a request no
module serves is still F3; through a real kernel and SQLite file."""

from __future__ import annotations

import pytest

from agi_core.replay import replay
from agi_core.replies import F3_NO_AGENT, F3_NOTED_NOT_STORED
from agi_core.testing import builtin_plugins, open_kernel


def test_a_statement_no_rule_stores_is_noted_as_an_episode_and_a_request_is_f3(tmp_path):
    """ "I have a red bike" got F3, "I currently don't have a module for this type of request.", as if the line
    could not be taken in; it is kept (an episode), but no fact is stored."""
    db = tmp_path / "agent.db"
    lines = ["I have a red bike", "my dog barks at night", "We went to Porto last summer.", "tell me a joke", "blorp"]
    with open_kernel(db) as kernel:
        ticks = [kernel.tick(line) for line in lines]
        facts = kernel.store.facts("")
        episodes = [e.event for e in kernel.store.episodes(user_inputs=True)]
        kernel.long_term_memory()
        memories = [row[0] for row in kernel.store.conn.execute("SELECT text FROM ltm_items ORDER BY seq")]
    assert [t.final_output for t in ticks] == [F3_NOTED_NOT_STORED] * 3 + [F3_NO_AGENT] * 2
    assert [t.router_decision.why for t in ticks] == ["matched_R4_fallback"] * 5
    assert facts == [] and all(t.sem_writes == [] for t in ticks)
    assert episodes == lines  # what the reply says was kept (an episode), was
    assert memories == lines  # the reply itself, like F3, is no memory (agi_core.memory.bookkeeping)
    assert replay(db, plugins=builtin_plugins()).ok


@pytest.mark.parametrize(
    "line", ["I want a pizza", "I'd like to book a flight", "I need help", "I", "my?", "I wonder why the sky is blue"]
)
def test_a_request_or_a_question_in_the_first_person_is_no_statement(tmp_path, line):
    with open_kernel(tmp_path / "agent.db") as kernel:
        assert kernel.tick(line).final_output == F3_NO_AGENT
