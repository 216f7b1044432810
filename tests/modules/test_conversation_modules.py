"""The beliefs and social modules together in one scripted chat, through a real kernel and SQLite file:
the belief change notice, "are you sure about …?", register matching and de-escalation; replay equal, and
a rollback restores both modules' state. With retrieval too, an answer from memory keeps its sources."""

from __future__ import annotations

import json

import agi_plugin_beliefs.plugin as beliefs
import agi_plugin_retrieval.plugin as retrieval
import agi_plugin_social.plugin as social

from agi_core import checkpoints
from agi_core.brain.stage0.small_talk import GREETING
from agi_core.longterm import ingest_file
from agi_core.modules.state import dump_state
from agi_core.replay import replay
from agi_core.replies import F3_NO_AGENT
from agi_core.testing import builtin_plugins, open_kernel

SCRIPT = [
    ("Good afternoon.", f"Certainly. {GREETING}"),  # small talk gets R4's fixed reply, in the formal register
    ("My favorite color is teal.", "Understood: your favorite color is teal."),
    (
        "My favorite color is red.",
        "You told me earlier your favorite color was teal; I now have red. Understood: your favorite color is red.",
    ),
    (
        "Are you sure about my favourite colour?",
        "Certainly. Fairly sure (confidence 0.9): your favorite color is red. Evidence: told by you at tick 3. "
        "Earlier: teal (you, until tick 3).",
    ),
    ("you are a useless bot!!!", f"I hear your frustration. {F3_NO_AGENT}"),
]


def test_a_scripted_chat_with_both_modules_replays_equal_and_survives_rollback(tmp_path):
    db = tmp_path / "agent.db"
    with open_kernel(db, beliefs, social) as kernel:
        said = [kernel.tick(line).final_output for line, _ in SCRIPT[:3]]
        checkpoints.create(kernel, "after-red")
        saved = {name: dump_state(kernel.store, name) for name in ("beliefs", "social")}
        said += [kernel.tick(line).final_output for line, _ in SCRIPT[3:]]
        checkpoints.rollback(kernel, "after-red")
        assert {name: dump_state(kernel.store, name) for name in ("beliefs", "social")} == saved
        again = kernel.tick(SCRIPT[3][0]).final_output
    assert said == [reply for _, reply in SCRIPT]
    assert again == SCRIPT[3][1]  # the rolled-back agent answers as it did
    report = replay(db, plugins=builtin_plugins(beliefs, social))
    assert (report.ok, report.ticks) == (True, 4)  # the live journal after the rollback: 3 ticks and the new one


def test_the_three_conversation_modules_together_keep_the_citations_replay_equal_and_survive_rollback(tmp_path):
    notes = tmp_path / "notes.jsonl"
    notes.write_text(json.dumps({"text": "My sister Lena plays the cello.", "speaker": "Ann"}) + "\n")
    db = tmp_path / "agent.db"
    names = ("beliefs", "social", "retrieval")
    with open_kernel(db, beliefs, social, retrieval) as kernel:
        ingest_file(kernel.long_term, notes, progress=False)
        kernel.store.conn.commit()
        lena = kernel.long_term.search("Lena cello", 1)[0].item.id
        kernel.tick("My favorite color is teal.")
        checkpoints.create(kernel, "teal")
        saved = {name: dump_state(kernel.store, name) for name in names}
        asked = kernel.tick("What does Lena play?")
        assert dump_state(kernel.store, "retrieval") != saved["retrieval"]
        checkpoints.rollback(kernel, "teal")
        assert {name: dump_state(kernel.store, name) for name in names} == saved
        again = kernel.tick("What does Lena play?")
    assert "cello" in asked.final_output and f"[{lena}]" in asked.final_output  # social's form keeps the source
    assert again.final_output == asked.final_output
    assert {vote["vote"] for vote in again.council_votes} == {"approve"}
    assert replay(db, plugins=builtin_plugins(beliefs, social, retrieval)).ok
