"""Journals that agi-core 0d8cf16 wrote (tests/journals/0d8cf16) replay equal after Stage-0's changes since,
and the same lines told now get the new behaviour, recorded so that their journal replays equal too."""

from __future__ import annotations

import json
from pathlib import Path

from agi_core import Kernel, journal
from agi_core.memory import blobs
from agi_core.replay import replay, replay_records
from agi_core.replies import F1_SEM_MISS as F1
from agi_core.replies import F3_NO_AGENT as F3
from agi_core.replies import F3_NOTED_NOT_STORED as F3_NOTED
from agi_core.testing import builtin_plugins, open_kernel, replay_journal_file
from agi_core.tools import ToolPolicy

OLD = Path(__file__).resolve().parent / "journals" / "0d8cf16"
#: Stage-0's parse changes up to b754074's clause_end (agi_core.brain.stage0.facts.CHANGES begins with them)
FIRST_CHANGES = ["others_possessive", "said_name", "owned_subject", "named_beside", "likes", "clause_end"]
#: all of them, as a live tick records them: a new change is appended here on purpose
ALL_CHANGES = [*FIRST_CHANGES, "remind_when", "forget_forms", "job", "liked_apart", "others_likes", "math_words"]
ALL_CHANGES += ["forget_more", "relation_job", "chat_markers", "goal_asks"]


def _told(path: Path) -> list[tuple[str, str]]:
    """Each tick's input and reply, as the journal recorded them."""
    records = [json.loads(line)["record"] for line in path.read_text(encoding="utf-8").splitlines()]
    return [(r["input"]["raw"], r["final_output"]) for r in records]


def _new_journal(tmp_path: Path, lines: list[str]) -> tuple[list[str], list[dict[str, list[object]]]]:
    """Tell ``lines`` to a new agent: its replies and each tick's externals; its replay is equal."""
    db = tmp_path / "new.db"
    with open_kernel(db, seed="0") as kernel:
        records = [kernel.tick(line) for line in lines]
        rows = {row[0]: json.loads(row[2]) for row in kernel.store.journal_rows()}
        externals = [rows[r.tick]["externals"] for r in records]
    assert replay(db).ok
    return [r.final_output for r in records], externals


def test_a_journal_from_before_the_relation_hop_replays_its_f1(tmp_path):
    """0d8cf16 answered "where does my sister live?" F1 with the sister's name and Maya's home stored."""
    told = _told(OLD / "relation_hop.jsonl")
    assert told[-1] == ("where does my sister live?", "I don’t have this information stored yet.")
    report = replay_journal_file(OLD / "relation_hop.jsonl")
    assert report.ok, report.summary()
    replies, externals = _new_journal(tmp_path, [line for line, _ in told])
    assert replies[-1] == "Your sister Maya lives in Lyon."
    assert externals[-1]["relation_hop"] == [True] and "relation_hop" not in externals[0]


def test_a_journal_from_before_the_greeting_and_i_am_rules_and_the_others_possessive_replays_as_read_then(tmp_path):
    """0d8cf16 read "hi, I am Dana" and "I'm Dana" as nothing, "hello" as no filler and "Your sister's home is
    Lyon." as a thing's fact; lines no change reads otherwise record no external."""
    told = _told(OLD / "parse_rules.jsonl")
    assert told[0] == ("hi, I am Dana", "I currently don’t have a module for this type of request.")
    assert told[7] == ("Your sister's home is Lyon.", "Noted: the home of Your sister is Lyon.")
    report = replay_journal_file(OLD / "parse_rules.jsonl")
    assert report.ok, report.summary()
    replies, externals = _new_journal(tmp_path, [line for line, _ in told])
    assert replies[0] == "Got it: your name is Dana." and replies[-1] == "Your name is Dana."
    assert replies[7] == "I currently don’t have a module for this type of request."
    assert externals[0]["parse_rules"] == [ALL_CHANGES]
    assert "parse_rules" not in externals[1] and "parse_rules" not in externals[2]  # "I am tired" read alike


def test_a_journal_that_recorded_others_possessive_before_parse_rules_replays_as_read_then():
    """f58e21c (the others_possessive change, before the greeting and "I am" rules) recorded the
    ``others_possessive`` external where "your sister" read otherwise, and read "hi, I am Dana" as nothing: a tick
    that holds that external reads with that one change, any other as 0d8cf16 did."""
    path = Path(__file__).resolve().parent / "journals" / "f58e21c" / "others_possessive.jsonl"
    told = _told(path)
    assert told[2] == ("hi, I am Dana", "I currently don’t have a module for this type of request.")
    assert told[4] == ("his dog is called Rex", "I currently don’t have a module for this type of request.")
    report = replay_journal_file(path)
    assert report.ok, report.summary()


