"""What the user likes and dislikes are facts of theirs (``user/person/self/likes`` and ``…/dislikes``, each a list
of things as written), told, asked and changed in plain words through a real kernel and SQLite file."""

from __future__ import annotations

import pytest

from agi_core.brain.stage0.facts import parse
from agi_core.replay import replay
from agi_core.replies import F1_SEM_MISS
from agi_core.testing import builtin_plugins, open_kernel

LIKES, DISLIKES = "user/person/self/likes", "user/person/self/dislikes"


def test_likes_are_stored_asked_and_changed(tmp_path):
    """ "I like hiking" was F3 and stored nothing: no rule, and no seed key, held a like."""
    db = tmp_path / "agent.db"
    lines = [
        ("I like hiking", "Got it: you like hiking."),
        ("what do I like?", "You like hiking."),
        ("do I like hiking?", "Yes: you like hiking."),
        ("I really love Jazz!", "Got it: you like Jazz."),
        ("what do I like?", "You like hiking and Jazz."),
        ("I don't like hiking anymore", "Got it: you don't like hiking."),
        ("do I like hiking?", "No: you don't like hiking."),
        ("Do I like jazz?", "Yes: you like Jazz."),
        ("what do I dislike?", "You don't like hiking."),
        ("do I like tennis?", F1_SEM_MISS),
        ("I hate mushrooms", "Got it: you don't like mushrooms."),
        ("what don't I like?", "You don't like hiking and mushrooms."),
        ("I like hiking again", "Got it: you like hiking."),
        ("what do you remember?", None),
    ]
    with open_kernel(db) as kernel:
        ticks = [kernel.tick(line) for line, _ in lines]
        facts = {fact.key: fact.value for fact in kernel.store.facts("user/")}
    assert [t.final_output for t in ticks[:-1]] == [reply for _, reply in lines[:-1]]
    assert facts == {LIKES: ["Jazz", "hiking"], DISLIKES: ["mushrooms"]}
    remembered = "I remember 2 facts about you: you don't like mushrooms; you like Jazz and hiking."
    assert ticks[-1].final_output.startswith(remembered)
    asked = ticks[2]  # the answer cites the list it read: the council checks it
    assert [(c["key"], c["value"]) for c in asked.claims] == [(LIKES, ["hiking"])]
    assert [v["vote"] for v in asked.council_votes][:2] == ["approve", "approve"]
    assert [w["key"] for w in ticks[5].sem_writes] == [DISLIKES, LIKES]  # joins one list, leaves the other
    assert replay(db, plugins=builtin_plugins()).ok


def test_a_named_speakers_likes_are_theirs(tmp_path):
    with open_kernel(tmp_path / "agent.db") as kernel:
        kernel.tick("I like chess", speaker="alice")
        mine = kernel.tick("do I like chess?")
        hers = kernel.tick("do I like chess?", speaker="alice")
        facts = {fact.key: fact.value for fact in kernel.store.facts("user/")}
    assert (mine.final_output, hers.final_output) == (F1_SEM_MISS, "Yes: you like chess.")
    assert facts == {"user/person/alice/likes": ["chess"]}


@pytest.mark.parametrize(
    "line", ["I like it when it rains", "I love you", "I'd like a coffee", "I like to think so", "I would like tea"]
)
def test_a_line_that_likes_no_thing_stores_none(line):
    assert parse(line) is None


@pytest.mark.parametrize(
    ("line", "attribute", "thing"),
    [
        ("I enjoy long walks a lot", "likes", "long walks"),
        ("I do not like green eggs", "dislikes", "green eggs"),
        ("I can't stand loud music", "dislikes", "loud music"),
        ("I no longer enjoy running", "dislikes", "running"),
        ("remember that I adore the Beatles", "likes", "the Beatles"),
        ("oh, I don’t like olives anymore.", "dislikes", "olives"),
    ],
)
def test_the_ways_of_saying_a_like_land_on_one_of_two_keys(line, attribute, thing):
    parsed = parse(line)
    assert parsed is not None and (parsed.op, parsed.refs[0].attribute, parsed.value) == ("prefer", attribute, thing)


