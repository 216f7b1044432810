"""Each named speaker's "my …" is their own: ``user/person/<speaker>/…``; the terminal user's stays ``self``."""

from __future__ import annotations

import json

import orjson
from click.testing import CliRunner

from agi_core.cli.main import make_cli
from agi_core.memory.keys import check_key, speaker_entity
from agi_core.replay import replay, replay_records
from agi_core.replies import F1_SEM_MISS
from agi_core.testing import builtin_plugins, open_kernel


def test_a_named_speakers_facts_about_themself_are_theirs_alone(tmp_path):
    db = tmp_path / "a.db"
    runner = CliRunner()

    def agi(*args: str, line: str):
        return runner.invoke(make_cli(), ["--db", str(db), *args], input=line + "\n")

    said = agi("chat", "--speaker", "alice", line="my favorite color is red")
    assert said.exit_code == 0 and "Got it: your favorite color is red." in said.output
    asked = agi("run", "--speaker", "bob", line="what is my favorite color?")
    assert (asked.exit_code, asked.output) == (0, F1_SEM_MISS + "\n")
    mine = agi("run", "--speaker", "Alice", line="what is my favorite color?")
    assert (mine.exit_code, mine.output) == (0, "Your favorite color is red.\n")
    me = agi("run", line="what is my favorite color?")
    assert (me.exit_code, me.output) == (0, F1_SEM_MISS + "\n")  # the terminal user is nobody's alias
    with open_kernel(db, seed="0") as kernel:
        assert [(e.key, e.value) for e in kernel.store.facts("user/")] == [("user/person/alice/favorite_color", "red")]
    assert replay(db, plugins=builtin_plugins()).ok


def test_every_speaker_text_makes_a_key_segment_of_its_own():
    names = ["alice", "Alice", "Zoë Martin", "李雷", "李明", "self", "!!!", "x" * 200, "speaker 1", "O'Brien"]
    entities = {name: speaker_entity(name) for name in names}
    for name, entity in entities.items():
        assert check_key(f"user/person/{entity}/favorite_color") == f"user/person/{entity}/favorite_color", name
        assert len(entity) <= 60
    assert (entities["alice"], entities["Alice"], entities["Zoë Martin"]) == ("alice", "alice", "zoe_martin")
    assert speaker_entity(None) == "self" and "self" not in [entities[n] for n in names]
    assert entities["李雷"] != entities["李明"] and entities["李雷"].startswith("speaker_")
    assert entities["speaker 1"].startswith("speaker_") and entities["speaker 1"] != "speaker_1"


def test_a_journal_from_before_speakers_had_their_own_facts_replays_as_it_was_written(tmp_path):
    """Before, every speaker's "my …" went to ``user/person/self`` and no ``speaker_entity`` external was
    recorded: such a journal (its inputs labelled, its facts under self) replays equal, under self."""
    with open_kernel(tmp_path / "a.db") as kernel:
        kernel.tick("my favorite color is red")
        kernel.tick("what is my favorite color?")
        records = [orjson.loads(text) for _t, _i, text, _c in kernel.store.journal_rows()]
    assert [r["sem_writes"][0]["key"] for r in records[:1]] == ["user/person/self/favorite_color"]
    for record in records:  # the speaker the journal of `agi run --speaker alice` recorded
        record["input"]["speaker"] = "alice"
    report = replay_records([json.dumps(r) for r in records], seed="test", plugins=builtin_plugins())
    assert (report.ok, report.mismatch) == (True, None)
    # the same lines said by alice now: her own key, recorded as such, and that journal replays equal too
    with open_kernel(tmp_path / "b.db") as kernel:
        kernel.tick("my favorite color is red", speaker="alice")
        records = [orjson.loads(text) for _t, _i, text, _c in kernel.store.journal_rows()]
    assert records[0]["sem_writes"][0]["key"] == "user/person/alice/favorite_color"
    assert records[0]["externals"]["speaker_entity"] == ["alice"]
    assert replay(tmp_path / "b.db", plugins=builtin_plugins()).ok


