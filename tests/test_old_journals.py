"""Journals that agi-core 0d8cf16 wrote (tests/journals/0d8cf16) replay equal after Stage-0's changes since,
and the same lines told now get the new behaviour, recorded so that their journal replays equal too."""

from __future__ import annotations

import json
from pathlib import Path

from agi_core.replay import replay
from agi_core.testing import open_kernel, replay_journal_file

OLD = Path(__file__).resolve().parent / "journals" / "0d8cf16"


def _told(path: Path) -> list[tuple[str, str]]:
    """Each tick's input and reply, as the journal recorded them."""
    records = [json.loads(line)["record"] for line in path.read_text(encoding="utf-8").splitlines()]
    return [(r["input"]["raw"], r["final_output"]) for r in records]


def _new_journal(tmp_path: Path, lines: list[str]) -> tuple[list[str], list[dict[str, list[object]]]]:
    """Tell ``lines`` to a new agent: its replies and each tick's externals; its replay is equal."""
    db = tmp_path / "new.db"
    with open_kernel(db, seed="0") as kernel:
        records = [kernel.tick(line) for line in lines]
        rows = {row[0]: json.loads(row[2]) for row in kernel.store.journal_rows()}
        externals = [rows[r.tick]["externals"] for r in records]
    assert replay(db).ok
    return [r.final_output for r in records], externals


def test_a_journal_from_before_the_relation_hop_replays_its_f1(tmp_path):
    """0d8cf16 answered "where does my sister live?" F1 with the sister's name and Maya's home stored."""
    told = _told(OLD / "relation_hop.jsonl")
    assert told[-1] == ("where does my sister live?", "I don’t have this information stored yet.")
    report = replay_journal_file(OLD / "relation_hop.jsonl")
    assert report.ok, report.summary()
    replies, externals = _new_journal(tmp_path, [line for line, _ in told])
    assert replies[-1] == "Your sister Maya lives in Lyon."
    assert externals[-1]["relation_hop"] == [True] and "relation_hop" not in externals[0]


def test_a_journal_from_before_the_greeting_and_i_am_rules_and_the_others_possessive_replays_as_read_then(tmp_path):
    """0d8cf16 read "hi, I am Dana" and "I'm Dana" as nothing, "hello" as no filler and "Your sister's home is
    Lyon." as a thing's fact; lines no change reads otherwise record no external."""
    told = _told(OLD / "parse_rules.jsonl")
    assert told[0] == ("hi, I am Dana", "I currently don’t have a module for this type of request.")
    assert told[7] == ("Your sister's home is Lyon.", "Noted: the home of Your sister is Lyon.")
    report = replay_journal_file(OLD / "parse_rules.jsonl")
    assert report.ok, report.summary()
    replies, externals = _new_journal(tmp_path, [line for line, _ in told])
    assert replies[0] == "Got it: your name is Dana." and replies[-1] == "Your name is Dana."
    assert replies[7] == "I currently don’t have a module for this type of request."
    assert externals[0]["parse_rules"] == [["others_possessive", "said_name"]]
    assert "parse_rules" not in externals[1] and "parse_rules" not in externals[2]  # "I am tired" read alike


def test_a_journal_that_recorded_others_possessive_before_parse_rules_replays_as_read_then():
    """f58e21c (the others_possessive change, before the greeting and "I am" rules) recorded the
    ``others_possessive`` external where "your sister" read otherwise, and read "hi, I am Dana" as nothing: a tick
    that holds that external reads with that one change, any other as 0d8cf16 did."""
    path = Path(__file__).resolve().parent / "journals" / "f58e21c" / "others_possessive.jsonl"
    told = _told(path)
    assert told[2] == ("hi, I am Dana", "I currently don’t have a module for this type of request.")
    assert told[4] == ("his dog is called Rex", "I currently don’t have a module for this type of request.")
    report = replay_journal_file(path)
    assert report.ok, report.summary()
