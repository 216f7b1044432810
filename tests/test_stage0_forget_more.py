"""Forgetting follow-ups (the ``forget_more`` parse change), through a real kernel and SQLite file: one thing off
the likes or dislikes ("forget that I like hiking"), what the line before stored ("forget it", "forget that"), and
every fact of one of the user's ("forget everything about my sister")."""

from __future__ import annotations

import pytest

from agi_core.brain.stage0.forgetting import NOTHING_BEFORE
from agi_core.replay import replay
from agi_core.testing import builtin_plugins, open_kernel


def _told(tmp_path, lines):
    db = tmp_path / "agent.db"
    with open_kernel(db) as kernel:
        replies = [kernel.tick(line).final_output for line in lines]
        facts = {fact.key: fact.value for fact in kernel.store.facts("user/")}
    assert replay(db, plugins=builtin_plugins()).ok
    return replies, facts


def test_forget_that_i_like_a_thing_takes_it_off_the_likes_only(tmp_path):
    replies, facts = _told(
        tmp_path,
        ["I like hiking and jazz", "I hate mushrooms", "forget that I like hiking", "what do I like?"],
    )
    assert replies[2] == "Done: I forgot that you like hiking."
    assert replies[3] == "You like jazz."
    assert facts["user/person/self/likes"] == ["jazz"]
    assert facts["user/person/self/dislikes"] == ["mushrooms"]


def test_forget_that_i_dislike_a_thing_and_one_never_told(tmp_path):
    replies, facts = _told(tmp_path, ["I hate mushrooms", "forget that I hate mushrooms", "forget that I like tea"])
    assert replies[1:] == [
        "Done: I forgot that you don't like mushrooms.",
        "I had not stored that you like tea, so there is nothing to forget.",
    ]
    assert facts["user/person/self/dislikes"] == []


@pytest.mark.parametrize("follow_up", ["forget it", "forget that", "Forget that, please"])
def test_forget_it_forgets_what_the_line_before_stored_and_says_what(tmp_path, follow_up):
    replies, facts = _told(tmp_path, ["my name is Dan", "I live in Berlin", follow_up, "where do I live?"])
    assert replies[2] == "Done: I forgot your home."
    assert replies[3] == "I don’t have this information stored yet."
    assert facts["user/person/self/name"] == "Dan" and facts["user/person/self/home"] is None


def test_forget_it_after_a_like_and_after_no_statement(tmp_path):
    replies, facts = _told(tmp_path, ["I like jazz", "forget it", "hello", "forget it"])
    assert replies[1] == "Done: I forgot that you like jazz."
    assert facts["user/person/self/likes"] == []
    assert replies[3] == NOTHING_BEFORE
    assert NOTHING_BEFORE.startswith("The line before stored no fact, so there is nothing to forget")


def test_forget_everything_about_my_sister_forgets_each_fact_and_counts(tmp_path):
    replies, facts = _told(
        tmp_path,
        [
            "my sister's name is Maya",
            "my sister is Maya",
            "my sister lives in Paris",
            "my sister works as a teacher",
            "my brother lives in Rome",
            "forget everything about my sister",
            "where does my sister live?",
            "what is my sister's name?",
            "forget all about my sister",
        ],
    )
    assert replies[5] == "Done: I forgot 4 facts about your sister."
    assert replies[6:8] == ["I don’t have this information stored yet."] * 2
    assert replies[8] == "I had nothing stored about your sister, so there is nothing to forget."
    assert {key: value for key, value in facts.items() if "/sister/" in key} == {
        "user/relation/sister/name": None,
        "user/relation/sister/home": None,
        "user/relation/sister/job": None,
    }
    assert facts["user/person/self/sister"] is None  # "my sister is Maya"
    assert facts["user/relation/brother/home"] == "Rome"