SPEAKERS = Path(__file__).resolve().parent / "journals" / "b754074" / "speakers.jsonl"


def test_a_journal_from_before_ask_turned_verbs_and_recall_kept_to_its_speaker_replays_as_written(tmp_path):
    """b754074 sent "ask bob where my sister lives" as "where my sister lives?", "what do you remember?" listed
    every speaker's facts as the asker's (bob's favorite color and sister to the user, the user's to bob), and
    "Bob's sister lives in Rome now" named nobody (F3). That journal replays equal; the same lines said now send
    "where does my sister live?", list each speaker's own and store bob's sister's home, recorded
    (``direct_question``, ``own_recall``, ``parse_rules``) only where the old way differs, and replay equal."""
    records = [json.loads(line)["record"] for line in SPEAKERS.read_text(encoding="utf-8").splitlines()]
    assert records[2]["action"]["args"] == {"to": "bob", "text": "where my sister lives?"}
    assert records[6]["input"]["speaker"] == "bob" and records[6]["final_output"].startswith(
        'I remember 4 facts about you: user/person/bob/favorite_color = "red"; your favorite color is blue; '
    )
    report = replay_journal_file(SPEAKERS)
    assert report.ok, report.summary()
    db = tmp_path / "new.db"
    with open_kernel(db, seed="0") as kernel:
        said = [kernel.tick(r["input"]["raw"], speaker=r["input"].get("speaker")) for r in records]
        rows = {row[0]: json.loads(row[2]) for row in kernel.store.journal_rows()}
    assert said[2].action.args == {"to": "bob", "text": "where does my sister live?"}
    assert said[3].action.args == records[3]["action"]["args"]  # "what is the capital of Peru?", as before
    assert said[6].final_output.startswith(
        "I remember 2 facts about you: your favorite color is red; your sister's home is Paris. Lately: "
    )
    assert said[7].final_output.startswith(
        "I remember 2 facts about you: your favorite color is blue; your sister's home is Lyon. "
        "I also hold 2 facts about other speakers."
    )
    assert [record["final_output"] for record in records[8:]] == [F3, F3, F1]
    assert [record.final_output for record in said[8:]] == [
        "Got it: Bob's sister's home is Rome.",
        "Bob's sister's home is Rome.",
        F1,  # "what is France's capital?": read as before
    ]
    assert said[8].sem_writes[0]["key"] == "user/relation/bob__sister/home"  # the key bob's "my sister" wrote
    assert [tick for tick, row in rows.items() if "direct_question" in row["externals"]] == [3]
    assert [tick for tick, row in rows.items() if "own_recall" in row["externals"]] == [7, 8]
    assert [tick for tick, row in rows.items() if "parse_rules" in row["externals"]] == [9, 10]
    assert replay(db).ok


def _replayed_sends(path: Path) -> list[object]:
    """What the user's ticks of a replay of the exported journal ``path`` send (nothing compared: the action of
    each replayed record)."""
    found: dict[str, bytes] = {}
    records = [
        blobs.resolve(json.loads(text), lambda digest: found[digest].decode("utf-8"))
        for _tick, _id, text, _chain in journal.read_jsonl(path, found)
    ]
    produced: list[object] = []
    replay_records(records, seed="0", plugins=builtin_plugins(), produced=produced)  # type: ignore[arg-type]
    return [
        record.action.args.get("text")  # type: ignore[attr-defined]
        for record in produced
        if record.input.source == "user" and record.action.name == "send_message"  # type: ignore[attr-defined]
    ]


