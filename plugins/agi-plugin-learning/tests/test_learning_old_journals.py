"""A question asked again is not the user saying its answer was wrong: a journal b754074 wrote, where the council
rejected the answer at the fourth asking, replays equal; told now, the answer stands until the user says it is
wrong, recorded (``module_changed``: ``said_wrong_only``)."""

from __future__ import annotations

import json
from pathlib import Path

import agi_plugin_learning.plugin as learning

from agi_core.replay import replay
from agi_core.replies import F1_SEM_MISS
from agi_core.testing import builtin_plugins, open_kernel, replay_journal_file

ASKED_AGAIN = Path(__file__).resolve().parent / "journals" / "b754074" / "asked_again.jsonl"
ANSWER = "Your favorite color is blue."


def test_a_question_asked_again_keeps_its_answer_and_a_journal_from_before_replays_its_rejection(tmp_path):
    told = [json.loads(line)["record"] for line in ASKED_AGAIN.read_text(encoding="utf-8").splitlines()]
    assert [r["final_output"] for r in told[1:4]] == [ANSWER] * 3
    assert told[4]["final_output"] == F1_SEM_MISS  # learned_feedback rejected the answer asked for again
    report = replay_journal_file(ASKED_AGAIN, learning=learning)
    assert report.ok, report.summary()

    db = tmp_path / "new.db"
    with open_kernel(db, learning, seed="0") as kernel:
        said = [kernel.tick(record["input"]["raw"]) for record in told]
        wrong = kernel.tick("that's wrong")
        after = kernel.tick("what is my favorite color?")
        rows = {row[0]: json.loads(row[2]) for row in kernel.store.journal_rows()}
    assert [record.final_output for record in said[1:]] == [ANSWER] * 4
    assert {v["voter"]: v["vote"] for v in said[4].council_votes}["learned_feedback"] == "approve"
    assert wrong.tick == 6 and after.final_output == F1_SEM_MISS  # said wrong: the council rejects it
    changed = {"module": "learning", "change": "said_wrong_only"}
    assert [tick for tick, row in rows.items() if changed in row["externals"].get("module_changed", [])] == [5, 6]
    assert replay(db, plugins=builtin_plugins(learning)).ok
