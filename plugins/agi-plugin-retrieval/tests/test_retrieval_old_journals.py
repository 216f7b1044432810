"""A journal that agi-core 0d8cf16 wrote with the retrieval module (tests/journals/0d8cf16/answers.jsonl: its
answers from memory as a span, from a fact as the value) replays equal now that answers are sentences; the
same lines told now are answered in sentences, recorded (``module_changed``), and that journal replays equal."""

from __future__ import annotations

import json
from pathlib import Path

import agi_plugin_retrieval.plugin as retrieval
from agi_plugin_retrieval.module import NOTHING

from agi_core.replay import replay
from agi_core.replies import F1_SEM_MISS
from agi_core.testing import builtin_plugins, open_kernel, replay_journal_file

OLD = Path(__file__).resolve().parent / "journals" / "0d8cf16" / "answers.jsonl"
CHANGED = {"module": "retrieval", "change": "answer_as_sentence"}


def test_a_journal_from_before_answers_as_sentences_replays_equal_and_the_same_lines_now_get_sentences(tmp_path):
    told = [json.loads(line)["record"] for line in OLD.read_text(encoding="utf-8").splitlines()]
    assert told[2]["final_output"].startswith("sister called [ltm-")  # "who is Maya?": the span
    assert told[5]["final_output"].startswith("Tokyo [fact world/entity/japan/capital]")  # a fact: its value
    report = replay_journal_file(OLD, retrieval=retrieval)
    assert report.ok, report.summary()

    db = tmp_path / "new.db"
    with open_kernel(db, retrieval, seed="0") as kernel:
        replies = [kernel.tick(record["input"]["raw"]).final_output for record in told]
        rows = {row[0]: json.loads(row[2]) for row in kernel.store.journal_rows()}
    assert replies[2].startswith("You told me “my sister is called Maya” and “Maya lives in Lyon”. [ltm-")
    assert replies[5].startswith("The capital of Japan is Tokyo. [fact world/entity/japan/capital]")
    assert [tick for tick, row in rows.items() if CHANGED in row["externals"].get("module_changed", [])] == [3, 6]
    assert replay(db, plugins=builtin_plugins(retrieval)).ok


TALKED = Path(__file__).resolve().parent / "journals" / "b754074" / "talked_about.jsonl"


def test_what_have_we_talked_about_is_drawn_in_the_tick_and_a_journal_from_before_replays_equal(tmp_path):
    """A chat has no idle tick, so b754074 answered "what have we talked about?" with "I have not put our
    conversation together yet." (the upkeep had drawn no digest): that journal replays equal; told now, the
    digest is drawn in the tick from what the user said, recorded (``talked_about_now``), and replays equal."""
    from agi_plugin_retrieval.module import NO_DIGEST

    told = [json.loads(line)["record"] for line in TALKED.read_text(encoding="utf-8").splitlines()]
    assert told[2]["final_output"] == NO_DIGEST
    report = replay_journal_file(TALKED, retrieval=retrieval)
    assert report.ok, report.summary()

    db = tmp_path / "new.db"
    with open_kernel(db, retrieval, seed="0") as kernel:
        early = kernel.tick("what have we talked about?").final_output  # nothing said yet: nothing to draw
        replies = [kernel.tick(record["input"]["raw"]).final_output for record in told]
        rows = {row[0]: json.loads(row[2]) for row in kernel.store.journal_rows()}
    assert early == NO_DIGEST
    assert replies[2].startswith("We talked about ")
    assert "I live in Lisbon" in replies[2] and "My brother Tom lives in Porto" in replies[2]
    now = {"module": "retrieval", "change": "talked_about_now"}
    assert [tick for tick, row in rows.items() if now in row["externals"].get("module_changed", [])] == [4]
    assert replay(db, plugins=builtin_plugins(retrieval)).ok


SPEAKERS = Path(__file__).resolve().parent / "journals" / "b754074" / "speakers.jsonl"
OWNED = {"module": "retrieval", "change": "owned_facts"}


def test_a_journal_from_before_owned_facts_replays_its_episode_answer_and_the_same_lines_now_get_the_fact(tmp_path):
    """b754074 (tests/journals/b754074/speakers.jsonl): bob said his sister lives in Paris, then Rome; "where does
    bob's sister live?" was answered from the Paris episode, the lookup of current facts never matching
    ``user/relation/bob__sister/home``. That journal replays equal; the same lines told now are answered from the
    fact (Stage-0 now reads "bob's sister" too; the module's candidate is the fact, recorded as ``module_changed``
    ``owned_facts``), and that journal replays equal."""
    told = [json.loads(line)["record"] for line in SPEAKERS.read_text(encoding="utf-8").splitlines()]
    assert told[2]["input"]["raw"] == "where does bob's sister live?"
    assert told[2]["final_output"].startswith("Bob said “my sister lives in Paris”. [ltm-")
    report = replay_journal_file(SPEAKERS, retrieval=retrieval)
    assert report.ok, report.summary()

    db = tmp_path / "new.db"
    with open_kernel(db, retrieval, seed="0") as kernel:
        replies = [kernel.tick(r["input"]["raw"], speaker=r["input"].get("speaker")).final_output for r in told]
        rows = {row[0]: json.loads(row[2]) for row in kernel.store.journal_rows()}
    assert replies[2] == "Bob's sister's home is Rome."
    candidate = rows[3]["modules"]["calls"]
    assert "Bob's sister's home is Rome. [fact user/relation/bob__sister/home]" in json.dumps(candidate)
    assert replies[3] == told[3]["final_output"]  # the user's own sister: none stored, bob's is not theirs
    assert [tick for tick, row in rows.items() if OWNED in row["externals"].get("module_changed", [])] == [3]
    assert replay(db, plugins=builtin_plugins(retrieval)).ok


OWNERS = Path(__file__).resolve().parent / "journals" / "5fc137f" / "owners_relation.jsonl"


def test_a_journal_from_before_owners_relations_were_kept_apart_replays_the_memory_it_cited(tmp_path):
    """5fc137f (``agi run --speaker bob``: "my sister lives in Paris"; then the user: "where does alice's sister
    live?", "do you recall where alice's sister lives?") answered both from bob's memory of his own sister: that
    journal replays equal; told now, neither cites it, recorded (``owners_relation``)."""
    told = [json.loads(line)["record"] for line in OWNERS.read_text(encoding="utf-8").splitlines()]
    assert all(r["final_output"].startswith("Bob said “my sister lives in Paris”. [ltm-") for r in told[1:])
    report = replay_journal_file(OWNERS, retrieval=retrieval)
    assert report.ok, report.summary()

    db = tmp_path / "new.db"
    with open_kernel(db, retrieval, seed="0") as kernel:
        replies = [kernel.tick(r["input"]["raw"], speaker=r["input"].get("speaker")).final_output for r in told]
        rows = {row[0]: json.loads(row[2]) for row in kernel.store.journal_rows()}
    assert replies[1:] == [F1_SEM_MISS, NOTHING]
    now = {"module": "retrieval", "change": "owners_relation"}
    assert [tick for tick, row in rows.items() if now in row["externals"].get("module_changed", [])] == [2, 3]
    assert replay(db, plugins=builtin_plugins(retrieval)).ok
