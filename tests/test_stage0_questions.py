"""Issue 22 item 3: R2/R3 answer everyday questions about told facts; synonyms meet on one key (S4);
entity types are singular (S3); "forget X" forgets."""

from __future__ import annotations

import collections

import pytest

from agi_core.default_plugins.synonym_groups import SYNONYM_GROUPS
from agi_core.errors import MemoryKeyError
from agi_core.memory.keys import check_key, make_key, singular
from agi_core.replay import replay
from agi_core.replies import F1_SEM_MISS, F3_NO_AGENT
from agi_core.testing import builtin_plugins, open_kernel

TOLD_AND_ASKED = [
    ("my sister lives in Lyon", "where does my sister live?", "Your sister's home is Lyon."),
    ("Shakespeare wrote Hamlet", "who wrote Hamlet?", "The author of Hamlet is Shakespeare."),
    ("Hamlet was written by Shakespeare", "who wrote Hamlet?", "The author of Hamlet is Shakespeare."),
    ("I live in Berlin", "where do I live?", "Your home is Berlin."),
    ("I work for Acme", "where do I work?", "Your workplace is Acme."),
    ("I was born in 1990", "when was I born?", "Your birth date is 1990."),
    ("I am 34 years old", "how old am I?", "Your age is 34."),
    ("Paris is the capital of France", "what is France's capital?", "The capital of France is Paris."),
    ("the Eiffel Tower is in Paris", "where is the Eiffel Tower?", "The location of Eiffel Tower is Paris."),
    ("my dog is called Rex", "what is my dog called?", "Your dog's name is Rex."),
    ("my favorite hue is teal", "what is my favourite colour?", "Your favourite colour is teal."),
    ("set my favorite color to teal", "what's my fave colour?", "Your fave colour is teal."),
    ("call me Alice", "who am I?", "Your name is Alice."),
    ("my phone number is 555 0101", "what's my telephone number?", "Your telephone number is 555 0101."),
]


@pytest.mark.parametrize(("told", "asked", "reply"), TOLD_AND_ASKED)
def test_a_told_fact_answers_its_everyday_question(agi_kernel, told, asked, reply):
    agi_kernel.tick(told)
    assert agi_kernel.tick(asked).final_output == reply


TRAILING_WORDS = [  # words that end a line and ask nothing: the key is the fact's, never "favorite color again"
    ("what was my favorite color again?", "Your favorite color is teal."),
    ("what is my favorite color, please?", "Your favorite color is teal."),
    ("what's my favourite colour now?", "Your favourite colour is teal."),
    ("what is my favorite color by the way?", "Your favorite color is teal."),
    ("what was my favorite color again, please?", "Your favorite color is teal."),
    ("what is my fave colour btw", "Your fave colour is teal."),
    ("where does my sister live again?", "Your sister's home is Lyon."),
    ("where does my sister live, do you remember?", "Your sister's home is Lyon."),
    ("who wrote Hamlet again?", "The author of Hamlet is Shakespeare."),
    ("what is the capital of France, please?", "The capital of France is Paris."),
]


@pytest.mark.parametrize(("asked", "reply"), TRAILING_WORDS)
def test_trailing_again_please_now_by_the_way_ask_the_same_fact(agi_kernel, asked, reply):
    for told in ("my favorite color is teal, by the way", "my sister lives in Lyon", "Shakespeare wrote Hamlet"):
        agi_kernel.tick(told)
    agi_kernel.tick("the capital of France is Paris")
    assert [f.value for f in agi_kernel.store.facts("user/person/")] == ["teal"]  # ", by the way" is no value
    assert agi_kernel.tick(asked).final_output == reply
    assert agi_kernel.tick("what was my favorite food again?").final_output == F1_SEM_MISS


def test_a_trailing_filler_never_eats_the_question():
    from agi_core.brain.stage0.phrases import strip_trailing

    assert strip_trailing("what was my name again, please?") == "what was my name"
    assert strip_trailing("what do you know?") == "what do you know"  # three words are always left
    assert strip_trailing("my name is please") == "my name is"  # a question's bare filler …
    assert strip_trailing("my name is please", bare=False) == "my name is please"  # … not a statement's
    assert strip_trailing("my name is Ada, by the way", bare=False) == "my name is Ada"
    assert strip_trailing("who is " + "again " * 1000) == "who is " + "again " * 995 + "again"  # at most 4


