"""The retrieval module through a real kernel, SQLite file and MiniLM model: questions answered from
long-term memory with their sources cited (LoCoMo ``[D1:3]`` or the memory id), dates resolved
against the day an item was said, nothing invented without evidence, citations the council checks,
"what do you remember about X?", state schema, rollback, replay and the CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import date
from pathlib import Path

import agi_plugin_retrieval.plugin as retrieval
import jsonschema
import pytest
from agi_plugin_retrieval.answering import names_what_is_asked, of_another, relation_owners, resolve_date, span
from agi_plugin_retrieval.module import NOTHING, STATE_SCHEMA

from agi_core import checkpoints
from agi_core.council import convene
from agi_core.longterm import ingest_file
from agi_core.modules.state import dump_state
from agi_core.replay import replay
from agi_core.replies import F1_SEM_MISS
from agi_core.testing import builtin_plugins, open_kernel

ROOT = Path(__file__).resolve().parents[3]
LOCOMO = Path(os.environ.get("AGI_LOCOMO_DIR", ROOT.parent / "shared" / "data" / "locomo")) / "conv-26.json"


@pytest.fixture
def conv26() -> Path:
    if not LOCOMO.exists():
        pytest.skip(f"LoCoMo data not found at {LOCOMO} (shared/data/locomo beside the repository, or AGI_LOCOMO_DIR)")
    return LOCOMO


def diary(tmp_path: Path) -> Path:
    path = tmp_path / "diary.jsonl"
    lines = [
        {"text": "I went hiking in the Alps last week.", "speaker": "Ann", "timestamp": "2023-06-13T10:00:00"},
        {"text": "My sister Lena plays the cello in an orchestra.", "speaker": "Ann", "timestamp": "2023-06-14"},
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def test_a_question_is_answered_from_locomo_with_its_evidence_turn_cited_and_the_council_approves(tmp_path, conv26):
    db = tmp_path / "agent.db"
    with open_kernel(db, retrieval) as kernel:
        ingest_file(kernel.long_term, conv26, format="locomo", progress=False)
        kernel.store.conn.commit()
        when = kernel.tick("When did Caroline go to the LGBTQ support group?")
        what = kernel.tick("What did Caroline research?")
        rule = kernel.tick("2 + 3")
    assert when.final_output.startswith(
        "7 May 2023 (on 8 May 2023, Caroline said “I went to a LGBTQ support group yesterday"
    )
    assert "[D1:3]" in when.final_output  # the day D1 was said, its turn cited first
    assert when.router_decision.agent == "module:retrieval"
    assert "[D2:8]" in what.final_output
    for record in (when, what):
        cited = record.final_output.count("[")
        assert 1 <= cited <= 3 and len(record.claims) == cited
        recalled = {item["id"] for item in record.evidence_items if item["source"] == "ltm"}
        assert {claim["evidence"] for claim in record.claims} <= recalled
        assert {vote["vote"] for vote in record.council_votes} == {"approve"}
    assert rule.final_output == "2 + 3 = 5"  # a rule's answer wins
    assert replay(db, plugins=builtin_plugins(retrieval)).ok


def test_a_citation_of_a_memory_not_recalled_this_tick_is_rejected_by_the_council(tmp_path, conv26):
    with open_kernel(tmp_path / "agent.db", retrieval) as kernel:
        ingest_file(kernel.long_term, conv26, format="locomo", progress=False)
        kernel.store.conn.commit()
        first = kernel.tick("What did Caroline research?")
        other = kernel.tick("When did Melanie paint a sunrise?")
    stale = [c for c in first.claims if c["evidence"] not in {e["id"] for e in other.evidence_items}]
    assert stale
    final, votes = convene(other.final_output, stale, other.evidence_items)
    assert final != other.final_output
    assert {v["voter"]: v["vote"] for v in votes}["evidence_check"] == "reject"


def test_dates_are_resolved_against_the_day_the_memory_was_said_and_cited_by_memory_id(tmp_path):
    assert resolve_date("I went there last week.", date(2023, 6, 13)) == "the week of 6 June 2023"
    assert resolve_date("Yesterday was fun", date(2023, 6, 13)) == "12 June 2023"
    assert resolve_date("We met there.", date(2023, 6, 13)) == "13 June 2023"
    with open_kernel(tmp_path / "agent.db", retrieval) as kernel:
        ingest_file(kernel.long_term, diary(tmp_path), progress=False)
        kernel.store.conn.commit()
        hiking = kernel.long_term.search("hiking in the Alps", 1)[0].item.id
        when = kernel.tick("When did Ann go hiking in the Alps?")
    assert when.final_output == (
        f"the week of 6 June 2023 (on 13 June 2023, Ann said “I went hiking in the Alps last week.”). [{hiking}]"
    )


def test_with_no_memory_close_enough_it_says_so_and_invents_nothing(tmp_path):
    with open_kernel(tmp_path / "agent.db", retrieval) as kernel:
        empty = kernel.tick("Which band played at the harbour festival?")
        ingest_file(kernel.long_term, diary(tmp_path), progress=False)
        kernel.store.conn.commit()
        far = kernel.tick("How many goals did the striker score?")
        state = dump_state(kernel.store, "retrieval")
    assert empty.final_output == far.final_output == NOTHING
    assert far.claims == []
    assert state["refused"] == 2 and state["last"]["why"] == "no memory close enough"


def test_what_do_you_remember_about_x_lists_facts_and_memories_with_sources(tmp_path):
    with open_kernel(tmp_path / "agent.db", retrieval) as kernel:
        kernel.tick("the capital of France is Paris")
        ingest_file(kernel.long_term, diary(tmp_path), progress=False)
        kernel.store.conn.commit()
        lena = kernel.tick("what do you remember about Lena?")
        france = kernel.tick("What do you remember about France?")
        nobody = kernel.tick("what do you remember about Zanzibar?")
    assert lena.final_output.startswith(
        "About Lena, I remember: Ann: My sister Lena plays the cello in an orchestra. [ltm-"
    )
    assert france.final_output.startswith(
        "About France, I remember: capital of france: Paris [fact world/entity/france/capital]"
    )
    assert {vote["vote"] for vote in france.council_votes} == {"approve"}
    assert nobody.final_output == "I remember nothing about Zanzibar."


def test_state_follows_its_schema_survives_rollback_and_replays_equal(tmp_path):
    db = tmp_path / "agent.db"
    with open_kernel(db, retrieval) as kernel:
        ingest_file(kernel.long_term, diary(tmp_path), progress=False)
        kernel.store.conn.commit()
        kernel.tick("When did Ann go hiking in the Alps?")
        checkpoints.create(kernel, "one")
        saved = dump_state(kernel.store, "retrieval")
        kernel.tick("What does Lena play?")
        assert dump_state(kernel.store, "retrieval") != saved
        checkpoints.rollback(kernel, "one")
        assert dump_state(kernel.store, "retrieval") == saved
        again = kernel.tick("What does Lena play?")
        state = dump_state(kernel.store, "retrieval")
    assert "cello" in again.final_output
    assert state["answered"] == 2 and state["last"]["citations"][0].startswith("ltm-")
    jsonschema.Draft202012Validator(STATE_SCHEMA).validate(state)
    assert replay(db, plugins=builtin_plugins(retrieval)).ok


def test_agi_modules_show_retrieval_prints_its_state(tmp_path):
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "plugins" / "agi-plugin-retrieval")]),
        "AGI_LOAD_PLUGINS": "retrieval",
        "HF_HUB_OFFLINE": "1",
    }
    db = str(tmp_path / "agent.db")

    def agi(*args, stdin=""):
        done = subprocess.run(
            [sys.executable, "-m", "agi_core", "--db", db, *args], input=stdin, env=env, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    agi("ingest", str(diary(tmp_path)))
    said = agi("run", stdin="What does Lena play?\n").splitlines()
    assert "cello" in said[-1] and "[ltm-" in said[-1]
    shown = json.loads(agi("modules", "show", "retrieval", "--json"))
    assert shown["answered"] == 1
    jsonschema.Draft202012Validator(STATE_SCHEMA).validate(shown)


def test_a_current_fact_wins_over_an_older_episode_that_said_otherwise(tmp_path):
    db = tmp_path / "agent.db"
    with open_kernel(db, retrieval) as kernel:
        kernel.tick("my favorite color is teal")
        kernel.tick("I really love teal, my favorite color is teal")
        kernel.tick("my favorite color is red")
        asked = kernel.tick("do you recall my favorite color?")  # no rule answers this phrasing: retrieval does
    assert asked.router_decision.agent == "module:retrieval"
    assert asked.final_output.startswith("Your favorite color is red. [fact user/person/self/favorite_color] [ltm-")
    assert "teal" not in asked.final_output
    cited = {claim["evidence"] for claim in asked.claims}
    teal = {item["id"] for item in asked.evidence_items if item["source"] == "ltm" and "teal" in item["value"]}
    assert teal and not cited & teal  # the older episodes were recalled, and not cited
    assert {vote["vote"] for vote in asked.council_votes} == {"approve"}
    assert replay(db, plugins=builtin_plugins(retrieval)).ok


def test_a_rules_f1_miss_gives_way_only_to_a_memory_that_names_what_is_asked(tmp_path):
    db = tmp_path / "agent.db"
    with open_kernel(db, retrieval) as kernel:
        ingest_file(kernel.long_term, diary(tmp_path), progress=False)
        kernel.store.conn.commit()
        kernel.tick("my favourite colour is green")
        kernel.tick("my sister Maya lives in Lyon")
        food = kernel.tick("what is my favorite food?")  # memory holds a colour, not a food: F1 stands
        job = kernel.tick("What is Maya's job?")  # memory names Maya, not her job: F1 stands
        kernel.tick("the capital of France is Paris")
        peru = kernel.tick("what is the capital of Peru?")  # memory names a capital, not Peru's: F1 stands
        kernel.tick("I had sushi for dinner, it is my favorite food")
        named = kernel.tick("what is my favorite food?")  # a memory names the food: it answers, cited
        kernel.tick("the instrument of lena is the viola")
        held = kernel.tick("What is Lena's instrument?")  # a stored fact: the rule's answer stands
    assert food.final_output == F1_SEM_MISS and job.final_output == F1_SEM_MISS
    assert peru.final_output == F1_SEM_MISS
    assert named.router_decision.agent == "module:retrieval"
    assert named.router_decision.why == "module_candidate_after_f1"
    assert named.selected_agents == ["profile_agent", "module:retrieval"]  # the rule's F1 stays recorded
    assert named.agent_outputs["profile_agent"] == F1_SEM_MISS
    assert "sushi" in named.final_output and "[ltm-" in named.final_output and named.claims
    assert {vote["vote"] for vote in named.council_votes} == {"approve"}
    assert held.router_decision.agent != "module:retrieval" and "viola" in held.final_output
    assert replay(db, plugins=builtin_plugins(retrieval)).ok
    with open_kernel(tmp_path / "plain.db") as plain:  # without the module, Stage-0 as before
        plain.tick("I had sushi for dinner, it is my favorite food")
        assert plain.tick("what is my favorite food?").final_output == F1_SEM_MISS


@pytest.mark.parametrize(
    ("question", "memory", "said_by", "names"),
    [
        ("what is my favorite food?", "my favourite colour is green", "", False),  # the framing word only
        ("What is Maya's job?", "My sister Maya lives in Lyon", "", False),  # the name only
        ("what is the capital of Peru?", "the capital of France is Paris", "", False),  # another name
        ("What are Nate's favorite desserts?", "Any favorite dairy-free desserts?", "Nate", False),  # a question
        ("What is Caroline's identity?", "Painting helps me explore my identity.", "Caroline", True),  # her words
        ("What is Caroline's identity?", "Painting helps me explore my identity.", "Melanie", False),  # not hers
        ("What are Melanie's pets' names?", "Melanie's pet is a dog named Luna.", "", True),  # plural, possessive
        ("what is my favorite food?", "I had sushi, it is my favorite food", "", True),
        ("where does my brother live?", "my sister lives in Lyon", "", False),  # someone else's home
        ("where does my brother live?", "I went hiking last weekend with my brother", "", False),  # not his home
        ("what is my brother's job?", "I went hiking last weekend with my brother", "", False),
        ("where does my sister live?", "my sister lives in Lyon", "", True),
    ],
)
def test_a_memory_answers_a_missed_fact_only_when_it_states_what_the_question_asks(question, memory, said_by, names):
    assert names_what_is_asked(question, memory, said_by=said_by) is names


def test_the_answer_span_keeps_every_number_as_it_was_said():
    assert span("what is my score?", "My score is -3.") == "-3"
    assert span("what is my weight?", "My weight is 72.5 kg.") == "72.5 kg"
    assert span("what is my budget?", "My budget is 1,250.75 dollars.") == "1,250.75 dollars"
    assert span("when is it?", "On 2023-06-13 at 10:30, for 10-20 people.") == "2023-06-13 10:30 10-20 people"


def test_a_memory_with_nothing_of_what_is_asked_answers_nothing(tmp_path):
    """Close is not enough: "?" asks about nothing, and "my favorite food is sushi" does not say what was
    eaten yesterday; before, both got a memory's words back, cited."""
    with open_kernel(tmp_path / "agent.db", retrieval) as kernel:
        for line in ("!!!", "...", "my favorite food is sushi"):
            kernel.tick(line)
        assert kernel.tick("?").final_output == NOTHING
        assert kernel.tick("what did I eat yesterday?").final_output == NOTHING
        kernel.tick("my weight is 72.5 kg")
        assert kernel.tick("what do I weigh?").final_output != NOTHING  # said in other words: still found


