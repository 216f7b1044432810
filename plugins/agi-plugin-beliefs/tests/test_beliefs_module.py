"""The beliefs module through a real kernel and SQLite file: every fact a belief with confidence,
evidence and history; changes said; hearsay and documents less trusted; "are you sure about X?"
answered across spellings with a claim the council checks; rollback, replay and the CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import agi_plugin_beliefs.plugin as beliefs
import jsonschema
from agi_plugin_beliefs.module import STATE_SCHEMA

from agi_core import checkpoints
from agi_core.modules.state import dump_state
from agi_core.replay import replay
from agi_core.testing import builtin_plugins, open_kernel

ROOT = Path(__file__).resolve().parents[3]
COLOR = "user/person/self/favorite_color"


def test_the_notice_names_who_said_the_old_value_and_a_new_way_of_writing_it_is_no_change(tmp_path):
    """It said "You told me earlier" to whoever spoke, and announced 72.50 KG as a change from 72.5 kg."""
    with open_kernel(tmp_path / "agent.db", beliefs) as kernel:
        kernel.tick("the capital of Peru is Lima", speaker="ann")
        own = kernel.tick("the capital of Peru is Cusco", speaker="ann")
        other = kernel.tick("the capital of Peru is Arequipa")
        back = kernel.tick("the capital of Peru is Lima", speaker="ann")
        kernel.tick("my weight is 72.5 kg")
        same = kernel.tick("My weight is 72.50 KG")
    assert own.final_output.startswith("You told me earlier the capital of Peru was Lima; I now have Cusco.")
    assert other.final_output.startswith("Ann told me earlier the capital of Peru was Cusco; I now have Arequipa.")
    assert back.final_output.startswith("My user told me earlier the capital of Peru was Arequipa; I now have Lima.")
    assert "told me earlier" not in same.final_output


def test_each_speakers_my_is_their_own_belief(tmp_path):
    """Every speaker's "my favorite color" was one belief (user/person/self): Bob's "red" was announced to
    the user as a change, and "are you sure about my favorite color?" answered anyone with it."""
    db = tmp_path / "agent.db"
    with open_kernel(db, beliefs) as kernel:
        kernel.tick("my favorite color is teal", speaker="ann")
        bobs = kernel.tick("my favorite color is red", speaker="bob")
        users = kernel.tick("my favorite color is blue")
        sure = "are you sure about my favourite colour?"
        asked = {who: kernel.tick(sure, speaker=who) for who in ("ann", "bob", None)}
        nobody = kernel.tick("are you sure about my favorite color?", speaker="carl")
        heard = kernel.tick("Dan says my favorite color is green", speaker="ann")
        belief = kernel.store.module_state_get("beliefs", "belief/user/person/ann/favorite_color")
    assert (bobs.final_output, users.final_output) == (
        "Got it: your favorite color is red.",
        "Got it: your favorite color is blue.",
    )
    assert {who: tick.final_output.split(" Evidence")[0] for who, tick in asked.items()} == {
        "ann": "Reasonably sure (confidence 0.8): your favorite color is teal.",
        "bob": "Reasonably sure (confidence 0.8): your favorite color is red.",
        None: "Fairly sure (confidence 0.9): your favorite color is blue.",
    }
    assert nobody.final_output == "I hold no belief about your favorite color."
    assert heard.final_output == (
        "Dan says your favorite color is green; I keep teal, from Ann (confidence 0.8 against 0.5)."
    )
    assert (belief["value"], [r["value"] for r in belief["rivals"]]) == ("teal", ["green"])
    assert replay(db, plugins=builtin_plugins(beliefs)).ok


def test_values_that_differ_past_six_digits_are_a_change():
    """same_value compared numbers through float's 'g' format (six significant digits): 1234567.1 and
    1234567.2 read as one value, and the change went unsaid."""
    from agi_plugin_beliefs.graph import same_value

    assert not same_value("1234567.1 dollars", "1234567.2 dollars")
    assert same_value("72.5 kg", "72.50 KG") and same_value("3", "3.0")


def test_a_changed_belief_is_said_and_the_old_value_kept_in_its_history(tmp_path):
    db = tmp_path / "agent.db"
    with open_kernel(db, beliefs) as kernel:
        first = kernel.tick("my favorite color is teal")
        changed = kernel.tick("my favorite color is red")
        again = kernel.tick("my favorite color is red")
        belief = kernel.store.module_state_get("beliefs", f"belief/{COLOR}")
    assert first.final_output == "Got it: your favorite color is teal."
    assert changed.final_output == (
        "You told me earlier your favorite color was teal; I now have red. Got it: your favorite color is red."
    )
    assert again.final_output == "Got it: your favorite color is red."  # no change, no notice
    assert (belief["value"], belief["confidence"], belief["since_tick"]) == ("red", 0.99, 2)
    assert belief["history"] == [
        {"value": "teal", "confidence": 0.9, "source": "user", "from_tick": 1, "until_tick": 2}
    ]
    assert [(e["tick"], e["source"]) for e in belief["evidence"]] == [(2, "user"), (3, "user")]
    assert replay(db, plugins=builtin_plugins(beliefs)).ok


def test_are_you_sure_answers_with_confidence_and_evidence_across_spellings_and_the_council_checks_it(tmp_path):
    with open_kernel(tmp_path / "agent.db", beliefs) as kernel:
        kernel.tick("my favorite color is teal")
        kernel.tick("my favorite color is red")
        kernel.tick("the capital of France is Paris")
        sure = kernel.tick("are you sure about my favourite colour?")
        france = kernel.tick("Are you sure about the capital of FRANCE?")
        unknown = kernel.tick("are you sure about my dog?")
    assert sure.final_output == (
        "Fairly sure (confidence 0.9): your favorite color is red. Evidence: told by you at tick 2. "
        "Earlier: teal (you, until tick 2)."
    )
    assert sure.router_decision.agent == "module:beliefs"
    assert [(c["key"], c["value"]) for c in sure.claims] == [(COLOR, "red")]
    assert sure.claims[0]["evidence"] in [item["id"] for item in sure.evidence_items]
    assert {v["vote"] for v in sure.council_votes} == {"approve"}
    assert france.final_output.startswith("Fairly sure (confidence 0.9): the capital of France is Paris.")
    assert unknown.final_output == "I hold no belief about your dog."
    tick_beliefs = [b for b in sure.beliefs.facts if b.get("source") == "module:beliefs"]
    assert tick_beliefs == [{"key": COLOR, "value": "red", "confidence": 0.9, "source": "module:beliefs"}]


def test_hearsay_and_documents_get_less_confidence_than_the_user_and_never_displace_a_surer_belief(tmp_path):
    with open_kernel(tmp_path / "agent.db", beliefs) as kernel:
        kernel.tick("my favorite color is red")
        heard = kernel.tick("Bob says my favorite color is blue")
        kernel.tick("according to Alice, my favorite food is soup")
        kernel.tick("the capital of Spain is Madrid", metadata={"document": "atlas.txt"})
        state = dump_state(kernel.store, "beliefs")
    assert (
        heard.final_output == "Bob says your favorite color is blue; I keep red, from you (confidence 0.9 against 0.5)."
    )
    color = state[f"belief/{COLOR}"]
    assert (color["value"], color["confidence"]) == ("red", 0.9)
    assert color["rivals"] == [{"value": "blue", "source": "hearsay:bob", "confidence": 0.5, "tick": 2}]
    food = state["belief/user/person/self/favorite_food"]
    assert (food["value"], food["confidence"], food["source"]) == ("soup", 0.5, "hearsay:alice")
    spain = state["belief/world/entity/spain/capital"]
    assert (spain["value"], spain["confidence"], spain["source"]) == ("Madrid", 0.6, "document:atlas.txt")
    assert {r["name"] for r in state["ontology"]["relations"]} == {"favorite_color", "favorite_food", "capital"}
    jsonschema.Draft202012Validator(STATE_SCHEMA).validate(state)


def test_beliefs_survive_rollback_and_replay_equal(tmp_path):
    db = tmp_path / "agent.db"
    with open_kernel(db, beliefs) as kernel:
        kernel.tick("my favorite color is teal")
        checkpoints.create(kernel, "teal")
        saved = dump_state(kernel.store, "beliefs")
        kernel.tick("my favorite color is red")
        assert dump_state(kernel.store, "beliefs") != saved
        checkpoints.rollback(kernel, "teal")
        assert dump_state(kernel.store, "beliefs") == saved
        again = kernel.tick("my favorite color is green")
    assert again.final_output.startswith("You told me earlier your favorite color was teal; I now have green.")
    assert replay(db, plugins=builtin_plugins(beliefs)).ok


def test_agi_modules_show_beliefs_prints_the_graph(tmp_path):
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "plugins" / "agi-plugin-beliefs")]),
        "AGI_LOAD_PLUGINS": "beliefs",
    }
    db = str(tmp_path / "agent.db")

    def agi(*args, stdin=""):
        done = subprocess.run(
            [sys.executable, "-m", "agi_core", "--db", db, *args], input=stdin, env=env, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    said = agi("run", stdin="my favorite color is teal\nmy favorite color is red\n").splitlines()
    assert (
        said[-1]
        == "You told me earlier your favorite color was teal; I now have red. Got it: your favorite color is red."
    )
    shown = json.loads(agi("modules", "show", "beliefs", "--json"))
    assert shown[f"belief/{COLOR}"]["history"][0]["value"] == "teal"
    jsonschema.Draft202012Validator(STATE_SCHEMA).validate(shown)


def test_a_forgotten_fact_is_not_announced_as_a_changed_belief(tmp_path):
    with open_kernel(tmp_path / "a.db", beliefs) as kernel:
        kernel.tick("my favorite color is teal")
        assert kernel.tick("forget my favorite color").final_output == "Done: I forgot your favorite color."


def test_are_you_sure_without_its_question_mark_is_the_same_question(tmp_path):
    """Without the "?", "are you sure about who wrote Hamlet" was a statement: Stage-0 stored "are you sure
    about who" as Hamlet's author (and the beliefs module announced the change); "…my dog!" echoed the "!"."""
    db = tmp_path / "agent.db"
    with open_kernel(db, beliefs) as kernel:
        kernel.tick("Shakespeare wrote Hamlet")
        kernel.tick("my favorite color is teal")
        asked = [
            "are you sure about who wrote Hamlet",
            "r u certain of my favourite colour",
            "are you sure about the capital of France is Lyon",
            "are you sure about my dog",
        ]
        replies = {}
        for line in asked:
            for end in ("?", "", "!", "?!", "..."):
                tick = kernel.tick(line + end)
                replies.setdefault(line, set()).add(
                    (tick.router_decision.agent, tick.final_output, len(tick.sem_writes))
                )
        author = kernel.get_fact("world/entity/hamlet/author").value
    assert {line: len(seen) for line, seen in replies.items()} == dict.fromkeys(asked, 1)
    assert [next(iter(seen)) for seen in replies.values()] == [
        ("knowledge_agent", "The author of Hamlet is Shakespeare.", 0),
        (
            "module:beliefs",
            "Fairly sure (confidence 0.9): your favorite color is teal. Evidence: told by you at tick 2.",
            0,
        ),
        ("module:beliefs", "I hold no belief about the capital of France is Lyon.", 0),
        ("module:beliefs", "I hold no belief about your dog.", 0),
    ]
    assert author == "Shakespeare"
    assert replay(db, plugins=builtin_plugins(beliefs)).ok


