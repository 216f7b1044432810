"""After "forget my dog's name" nothing answers the dog's name again until it is told again: not the rule (F1), not
the retrieval module from the memory of the line that told it, however the question is put. A journal from before
(tests/journals/5fc137f/forgotten.jsonl: the module answered "Rex" after the forget) replays as it was written."""

from __future__ import annotations

import json
from pathlib import Path

import agi_plugin_retrieval.plugin as retrieval

from agi_core.modules.state import dump_state
from agi_core.replay import replay
from agi_core.replies import F1_SEM_MISS
from agi_core.testing import builtin_plugins, open_kernel, replay_journal_file

OLD = Path(__file__).resolve().parent / "journals" / "5fc137f" / "forgotten.jsonl"


def test_a_forgotten_fact_is_answered_by_nothing_until_it_is_told_again(tmp_path):
    db = tmp_path / "agent.db"
    with open_kernel(db, retrieval) as kernel:
        kernel.tick("my dog is called Rex")
        kernel.tick("my sister lives in Lyon")
        kernel.tick("forget my dog's name")
        asked = kernel.tick("what is my dog called?")  # the rule read the forgotten key: its F1 stands
        said = kernel.tick("what did I say my dog was called?")  # no rule: the memory that told it is not cited
        about = kernel.tick("what do you remember about my dog?")
        sister = kernel.tick("what did I say about where my sister lives?")  # a fact not forgotten: still cited
        kernel.tick("my dog is called Max")
        again = kernel.tick("what is my dog called?")
    assert asked.final_output == F1_SEM_MISS
    assert asked.router_decision.agent == "profile_agent"
    assert "Rex" not in said.final_output and "Rex" not in about.final_output
    assert "Lyon" in sister.final_output
    assert "Max" in again.final_output
    assert replay(db, plugins=builtin_plugins(retrieval)).ok


def test_a_journal_from_before_replays_its_answers_from_the_forgotten_line_and_the_lines_now_get_none(tmp_path):
    told = [json.loads(line)["record"] for line in OLD.read_text(encoding="utf-8").splitlines()]
    assert told[2]["input"]["raw"] == "what is my dog called?"
    assert told[2]["final_output"].startswith("You told me “my dog is called Rex”. [ltm-")
    report = replay_journal_file(OLD, retrieval=retrieval)
    assert report.ok, report.summary()

    db = tmp_path / "new.db"
    with open_kernel(db, retrieval, seed="0") as kernel:
        replies = [kernel.tick(record["input"]["raw"]).final_output for record in told]
        rows = {row[0]: json.loads(row[2]) for row in kernel.store.journal_rows()}
    assert replies[2] == F1_SEM_MISS
    assert not any("Rex" in reply for reply in replies[2:5])
    assert replies[-1] == "Your dog's name is Max."
    unsaid = {"module": "retrieval", "change": "forgotten_unsaid"}
    unsaid_at = [tick for tick, row in rows.items() if unsaid in row["externals"].get("module_changed", [])]
    assert unsaid_at == [3, 4, 5, 7]  # 7: the ask to forget, recalled, is left out too
    assert replay(db, plugins=builtin_plugins(retrieval)).ok


def test_what_we_talked_about_leaves_out_what_was_forgotten(tmp_path):
    """The digest of what was talked about quoted "my dog is called Rex" after the forget, drawn in the tick and by
    the idle upkeep alike; a digest the upkeep drew before the forget is not said after it."""
    db, now = tmp_path / "agent.db", [1_700_000_000_000]
    with open_kernel(db, retrieval, clock=lambda: now[0]) as kernel:
        kernel.tick("my dog is called Rex")
        kernel.tick("my sister lives in Lyon")
        kernel.maintain()  # the upkeep's digest, drawn before the forget
        kernel.tick("forget my dog's name")
        talked = kernel.tick("what have we talked about?")
        now[0] += 24 * 3600 * 1000  # a day later: the upkeep is due again
        kernel.maintain()
        digest = json.dumps(dump_state(kernel.store, "retrieval")["digest"])
        again = kernel.tick("what have we talked about?")
    assert "Lyon" in talked.final_output and "Rex" not in talked.final_output
    assert "Lyon" in again.final_output and "Rex" not in again.final_output
    assert "Rex" not in digest
    assert replay(db, plugins=builtin_plugins(retrieval)).ok