def _facts(kernel, prefix="user/"):
    return [(e.key, e.value) for e in kernel.store.facts(prefix)]


def test_another_agents_my_sister_is_theirs_not_the_users(tmp_path):
    """Bob telling alice "my sister lives in Paris" (the send_message tool, memory://) was stored as alice's
    user's sister (user/relation/sister/home), and alice's "my sister lives in Lyon" told to bob as bob's
    user's: each speaker's relations are their own, ``user/relation/<speaker>__<noun>/…``."""
    from agi_core import Kernel
    from agi_core.tools import ToolPolicy

    allowed = ToolPolicy(allow_tools=frozenset({"send_message"}))

    def agent(name):
        kernel = Kernel.open(tmp_path / f"{name}.db", messaging="memory://relations", policy=allowed)
        kernel.command("set_name", {"name": name})
        return kernel

    alice, bob = agent("alice"), agent("bob")
    assert alice.tick("my sister lives in Lyon").final_output.endswith("Got it: your sister's home is Lyon.")
    told_bob = "my sister lives in Paris"
    bob.tick(f"tell alice that {told_bob}")
    told = alice.tick()
    assert (told.input.speaker, told.sem_writes[0]["key"]) == ("bob", "user/relation/bob__sister/home")
    assert alice.tick("where does my sister live?").final_output == "Your sister's home is Lyon."
    assert bob.tick().input.raw == "Got it: your sister's home is Paris."  # alice's reply
    alice.tick("tell bob that my brother works at Acme")
    assert bob.tick().sem_writes[0]["key"] == "user/relation/alice__brother/workplace"
    assert bob.tick("where does my brother work?").final_output != "Your brother's workplace is Acme."
    assert _facts(alice) == [("user/relation/bob__sister/home", "Paris"), ("user/relation/sister/home", "Lyon")]
    assert _facts(bob) == [
        ("user/person/alice/last_answer", f"“Got it: your sister's home is Paris.” (answering “{told_bob}”)"),
        ("user/relation/alice__brother/workplace", "Acme"),
    ]
    assert [e.relations for e in alice.store.facts("user/relation/")] == [
        ["user/relation/bob__sister", "user/person/bob"],
        ["user/relation/sister", "user/person/self"],
    ]
    alice.close()
    bob.close()
    for name in ("alice", "bob"):
        assert replay(tmp_path / f"{name}.db").ok


def test_a_journal_from_before_speakers_had_their_own_relations_replays_as_it_was_written(tmp_path, monkeypatch):
    """Before, a named speaker's "my sister …" went to ``user/relation/sister`` and no ``speaker_relations``
    external was recorded: such a journal replays equal, under the user's relations."""
    from agi_core.reasoning import ReasonContext

    with monkeypatch.context() as patched:  # the code before: no owner, nothing recorded
        patched.setattr(ReasonContext, "relation_owner", lambda self: None)
        with open_kernel(tmp_path / "a.db") as kernel:
            kernel.tick("my sister lives in Lyon", speaker="alice")
            kernel.tick("where does my sister live?", speaker="alice")
            records = [orjson.loads(text) for _t, _i, text, _c in kernel.store.journal_rows()]
    assert records[0]["sem_writes"][0]["key"] == "user/relation/sister/home"
    assert "speaker_relations" not in records[0]["externals"]
    report = replay_records([json.dumps(r) for r in records], seed="test", plugins=builtin_plugins())
    assert (report.ok, report.mismatch) == (True, None)
    with open_kernel(tmp_path / "b.db") as kernel:  # now: alice's own, recorded as such, and it replays equal
        kernel.tick("my sister lives in Lyon", speaker="alice")
        records = [orjson.loads(text) for _t, _i, text, _c in kernel.store.journal_rows()]
    assert records[0]["sem_writes"][0]["key"] == "user/relation/alice__sister/home"
    assert records[0]["externals"]["speaker_relations"] == ["alice"]
    assert replay(tmp_path / "b.db", plugins=builtin_plugins()).ok


