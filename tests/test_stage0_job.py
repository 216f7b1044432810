"""What the user does for a living is a fact of theirs, ``user/person/self/job`` (the synonyms' key for job,
occupation, profession, …), told in plain words and asked back, through a real kernel and SQLite file."""

from __future__ import annotations

import pytest

from agi_core.brain.stage0.facts import parse
from agi_core.replay import replay
from agi_core.replies import F1_SEM_MISS
from agi_core.testing import builtin_plugins, open_kernel

JOB = "user/person/self/job"


@pytest.mark.parametrize(
    ("told", "stored", "said"),
    [
        ("I work as a nurse", "nurse", "job"),
        ("I'm a nurse", "nurse", "job"),
        ("I am an electrical engineer", "electrical engineer", "job"),
        ("I work as a nurse at the city hospital", "nurse", "job"),
        ("my job is nurse", "nurse", "job"),
        ("my occupation is nurse", "nurse", "occupation"),
    ],
)
def test_a_job_told_is_stored_under_one_key_and_answered(tmp_path, told, stored, said):
    """ "I work as a nurse" and "I'm a nurse" were F3 (nothing stored), and "what do I do?" was no question a rule
    read (F3, or a module's guess)."""
    db = tmp_path / "agent.db"
    with open_kernel(db) as kernel:
        reply = kernel.tick(told).final_output
        asked = [
            kernel.tick(q).final_output for q in ("what do I do?", "what is my job?", "what do I do for a living?")
        ]
        facts = {fact.key: fact.value for fact in kernel.store.facts("user/")}
    assert reply == f"Got it: your {said} is {stored}."
    assert facts == {JOB: stored}
    assert asked == [f"Your job is {stored}."] * 3
    assert replay(db, plugins=builtin_plugins()).ok


def test_a_job_not_told_is_a_miss_and_someone_elses_job_is_theirs(tmp_path):
    with open_kernel(tmp_path / "agent.db") as kernel:
        missed = kernel.tick("what do I do?").final_output
        kernel.tick("my sister works as a teacher")
        kernel.tick("Bob works as a pilot")
        hers = kernel.tick("what does my sister do?").final_output
        his = kernel.tick("what does Bob do for a living?").final_output
        facts = {fact.key: fact.value for fact in kernel.store.facts("")}
    assert missed == F1_SEM_MISS
    assert (hers, his) == ("Your sister's job is teacher.", "The job of Bob is pilot.")
    assert facts == {"user/relation/sister/job": "teacher", "world/entity/bob/job": "pilot"}


@pytest.mark.parametrize(
    "line",
    ["I'm a big fan of jazz", "I am a vegetarian", "I'm a bit tired", "I am a morning person", "what do you do?"],
)
def test_a_line_that_names_no_job_stores_none(line):
    """ "I am a …" is a job only when it ends in a known occupation; "what does the company do?" asks no job."""
    parsed = parse(line)
    assert parsed is None or parsed.refs[0].attribute != "job"


@pytest.mark.parametrize(
    ("told", "key", "job", "asked", "said"),
    [
        ("my sister is a nurse", "user/relation/sister/job", "nurse", "what does my sister do?", "sister's job"),
        (
            "my brother is an electrical engineer",
            "user/relation/brother/job",
            "electrical engineer",
            "what does my brother do for a living?",
            "brother's job",
        ),
        ("Bob's sister is a teacher", "user/relation/bob__sister/job", "teacher", "what does Bob's sister do?", None),
    ],
)
def test_a_relation_said_to_be_an_occupation_has_that_job(tmp_path, told, key, job, asked, said):
    """ "my sister is a nurse" stored "a nurse" as the sister herself (``user/person/self/sister``), so "what does
    my sister do?" missed (the ``relation_job`` change)."""
    db = tmp_path / "agent.db"
    with open_kernel(db) as kernel:
        reply = kernel.tick(told).final_output
        answered = kernel.tick(asked).final_output
        facts = {fact.key: fact.value for fact in kernel.store.facts("user/")}
    assert facts == {key: job}
    assert job in reply and job in answered and answered != F1_SEM_MISS
    if said is not None:
        assert (reply, answered) == (f"Got it: your {said} is {job}.", f"Your {said} is {job}.")
    assert replay(db, plugins=builtin_plugins()).ok


@pytest.mark.parametrize(
    ("told", "key", "value"),
    [
        ("my sister is Maya", "user/person/self/sister", "Maya"),
        ("my sister is a big fan of jazz", "user/person/self/sister", "a big fan of jazz"),
    ],
)
def test_a_relation_said_to_be_no_occupation_is_still_named(tmp_path, told, key, value):
    db = tmp_path / "agent.db"
    with open_kernel(db) as kernel:
        kernel.tick(told)
        facts = {fact.key: fact.value for fact in kernel.store.facts("user/")}
        named = kernel.tick("what is my sister's name?").final_output
    assert facts == {key: value}
    if value == "Maya":
        assert named == "Your sister is Maya."
