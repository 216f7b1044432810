"""A journal that agi-core 0d8cf16 wrote with the retrieval module (tests/journals/0d8cf16/answers.jsonl: its
answers from memory as a span, from a fact as the value) replays equal now that answers are sentences; the
same lines told now are answered in sentences, recorded (``module_changed``), and that journal replays equal."""

from __future__ import annotations

import json
from pathlib import Path

import agi_plugin_retrieval.plugin as retrieval

from agi_core.replay import replay
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
