"""A journal that agi-core 0d8cf16 wrote with the beliefs module (tests/journals/0d8cf16/sure_about_that.jsonl:
"are you sure about that" answered "I hold no belief about that.", the sister's name labelled "the name of
sister") replays equal; the same lines told now answer about the last reply and label it "your sister's name",
recorded (``module_changed``), and that journal replays equal."""

from __future__ import annotations

import json
from pathlib import Path

import agi_plugin_beliefs.plugin as beliefs

from agi_core.modules.state import dump_state
from agi_core.replay import replay
from agi_core.testing import builtin_plugins, open_kernel, replay_journal_file

OLD = Path(__file__).resolve().parent / "journals" / "0d8cf16" / "sure_about_that.jsonl"


def _changes(row: dict) -> list[str]:
    return [m["change"] for m in row["externals"].get("module_changed", []) if m["module"] == "beliefs"]


def test_a_journal_from_before_are_you_sure_about_that_meant_the_last_reply_replays_equal(tmp_path):
    told = [json.loads(line)["record"] for line in OLD.read_text(encoding="utf-8").splitlines()]
    assert [r["final_output"] for r in told][2:] == [
        "I hold no belief about that.",
        "Got it: your sister's name is Maya.",
        "I hold no belief about your sister's name.",
        "I hold no belief about it.",
    ]
    report = replay_journal_file(OLD, beliefs=beliefs)
    assert report.ok, report.summary()

    db = tmp_path / "new.db"
    with open_kernel(db, beliefs, seed="0") as kernel:
        replies = [kernel.tick(record["input"]["raw"]).final_output for record in told]
        rows = [json.loads(row[2]) for row in kernel.store.journal_rows()]
    assert replies[2].startswith("Fairly sure (confidence 0.9): your name is Dana.")
    assert replies[4].startswith("Fairly sure (confidence 0.9): your sister's name is Maya.")
    assert replies[5].startswith("Fairly sure (confidence 0.9): your sister's name is Maya.")
    assert [_changes(row) for row in rows] == [[], [], ["last_reply"], ["relation_label"], [], ["last_reply"]]
    assert replay(db, plugins=builtin_plugins(beliefs)).ok


AFTER_STATEMENT = Path(__file__).resolve().parent / "journals" / "b754074" / "sure_after_statement.jsonl"


def test_a_journal_from_before_a_reply_rested_on_the_facts_it_wrote_replays_equal(tmp_path):
    """b754074 answered "are you sure about that" after "Got it: your favorite color is red." with "My last reply
    (…) rests on no fact I hold": that journal replays equal; told now, it answers with the belief the reply
    wrote, recorded (``last_reply_writes``), and a forget still leaves nothing to be sure about."""
    told = [json.loads(line)["record"] for line in AFTER_STATEMENT.read_text(encoding="utf-8").splitlines()]
    assert told[2]["final_output"].startswith("My last reply (“You told me earlier your favorite color was teal")
    report = replay_journal_file(AFTER_STATEMENT, beliefs=beliefs)
    assert report.ok, report.summary()

    db = tmp_path / "new.db"
    with open_kernel(db, beliefs, seed="0") as kernel:
        replies = [kernel.tick(record["input"]["raw"]).final_output for record in told]
        rows = [json.loads(row[2]) for row in kernel.store.journal_rows()]
    assert replies[2] == (
        "Fairly sure (confidence 0.9): your favorite color is red. Evidence: told by you at tick 2. "
        "Earlier: teal (you, until tick 2)."
    )
    assert replies[4] == told[4]["final_output"]  # after a forget: the reply rests on no fact
    assert [_changes(row) for row in rows] == [[], [], ["last_reply", "last_reply_writes"], [], ["last_reply"]]
    assert replay(db, plugins=builtin_plugins(beliefs)).ok


ENTITY_CASE = Path(__file__).resolve().parent / "journals" / "b754074" / "entity_case.jsonl"


def test_a_journal_from_before_names_kept_their_case_replays_its_lower_case_labels(tmp_path):
    """b754074 labelled a named thing's belief with its key's lower case ("the home of maya"); the same lines
    told now keep the case the line wrote ("the home of Maya", recorded ``entity_case``), and both journals replay
    equal."""
    told = [json.loads(line)["record"] for line in ENTITY_CASE.read_text(encoding="utf-8").splitlines()]
    assert told[1]["final_output"].startswith("Fairly sure (confidence 0.9): the home of maya is Lyon.")
    report = replay_journal_file(ENTITY_CASE, beliefs=beliefs)
    assert report.ok, report.summary()

    db = tmp_path / "new.db"
    with open_kernel(db, beliefs, seed="0") as kernel:
        replies = [kernel.tick(record["input"]["raw"]).final_output for record in told]
        rows = [json.loads(row[2]) for row in kernel.store.journal_rows()]
    assert replies[1].startswith("Fairly sure (confidence 0.9): the home of Maya is Lyon.")
    assert replies[3].startswith("Fairly sure (confidence 0.9): the location of Eiffel Tower is Paris.")
    assert [_changes(row) for row in rows] == [["entity_case"], [], ["entity_case"], []]
    assert replay(db, plugins=builtin_plugins(beliefs)).ok