def test_are_you_sure_about_that_means_the_agents_last_reply(tmp_path):
    """ "are you sure about that" right after an answer said "I hold no belief about that.": "that" was
    linked as a belief's name. It is the last reply: the beliefs its claims cite, each fact read again and
    cited (the council approves); a reply that rests on no fact says so."""
    from agi_core.replies import F3_NOTED_NOT_STORED

    db = tmp_path / "agent.db"
    with open_kernel(db, beliefs) as kernel:
        kernel.tick("my sister is called Maya")
        kernel.tick("Maya lives in Lyon")
        kernel.tick("where does my sister live?")
        sure = kernel.tick("are you sure about that")
        kernel.tick("my dog barks at night")  # stored as no fact
        plain = kernel.tick("are you sure about it?")
    assert sure.final_output == (
        "Fairly sure (confidence 0.9): your sister's name is Maya. Evidence: told by you at tick 1. "
        "Fairly sure (confidence 0.9): the home of Maya is Lyon. Evidence: told by you at tick 2."
    )
    assert [c["key"] for c in sure.claims] == ["user/relation/sister/name", "world/entity/maya/home"]
    assert {v["vote"] for v in sure.council_votes} == {"approve"}
    assert (
        plain.final_output
        == f"My last reply (“{F3_NOTED_NOT_STORED}”) rests on no fact I hold, so I hold no belief about it."
    )
    assert replay(db, plugins=builtin_plugins(beliefs)).ok


