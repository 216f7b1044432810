"""A considerate speaker's openings (``agi_plugin_social.tone``), through a real kernel and SQLite file: no opening
before a farewell, a thanks-reply, a greeting or a reply that opens with an interjection; the name in at most one
reply of any ``NAME_EVERY`` turns; the same opening not in two consecutive replies. The journal agi-core 1b69924
wrote of the same lines replays as written (test_social_old_journals)."""

from __future__ import annotations

import json

import agi_plugin_social.plugin as social
from agi_plugin_social import tone

from agi_core.modules.state import dump_state
from agi_core.replay import replay
from agi_core.testing import builtin_plugins, open_kernel

CHANGED = {"module": "social", "change": tone.CONSIDERATE}
INFORMAL = ["hey lol", "my name is Dan", "my favorite color is teal", "what is my favorite color?", "what is my name?"]
FAREWELLS = ["thanks", "bye"]
STATEMENTS = ["my name is Dana", "the capital of France is Paris", "my dog is called Rex"]


def changed_ticks(kernel):
    rows = {row[0]: json.loads(row[2]) for row in kernel.store.journal_rows()}
    return [tick for tick, row in rows.items() if CHANGED in row["externals"].get("module_changed", [])]


def test_the_same_lines_now_get_an_opening_where_a_person_would_say_one(tmp_path):
    db = tmp_path / "agent.db"
    with open_kernel(db, social, seed="0") as kernel:
        informal = [kernel.tick(line, speaker="dan").final_output for line in [*INFORMAL, *FAREWELLS]]
        statements = [kernel.tick(line).final_output for line in STATEMENTS]
        state = dump_state(kernel.store, "social")
        changed = changed_ticks(kernel)
    assert informal[3:] == [
        "Sure, Dan! Your favorite color is teal.",
        "Your name is Dan.",  # "Sure" twice in a row: the second is spared
        "You’re welcome.",  # a thanks-reply, a farewell: no opening
        "Goodbye! I’ll remember what you told me.",
    ]
    assert statements == [
        "Thanks for telling me. Got it: your name is Dana.",
        "Noted: the capital of France is Paris.",  # the same opening in a row: said once
        "Got it: your dog's name is Rex.",
    ]
    assert state["tone/dan"] == {"opening": None, "turn": 7, "name_turn": 4}
    assert state["tone/user"] == {"opening": "Thanks for telling me.", "turn": 3, "name_turn": None}
    assert changed == [1, 4, 5, 6, 7, 8, 9, 10]  # asked only where a tactic added an opening (Hmm! to F3 on 1)
    assert replay(db, plugins=builtin_plugins(social)).ok


def test_the_name_is_said_at_most_once_in_name_every_turns(tmp_path):
    with open_kernel(tmp_path / "agent.db", social) as kernel:
        for line in ["hey lol", "my name is Dan"]:
            kernel.tick(line)
        # a question ("Sure, Dan!") after each statement ("Noted": no opening), so no two openings in a row
        lines = ["what is my favorite color?", "my favorite color is teal"] * 6
        replies = [kernel.tick(line).final_output for line in lines][::2]
    assert [reply.startswith("Sure") for reply in replies] == [False, True, True, True, True, True], replies
    assert ["Dan!" in reply for reply in replies] == [False, True, False, True, False, True], replies
    assert tone.NAME_EVERY == 4  # a question every other turn: the name on every other answer


def test_an_opening_is_spared_before_a_reply_that_opens_socially_or_says_no():
    greeting = "Hello! Tell me facts to remember."
    assert tone.considered(greeting, f"Certainly. {greeting}", None, 1, None)[0] == greeting
    hmm = "Hmm, I am not sure."
    assert tone.considered(hmm, f"Sure, Dan! {hmm}", "Dan", 1, None)[0] == hmm
    nothing = "I have nothing in memory that answers that."
    assert tone.considered(nothing, f"Sure, Dan! {nothing}", "Dan", 1, None)[0] == nothing
    answer = "Your favorite color is teal."
    kept, state, why = tone.considered(answer, f"Sure, Dan! {answer}", "Dan", 5, None)
    assert (kept, state, why) == (f"Sure, Dan! {answer}", {"opening": "Sure!", "turn": 5, "name_turn": 5}, "")
    assert tone.considered(answer, f"Sure, Dan! {answer}", "Dan", 7, state)[0] == f"Sure! {answer}"
    assert tone.considered(answer, f"Sure, Dan! {answer}", "Dan", 6, state)[0] == answer  # in a row
    assert tone.considered(answer, f"Dan, {answer}", "Dan", 8, state)[0] == answer  # a model's opening: the name alone