def test_a_journal_from_before_indirect_questions_were_turned_replays_the_question_it_sent(tmp_path):
    """b754074's alice sent "ask bob where my sister lives" as "where my sister lives?" (tests/journals/b754074/
    ask_bob.jsonl, alice and bob on memory://). Replayed, that tick's action is what it sent (replay compares no
    action, but modules see it): the ``direct_question`` external is recorded only where the question sent
    differs, and a journal without it sends as it did."""
    path = Path(__file__).resolve().parent / "journals" / "b754074" / "ask_bob.jsonl"
    told = [json.loads(line)["record"] for line in path.read_text(encoding="utf-8").splitlines()]
    assert [r["action"]["args"].get("text") for r in told if r["input"]["raw"].startswith("ask bob")] == [
        "where my sister lives?",
        "what is the capital of Peru?",
    ]
    report = replay_journal_file(path)
    assert report.ok, report.summary()
    assert _replayed_sends(path) == [
        "my sister lives in Lyon",
        "where my sister lives?",
        "what is the capital of Peru?",
    ]
    allowed = ToolPolicy(allow_tools=frozenset({"send_message"}))
    alice = Kernel.open(tmp_path / "alice.db", messaging="memory://old-ask", seed="0", policy=allowed)
    bob = Kernel.open(tmp_path / "bob.db", messaging="memory://old-ask", seed="0")
    for kernel, name in ((alice, "alice"), (bob, "bob")):
        kernel.command("set_name", {"name": name})
    bob.tick("the capital of Peru is Lima")
    sent = []
    for line in [r["input"]["raw"] for r in told if r["input"]["source"] == "user"]:
        sent.append(alice.tick(line))
        bob.tick()
        alice.tick()
    assert [record.action.args["text"] for record in sent] == [
        "my sister lives in Lyon",
        "where does my sister live?",
        "what is the capital of Peru?",
    ]
    rows = {row[0]: json.loads(row[2]) for row in alice.store.journal_rows()}
    turned = [row["input"]["raw"] for row in rows.values() if "direct_question" in row["externals"]]
    assert turned == ["ask bob where my sister lives"]  # the intent tick (its receipt sends)
    alice.close()
    bob.close()
    assert replay(tmp_path / "alice.db").ok


NAMED_BESIDE = Path(__file__).resolve().parent / "journals" / "b754074" / "named_beside.jsonl"


def test_a_journal_from_before_my_brother_tom_was_the_brother_named_tom_replays_as_read_then(tmp_path):
    """b754074 read "My brother Tom lives in Porto." as a relation called "brother Tom"
    (``user/relation/brother_tom/home``), so "where does my brother live?" and his name were F1. That journal
    replays equal; told now, the brother is named Tom and lives in Porto, recorded (``parse_rules``)."""
    told = _told(NAMED_BESIDE)
    assert told[0] == ("My brother Tom lives in Porto.", "Got it: your brother tom's home is Porto.")
    assert [reply for _, reply in told[1:3]] == [F1, F1]
    report = replay_journal_file(NAMED_BESIDE)
    assert report.ok, report.summary()
    replies, externals = _new_journal(tmp_path, [line for line, _ in told])
    assert replies == [
        "Got it: your brother Tom's home is Porto.",
        "Your brother's home is Porto.",
        "Your brother's name is Tom.",
        "Got it: your dog Rex's age is 3.",
    ]
    assert ["parse_rules" in e for e in externals] == [True, False, False, True]


def test_a_journal_from_before_likes_were_facts_replays_its_f3(tmp_path):
    """b754074 (tests/journals/b754074/likes.jsonl) answered "I like hiking", "what do I like?" and "do I like
    hiking?" F3 and stored nothing; its "hi, I am Dana" recorded the parse rules before ``likes``. It replays
    equal; the same lines told now store and answer the likes, recording ``parse_rules`` with ``likes``."""
    path = OLD.parent / "b754074" / "likes.jsonl"
    told = _told(path)
    assert told[0] == ("I like hiking", "I currently don’t have a module for this type of request.")
    assert told[-1] == ("hi, I am Dana", "Got it: your name is Dana.")
    report = replay_journal_file(path)
    assert report.ok, report.summary()
    replies, externals = _new_journal(tmp_path, [line for line, _ in told])
    assert replies[:5] == [
        "Got it: you like hiking.",
        "You like hiking.",
        "Yes: you like hiking.",
        "Got it: you don't like hiking.",
        "No: you don't like hiking.",
    ]
    assert externals[0]["parse_rules"] == [ALL_CHANGES]


CLAUSE_END = Path(__file__).resolve().parent / "journals" / "b754074" / "clause_end.jsonl"