TOLD_AGAIN = Path(__file__).resolve().parent / "journals" / "5fc137f" / "told_again.jsonl"


def test_a_fact_told_again_after_it_was_forgotten_is_no_change_and_a_journal_from_before_replays_its_notice(tmp_path):
    """5fc137f (tests/journals/5fc137f/told_again.jsonl) said "You told me earlier your dog's name was None; I now
    have Max." when the dog's name was told again after "forget my dog's name": it replays equal; told now, a
    forgotten value is nothing to announce (recorded: ``forgotten_facts``), and that journal replays equal."""
    told = [json.loads(line)["record"] for line in TOLD_AGAIN.read_text(encoding="utf-8").splitlines()]
    assert told[2]["final_output"].startswith("You told me earlier your dog's name was None; I now have Max.")
    report = replay_journal_file(TOLD_AGAIN, beliefs=beliefs)
    assert report.ok, report.summary()
    db = tmp_path / "new.db"
    with open_kernel(db, beliefs, seed="0") as kernel:
        replies = [kernel.tick(record["input"]["raw"]).final_output for record in told]
        rows = {row[0]: json.loads(row[2]) for row in kernel.store.journal_rows()}
    assert replies[2] == "Got it: your dog's name is Max."
    changed = {"module": "beliefs", "change": "forgotten_facts"}
    assert [tick for tick, row in rows.items() if changed in row["externals"].get("module_changed", [])] == [3]
    assert replay(db, plugins=builtin_plugins(beliefs)).ok


SURE_LIKES = Path(__file__).resolve().parent / "journals" / "5fc137f" / "sure_likes.jsonl"


def test_a_journal_from_before_likes_were_found_by_their_keys_words_replays_its_no_belief(tmp_path):
    """5fc137f answered "are you sure about my dislikes?" with "I hold no belief about your dislikes." (the belief was
    labelled "what you don't like"); that journal replays equal; told now, the belief is found by its key's words
    ("your dislikes"), recorded (``key_alias``), and that journal replays equal."""
    told = [json.loads(line)["record"] for line in SURE_LIKES.read_text(encoding="utf-8").splitlines()]
    assert [r["final_output"] for r in told][1::2] == [
        "I hold no belief about your dislikes.",
        "I hold no belief about your likes.",
    ]
    report = replay_journal_file(SURE_LIKES, beliefs=beliefs)
    assert report.ok, report.summary()

    db = tmp_path / "new.db"
    with open_kernel(db, beliefs, seed="0") as kernel:
        replies = [kernel.tick(record["input"]["raw"]).final_output for record in told]
        rows = [json.loads(row[2]) for row in kernel.store.journal_rows()]
    assert replies[1::2] == [
        "Fairly sure (confidence 0.9): what you don't like is mushrooms. Evidence: told by you at tick 1.",
        "Fairly sure (confidence 0.9): what you like is hiking. Evidence: told by you at tick 3.",
    ]
    assert [_changes(row) for row in rows] == [[], ["key_alias"], [], ["key_alias"]]
    assert replay(db, plugins=builtin_plugins(beliefs)).ok


def test_someone_elses_likes_are_their_belief(tmp_path):
    """Stage-0's ``others_likes`` stores "my sister likes tea" as a list under her key: its belief is "what your
    sister likes", not the user's "what you like"."""
    with open_kernel(tmp_path / "agent.db", beliefs, seed="0") as kernel:
        kernel.tick("my sister likes tea")
        kernel.tick("Bob doesn't like jazz")
        sure = kernel.tick("are you sure about what my sister likes?").final_output
        state = dump_state(kernel.store, "beliefs")
        labels = {key: value["label"] for key, value in state.items() if key.startswith("belief/")}
    assert labels == {
        "belief/user/relation/sister/likes": "what your sister likes",
        "belief/world/entity/bob/dislikes": "what Bob doesn't like",
    }
    assert sure.startswith("Fairly sure (confidence 0.9): what your sister likes is tea.")
