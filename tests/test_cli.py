"""The ``agi`` command line, with exact output."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys

import pytest
from click.testing import CliRunner

from agi_core.cli.main import make_cli
from agi_core.serialization import dumps


def _agi(tmp_path, *args, input=None, seed="0"):
    return CliRunner().invoke(make_cli(), ["--db", str(tmp_path / "a.db"), "--seed", seed, *args], input=input)


def test_run_prints_one_reply_per_line(tmp_path):
    result = _agi(tmp_path, "run", input="2+2\n\nthe capital of Italy is Rome\nwhat is the capital of Italy?\n")
    assert result.exit_code == 0
    assert result.output == "2+2 = 4\nNoted: the capital of Italy is Rome.\nThe capital of Italy is Rome.\n"


def test_run_jsonl_has_the_journal_fields_and_is_identical_across_runs(tmp_path):
    script = "my favorite color is red\nwhat is my favorite color?\n9-3\n"
    (tmp_path / "one").mkdir(), (tmp_path / "two").mkdir()
    first = [json.loads(line) for line in _agi(tmp_path / "one", "run", "--jsonl", input=script).output.splitlines()]
    second = [json.loads(line) for line in _agi(tmp_path / "two", "run", "--jsonl", input=script).output.splitlines()]
    for record in (*first, *second):  # each tick's one wall-clock reading differs from run to run: all else is equal
        assert isinstance(record["externals"].pop("tick_clock")[0], int)
    assert first == second
    records = first
    assert records[1]["router_decision"] == {"agent": "profile_agent", "why": "matched_R2_profile"}
    assert records[1]["final_output"] == "Your favorite color is red."
    assert records[0]["sem_writes"][0]["key"] == "user/person/self/favorite_color"
    assert records[1]["sem_reads"][0]["value"] == "red"


def test_memory_put_get_facts(tmp_path):
    assert (
        _agi(tmp_path, "memory", "put", "world/city/paris/population", "2100000").output
        == "stored world/city/paris/population\n"
    )
    got = json.loads(_agi(tmp_path, "memory", "get", "world/city/paris/population").output)
    assert (got["exists"], got["value"]) == (True, 2100000)
    assert json.loads(_agi(tmp_path, "memory", "get", "world/city/rome/population").output) == {
        "exists": False,
        "value": None,
        "last_updated": None,
    }
    facts = _agi(tmp_path, "memory", "facts", "--json").output
    assert [f["key"] for f in json.loads(facts)] == ["world/city/paris/population"]


def test_bad_key_prints_one_line_and_exits_1(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "agi_core", "--db", str(tmp_path / "a.db"), "memory", "put", "Bad Key", "1"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 1
    assert result.stderr.strip().splitlines() == [
        "Error: 'Bad Key' is not a canonical key; use <scope>/<entity_type>/<entity_id>/<attribute> with lowercase "
        "letters, digits and underscores, e.g. user/person/self/favorite_color"
    ]


def test_wrong_seed_is_one_line(tmp_path):
    _agi(tmp_path, "run", input="1+1\n", seed="a")
    result = subprocess.run(
        [sys.executable, "-m", "agi_core", "--db", str(tmp_path / "a.db"), "--seed", "b", "run"],
        input="1+1\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 1
    assert result.stderr.strip() == (
        f"Error: {tmp_path / 'a.db'} was created with seed 'a', not 'b'; leave out --seed "
        "(a database keeps the seed it was created with)"
    )


@pytest.mark.parametrize("content", ["this is not sqlite", "x"], ids=["text", "one byte"])
def test_not_a_database_is_one_line(tmp_path, content):
    """SQLite itself takes a one-byte file for an empty database and writes over it: refused before."""
    (tmp_path / "a.db").write_text(content)
    result = subprocess.run(
        [sys.executable, "-m", "agi_core", "--db", str(tmp_path / "a.db"), "run"],
        input="1+1\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 1 and result.stderr.count("\n") == 1
    assert result.stderr == (
        f"Error: {tmp_path / 'a.db'} is not an agi database or is corrupt (file is not a database); "
        "restore it from a checkpoint or pass --db with another file\n"
    )
    assert (tmp_path / "a.db").read_text() == content


@pytest.mark.parametrize("command", [["run"], ["journal", "verify"], ["import"]])
def test_another_programs_sqlite_database_is_refused_and_left_as_it_was(tmp_path, command):
    """Every command ran agi's migrations into any SQLite file: WAL mode, 29 tables and a key file added
    to another program's database, even by commands that only read, and by an import it then refused."""
    source, shop = tmp_path / "agent", tmp_path / "shop"
    source.mkdir(), shop.mkdir()
    if command == ["import"]:  # a real export, with its key: the import gets as far as opening the database
        agi = [sys.executable, "-m", "agi_core", "--db", str(source / "a.db")]
        subprocess.run([*agi, "run"], input="1+1\n", text=True, capture_output=True, timeout=60, check=True)
        subprocess.run([*agi, "export", "-o", str(source / "a.jsonl")], capture_output=True, timeout=60, check=True)
        command = ["import", str(source / "a.jsonl"), "--key-file", str(source / "a.db.key")]
    db = shop / "shop.sqlite"
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE customers (name TEXT)")
    result = subprocess.run(
        [sys.executable, "-m", "agi_core", "--db", str(db), *command],
        input="1+1\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 1 and result.stderr == (
        f"Error: {db} is not an agi database (it holds another program's tables (customers) and no agent); "
        "pass --db with another file\n"
    )
    assert sorted(p.name for p in shop.iterdir()) == ["shop.sqlite"]  # no key, no -wal or -shm
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT name FROM sqlite_master").fetchall() == [("customers",)]
        assert conn.execute("PRAGMA journal_mode").fetchone() == ("delete",)