def test_a_journal_from_before_a_value_ended_at_the_next_clause_replays_as_read_then(tmp_path):
    """b754074 stored "I live in Lisbon and I work as a nurse" as the home "Lisbon and I work as a nurse". That
    journal replays equal; told now, the value ends where the next clause begins (a conjunction, then a new
    subject), recorded (``parse_rules``), and a name with an "and" in it stays whole."""
    told = _told(CLAUSE_END)
    assert told[0][1] == "Got it: your home is Lisbon and I work as a nurse."
    report = replay_journal_file(CLAUSE_END)
    assert report.ok, report.summary()
    replies, externals = _new_journal(tmp_path, [line for line, _ in told])
    assert replies == [
        "Got it: your home is Lisbon.",
        "Your home is Lisbon.",
        "Got it: your name is Ana.",
        "Noted: the capital of Bosnia and Herzegovina is Sarajevo.",
    ]
    assert ["parse_rules" in e for e in externals] == [True, False, True, False]


REMIND_WHEN = Path(__file__).resolve().parent / "journals" / "6f8d79c" / "remind_when.jsonl"


def test_a_journal_from_before_reminders_read_days_replays_as_told_then(tmp_path):
    """6f8d79c (tests/journals/6f8d79c/remind_when.jsonl, no plugins) answered "remind me to call Ana tomorrow
    at 9" F3, set "remind me to call Ada tomorrow at 9am" for "call Ada tomorrow" at the next 09:00, and said a
    delay's due time in UTC. That journal replays equal; told now, the days are read (``parse_rules`` with
    ``remind_when``), a time not read gets one line, and a delay's time is local (``remind_local``)."""
    told = _told(REMIND_WHEN)
    assert told[0] == (
        "remind me to call Ana tomorrow at 9",
        "I currently don’t have a module for this type of request.",
    )
    assert told[1][1].startswith("I will remind you to call Ada tomorrow at 09:00 tomorrow (job remind-g-")
    report = replay_journal_file(REMIND_WHEN)
    assert report.ok, report.summary()
    replies, externals = _new_journal(tmp_path, [line for line, _ in told])
    assert [reply.split(" at ")[0] if reply.startswith("I will") else reply for reply in replies] == [
        "I will remind you to call Ana",
        "I will remind you to call Ada",
        "I will remind you to call Bea",
        "I will remind you to call Cy",
        "I will remind you to water the plants",
        "I will remind you to stretch",
        "I couldn't read the time 'at 25:00'; say e.g. 'tomorrow at 9am' or 'in 10 minutes'.",
        "I will remind you to call Eve",  # as before
        "I will remind you to call Fay",
        "I will remind you to call Gus",
    ]
    assert " at 09:00 tomorrow (" in replies[0] and " (in 3 days) (job remind-g-" in replies[-1]
    assert ["parse_rules" in e for e in externals] == [True] * 7 + [False] * 3
    assert ["remind_local" in e for e in externals] == [False] * 5 + [True] + [False] * 2 + [True] * 2


JOB_LIKES = Path(__file__).resolve().parent / "journals" / "5fc137f" / "job_likes.jsonl"


def test_a_journal_from_before_jobs_likes_apart_others_likes_and_noted_statements_replays_as_written(tmp_path):
    """5fc137f answered "I work as a nurse", "I'm a nurse", "what do I do?", "Bob likes jazz", "my sister likes tea"
    and "I have a red bike" F3, and liked "hiking and jazz" as one thing ("do I like hiking?": F1). That journal
    replays equal; told now, the job is stored and answered, the likes are apart and someone else's are theirs
    (recorded ``parse_rules`` with ``job``, ``liked_apart``, ``others_likes``), and the statement no rule stores
    is said to be noted as an episode (recorded ``noted_statement``); "blorp" is still F3."""
    told = _told(JOB_LIKES)
    liked, listed = "Got it: you like hiking and jazz.", "You like hiking and jazz."
    mushrooms = "Got it: you don't like mushrooms or olives."
    assert [reply for _, reply in told] == [F3, F3, F3, F1, liked, listed, F1, F3, F3, mushrooms, F3, F3]
    report = replay_journal_file(JOB_LIKES)
    assert report.ok, report.summary()
    replies, externals = _new_journal(tmp_path, [line for line, _ in told])
    assert replies == [
        "Got it: your job is nurse.",
        "Your job is nurse.",
        "Got it: your job is nurse.",
        "Your job is nurse.",
        "Got it: you like hiking and jazz.",
        "You like hiking and jazz.",
        "Yes: you like hiking.",
        "Got it: Bob likes jazz.",
        "Got it: your sister likes tea.",
        "Got it: you don't like mushrooms and olives.",
        F3_NOTED,
        F3,
    ]
    assert externals[0]["parse_rules"] == [ALL_CHANGES]
    assert ["parse_rules" in e for e in externals] == [True] * 3 + [False] + [True] * 6 + [False, False]
    assert [e.get("noted_statement") for e in externals] == [None] * 10 + [[True], None]