def test_a_question_about_an_untold_fact_is_f1_never_a_neighbour(agi_kernel):
    agi_kernel.tick("my sister lives in Lyon")
    agi_kernel.tick("Shakespeare wrote Hamlet")
    for question in ("where does my brother live?", "who wrote Macbeth?", "who painted the Mona Lisa?"):
        assert agi_kernel.tick(question).final_output == F1_SEM_MISS, question


def test_synonyms_of_a_real_table_meet_on_one_key(agi_kernel):
    agi_kernel.tick("my favorite hue is teal")
    agi_kernel.tick("my favourite dish is sushi")
    agi_kernel.tick("my mum lives in Rome")
    agi_kernel.tick("my e-mail address is al@example.org")
    assert {(f.key, f.value) for f in agi_kernel.store.facts("user/")} == {
        ("user/person/self/favorite_color", "teal"),
        ("user/person/self/favorite_food", "sushi"),
        ("user/relation/mother/home", "Rome"),
        ("user/person/self/email", "al@example.org"),
    }


def test_actually_and_set_overwrite_and_the_last_write_wins(agi_kernel):
    agi_kernel.tick("my name is Alice")
    assert agi_kernel.tick("actually, my name is Carol").final_output == "Got it: your name is Carol."
    assert agi_kernel.tick("what is my name?").final_output == "Your name is Carol."
    agi_kernel.tick("my favorite color is blue")
    agi_kernel.tick("change my favourite colour to red")
    assert agi_kernel.tick("what is my favorite color?").final_output == "Your favorite color is red."


def test_forget_overwrites_with_null_and_the_fact_reads_as_a_miss(agi_kernel):
    agi_kernel.tick("my favorite color is blue")
    record = agi_kernel.tick("forget my favourite colour")
    assert record.final_output == "Done: I forgot your favourite colour."
    assert [(w["key"], w["value"]) for w in record.sem_writes] == [("user/person/self/favorite_color", None)]
    assert agi_kernel.tick("what is my favorite color?").final_output == F1_SEM_MISS
    assert agi_kernel.tick("what do you remember?").final_output.startswith("I don’t have anything stored")
    assert agi_kernel.tick("forget my name").final_output == (
        "I had nothing stored about your name, so there is nothing to forget."
    )
    agi_kernel.tick("I live in Berlin")
    assert agi_kernel.tick("forget where I live").final_output == "Done: I forgot your home."
    assert agi_kernel.tick("where do I live?").final_output == F1_SEM_MISS


def test_a_things_name_is_never_passed_through_the_synonyms(agi_kernel):
    agi_kernel.tick("Burton directed Big Fish")  # "big" is a synonym of "large": not in a title
    assert [f.key for f in agi_kernel.store.facts("world/")] == ["world/entity/big_fish/director"]
    assert agi_kernel.tick("who directed Big Fish?").final_output == "The director of Big Fish is Burton."


def test_the_synonym_table_has_500_groups_each_word_in_one():
    assert len(SYNONYM_GROUPS) >= 500
    words = collections.Counter(word for _head, group in SYNONYM_GROUPS for word in group)
    assert [word for word, count in words.items() if count > 1] == []
    heads = {head for head, _group in SYNONYM_GROUPS}
    assert len(heads) == len(SYNONYM_GROUPS)
    assert heads.isdisjoint(words), "a canonical word that is also a synonym would be mapped twice"


@pytest.mark.parametrize(
    ("plural", "one"),
    [("cities", "city"), ("people", "person"), ("boxes", "box"), ("churches", "church"), ("blog_posts", "blog_post")],
)
def test_s3_entity_types_are_made_singular_and_plural_ones_refused(plural, one):
    assert singular(plural) == one
    assert make_key("world", plural, "x", "name") == f"world/{one}/x/name"
    with pytest.raises(MemoryKeyError, match=f"plural; rule S3 wants it singular: use '{one}'"):
        check_key(f"world/{plural}/x/name")


@pytest.mark.parametrize("word", ["series", "news", "species", "status", "canvas", "person", "entity", "bus"])
def test_s3_leaves_singular_words_that_end_in_s_alone(word):
    assert singular(word) == word
    assert check_key(f"world/{word}/x/name") == f"world/{word}/x/name"