def test_a_named_things_belief_keeps_the_case_the_user_wrote(tmp_path):
    """A belief's label came from its key, lower case: "the location of paris", "the capital of new york"."""
    from agi_plugin_beliefs.module import written_name

    with open_kernel(tmp_path / "agent.db", beliefs) as kernel:
        kernel.tick("Paris is in France")
        kernel.tick("the capital of New York is Albany")  # a statement's own label, as before
        kernel.tick("Albany is in New York State")
        kernel.tick("Shakespeare wrote Hamlet")
        mentions = (
            "the location of paris",
            "the capital of new york",
            "the location of Albany",
            "the author of hamlet",
        )
        asked = [kernel.tick(f"are you sure about {what}?").final_output.split(" Evidence")[0] for what in mentions]
    assert asked == [
        "Fairly sure (confidence 0.9): the location of Paris is France.",
        "Fairly sure (confidence 0.9): the capital of New York is Albany.",
        "Fairly sure (confidence 0.9): the location of Albany is New York State.",
        "Fairly sure (confidence 0.9): the author of Hamlet is Shakespeare.",
    ]
    assert written_name("eiffel_tower", "I saw the EIFFEL-tower!") == "EIFFEL-tower"
    assert written_name("z_rich", "Zürich is lovely") == "Zürich"
    assert written_name("paris", "Parisians are kind") is None


