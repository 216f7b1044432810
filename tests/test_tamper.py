"""Tamper evidence: the chain's head, the state seal, checkpoints and the secret journal key."""

from __future__ import annotations

import os
import sqlite3
import stat
import subprocess
import sys
from contextlib import closing

import pytest

from agi_core import checkpoints
from agi_core.errors import ConfigError
from agi_core.integrity import verify_agent
from agi_core.journal_key import JournalKey
from agi_core.testing import open_kernel

SCRIPT = ["my favorite color is red", "the capital of Peru is Lima", "2+2", "my favourite food is ramen", "3*3"]


def agi(db, *args, input=None, env=None):
    """The real ``agi`` command in a subprocess."""
    return subprocess.run(
        [sys.executable, "-m", "agi_core", "--db", str(db), "--seed", "t", *args],
        input=input,
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=120,
    )


def _agent(db, lines=SCRIPT):
    with open_kernel(db, seed="t") as kernel:
        for line in lines:
            kernel.tick(line)


def _sql(db, statement, params=()):
    with closing(sqlite3.connect(db)) as conn:
        conn.execute(statement, params)
        conn.commit()


def _problems(db):
    with open_kernel(db, seed="t") as kernel:
        return verify_agent(kernel.store, kernel.journal_key).problems()


def test_deleting_the_newest_records_is_detected(tmp_path):
    db = tmp_path / "a.db"
    _agent(db)
    assert _problems(db) == []
    _sql(db, "DELETE FROM journal WHERE tick >= 4")
    assert (
        _problems(db)[0]
        == "JOURNAL_BROKEN tick=3: the journal ends at tick 3 but its head is tick 5: newest records deleted"
    )
    with closing(sqlite3.connect(db)) as conn:  # pointing the head at tick 3 needs the key
        chain3 = conn.execute("SELECT chain FROM journal WHERE tick = 3").fetchone()[0]
        head = conn.execute("SELECT value FROM meta WHERE key = 'journal_head'").fetchone()[0]
    _sql(db, "UPDATE meta SET value = ? WHERE key = 'journal_head'", (f"3 {chain3} {head.split()[2]}",))
    assert _problems(db)[0] == "JOURNAL_BROKEN tick=3: the journal head in meta was edited (its MAC does not match)"


def test_a_fact_edited_with_sql_is_named_by_journal_verify_with_table_and_key(tmp_path):
    db = tmp_path / "a.db"
    assert agi(db, "run", input="\n".join(SCRIPT) + "\n").returncode == 0
    assert agi(db, "journal", "verify").returncode == 0
    _sql(db, "UPDATE facts SET value = '\"green\"' WHERE key = 'user/person/self/favorite_color'")
    verify = agi(db, "journal", "verify")
    assert verify.returncode == 1
    assert verify.stdout.splitlines() == [
        "journal OK: 5 records, chain intact",
        "STATE_CHANGED facts key 'user/person/self/favorite_color': changed outside the journal",
        "checkpoints OK: 0 verified (sha256, MAC, state digest)",
    ]
    agi(db, "run", input="what is the capital of Peru?\n")  # a later session seals its own ticks only
    assert "STATE_CHANGED facts key 'user/person/self/favorite_color': changed outside the journal" in (
        agi(db, "journal", "verify").stdout
    )


@pytest.mark.parametrize(
    ("statement", "problem"),
    [
        ("DELETE FROM episodes WHERE seq = 3", "STATE_CHANGED episodes key '3': deleted outside the journal"),
        (
            "UPDATE working SET data = replace(data, 'red', 'blue')",
            "STATE_CHANGED working key '1': changed outside the journal",
        ),
        (
            "UPDATE meta SET value = '0' WHERE key = 'last_observation_ok'",
            "STATE_CHANGED meta key 'last_observation_ok': changed outside the journal",
        ),
        (
            "INSERT INTO facts (key, value, tick) VALUES ('user/person/self/age', '40', 2)",
            "STATE_CHANGED facts key 'user/person/self/age': added outside the journal",
        ),
        (
            "DELETE FROM _agi_seal_rows WHERE tbl = 'facts'",
            "STATE_CHANGED the seal's row hashes were edited (their sum is not the sealed digest)",
        ),
    ],
)
def test_edits_to_episodes_working_memory_meta_and_the_seal_are_named(tmp_path, statement, problem):
    db = tmp_path / "a.db"
    _agent(db, SCRIPT[:2])
    _sql(db, statement)
    assert problem in _problems(db)


def test_reading_long_term_memory_outside_a_tick_leaves_the_agent_verifying(tmp_path):
    """``agi memory search`` mirrors the new episodes into long-term memory and writes its progress row:
    outside any tick, that row was unsealed, and journal verify (and agi export) refused the agent."""
    db = tmp_path / "a.db"
    _agent(db, SCRIPT[:2])
    with open_kernel(db, seed="t") as kernel:
        assert kernel.long_term.search("Peru", 1)  # the mirror runs here, outside any tick
    assert _problems(db) == []