def test_semantic_relations_name_the_entities_a_fact_links(agi_kernel):
    agi_kernel.tick("my sister lives in Lyon")
    agi_kernel.tick("the population of Paris is 2 million")
    agi_kernel.tick("the capital of France is Paris")
    relations = {fact.key: fact.relations for fact in agi_kernel.store.facts()}
    assert relations == {
        "user/relation/sister/home": ["user/relation/sister", "user/person/self"],
        "world/entity/paris/population": ["world/entity/paris"],
        "world/entity/france/capital": ["world/entity/france", "world/entity/paris"],
    }


@pytest.mark.parametrize(
    ("asked", "reply"),
    [
        ("you stupid bot what is my weight?", "Your weight is 70 kg."),
        ("Greetings. What is my dog called?", "Your dog's name is Rex."),
        ("ok so, where does my sister live?", "Your sister's home is Lyon."),
        # "are you sure about …" asks with or without its "?": it stored "are you sure about who" as an author
        ("are you sure about who wrote Hamlet", "The author of Hamlet is Shakespeare."),
        ("r u certain of my weight is 80 kg", F3_NO_AGENT),
    ],
)
def test_a_question_after_other_words_is_asked_never_stored(agi_kernel, asked, reply):
    """A line ending with "?" states no fact: "you stupid bot what is my weight?" stored the weight "you stupid
    bot what" (the "Maria is my wife" form), and "Greetings. What is my dog called?" a dog named "Greetings"."""
    for told in ("my weight is 70 kg", "my dog is called Rex", "my sister lives in Lyon", "Shakespeare wrote Hamlet"):
        agi_kernel.tick(told)
    facts = [(f.key, f.value) for f in agi_kernel.store.facts("")]
    assert agi_kernel.tick(asked).final_output == reply
    assert [(f.key, f.value) for f in agi_kernel.store.facts("")] == facts
    agi_kernel.tick("my favorite color is blue?")  # asked, not told
    assert agi_kernel.tick("what is my favorite color?").final_output == F1_SEM_MISS


def test_a_relation_named_elsewhere_answers_through_its_name(tmp_path):
    """ "where does my sister live?" with the sister's name and Maya's home stored: F1 before (only
    user/relation/sister/home was read). Both facts on the way are read, recorded and cited; replay is equal."""
    db = tmp_path / "a.db"
    with open_kernel(db, seed="r") as kernel:
        kernel.tick("my sister is called Maya")
        kernel.tick("Maya lives in Lyon")
        record = kernel.tick("where does my sister live?")
        assert record.final_output == "Your sister Maya lives in Lyon."
        assert [(r["key"], r["exists"], r["value"]) for r in record.sem_reads] == [
            ("user/relation/sister/home", False, None),
            ("user/relation/sister/name", True, "Maya"),
            ("world/entity/maya/home", True, "Lyon"),
        ]
        assert [(c["key"], c["value"]) for c in record.claims] == [
            ("user/relation/sister/name", "Maya"),
            ("world/entity/maya/home", "Lyon"),
        ]
        assert all(c["evidence"] for c in record.claims)
        assert {v["vote"] for v in record.council_votes} == {"approve"}
        assert kernel.tick("what is my sister's job?").final_output == F1_SEM_MISS  # Maya has none stored
        assert kernel.tick("where does my brother live?").final_output == F1_SEM_MISS  # no brother named
    assert replay(db, seed="r", plugins=builtin_plugins()).ok


@pytest.mark.parametrize(
    "told", ["hi, I am Dana", "I'm Dana", "call me Dana", "hello there, I'm Dana!", "hey, call me Dana", "I am Dana."]
)
def test_i_am_and_call_me_with_a_capitalised_name_store_the_users_name(agi_kernel, told):
    """ "hi, I am Dana" was F3 and "what is my name?" then F1: "I am X" was read as nothing."""
    assert agi_kernel.tick(told).final_output == "Got it: your name is Dana."
    assert agi_kernel.tick("what is my name?").final_output == "Your name is Dana."


@pytest.mark.parametrize(
    "told", ["I am tired", "hi, I am tired", "I'm OK", "I am French", "i'm dana", "I am Not sure", "I'm Sorry"]
)
def test_i_am_with_a_state_a_nationality_or_a_small_letter_names_no_one(agi_kernel, told):
    """The rule: a name is one to three capitalised words (a capital, then small letters), none a word that
    says what someone is (French, Sorry); "i'm dana" is not taken, as "i'm tired" could not be told apart."""
    agi_kernel.tick(told)
    assert agi_kernel.store.facts("user/") == []