def test_the_answer_span_leaves_out_the_questions_words_and_says_each_word_once():
    assert span("what is my favorite food?", "I had ramen yesterday, ramen is my favorite food") == "ramen yesterday"
    assert span("Where does Ann hike?", "Ann hikes in the Alps, the Alps in June.") == "hikes Alps June"


def test_a_question_about_my_is_answered_from_the_askers_own_facts_and_memories(tmp_path):
    """alice's favorite color is not bob's: "my …" is the asker's, in the facts and in long-term memory
    (before, bob got alice's red from a memory, and the terminal user's teal from the facts)."""
    db = tmp_path / "agent.db"
    with open_kernel(db, retrieval) as kernel:
        kernel.tick("my favorite color is teal")  # the terminal user's (user/person/self)
        kernel.tick("I really love red, my favorite color is red", speaker="alice")
        kernel.tick("my favorite color is red", speaker="alice")
        bob = kernel.tick("do you recall my favorite color?", speaker="bob")
        alice = kernel.tick("do you recall my favorite color?", speaker="alice")
        me = kernel.tick("do you recall my favorite color?")
        by_name = kernel.tick("do you recall alice's favorite color?", speaker="bob")
    assert bob.final_output == NOTHING
    assert alice.final_output.startswith("Your favorite color is red. [fact user/person/alice/favorite_color] [ltm-")
    assert me.final_output.startswith("Your favorite color is teal. [fact user/person/self/favorite_color]")
    assert "red" not in me.final_output
    assert by_name.final_output.startswith(
        "Alice's favorite color is red. [fact user/person/alice/favorite_color] [ltm-"
    )  # asked by her name: her current fact
    assert "teal" not in by_name.final_output
    assert replay(db, plugins=builtin_plugins(retrieval)).ok


