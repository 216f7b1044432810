"""Issue 10: B.L.A.S.T.'s CLI habits in plain words, through ``agi run`` with exact replies."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from agi_core.brain.stage0.habits import file_request
from agi_core.replies import F3_NO_AGENT


def _run(tmp_path, script):
    done = subprocess.run(
        [sys.executable, "-m", "agi_core", "--db", str(tmp_path / "a.db"), "run"],
        input="".join(line + "\n" for line in script),
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "AGI_LOAD_PLUGINS": ""},
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_what_do_you_remember_lists_user_facts_and_recent_turns(tmp_path):
    replies = _run(
        tmp_path,
        ["what do you remember?", "my favorite color is green", "the capital of Peru is Lima", "what do you remember?"],
    )
    assert replies[0] == "I don’t have anything stored about you yet."
    assert replies[3] == (
        "I remember 1 fact about you: your favorite color is green. Lately: you said “my favorite color is green”; "
        "I said “Got it: your favorite color is green.”; you said “the capital of Peru is Lima”; "
        "I said “Noted: the capital of Peru is Lima.”."
    )


def test_file_phrases_run_the_confined_read_tools(tmp_path):
    workspace = tmp_path / "workspace"
    (workspace / "docs").mkdir(parents=True)
    (workspace / "notes.txt").write_text("buy milk\n", encoding="utf-8")
    (workspace / "docs" / "a.md").write_text("x", encoding="utf-8")
    replies = _run(
        tmp_path,
        ["read file notes.txt", "list files", "list files in docs", "read the file 'docs/a.md'.", "read file ../a.db"],
    )
    assert replies == [
        'file_read: {"path":"notes.txt","text":"buy milk\\n","truncated":false}',
        'file_list: {"entries":["docs/","notes.txt"]}',
        'file_list: {"entries":["docs/a.md"]}',
        'file_read: {"path":"docs/a.md","text":"x","truncated":false}',
        f"file_read failed: path '../a.db' leaves the workspace {workspace}; use a path inside it",
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("read file notes.txt", ("file_read", "notes.txt")),
        ('Show me the file "my notes.txt"?', ("file_read", "my notes.txt")),
        ("LIST FILES!", ("file_list", ".")),
        ("list folder docs", ("file_list", "docs")),
        ("read file ", None),
        ("please read my mind", None),
    ],
)
def test_file_request_phrases(text, expected):
    assert file_request(text) == expected


def test_why_did_you_say_that_explains_the_previous_tick(tmp_path):
    replies = _run(
        tmp_path,
        [
            "why did you say that?",
            "the capital of France is Paris",
            "what is the capital of France?",
            "why did you say that?",
            "list files in nowhere",
            "Why?",
            "tell me a joke",
            "why",
        ],
    )
    assert replies[0] == "I haven’t said anything yet, so there is nothing to explain."
    assert replies[3] == (
        "I said “The capital of France is Paris.” because knowledge_agent handled it (rule matched_R3_knowledge); "
        'it cited ev-7f682884c38b: sem_read world/entity/france/capital = "Paris", '
        "and the council said evidence_check approve "
        "(every claim cites a SEM read); value_check approve (claimed values equal the SEM values)."
    )
    assert replies[5] == (
        "I said “file_list failed: no folder 'nowhere' in the workspace” because file_agent handled it "
        '(rule matched_file_request); no stored fact was involved; it ran the tool file_list {"path":"nowhere"}, '
        "which failed."
    )
    assert replies[7] == (
        f"I said “{F3_NO_AGENT}” because generic_agent handled it (rule matched_R4_fallback); "
        "no stored fact was involved."
    )


def test_habit_ticks_replay_equal(tmp_path):
    (tmp_path / "workspace").mkdir()
    (tmp_path / "workspace" / "notes.txt").write_text("hi", encoding="utf-8")
    _run(tmp_path, ["my name is Ada", "what do you remember?", "read file notes.txt", "list files", "why?"])
    done = subprocess.run(
        [sys.executable, "-m", "agi_core", "--db", str(tmp_path / "a.db"), "replay"],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "AGI_LOAD_PLUGINS": ""},
    )
    assert done.returncode == 0, done.stdout + done.stderr