def test_help_does_not_import_torch_or_sentence_transformers():
    code = (
        "import sys; from agi_core.cli.main import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in ('torch', 'sentence_transformers', 'faiss') if m in sys.modules))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "AGI_LOAD_PLUGINS": ""},
    )
    assert result.stdout.strip().splitlines()[-1] == "[]"


def test_chat_asks_before_a_write_tool_and_records_the_refusal(tmp_path):
    result = _agi(tmp_path, "chat", input="/file_write notes.txt hello\nn\nexit\n")
    asked = "Allow write tool file_write with " + dumps({"path": "notes.txt", "text": "hello"}) + "? [y/N]"
    assert asked in result.output
    assert "agent> file_write failed: refused: declined by user" in result.output
    assert not (tmp_path / "workspace" / "notes.txt").exists()
    confirmed = _agi(tmp_path, "chat", input="/file_write notes.txt hello\ny\nexit\n")
    assert 'agent> file_write: {"bytes":5,"path":"notes.txt"}' in confirmed.output
    assert (tmp_path / "workspace" / "notes.txt").read_text() == "hello"


def test_each_reply_is_one_printed_line_whatever_the_fact_holds(tmp_path):
    """A fact holding a carriage return, an escape sequence or U+2028 came back raw in the reply: the
    terminal rewrote the line (or took the escape as a command) and a line counter saw two replies."""
    said = "my favorite color is red\rblue\nwhat is my favorite color?\nmy motto is \x1b[31mbold\u2028go\n"
    result = subprocess.run(
        [sys.executable, "-m", "agi_core", "--db", str(tmp_path / "a.db"), "run"],
        input=said,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "AGI_LOAD_PLUGINS": ""},
    )
    assert result.returncode == 0
    assert result.stdout.split("\n")[:-1] == [
        "Got it: your favorite color is red\\rblue.",
        "Your favorite color is red\\rblue.",
        "Got it: your motto is \\x1b[31mbold\\u2028go.",
    ]