def test_a_speakers_relation_is_answered_from_its_current_fact_by_the_owners_name(tmp_path):
    """bob's "my sister lives in Paris" is ``user/relation/bob__sister/home``: "do you recall where Bob's sister
    lives?" never matched that key (its entity's words, "bob", "", "sister", and "live" for ``home``), so it was
    answered from whichever episode came close, an older city included. Now from the fact; the user's own sister
    is theirs. (Stage-0 answers "where does Bob's sister live?" itself, from the same key.)"""
    db = tmp_path / "agent.db"
    with open_kernel(db, retrieval) as kernel:
        kernel.tick("my sister lives in Paris", speaker="bob")
        kernel.tick("my sister lives in Rome now", speaker="bob")
        kernel.tick("my sister works at Acme", speaker="bob")
        kernel.tick("my sister lives in Lyon")
        asked = kernel.tick("do you recall where Bob's sister lives?")
        work = kernel.tick("do you know where bob's sister works?")
        rule = kernel.tick("where does bob's sister live?")
        mine = kernel.tick("do you recall where my sister lives?")
    assert asked.router_decision.agent == "module:retrieval"
    assert asked.final_output.startswith("Bob's sister's home is Rome. [fact user/relation/bob__sister/home]")
    assert "Paris" not in asked.final_output and "Lyon" not in asked.final_output
    assert {vote["vote"] for vote in asked.council_votes} == {"approve"}
    assert work.final_output.startswith("Bob's sister's workplace is Acme. [fact user/relation/bob__sister/workplace]")
    assert (rule.router_decision.agent, rule.final_output) == ("profile_agent", "Bob's sister's home is Rome.")
    assert mine.final_output.startswith("Your sister's home is Lyon. [fact user/relation/sister/home]")
    assert replay(db, plugins=builtin_plugins(retrieval)).ok


