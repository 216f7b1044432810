"""``agi ingest`` names the lines it skipped on stderr; ``--strict`` stores nothing and exits 1."""

from __future__ import annotations

import sqlite3

from tests.cli.conftest import Agi, agi_process

LINES = [
    b'{"text": "Ann likes tea.", "speaker": "Ann"}',
    b"{not json",
    b'{"speaker": "Bob"}',
    b'{"text": "Bob plays chess."}',
    b'["a list"]',
    b'{"text": 5}',
    b'{"text": ""}',
    b'{"text": "ok", "importance": "high"}',  # kept: a bad importance falls back to the heuristic
    b'{"text": "caf\xe9 \xff"}',  # kept: invalid UTF-8 is read with replacement (issue 9)
    b'{"text": "x", "speaker": 7}',
]
SUMMARY = (
    'notes.jsonl: 6 lines skipped: line 2 not JSON, line 3 missing "text", line 5 a JSON list, not an object, '
    'line 6 "text" is not a string, line 7 empty "text", …\n'
)


def ltm_rows(db) -> int:
    return sqlite3.connect(db).execute("SELECT COUNT(*) FROM ltm_items").fetchone()[0]


def test_skipped_lines_are_counted_and_named(agi: Agi, tmp_path) -> None:
    path = tmp_path / "notes.jsonl"
    path.write_bytes(b"\n".join(LINES) + b"\n")
    db = tmp_path / "a.db"
    result = agi("--db", str(db), "ingest", str(path), "--no-embed", "--no-progress")
    assert result.exit_code == 0
    assert result.stdout == "notes.jsonl: 4 memories added (jsonl), 0 already stored, 0 embedded\n"
    assert result.stderr == SUMMARY
    assert ltm_rows(db) == 4


def test_strict_refuses_the_file_and_stores_nothing(tmp_path) -> None:
    path = tmp_path / "notes.jsonl"
    path.write_bytes(b"\n".join(LINES) + b"\n")
    db = tmp_path / "a.db"
    assert agi_process("--db", str(db), "run", input=b"1+1\n").returncode == 0
    done = agi_process("--db", str(db), "ingest", str(path), "--strict", "--no-embed", "--no-progress")
    assert done.returncode == 1 and done.stdout == b""
    assert done.stderr.decode() == (
        "Error: " + SUMMARY.rstrip("\n") + "; nothing was stored (fix those lines, or leave out --strict "
        "to store the others)\n"
    )
    assert ltm_rows(db) == 0
    assert sqlite3.connect(db).execute("SELECT COUNT(*) FROM journal").fetchone() == (1,)


def test_strict_on_a_clean_file_stores_it(agi: Agi, tmp_path) -> None:
    path = tmp_path / "clean.jsonl"
    path.write_bytes(LINES[0] + b"\n" + LINES[3] + b"\n")
    result = agi("--db", str(tmp_path / "a.db"), "ingest", str(path), "--strict", "--no-embed", "--no-progress")
    assert (result.exit_code, result.stderr) == (0, "")
    assert ltm_rows(tmp_path / "a.db") == 2


def test_a_malformed_locomo_file_is_one_line(agi: Agi, tmp_path) -> None:
    path = tmp_path / "conv.json"
    path.write_text('{"session_1": [1, 2]}', encoding="utf-8")
    result = agi("--db", str(tmp_path / "a.db"), "ingest", str(path), "--no-embed", "--no-progress")
    assert result.exit_code == 1
    assert result.stderr == (
        f"Error: {path.resolve()} is not a LoCoMo conversation (AttributeError: 'int' object has no attribute 'get'); "
        "pass a file with session_<n> lists of turns, or --format text/jsonl\n"
    )
