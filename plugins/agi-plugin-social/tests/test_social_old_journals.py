"""A journal that agi-core 0d8cf16 wrote with the social module (tests/journals/0d8cf16/plain_meaning.jsonl:
"I like hiking" and "what do you know about me?" asked "What do you mean?") replays equal; the same lines told
now are not asked it, recorded (``module_changed``), and that journal replays equal. A journal that 1b69924
wrote (journals/1b69924/openings.jsonl: "Sure, Dan!" before every reply, "Thanks for telling me." before every
statement) replays as written (test_social_tone: the same lines now)."""

from __future__ import annotations

import json
from pathlib import Path

import agi_plugin_social.plugin as social

from agi_core.replay import replay
from agi_core.testing import builtin_plugins, open_kernel, replay_journal_file

OPENINGS = Path(__file__).resolve().parent / "journals" / "1b69924" / "openings.jsonl"
OLD = Path(__file__).resolve().parent / "journals" / "0d8cf16" / "plain_meaning.jsonl"
CHANGED = {"module": "social", "change": "plain_meaning"}
ASKED = "What do you mean?"


def test_a_journal_that_asked_what_do_you_mean_of_plain_lines_replays_equal_and_new_lines_are_not_asked(tmp_path):
    told = [json.loads(line)["record"] for line in OLD.read_text(encoding="utf-8").splitlines()]
    assert [r["input"]["raw"] for r in told] == ["I like hiking", "my name is Dana", "what do you know about me?"]
    assert [r["final_output"].endswith(ASKED) for r in told] == [True, False, True]
    report = replay_journal_file(OLD, social=social)
    assert report.ok, report.summary()

    db = tmp_path / "new.db"
    with open_kernel(db, social, seed="0") as kernel:
        replies = [kernel.tick(record["input"]["raw"]).final_output for record in told]
        rows = {row[0]: json.loads(row[2]) for row in kernel.store.journal_rows()}
    assert not any(ASKED in reply for reply in replies), replies
    # "I like hiking" is a fact now (Stage-0's likes: "Got it: you like hiking."), no F3 to ask of; the plain F3
    # line itself is covered by test_social_module's plain-statement tests
    assert replies[0].endswith("Got it: you like hiking.")
    assert [tick for tick, row in rows.items() if CHANGED in row["externals"].get("module_changed", [])] == [3]
    assert replay(db, plugins=builtin_plugins(social)).ok


def test_the_old_journal_said_an_opening_everywhere_and_replays_as_written():
    said = [json.loads(line)["record"] for line in OPENINGS.read_text(encoding="utf-8").splitlines()]
    assert [r["input"]["raw"] for r in said] == [
        "hey lol",  # as speaker dan
        "my name is Dan",
        "my favorite color is teal",
        "what is my favorite color?",
        "what is my name?",
        "thanks",
        "bye",
        "my name is Dana",  # as the user
        "the capital of France is Paris",
        "my dog is called Rex",
    ]
    replies = [r["final_output"] for r in said]
    assert [reply.startswith("Sure, Dan! ") for reply in replies[3:7]] == [True] * 4  # "Sure, Dan! Goodbye! …"
    assert [reply.startswith("Thanks for telling me. ") for reply in replies[7:]] == [True] * 3
    report = replay_journal_file(OPENINGS, social=social)
    assert report.ok, report.summary()


SHAPE = Path(__file__).resolve().parent / "journals" / "1b69924" / "shape_informal.jsonl"
MARKED = {"module": "social", "change": "marked_informal"}


def test_a_journal_that_took_lowercase_lines_for_informal_replays_as_written_and_new_lines_stay_neutral(tmp_path):
    """1b69924 took "what's my name?" (a lowercase start and a contraction, no informal marker) for the informal
    register from its third line: "Sure, Dan!". That journal replays equal; told now, the register stays neutral
    until the speaker uses an informal marker, recorded (``marked_informal``) where it differs."""
    said = [json.loads(line)["record"] for line in SHAPE.read_text(encoding="utf-8").splitlines()]
    assert [r["input"]["raw"] for r in said] == ["my name is Dan", *["what's my name?"] * 4]
    assert [r["final_output"].startswith("Sure, Dan!") for r in said] == [False, False, True, True, True]
    report = replay_journal_file(SHAPE, social=social)
    assert report.ok, report.summary()

    db = tmp_path / "new.db"
    with open_kernel(db, social, seed="0") as kernel:
        replies = [kernel.tick(record["input"]["raw"]).final_output for record in said]
        marked = kernel.tick("ok what's my name?")
        rows = {row[0]: json.loads(row[2]) for row in kernel.store.journal_rows()}
    assert replies[1:] == ["Your name is Dan."] * 4
    assert marked.final_output == "Sure, Dan! Your name is Dan."  # "ok": an informal marker
    assert [tick for tick, row in rows.items() if MARKED in row["externals"].get("module_changed", [])] == [3, 4, 5]
    assert replay(db, plugins=builtin_plugins(social)).ok


SISTER = Path(__file__).resolve().parent / "journals" / "62ee4f8" / "sister_job.jsonl"
BY_READS = {"module": "social", "change": "answered_by_reads"}


def test_a_journal_where_a_home_answered_a_job_question_replays_as_written_and_new_lines_wait_for_the_job(tmp_path):
    """62ee4f8 took "my sister lives in Paris" for the answer to "what does my sister do?" (it holds "sister").
    That journal replays equal; told now, the question waits for the fact it missed (the job), recorded
    (``answered_by_reads``) where the two ways differ."""
    said = [json.loads(line)["record"] for line in SISTER.read_text(encoding="utf-8").splitlines()]
    lines = [r["input"]["raw"] for r in said]
    assert lines == ["what does my sister do?", "my sister lives in Paris", "my sister works as a teacher"]
    old = [r["final_output"] for r in said]
    assert old[1].endswith('That answers your question "what does my sister do?".')
    assert "That answers" not in old[2]
    report = replay_journal_file(SISTER, social=social)
    assert report.ok, report.summary()

    db = tmp_path / "new.db"
    with open_kernel(db, social, seed="0") as kernel:
        replies = [kernel.tick(line).final_output for line in lines]
        rows = {row[0]: json.loads(row[2]) for row in kernel.store.journal_rows()}
    assert "That answers" not in replies[1]
    assert replies[2].endswith('That answers your question "what does my sister do?".')
    assert [tick for tick, row in rows.items() if BY_READS in row["externals"].get("module_changed", [])] == [1, 2, 3]
    assert replay(db, plugins=builtin_plugins(social)).ok