def test_a_named_owners_relation_is_never_answered_from_another_speakers_own(tmp_path):
    """bob's "my sister lives in Paris" (his sister, ``user/relation/bob__sister/home``) answered "where does alice's
    sister live?" with "Bob said “my sister lives in Paris”.", after the rule's F1: a memory of bob's sister. Now a
    question about a named owner's relation never cites another speaker's own ("my sister …", bob's or the
    user's); what that owner said of "my sister", and what names her, are cited."""
    db = tmp_path / "agent.db"
    with open_kernel(db, retrieval) as kernel:
        kernel.tick("my sister lives in Paris", speaker="bob")
        kernel.tick("my sister lives in Lyon")
        rule = kernel.tick("where does alice's sister live?")
        asked = kernel.tick("do you recall where alice's sister lives?")
        kernel.tick("my sister just moved to Rome, she loves the city", speaker="alice")
        kernel.tick("I visited Alice's sister in Nice last week", speaker="carol")
        hers = kernel.tick("do you recall where alice's sister lives?")
        bobs = kernel.tick("do you recall where Bob's sister lives?")
    assert rule.final_output == F1_SEM_MISS  # (the rule's F1 stands: no memory of alice's sister names her home)
    assert asked.final_output == NOTHING
    assert hers.final_output.startswith("Alice said “my sister just moved to Rome, she loves the city”. [ltm-")
    assert "Paris" not in hers.final_output and "Lyon" not in hers.final_output
    assert len(hers.claims) == 2 and "Nice" in hers.claims[1]["value"]  # carol's names her: cited beside
    assert bobs.final_output.startswith("Bob's sister's home is Paris. [fact user/relation/bob__sister/home]")
    assert replay(db, plugins=builtin_plugins(retrieval)).ok