HEARD_REPLY = Path(__file__).resolve().parent / "journals" / "5fc137f" / "heard_reply.jsonl"


def test_a_journal_from_before_what_did_bob_say_was_answered_replays_its_f3(tmp_path):
    """5fc137f (``agi run --speaker bob`` told "my last reply is hello", then the user asked "what did bob say?"
    and "what is bob's last reply?") said F3 and F1, with ``user/person/bob/last_answer`` stored: the fact another
    agent's reply is kept as now (tests/messaging/test_replies.py). That journal replays equal; told now, both
    questions read that fact, recorded (``heard_reply``)."""
    told = _told(HEARD_REPLY)
    assert [reply for _, reply in told] == ["Got it: your last reply is hello.", F3, F1]
    report = replay_journal_file(HEARD_REPLY)
    assert report.ok, report.summary()
    db = tmp_path / "new.db"
    with open_kernel(db, seed="0") as kernel:
        records = [kernel.tick(line, speaker="bob" if n == 0 else None) for n, (line, _) in enumerate(told)]
        rows = {row[0]: json.loads(row[2]) for row in kernel.store.journal_rows()}
    assert [r.final_output for r in records[1:]] == ["bob said hello."] * 2
    assert [tick for tick, row in rows.items() if "heard_reply" in row["externals"]] == [2, 3]
    assert replay(db).ok


MATH_WORDS = Path(__file__).resolve().parent / "journals" / "1b69924" / "math_words.jsonl"


def test_a_journal_from_before_spoken_arithmetic_replays_its_f3(tmp_path):
    """1b69924 answered "sqrt(16) + 2", "what is 15% of 80?", "what's 3 squared" and "square root of 2" F3. That
    journal replays equal; told now, the math agent computes them, recorded (``parse_rules`` with ``math_words``)
    only where the line reads otherwise ("12 * 7" and "2^10" record nothing)."""
    told = _told(MATH_WORDS)
    assert [reply for _, reply in told] == ["12 * 7 = 84", F3, F3, F3, "2^10 = 1024", F3]
    report = replay_journal_file(MATH_WORDS)
    assert report.ok, report.summary()
    replies, externals = _new_journal(tmp_path, [line for line, _ in told])
    assert replies == [
        "12 * 7 = 84",
        "sqrt(16) + 2 = 6",
        "15% of 80 = 12",
        "3 squared = 9",
        "2^10 = 1024",
        "square root of 2 = 1.4142135624",
    ]
    assert ["parse_rules" in e for e in externals] == [False, True, True, True, False, True]
    assert externals[1]["parse_rules"] == [ALL_CHANGES]  # math_words among them


AT_8F6CB75 = Path(__file__).resolve().parent / "journals" / "8f6cb75"


def test_a_journal_from_before_the_forgetting_follow_ups_replays_its_f3(tmp_path):
    """8f6cb75 answered "forget that I like hiking", "forget it" and "forget everything about my sister" F3, and read
    "forget that my sister likes jazz" as a fact of the user's ("sister likes jazz", recorded ``parse_rules``
    without ``forget_more``). That journal replays equal; told now, each forgets, recorded (``parse_rules`` with
    ``forget_more``) on those lines."""
    told = _told(AT_8F6CB75 / "forget_more.jsonl")
    assert [told[at][1] for at in (1, 3, 5, 6)] == [F3, F3, F3, "You like hiking and jazz."]
    assert told[8][1] == "I had nothing stored about your sister likes jazz, so there is nothing to forget."
    report = replay_journal_file(AT_8F6CB75 / "forget_more.jsonl")
    assert report.ok, report.summary()
    replies, externals = _new_journal(tmp_path, [line for line, _ in told])
    assert [replies[at] for at in (1, 3, 5, 6)] == [
        "Done: I forgot that you like hiking.",
        "Done: I forgot your home.",
        "Done: I forgot 1 fact about your sister.",
        "You like jazz.",
    ]
    assert replies[8] == "Done: I forgot that your sister likes jazz."
    assert [externals[at].get("parse_rules") for at in (1, 3, 5, 8)] == [[ALL_CHANGES]] * 4


