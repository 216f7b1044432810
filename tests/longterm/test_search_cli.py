"""``agi memory search`` as a script sees it: clean JSON, no progress bar, only the user's memories."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import agi_plugin_autonomy.plugin as autonomy
import agi_plugin_beliefs.plugin as beliefs
import agi_plugin_learning.plugin as learning
import agi_plugin_retrieval.plugin as retrieval
import agi_plugin_self_improver.plugin as self_improver
import agi_plugin_social.plugin as social
import pytest

from agi_core.brain.stage0.small_talk import GREETING
from agi_core.longterm import LongTermMemory
from agi_core.memory.bookkeeping import EMPTY_REPLIES
from agi_core.memory.migrations import migrate
from agi_core.replies import F3_NO_AGENT, F4_AGENT_FAILURE
from agi_core.testing import open_kernel


def _agi(db: Path, *args: str, stdin: str = "", **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "agi_core", "--db", str(db), "--seed", "search", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "AGI_LOAD_PLUGINS": "", **env},
    )


def _make_agent(folder: Path, **env: str) -> Path:
    """An agent with an ingested file, a conversation and a fact put by command; the episodes are not embedded yet."""
    db = folder / "agent.db"
    notes = folder / "notes.txt"
    notes.write_text("Alice moved to Lyon in 2020\n", encoding="utf-8")
    assert _agi(db, "ingest", str(notes), **env).returncode == 0
    assert _agi(db, "run", stdin="my dog is called Rex\nhello\n", **env).returncode == 0
    assert _agi(db, "memory", "put", "user/person/alice/city", "Lyon", **env).returncode == 0
    return db


@pytest.fixture(scope="module")
def agent_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _make_agent(tmp_path_factory.mktemp("search"))


@pytest.mark.parametrize("backend", ["auto", "torch"])
def test_search_json_is_only_json_and_stderr_has_no_progress_bar(tmp_path: Path, backend: str) -> None:
    db = _make_agent(tmp_path, AGI_MINILM_BACKEND=backend)
    result = _agi(db, "memory", "search", "Where did Alice move?", "--json", AGI_MINILM_BACKEND=backend)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    hits = json.loads(result.stdout)
    assert hits[0]["text"] == "Alice moved to Lyon in 2020"
    assert [hit["rank"] for hit in hits] == list(range(1, len(hits) + 1))


def test_search_returns_the_users_memories_and_no_bookkeeping(agent_db: Path) -> None:
    # k above the number of memories: every stored memory is a hit, so this is the whole list.
    result = _agi(agent_db, "memory", "search", "put_fact stored ingested module Lyon Rex", "--json", "--k", "100")
    assert result.returncode == 0, result.stderr
    texts = sorted(hit["text"] for hit in json.loads(result.stdout))
    assert texts == sorted(
        ["my dog is called Rex", "Got it: your dog's name is Rex.", "hello", GREETING, "Alice moved to Lyon in 2020"]
    )


def test_ingest_shows_no_progress_bar_unless_asked(tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("first line\nsecond line\n", encoding="utf-8")
    quiet = _agi(tmp_path / "a.db", "ingest", str(notes))
    assert (quiet.returncode, quiet.stderr) == (0, "")
    assert quiet.stdout == "notes.txt: 2 memories added (text), 0 already stored, 2 embedded\n"
    notes.write_text("third line\n", encoding="utf-8")
    forced = _agi(tmp_path / "a.db", "ingest", str(notes), "--progress")
    assert "embedding: 100%" in forced.stderr


def test_a_query_only_search_never_imports_torch(agent_db: Path) -> None:
    code = (
        "import sys\nfrom agi_core.testing import open_kernel\n"
        f"with open_kernel({str(agent_db)!r}, seed='search') as k:\n"
        "    hits = k.long_term.search('Where did Alice move?', 3)\n"
        "print(hits[0].item.text, sorted(m for m in ('torch', 'sentence_transformers') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout.strip() == "Alice moved to Lyon in 2020 []", out.stderr


def test_migration_removes_bookkeeping_mirrored_by_older_versions(tmp_path: Path) -> None:
    conn = sqlite3.connect(tmp_path / "old.db")
    ltm = LongTermMemory(conn, None, embedder=lambda: None)  # type: ignore[arg-type,return-value]
    conn.execute("DELETE FROM _agi_migrations WHERE name = 'm011_ltm_drop_bookkeeping'")
    # What the mirror stored before bookkeeping was left out: two command ticks, a conversation.
    ltm.add_many(
        [
            {"text": 'put_fact {"key":"user/person/a/city","value":"Lyon"}', "tick": 1, "speaker": "event"},
            {"text": "stored user/person/a/city", "tick": 1, "kind": "action", "speaker": "agent"},
            {"text": "my cat is Tom", "tick": 2, "speaker": "user"},
            {"text": "Got it: your cat is Tom.", "tick": 2, "kind": "action", "speaker": "agent"},
            {"text": "hello", "tick": 3, "speaker": "user"},
            *({"text": reply, "tick": 3, "kind": "action", "speaker": "agent"} for reply in sorted(EMPTY_REPLIES)),
            {"text": 'ingest {"format":null,"path":"/x.txt"}', "tick": 4, "speaker": "event"},
            {"text": "ingested 1 memories from x.txt", "tick": 4, "kind": "action", "speaker": "agent"},
            {"text": "a line of x.txt", "tick": 4, "session": "x.txt", "metadata": {"source": "x.txt"}},
        ]
    )
    assert migrate(conn, commit=False) == ["m011_ltm_drop_bookkeeping"]
    texts = sorted(row[0] for row in conn.execute("SELECT text FROM ltm_items"))
    assert texts == ["Got it: your cat is Tom.", "a line of x.txt", "hello", "my cat is Tom"]
    fts = conn.execute("SELECT count(*) FROM ltm_fts WHERE ltm_fts MATCH 'stored OR ingested'").fetchone()[0]
    assert fts == 0


def test_maintenance_ticks_and_decorated_failure_sentences_are_no_memories(tmp_path: Path) -> None:
    # The six plugins with modules, as installed: five of them have a maintain phase, and social and
    # autonomy put words around the rulebook's F3 ("Hello! I currently don't have a module …").
    plugins = (autonomy, beliefs, learning, retrieval, self_improver, social)
    with open_kernel(tmp_path / "agent.db", *plugins) as kernel:
        said = [kernel.tick("my sister Maya is coming over").final_output]
        said += [kernel.maintain().final_output for _ in range(2)]
        said += [kernel.tick("hello again").final_output]
        kernel.long_term_memory()
        texts = [row[0] for row in kernel.store.conn.execute("SELECT text FROM ltm_items ORDER BY seq")]
    assert said[1:3] == ["maintenance: 5 module(s) ran"] * 2
    assert said[3].startswith("Hello! " + F3_NO_AGENT)  # a reply that answered nothing
    assert texts == ["my sister Maya is coming over", said[0], "hello again"]


def test_migration_removes_maintenance_and_decorated_failures_mirrored_by_older_versions(tmp_path: Path) -> None:
    conn = sqlite3.connect(tmp_path / "old.db")
    ltm = LongTermMemory(conn, None, embedder=lambda: None)  # type: ignore[arg-type,return-value]
    conn.execute("DELETE FROM _agi_migrations WHERE name = 'm018_ltm_drop_maintenance'")
    decorated = f"Hello! {F3_NO_AGENT} What does Maya do for a living?"
    ltm.add_many(
        [
            {"text": "my sister Maya is a nurse", "tick": 1, "speaker": "user"},
            {"text": "Got it: your sister maya is a nurse.", "tick": 1, "kind": "action", "speaker": "agent"},
            {"text": "maintain", "tick": 2, "speaker": "maintain"},
            {"text": "maintenance: 5 module(s) ran", "tick": 2, "kind": "action", "speaker": "agent"},
            {"text": "hello again", "tick": 3, "speaker": "user"},
            {"text": decorated, "tick": 3, "kind": "action", "speaker": "agent"},
            {"text": "maintain", "tick": 4, "speaker": "user"},  # the user said it: kept
            {"text": f"Partial: {F4_AGENT_FAILURE} She is a nurse.", "tick": 4, "kind": "action", "speaker": "agent"},
        ]
    )
    assert migrate(conn, commit=False) == ["m018_ltm_drop_maintenance"]
    texts = [row[0] for row in conn.execute("SELECT text FROM ltm_items ORDER BY seq")]
    assert texts == [
        "my sister Maya is a nurse",
        "Got it: your sister maya is a nurse.",
        "hello again",
        "maintain",
        f"Partial: {F4_AGENT_FAILURE} She is a nurse.",
    ]


def test_migration_removes_clock_memories_mirrored_by_older_versions(tmp_path: Path) -> None:
    """Clock ticks are bookkeeping since 1a545ce; the memories older versions mirrored from them (5,760 an idle
    day under ``agi run --follow``) stayed and filled recall. Step m019 removes them, nothing else."""
    conn = sqlite3.connect(tmp_path / "old.db")
    ltm = LongTermMemory(conn, None, embedder=lambda: None)  # type: ignore[arg-type,return-value]
    conn.execute("DELETE FROM _agi_migrations WHERE name = 'm019_ltm_drop_clock'")
    ltm.add_many(
        [
            {"text": "my sister Maya is a nurse", "tick": 1, "speaker": "user"},
            {"text": "clock 2026-11-25T16:00:00.000Z", "tick": 2, "speaker": "clock"},
            {"text": "Time noted: 2026-11-25T16:00:00.000Z.", "tick": 2, "kind": "action", "speaker": "agent"},
            {"text": "the clock on the wall stopped", "tick": 3, "speaker": "user"},  # the user said it: kept
            {"text": "I will remember that.", "tick": 3, "kind": "action", "speaker": "agent"},
            {"text": "tick tock", "tick": 4, "speaker": "clock"},  # not as the clock sensor words it: kept
            {"text": "clock 2026-11-25T16:00:30.000Z", "tick": 5, "speaker": "clock", "session": "notes"},  # ingested
        ]
    )
    assert migrate(conn, commit=False) == ["m019_ltm_drop_clock"]
    texts = [row[0] for row in conn.execute("SELECT text FROM ltm_items ORDER BY seq")]
    assert texts == [
        "my sister Maya is a nurse",
        "the clock on the wall stopped",
        "I will remember that.",
        "tick tock",
        "clock 2026-11-25T16:00:30.000Z",
    ]