def test_a_like_ends_where_another_clause_begins(tmp_path):
    """ "I like hiking and I hate mushrooms" liked "hiking and I hate mushrooms" (clause_end); a thing with an
    "and" in it ("rock and roll") stays whole."""
    with open_kernel(tmp_path / "agent.db") as kernel:
        lines = ("I like hiking and I hate mushrooms", "I like rock and roll")
        said = [kernel.tick(line).final_output for line in lines]
        likes = kernel.store.sem_read(LIKES).value
    assert said == ["Got it: you like hiking.", "Got it: you like rock and roll."]
    assert likes == ["hiking", "rock and roll"]


def test_things_liked_together_are_each_a_thing(tmp_path):
    """ "I like hiking and jazz" stored one thing, "hiking and jazz", so "do I like jazz?" was F1; a thing with an
    "and" in it ("rock and roll") stays whole."""
    db = tmp_path / "agent.db"
    lines = [
        ("I like hiking and jazz", "Got it: you like hiking and jazz."),
        ("do I like jazz?", "Yes: you like jazz."),
        ("I love rock and roll, tea, and long walks", "Got it: you like rock and roll, tea and long walks."),
        ("I don't like mushrooms or olives", "Got it: you don't like mushrooms and olives."),
        ("do I like hiking and tea?", "Yes: you like hiking and tea."),
        ("do I like jazz and olives?", "You like jazz; you don't like olives."),
        ("do I like jazz and tennis?", F1_SEM_MISS),
    ]
    with open_kernel(db) as kernel:
        said = [kernel.tick(line).final_output for line, _ in lines]
        facts = {fact.key: fact.value for fact in kernel.store.facts("user/")}
    assert said == [reply for _, reply in lines]
    assert facts == {LIKES: ["hiking", "jazz", "rock and roll", "tea", "long walks"], DISLIKES: ["mushrooms", "olives"]}
    assert replay(db, plugins=builtin_plugins()).ok


def test_someone_elses_likes_are_theirs(tmp_path):
    """ "Bob likes jazz" and "my sister likes tea" were F3: likes were the speaker's only."""
    db = tmp_path / "agent.db"
    lines = [
        ("Bob likes jazz", "Got it: Bob likes jazz."),
        ("my sister really loves tea and cake", "Got it: your sister likes tea and cake."),
        ("my sister doesn't like coffee", "Got it: your sister doesn't like coffee."),
        ("does Bob like jazz?", "Yes: Bob likes jazz."),
        ("does my sister like coffee?", "No: your sister doesn't like coffee."),
        ("what does my sister like?", "Your sister likes tea and cake."),
        ("what does Bob like?", "Bob likes jazz."),
        ("do I like jazz?", F1_SEM_MISS),
    ]
    with open_kernel(db) as kernel:
        said = [kernel.tick(line).final_output for line, _ in lines]
        remembered = kernel.tick("what do you remember?").final_output
        facts = {fact.key: fact.value for fact in kernel.store.facts("")}
    assert said == [reply for _, reply in lines]
    assert remembered.startswith(
        "I remember 2 facts about you: your sister doesn't like coffee; your sister likes tea and cake."
    )
    assert facts == {
        "world/entity/bob/likes": ["jazz"],
        "user/relation/sister/likes": ["tea", "cake"],
        "user/relation/sister/dislikes": ["coffee"],
    }
    assert replay(db, plugins=builtin_plugins()).ok


@pytest.mark.parametrize(
    "line", ["Everyone likes pizza", "He likes jazz", "the weather likes to change", "Bob likes it"]
)
def test_a_line_that_likes_no_ones_thing_stores_none(line):
    parsed = parse(line)
    assert parsed is None or parsed.op != "prefer"
