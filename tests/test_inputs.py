"""Input is bounded and linear: any bytes, size and key limits, blobs stored once, no NaN, O(1) recall.

The CLI is exercised through real subprocesses on real database files.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from agi_core import checkpoints, journal_key
from agi_core.errors import MemoryKeyError, ValidationError
from agi_core.externals import Externals
from agi_core.hookspecs import hookimpl
from agi_core.journal import verify
from agi_core.kernel.tick import recall
from agi_core.memory import blobs
from agi_core.memory.sqlite_store import SqliteStore
from agi_core.model import SemanticEntry
from agi_core.reasoning import AgentReply
from agi_core.replay import replay
from agi_core.serialization import dumps
from agi_core.testing import open_kernel

MB = 1_000_000


def agi(db: Path, *args: str | bytes, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    """``agi --db DB --seed test ARGS`` in a child process (the seed of ``open_kernel``), bytes in and out."""
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    command = [sys.executable, "-m", "agi_core", "--db", str(db), "--seed", "test", *args]
    return subprocess.run(command, input=stdin, capture_output=True, env=env, timeout=120, check=False)


def one_line_error(result: subprocess.CompletedProcess[bytes]) -> str:
    err = result.stderr.decode("utf-8", "replace")
    assert "Traceback" not in err, err
    assert result.returncode != 0
    assert len(err.strip().splitlines()) == 1, err
    return err.strip()


def db_size(path: Path) -> int:
    return sum(p.stat().st_size for p in (path, path.with_name(path.name + "-wal")) if p.exists())


# -- any bytes ---------------------------------------------------------------------------
def test_invalid_utf8_on_stdin_of_run_keeps_every_following_line(tmp_path):
    db = tmp_path / "a.db"
    stdin = b"my favorite color is blue\n\xff\xfe caf\xc3 \xed\xa0\x80 bad\nwhat is my favorite color?\n12 + 30\n"
    result = agi(db, "run", stdin=stdin)
    assert result.returncode == 0, result.stderr.decode()
    replies = result.stdout.decode("utf-8").splitlines()
    assert len(replies) == 4
    assert replies[2] == "Your favorite color is blue."
    assert replies[3] == "12 + 30 = 42"
    with open_kernel(db) as kernel:
        raw = json.loads(next(row[2] for row in kernel.store.journal_rows() if row[0] == 2))["input"]["raw"]
        assert raw.startswith("\ufffd\ufffd caf\ufffd") and raw.endswith(" bad")
        assert verify(kernel.store, kernel.journal_key).ok
    assert agi(db, "replay").returncode == 0


def test_surrogates_from_the_api_and_argv_never_reach_sqlite(tmp_path):
    db = tmp_path / "a.db"
    with open_kernel(db) as kernel:
        record = kernel.tick("my favorite color is bl\udcffe")
        assert record.input.raw == "my favorite color is bl\ufffde"
        assert kernel.get_fact("user/person/self/favorite_color").value == "bl\ufffde"
    assert dumps({"text": "a\ud800b"}) == '{"text":"a\ufffdb"}'
    result = agi(db, "memory", "put", "user/person/self/nickname", b"\xff\xfeok")  # argv bytes, not UTF-8
    assert result.returncode == 0, result.stderr.decode()
    result = agi(db, "memory", "get", "user/person/self/nickname")
    assert json.loads(result.stdout)["value"] == "\ufffd\ufffdok"


def test_journal_verify_and_export_on_invalid_utf8_in_a_record(tmp_path):
    db = tmp_path / "a.db"
    assert agi(db, "run", stdin=b"my favorite color is blue\nhello\n").returncode == 0
    with sqlite3.connect(db) as conn:  # an edit that leaves bytes which are not UTF-8 in the record
        conn.execute(
            "UPDATE journal SET record = CAST(replace(CAST(record AS BLOB), X'626c7565', X'626cff65') AS TEXT) "
            "WHERE tick = 1"
        )
    assert "JOURNAL_BROKEN tick=1: chain mismatch" in agi(db, "journal", "verify").stdout.decode()
    exported = agi(db, "journal", "export")
    assert exported.returncode == 0, exported.stderr.decode()
    assert "bl\ufffde" in exported.stdout.decode("utf-8")
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE journal SET record = CAST(X'7B22FF7D' AS TEXT) WHERE tick = 2")
    assert "edited" in one_line_error(agi(db, "journal", "export"))


def test_contracts_validate_on_a_file_that_is_not_utf8(tmp_path):
    bad = tmp_path / "out.json"
    bad.write_bytes(b'{"summary": "caf\xe9 \xff"}\n')
    result = agi(tmp_path / "a.db", "contracts", "validate", "action_interface", str(bad))
    err = result.stderr.decode("utf-8")
    assert "Traceback" not in err
    assert result.returncode == 1
    assert err.startswith("Error: the output violates contract 'action_interface'")


def test_ingest_of_a_file_that_is_not_utf8(tmp_path):
    notes = tmp_path / "notes.txt"
    notes.write_bytes(b"first caf\xe9 note\n\nsecond \xff\xfe note\n")
    result = agi(tmp_path / "a.db", "ingest", str(notes), "--no-embed")
    assert result.returncode == 0, result.stderr.decode()
    with open_kernel(tmp_path / "a.db") as kernel:
        texts = [row[0] for row in kernel.conn.execute("SELECT text FROM ltm_items ORDER BY seq")]
    assert texts == ["first caf\ufffd note", "second \ufffd\ufffd note"]


# -- size and key limits -------------------------------------------------------------------
def test_a_line_over_max_input_gets_a_refusal_and_the_next_line_goes_on(tmp_path):
    db = tmp_path / "a.db"
    stdin = b"12 + 30\n" + b"x" * 5000 + b"\n12 + 1\n"
    result = agi(db, "run", "--max-input", "1000", stdin=stdin)
    assert result.returncode == 0, result.stderr.decode()
    replies = result.stdout.decode().splitlines()
    assert replies[0] == "12 + 30 = 42"
    assert replies[1].startswith("Input refused: it is 5,000 bytes and the limit is 1,000;")
    assert replies[2] == "12 + 1 = 13"
    with open_kernel(db) as kernel:
        text = next(row[2] for row in kernel.store.journal_rows() if row[0] == 2)
        assert len(text) < 4000 and "x" * 300 not in text  # only a head, the size and the hash
    assert agi(db, "replay").returncode == 0


def test_the_default_limit_is_64_kib_through_the_api(tmp_path):
    with open_kernel(tmp_path / "a.db") as kernel:
        assert kernel.tick("a" * 65536).router_decision.agent == "generic_agent"
        refused = kernel.tick("a" * 65537)
        assert refused.router_decision.agent == "command:refuse_input"
        assert refused.final_output.startswith("Input refused: it is 65,537 bytes and the limit is 65,536;")


def test_a_201_character_key_is_refused_with_one_line(tmp_path):
    db = tmp_path / "a.db"
    key = "user/person/self/" + "a" * (201 - len("user/person/self/"))
    err = one_line_error(agi(db, "memory", "put", key, "x"))
    assert "is 201 characters; canonical keys are at most 200" in err
    ok = "user/person/self/" + "a" * (200 - len("user/person/self/"))
    assert agi(db, "memory", "put", ok, "x").returncode == 0
    with open_kernel(db) as kernel:
        reply = kernel.tick("my " + "b" * 60_000 + " is long").final_output
        assert "canonical keys are at most 200" in reply and len(reply) < 300
        with pytest.raises(MemoryKeyError, match="at most 200"):
            kernel.get_fact(key)


# -- stored once ---------------------------------------------------------------------------
def test_a_1_mb_line_grows_the_database_by_about_1_mb(tmp_path):
    db = tmp_path / "a.db"
    assert agi(db, "run", stdin=b"hello\n").returncode == 0
    before = db_size(db)
    line = b" ".join(b"word%d" % i for i in range(140_000))[:MB]
    result = agi(db, "run", "--max-input", "2000000", stdin=line + b"\nhello again\n")
    assert result.returncode == 0, result.stderr.decode()
    growth = db_size(db) - before
    assert growth < 1.2 * MB, f"a 1 MB line grew the database by {growth:,} bytes"
    exported = agi(db, "journal", "export")
    records = [json.loads(line)["record"] for line in exported.stdout.decode().splitlines()]
    assert records[1]["input"]["raw"] == line.decode()  # export resolves the blob references
    assert agi(db, "replay").returncode == 0
    assert agi(db, "journal", "verify").stdout.decode().startswith("journal OK: 3 records")


def test_working_memory_keeps_a_preview_not_a_copy(tmp_path):
    with open_kernel(tmp_path / "a.db") as kernel:
        kernel.tick("tell me " + "z" * 20_000)
        said = kernel.working().recent_turns[-2]
        digest = blobs.digest("tell me " + "z" * 20_000)
        assert said.startswith("user: tell me zzz") and said.endswith(f"[20008 chars, sha256:{digest}]")
        assert len(said) < 1200


def test_large_values_replay_equal_and_export_import_round_trip(tmp_path):
    db = tmp_path / "a.db"
    big = "v" * 50_000
    with open_kernel(db, max_input_bytes=2 * MB) as kernel:
        kernel.tick("hello  " + "w " * 300_000)  # its normalized form is derived from the same blob
        kernel.tick(f"my favorite color is {big}")
        kernel.put_fact("world/entity/x/blob", {"nested": [big, "agi:blob:sha256:" + "0" * 64]})
        kernel.command("state", {"op": "create_state", "args": {"prompt": "p"}})
        kernel.command("state", {"op": "set", "args": {"name": "note", "value": "n" * 200_000}})
        kernel.tick("what is my favorite color?")
        assert kernel.get_fact("world/entity/x/blob").value == {"nested": [big, "agi:blob:sha256:" + "0" * 64]}
        assert kernel.get_fact("user/person/self/favorite_color").value == big
        assert verify(kernel.store, kernel.journal_key).ok
        hashes = [row[0] for row in kernel.conn.execute("SELECT hash FROM blobs")]
        assert blobs.digest(big) in hashes
    report = replay(db, seed="test")
    assert report.ok, report.summary()
    exported = tmp_path / "journal.jsonl"
    assert agi(db, "journal", "export", "-o", str(exported)).returncode == 0
    assert "agi:blob:sha256:" + "0" * 64 in exported.read_text()  # a look-alike comes back as typed
    imported = agi(tmp_path / "b.db", "journal", "import", str(exported), "--key-file", str(tmp_path / "a.db.key"))
    assert imported.returncode == 0, imported.stderr.decode()
    assert agi(tmp_path / "b.db", "journal", "verify").returncode == 0
    again = agi(tmp_path / "c.db", "replay", "--journal", str(exported))
    assert again.returncode == 0, again.stdout.decode()


def test_blob_tampering_is_detected(tmp_path):
    db = tmp_path / "a.db"
    with open_kernel(db, max_input_bytes=MB) as kernel:
        kernel.tick("q" * 10_000)
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE blobs SET data = CAST('edited' AS BLOB)")
    with open_kernel(db) as kernel:
        assert "was edited" in str(verify(kernel.store, kernel.journal_key))
    with sqlite3.connect(db) as conn:
        conn.execute("DELETE FROM blobs")
    store = SqliteStore(db)
    try:
        assert "is missing" in str(verify(store, journal_key.load(store, "test")))
    finally:
        store.close()
    assert "is missing from" in one_line_error(agi(db, "journal", "verify"))


def test_rollback_keeps_the_blobs_of_archived_ticks(tmp_path):
    db = tmp_path / "a.db"
    with open_kernel(db, max_input_bytes=MB) as kernel:
        kernel.tick("hello")
        checkpoints.create(kernel, "before")
        kernel.tick("undone " + "u" * 9000)
        checkpoints.rollback(kernel, "before")
    exported = agi(db, "journal", "export", "--archived")
    assert exported.returncode == 0, exported.stderr.decode()
    assert json.loads(exported.stdout)["record"]["input"]["raw"] == "undone " + "u" * 9000


# -- NaN -----------------------------------------------------------------------------------
def test_nan_never_reaches_the_journal(tmp_path):
    with pytest.raises(ValidationError, match=r"^\$\.a\[1\]\.b is not a finite number"):
        dumps({"a": [1.0, {"b": float("inf")}]})
    db = tmp_path / "a.db"
    with open_kernel(db) as kernel:
        with pytest.raises(ValidationError, match=r"user/person/self/score has NaN or infinity at \$"):
            kernel.put_fact("user/person/self/score", float("nan"))
        assert kernel.tick_count == 0
    assert agi(db, "memory", "put", "user/person/self/score", "NaN").returncode == 0
    result = agi(db, "memory", "get", "user/person/self/score")
    assert json.loads(result.stdout)["value"] == "NaN"  # not JSON, so kept as the plain string
    assert agi(db, "replay").returncode == 0


class _NanClaims:
    """A router agent whose claim carries a NaN (a plugin bug the journal must not hide as null)."""

    name, rule, priority, inline = "nan_agent", "matched_nan", 1, True

    def matches(self, text: str) -> bool:
        return text.startswith("score ")

    def handle(self, ctx: object) -> AgentReply:
        return AgentReply("scored", claims=[{"id": "c1", "value": float("nan")}])


class _NanPlugin:
    @hookimpl
    def agi_register_router_agents(self, register):
        register(_NanClaims())


def test_a_tick_that_would_journal_nan_is_refused_whole(tmp_path):
    db = tmp_path / "a.db"
    with open_kernel(db, _NanPlugin()) as kernel:
        kernel.tick("12 + 30")
        with pytest.raises(ValidationError, match=r"^\$\.claims\[0\]\.value is not a finite number"):
            kernel.tick("score this")
        assert kernel.tick_count == 1
        assert kernel.tick("12 + 1").final_output == "12 + 1 = 13"
        assert verify(kernel.store, kernel.journal_key).ok
        assert "NaN" not in "".join(row[2] for row in kernel.store.journal_rows())


def test_chat_accepts_invalid_utf8(tmp_path):
    result = agi(tmp_path / "a.db", "chat", stdin=b"my favorite color is bl\xffe\nwhat is my favorite color?\nexit\n")
    assert result.returncode == 0, result.stderr.decode()
    assert "agent> Your favorite color is bl\ufffde." in result.stdout.decode("utf-8")


def test_nan_importance_is_clamped_on_ingest(tmp_path):
    notes = tmp_path / "notes.jsonl"
    notes.write_text(
        '{"text": "a", "importance": NaN}\n{"text": "b", "importance": Infinity}\n{"text": "c", "importance": 7}\n'
    )
    db = tmp_path / "a.db"
    assert agi(db, "ingest", str(notes), "--no-embed").returncode == 0
    with open_kernel(db) as kernel:
        rows = kernel.conn.execute("SELECT text, importance FROM ltm_items ORDER BY seq").fetchall()
    assert rows[2] == ("c", 1.0)
    assert all(0.0 <= importance <= 1.0 for _text, importance in rows)
    assert agi(db, "replay").returncode == 0


# -- O(1) in the number of facts -------------------------------------------------------------
def _vm_steps_of_a_recall_tick(tmp_path: Path, facts: int) -> int:
    """SQLite virtual-machine steps (in hundreds) of one tick that recalls a focus with ``facts`` facts."""
    with open_kernel(tmp_path / f"f{facts}.db", synchronous="OFF") as kernel:
        kernel.tick("my favorite color is blue")  # focus: user/person/self
        with kernel.store.tick_transaction():
            for i in range(facts):
                entry = SemanticEntry(id=f"f{i}", key=f"user/person/self/attr_{i:06d}", value=i, fact="x")
                kernel.store.sem_write(entry, 1)
        steps = [0]

        def count() -> int:
            steps[0] += 1
            return 0

        kernel.conn.set_progress_handler(count, 100)
        record = kernel.tick("hello")
        kernel.conn.set_progress_handler(None, 100)
        assert record.brainstate_before["working"]["focus"] == "user/person/self"
        return steps[0]


def test_a_tick_reads_o1_rows_whatever_the_number_of_facts(tmp_path):
    small, large = _vm_steps_of_a_recall_tick(tmp_path, 100), _vm_steps_of_a_recall_tick(tmp_path, 10_000)
    assert large <= small * 1.5 + 5, f"{small} x100 VM steps at 100 facts, {large} x100 at 10,000"


def test_recall_hands_the_first_ten_focus_facts(tmp_path):
    with open_kernel(tmp_path / "a.db") as kernel:
        for i in range(12):
            kernel.put_fact(f"user/person/self/attr_{i:02d}", i)
        kernel.tick("my favorite color is blue")
        semantic = recall(kernel, kernel.working(), Externals()).semantic
        assert [fact["key"] for fact in semantic] == [f"user/person/self/attr_{i:02d}" for i in range(10)]