@pytest.mark.parametrize(
    ("question", "owners"),
    [
        ("where does alice's sister live?", {"alice": {"sister"}}),
        ("Where does Bob’s brother work?", {"bob": {"brother"}}),
        ("what is Alice's sister's name?", {"alice": {"sister"}}),
        ("What is Maya's job?", {}),  # no relation: Maya's own
        ("what is France's capital?", {}),
        ("where does my sister live?", {}),  # the asker's (``_own_if_asked``)
    ],
)
def test_the_owner_a_question_about_a_relation_names(question, owners):
    assert relation_owners(question) == owners


@pytest.mark.parametrize(
    ("text", "speaker", "another"),
    [
        ("my sister lives in Paris", "bob", True),  # bob's own sister
        ("Our sister moved to Oslo", "bob", True),
        ("my sister lives in Paris", "Alice", False),  # hers
        ("I visited Alice's sister in Nice, my sister came too", "carol", False),  # names her
        ("How did they handle the accident?", "Caroline", False),  # no one's own: it may be about hers
        ("my brother lives in Rome", "bob", False),  # not the relation asked
    ],
)
def test_a_memory_of_another_speakers_own_relation_is_told_apart(text, speaker, another):
    owners = relation_owners("where does alice's sister live?")
    assert of_another({"text": text, "speaker": speaker}, owners) is another


