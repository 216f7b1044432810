"""The beliefs and social modules together in one scripted chat, through a real kernel and SQLite file:
the belief change notice, "are you sure about …?", register matching and de-escalation; replay equal, and
a rollback restores both modules' state. With retrieval too, an answer from memory keeps its sources. With
autonomy, a reply asks one follow-up question at most."""

from __future__ import annotations

import json

import agi_plugin_autonomy.plugin as autonomy
import agi_plugin_beliefs.plugin as beliefs
import agi_plugin_retrieval.plugin as retrieval
import agi_plugin_social.plugin as social

from agi_core import checkpoints
from agi_core.brain.stage0.small_talk import GREETING
from agi_core.hookspecs import hookimpl
from agi_core.longterm import ingest_file
from agi_core.modules import CognitiveModule, Draft, ModuleContext, Revision
from agi_core.modules.state import dump_state
from agi_core.replay import replay
from agi_core.replies import F3_NO_AGENT
from agi_core.scheduling.clock import PinnedClock, SimulatedClock
from agi_core.settings.schema import env_name
from agi_core.testing import builtin_plugins, open_kernel

SCRIPT = [
    ("Good afternoon.", GREETING),  # small talk gets R4's fixed reply, which greets already: no "Certainly."
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


class Aside(CognitiveModule):
    """Revises before social and autonomy: asks a question in the middle of the reply to "the sea is blue"."""

    name, priority = "aside", 100

    def revise(self, ctx: ModuleContext, draft: Draft) -> Revision | None:
        if draft.action.type == "response" and ctx.text == "the sea is blue":
            return Revision.rewrite(f"{draft.reply} Is it blue where you are? I like the sea.", "asks aside")
        return None


class AsidePlugin:
    @hookimpl
    def agi_register_modules(self, register):
        register(Aside())


def test_a_reply_asks_one_follow_up_question_at_most(tmp_path, monkeypatch):
    """social's clarify adds no question to a reply that asks one already: autonomy's at the end, or another
    module's in the middle; a reply without one still gets it."""
    monkeypatch.setenv(env_name("autonomy", "idle_after_s"), "0")
    db, plugins = tmp_path / "agent.db", (autonomy, social, AsidePlugin())
    with open_kernel(db, *plugins, clock=PinnedClock(SimulatedClock(1_795_000_000_000))) as kernel:
        kernel.tick("my sister Maya is coming over")
        kernel.maintain()  # autonomy proposes its question, social draws the conversation's follow-up
        back = kernel.tick("hello again")
        aside = kernel.tick("the sea is blue")
        plain = kernel.tick("the sky is green")
    assert back.final_output == f"Hello! {F3_NO_AGENT} You mentioned your sister Maya. What does Maya do for a living?"
    assert aside.final_output == f"{F3_NO_AGENT} Is it blue where you are? I like the sea."
    assert plain.final_output == f"{F3_NO_AGENT} Would you like to tell me more about your sister?"  # clarify
    assert replay(db, plugins=builtin_plugins(*plugins)).ok