def test_a_like_taken_back_is_said_and_a_like_added_is_not(tmp_path):
    """Stage-0's likes are one list per user (user/person/self/likes): a thing added is no contradiction, a thing
    that leaves it ("I don't like hiking anymore") is said, and "are you sure about what I like?" answers."""
    db = tmp_path / "agent.db"
    with open_kernel(db, beliefs) as kernel:
        kernel.tick("I like hiking")
        added = kernel.tick("I love jazz")
        taken = kernel.tick("I don't like hiking anymore")
        sure = kernel.tick("are you sure about what I like?")
        not_liked = kernel.tick("are you sure about what I don't like?")
        back = kernel.tick("I like hiking again")
    assert added.final_output == "Got it: you like jazz."
    assert taken.final_output == "You told me earlier you liked hiking; now you don't. Got it: you don't like hiking."
    assert sure.final_output == (
        "Fairly sure (confidence 0.9): what you like is jazz. Evidence: told by you at tick 3. "
        "Earlier: hiking and jazz (you, until tick 3)."
    )
    assert not_liked.final_output.startswith("Fairly sure (confidence 0.9): what you don't like is hiking.")
    assert [v["vote"] for v in sure.council_votes] == ["approve", "approve"]
    assert back.final_output == "You told me earlier you did not like hiking; now you do. Got it: you like hiking."
    assert replay(db, plugins=builtin_plugins(beliefs)).ok


def test_a_forgotten_fact_is_said_forgotten_and_its_value_from_before_the_forget_never_again(tmp_path):
    """After "forget my dog's name", "are you sure about my dog's name?" said "… your dog's name is None. …
    Earlier: Rex …", and the name told again was announced "You told me earlier your dog's name was None"."""
    db = tmp_path / "agent.db"
    with open_kernel(db, beliefs) as kernel:
        kernel.tick("my dog is called Rex")
        kernel.tick("forget my dog's name")
        forgotten = kernel.tick("are you sure about my dog's name?")
        again = kernel.tick("my dog is called Max")
        sure = kernel.tick("are you sure about my dog's name?")
        kernel.tick("my dog is called Bo")
        changed = kernel.tick("are you sure about my dog's name?")
    assert forgotten.final_output == "You asked me to forget your dog's name, so I hold nothing about it."
    assert again.final_output == "Got it: your dog's name is Max."
    assert "Max" in sure.final_output and "Rex" not in sure.final_output and "None" not in sure.final_output
    assert "Earlier: Max" in changed.final_output
    assert replay(db, plugins=builtin_plugins(beliefs)).ok


def test_a_like_forgotten_is_no_change_of_mind(tmp_path):
    """ "forget that I like hiking" takes hiking off the likes (Stage-0's ``forget_more``): it was announced as a
    change of mind ("You told me earlier you liked hiking; now you don't."), though the user only asked to forget."""
    db = tmp_path / "agent.db"
    with open_kernel(db, beliefs) as kernel:
        kernel.tick("I like hiking and jazz")
        forgot = kernel.tick("forget that I like hiking")
        taken = kernel.tick("I don't like jazz anymore")
    assert forgot.final_output == "Done: I forgot that you like hiking."
    assert taken.final_output.startswith("You told me earlier you liked jazz; now you don't.")
    assert replay(db, plugins=builtin_plugins(beliefs)).ok