def test_a_journal_from_before_a_relations_occupation_replays_it_as_the_relation(tmp_path):
    """8f6cb75 stored "my sister is a nurse" as the sister herself ("a nurse", ``user/person/self/sister``) and
    answered "what does my sister do?" F1; "hi, my brother is an electrical engineer" recorded ``parse_rules``
    without ``relation_job``. That journal replays equal; told now, each is the relation's job, recorded
    (``parse_rules`` with ``relation_job``); "my sister is Maya" still names her."""
    told = _told(AT_8F6CB75 / "relation_job.jsonl")
    assert [reply for _, reply in told] == [
        "Got it: your sister is a nurse.",
        F1,
        "Got it: your sister is Maya.",
        "Got it: your brother is an electrical engineer.",
        F1,
    ]
    report = replay_journal_file(AT_8F6CB75 / "relation_job.jsonl")
    assert report.ok, report.summary()
    replies, externals = _new_journal(tmp_path, [line for line, _ in told])
    assert replies == [
        "Got it: your sister's job is nurse.",
        "Your sister's job is nurse.",
        "Got it: your sister is Maya.",
        "Got it: your brother's job is electrical engineer.",
        "Your brother's job is electrical engineer.",
    ]
    assert [externals[at].get("parse_rules") for at in (0, 3)] == [[ALL_CHANGES]] * 2


def test_a_journal_from_before_chat_markers_replays_them_in_the_values(tmp_path):
    """8f6cb75 stored "Dan lol", "jazz haha", "Rex :)" and "Lisbon lmao" ("I like jazz haha" and "hi, my dog is
    called Rex :)" recorded ``parse_rules`` without ``chat_markers``). That journal replays equal; told now, the
    markers are off the values, recorded (``parse_rules`` with ``chat_markers``)."""
    told = _told(AT_8F6CB75 / "chat_markers.jsonl")
    assert [reply for _, reply in told][::2] == [
        "Got it: your name is Dan lol.",
        "Got it: you like jazz haha.",
        "Got it: your home is Lisbon lmao.",
    ]
    report = replay_journal_file(AT_8F6CB75 / "chat_markers.jsonl")
    assert report.ok, report.summary()
    replies, externals = _new_journal(tmp_path, [line for line, _ in told])
    assert replies == [
        "Got it: your name is Dan.",
        "Your name is Dan.",
        "Got it: you like jazz.",
        "Got it: your dog's name is Rex.",
        "Got it: your home is Lisbon.",
        "Your home is Lisbon.",
    ]
    assert [bool(externals[at].get("parse_rules")) for at in (0, 2, 3, 4)] == [True] * 4
    assert externals[2]["parse_rules"] == [ALL_CHANGES]


def test_a_journal_from_before_a_replaced_reminder_was_said_replays_it_silent(tmp_path):
    """8f6cb75 replaced "call Ana tomorrow at 9" by "call Ana on Monday" without a word. That journal replays
    equal; told now, the second reply says which reminder it replaces, recorded (``reminder_replaced``) there only."""
    told = _told(AT_8F6CB75 / "reminder_again.jsonl")
    assert "replaces" not in told[1][1] and told[1][1].startswith("I will remind you to call Ana at 09:00 on Monday")
    report = replay_journal_file(AT_8F6CB75 / "reminder_again.jsonl")
    assert report.ok, report.summary()
    replies, externals = _new_journal(tmp_path, [line for line, _ in told])
    assert "; this replaces the reminder at 09:00 tomorrow (" in replies[1]
    assert "replaces" not in replies[0] + replies[2]
    assert ["reminder_replaced" in e for e in externals] == [False, True, False]


def test_a_journal_from_before_the_goal_questions_replays_their_f3_and_f1(tmp_path):
    """8f6cb75 answered "how many goals do I have?" F3 and "what is my active goal?" F1 (a profile fact). That
    journal replays equal; told now, the goal agent answers both from the goal store, recorded (``parse_rules``
    with ``goal_asks``) on those lines only."""
    told = _told(AT_8F6CB75 / "goal_count.jsonl")
    assert [reply for _, reply in told][3:] == [F3, F1]
    report = replay_journal_file(AT_8F6CB75 / "goal_count.jsonl")
    assert report.ok, report.summary()
    replies, externals = _new_journal(tmp_path, [line for line, _ in told])
    assert replies[3] == "You have 2 goals: 1 active, 1 open."
    assert replies[4].startswith("Your active goal is run a marathon (g-")
    assert ["parse_rules" in e for e in externals] == [False, False, False, True, True]
    assert externals[3]["parse_rules"] == [ALL_CHANGES]