def test_an_answer_from_memory_reads_as_a_sentence_quoting_its_memories_and_keeps_the_span(tmp_path):
    """ "who is Maya?" said "sister called [ltm-…] [ltm-…]": the token-F1 span reached the user. The reply
    quotes the memories (both: the question asks about a name alone); the span stays the module's answer
    (state ``last.answer``, scored by benchmarks/locomo_answers.py); the citations are claims the council
    approves; replay is equal."""
    db = tmp_path / "agent.db"
    with open_kernel(db, retrieval) as kernel:
        kernel.tick("my sister is called Maya")
        kernel.tick("Maya lives in Lyon")
        asked = kernel.tick("who is Maya?")
        state = dump_state(kernel.store, "retrieval")
    sister, home = (f"[{c['evidence']}]" for c in asked.claims)
    assert asked.final_output == f"You told me “my sister is called Maya” and “Maya lives in Lyon”. {sister} {home}"
    assert [c["value"] for c in asked.claims] == ["my sister is called Maya", "Maya lives in Lyon"]
    assert {v["vote"] for v in asked.council_votes} == {"approve"}
    assert state["last"]["answer"] == "sister called"
    assert replay(db, plugins=builtin_plugins(retrieval)).ok


def test_a_quoted_memory_brings_no_bracket_that_reads_as_a_citation():
    """LoCoMo turns end with "[shares a photo …]": quoted as is, the reply held four "citations" and
    benchmarks/locomo_answers.py counted it as citing too much (62.5 % → 60.4 %)."""
    from agi_plugin_retrieval.wording import quoted

    assert quoted("Look at this! [shares a photo of a lake]") == "“Look at this! (shares a photo of a lake)”"


def test_the_agents_replies_and_the_questions_asked_leave_the_top_10_to_what_was_said(tmp_path):
    """Each time a question about one statement was asked, it was mirrored with the reply quoting the statement,
    both scoring as high as the statement or higher: after 10 the questions filled recall's top 10, the
    statement fell out, and the 11th was told "I have nothing in memory that answers that."."""
    statement, question = "I went hiking in the Alps with Maya last summer", "who did I go hiking in the Alps with?"
    with open_kernel(tmp_path / "agent.db", retrieval) as kernel:
        said = kernel.tick(statement)
        replies = [kernel.tick(question).final_output for _ in range(12)]
        top = [hit.item for hit in kernel.long_term.search(question, 10)]
    assert [f"“{statement}”" in reply for reply in replies] == [True] * 12, replies[-1]
    assert (top[0].text, top[0].tick) == (statement, said.tick)