def test_an_edited_rlm_variable_is_named(tmp_path):
    db = tmp_path / "a.db"
    with open_kernel(db, seed="t") as kernel:
        kernel.command("state", {"op": "create_state", "args": {"prompt": "count risks"}})
        state_id = kernel.conn.execute("SELECT state_id FROM rlm_states").fetchone()[0]
        kernel.command("state", {"op": "set", "args": {"state_id": state_id, "name": "risks", "value": 3}})
    _sql(db, "UPDATE rlm_variables SET value = '4' WHERE name = 'risks'")
    assert [p for p in _problems(db) if "rlm_variables" in p] == [
        f"STATE_CHANGED rlm_variables key 'state:{state_id}/risks': changed outside the journal"
    ]


def test_a_damaged_checkpoint_is_reported_and_never_restored(tmp_path):
    db = tmp_path / "a.db"
    with open_kernel(db, seed="t") as kernel:
        kernel.tick(SCRIPT[0])
        info = checkpoints.create(kernel, "one")
        kernel.tick(SCRIPT[1])
    path = tmp_path / "a.db.checkpoints" / info.file
    with closing(sqlite3.connect(path)) as conn:
        conn.execute("UPDATE facts SET value = '\"green\"'")
        conn.commit()
    assert _problems(db) == [
        f"CHECKPOINT_BROKEN checkpoint 'one': is damaged ({path} fails its sha256); use another checkpoint",
        "CHECKPOINT_BROKEN checkpoint 'one': facts key 'user/person/self/favorite_color': changed outside the journal",
    ]
    rolled = agi(db, "rollback", "one")
    assert (rolled.returncode, rolled.stderr) == (
        1,
        f"Error: checkpoint 'one' is damaged ({path} fails its sha256); use another checkpoint\n",
    )
    with open_kernel(db, seed="t") as kernel:  # unchanged
        assert kernel.tick_count == 2 and kernel.get_fact("world/entity/peru/capital").value == "Lima"


def test_the_key_file_is_a_0600_secret_not_derived_from_the_seed(tmp_path):
    _agent(tmp_path / "a.db", SCRIPT[:1])
    _agent(tmp_path / "b.db", SCRIPT[:1])
    key_a, key_b = (tmp_path / "a.db.key"), (tmp_path / "b.db.key")
    assert stat.S_IMODE(key_a.stat().st_mode) == 0o600
    assert key_a.read_text() != key_b.read_text() and len(key_a.read_text().strip()) == 64
    rows = []
    for name in ("a.db", "b.db"):
        with closing(sqlite3.connect(tmp_path / name)) as conn:
            rows.append(conn.execute("SELECT record, chain FROM journal").fetchone())
    assert rows[0][0] == rows[1][0]  # same seed, same record: determinism is unchanged
    assert rows[0][1] != rows[1][1]  # but the chains differ: the seed alone cannot forge them
    assert rows[0][1] == JournalKey(key_a.read_text().strip().encode(), "").mac("|" + rows[0][0])


def test_agi_journal_key_is_honoured_and_a_missing_or_wrong_key_is_one_line(tmp_path, monkeypatch):
    db = tmp_path / "a.db"
    monkeypatch.setenv("AGI_JOURNAL_KEY", "correct horse battery staple")
    _agent(db, SCRIPT[:2])
    assert not (tmp_path / "a.db.key").exists()
    with closing(sqlite3.connect(db)) as conn:
        record, chain = conn.execute("SELECT record, chain FROM journal WHERE tick = 1").fetchone()
    assert chain == JournalKey(b"correct horse battery staple", "").mac("|" + record)
    assert _problems(db) == []
    monkeypatch.setenv("AGI_JOURNAL_KEY", "wrong")
    with pytest.raises(ConfigError, match=r"the journal key from AGI_JOURNAL_KEY is not the key of .*a\.db"):
        open_kernel(db, seed="t")
    monkeypatch.delenv("AGI_JOURNAL_KEY")
    missing = agi(db, "journal", "verify")
    assert (missing.returncode, missing.stdout) == (1, "")
    assert missing.stderr == (
        f"Error: journal key {tmp_path / 'a.db.key'} is missing; restore that file (mode 0600) or set "
        f"AGI_JOURNAL_KEY to the key {db} was created with\n"
    )


def test_journal_import_verifies_with_the_exporting_databases_key(tmp_path):
    _agent(tmp_path / "a.db", SCRIPT[:2])
    assert agi(tmp_path / "a.db", "journal", "export", "-o", str(tmp_path / "j.jsonl")).returncode == 0
    no_key = agi(tmp_path / "b.db", "journal", "import", str(tmp_path / "j.jsonl"))
    assert (no_key.returncode, no_key.stderr) == (
        1,
        f"Error: pass --key-file with the journal key of the database {tmp_path / 'j.jsonl'} came from "
        "(its <db>.key)\n",
    )
    (tmp_path / "other.key").write_text("0" * 64)
    wrong = agi(
        tmp_path / "c.db", "journal", "import", str(tmp_path / "j.jsonl"), "--key-file", str(tmp_path / "other.key")
    )
    assert wrong.returncode == 1 and "does not verify with the key from" in wrong.stderr
    right = agi(
        tmp_path / "d.db", "journal", "import", str(tmp_path / "j.jsonl"), "--key-file", str(tmp_path / "a.db.key")
    )
    assert right.stdout == f"imported 2 ticks into {tmp_path / 'd.db'}\n"