def test_what_do_you_remember_lists_the_asking_speakers_facts_not_another_speakers(tmp_path):
    """Two speakers in one agent: "what do you remember?" said "I remember 4 facts about you:
    user/person/bob/favorite_color = "red"; your favorite color is blue; bob's sister's home is Paris; …" to the
    user, and the user's facts and lines to bob as bob's. Each speaker now hears their own ("about you"), cited;
    the terminal user, whose agent it is, hears how many facts it holds about other speakers."""
    db = tmp_path / "a.db"
    with open_kernel(db) as kernel:
        kernel.tick("my favorite color is blue")
        kernel.tick("my sister lives in Lyon")
        kernel.tick("my favorite color is red", speaker="bob")
        kernel.tick("my sister lives in Paris", speaker="bob")
        bob = kernel.tick("what do you remember?", speaker="bob")
        me = kernel.tick("what do you remember?")
        carol = kernel.tick("what do you remember?", speaker="carol")
    assert bob.final_output == (
        "I remember 2 facts about you: your favorite color is red; your sister's home is Paris. Lately: you said "
        "“my favorite color is red”; I said “Got it: your favorite color is red.”; you said “my sister lives in "
        "Paris”; I said “Got it: your sister's home is Paris.”."
    )
    assert [claim["key"] for claim in bob.claims] == [
        "user/person/bob/favorite_color",
        "user/relation/bob__sister/home",
    ]
    assert me.final_output == (
        "I remember 2 facts about you: your favorite color is blue; your sister's home is Lyon. "
        "I also hold 2 facts about other speakers."
    )
    assert [claim["key"] for claim in me.claims] == ["user/person/self/favorite_color", "user/relation/sister/home"]
    assert carol.final_output == "I don’t have anything stored about you yet." and carol.claims == []
    assert replay(db, plugins=builtin_plugins()).ok


def test_bobs_sister_is_the_sister_bob_speaks_of_whoever_tells_or_asks(tmp_path):
    """ "Bob's sister lives in Rome" named nobody (F3; "Bob's" is no subject Stage-0 read) and "where does Bob's
    sister live?" could not read what bob had said of "my sister". "Bob's sister" (a person noun after a name's
    "'s") is now bob's relation, ``user/relation/bob__sister/…``, the key bob's own "my sister" reads and writes."""
    db = tmp_path / "a.db"
    with open_kernel(db) as kernel:
        kernel.tick("my sister lives in Paris", speaker="bob")
        asked = kernel.tick("where does Bob's sister live?")
        told = kernel.tick("Bob's sister lives in Rome now")
        bobs = kernel.tick("where does my sister live?", speaker="bob")
        kernel.tick("bob's sister is called Maya")
        named = kernel.tick("what is Bob's sister's name?")
        kernel.tick("my sister lives in Lyon")
        mine = kernel.tick("where does my sister live?")
        thing = kernel.tick("France's capital is Paris")  # a thing's attribute, as before
        facts = _facts(kernel)
    assert asked.final_output == "Bob's sister's home is Paris."
    assert told.final_output == "Got it: Bob's sister's home is Rome."
    assert told.sem_writes[0]["key"] == "user/relation/bob__sister/home"
    assert bobs.final_output == "Your sister's home is Rome."
    assert named.final_output == "Bob's sister's name is Maya."
    assert mine.final_output == "Your sister's home is Lyon."
    assert thing.sem_writes[0]["key"] == "world/entity/france/capital"
    assert facts == [
        ("user/relation/bob__sister/home", "Rome"),
        ("user/relation/bob__sister/name", "Maya"),
        ("user/relation/sister/home", "Lyon"),
    ]
    assert replay(db, plugins=builtin_plugins()).ok
