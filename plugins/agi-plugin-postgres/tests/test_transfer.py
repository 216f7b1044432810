"""agi export / agi import move a whole agent SQLite -> PostgreSQL -> SQLite unchanged (real files, real server)."""

from __future__ import annotations

from pathlib import Path


def test_sqlite_postgres_sqlite_round_trip_keeps_journal_bytes_and_replay_equal(agent_url, agi, tmp_path: Path):
    first, last = str(tmp_path / "first.db"), str(tmp_path / "last.db")
    said = "the capital of Peru is Lima\nmy favorite color is green\n2*21\nwhat is the capital of Peru?\n"
    agi(first, "run", stdin=said + "x" * 5000 + "\n")  # the long input is stored as a blob
    agi(first, "export", "-o", str(tmp_path / "first.jsonl"))
    pg = agent_url("moved")
    imported = agi(pg, "import", str(tmp_path / "first.jsonl"), "--key-file", first + ".key")
    assert imported.stdout.strip().endswith("(tick 5)")
    assert agi(pg, "replay").stdout.strip() == "replay equal: 5 ticks (1..5), 16 fields each"
    agi(pg, "export", "-o", str(tmp_path / "pg.jsonl"))
    key = tmp_path / (pg.split("agent=")[1].split("&")[0] + ".key")
    agi(last, "import", str(tmp_path / "pg.jsonl"), "--key-file", str(key))
    agi(last, "export", "-o", str(tmp_path / "last.jsonl"))

    lines = {name: (tmp_path / f"{name}.jsonl").read_text(encoding="utf-8").splitlines() for name in ("first", "last")}
    assert lines["first"][1:] == lines["last"][1:]  # every row, byte for byte (line 1 names the backend)
    assert '{"table":"tick_timings","columns":["tick","duration_us"],"rows":5}' in lines["last"]  # each tick's time
    start = lines["first"].index('{"table":"journal","columns":["tick","id","record","chain"],"rows":5}')
    assert lines["last"][start + 1 : start + 6] == lines["first"][start + 1 : start + 6]  # the journal rows
    assert agi(last, "replay").stdout.strip() == "replay equal: 5 ticks (1..5), 16 fields each"
    verified = agi(last, "journal", "verify").stdout
    assert "journal OK: 5 records, chain intact" in verified
    assert "state OK: every row matches the seal at tick 5" in verified


def test_an_archived_sqlite_agent_imported_into_postgres_carries_its_archive_point_and_replays_there(
    agent_url, agi, tmp_path: Path
):
    """The archive point's checkpoint an export carries becomes a snapshot schema (CheckpointTransfer on
    PostgreSQL): the agent verifies from the archive point, replays equal from it (built into a scratch SQLite
    file), moves on to SQLite with it, and rolls back to it."""
    db = str(tmp_path / "a.db")
    agi(db, "run", stdin="the capital of Peru is Lima\nmy favorite color is green\n")
    agi(db, "checkpoint", "create", "c2")
    agi(db, "run", stdin="2*21\n")
    agi(db, "journal", "archive", "--through", "c2", "--to", str(tmp_path / "a.jsonl"))
    agi(db, "export", "-o", str(tmp_path / "agent.jsonl"))
    pg = agent_url("archived")
    imported = agi(pg, "import", str(tmp_path / "agent.jsonl"), "--key-file", db + ".key")
    assert "was not imported" not in imported.stderr, imported.stderr
    assert agi(pg, "checkpoint", "list").stdout == "c2\ttick 2\n"
    verified = agi(pg, "journal", "verify").stdout.splitlines()
    assert verified[0] == "journal OK: 1 records (ticks 3..3), chain intact from the archive point (tick 2)"
    assert verified[-1] == "checkpoints OK: 1 verified (sha256, MAC, state digest)"
    assert agi(pg, "replay").stdout == "replay equal: 1 ticks (3..3), 16 fields each\n"
    agi(pg, "run", stdin="my sister is Maya\n")
    assert agi(pg, "replay").stdout == "replay equal: 2 ticks (3..4), 16 fields each\n"
    agi(pg, "export", "-o", str(tmp_path / "back.jsonl"))  # and on to SQLite, the checkpoint with it
    back = str(tmp_path / "back.db")
    agi(back, "import", str(tmp_path / "back.jsonl"), "--key-file", db + ".key")
    assert agi(back, "replay").stdout == "replay equal: 2 ticks (3..4), 16 fields each\n"
    agi(pg, "rollback", "c2")  # PostgreSQL keeps no archive point: the checkpoint's own journal comes back whole
    assert agi(pg, "journal", "verify").stdout.splitlines()[0] == "journal OK: 2 records, chain intact"
    assert agi(pg, "replay").stdout == "replay equal: 2 ticks (1..2), 16 fields each\n"


def test_import_refuses_an_agent_that_already_exists(agent_url, agi, tmp_path: Path):
    db = str(tmp_path / "a.db")
    agi(db, "run", stdin="hello\n")
    agi(db, "export", "-o", str(tmp_path / "a.jsonl"))
    pg = agent_url("twice")
    agi(pg, "import", str(tmp_path / "a.jsonl"), "--key-file", db + ".key")
    again = agi(pg, "import", str(tmp_path / "a.jsonl"), "--key-file", db + ".key", check=False)
    assert again.returncode == 1
    assert again.stderr.strip().endswith("already holds an agent; import into a new database (or a new agent name)")


def test_messages_travel_sqlite_postgres_sqlite_unchanged(agent_url, agi, tmp_path: Path):
    """The inbox and the outbox (a published reply, a queued message) survive both moves byte for byte."""
    from agi_core.testing import open_kernel

    hub = "memory://pg-transfer-messages"
    alice, bob = open_kernel(tmp_path / "alice.db", messaging=hub), open_kernel(tmp_path / "bob.db", messaging=hub)
    bob.command("send_message", {"to": "alice", "text": "2+2"})
    assert alice.tick().final_output == "2+2 = 4"
    alice.close()
    bob.close()
    first, last = str(tmp_path / "alice.db"), str(tmp_path / "last.db")
    agi(first, "send", "bob", "later")  # no AGI_MESSAGING_URL: it waits in the outbox, unpublished
    agi(first, "export", "-o", str(tmp_path / "alice.jsonl"))
    pg = agent_url("messages")
    agi(pg, "import", str(tmp_path / "alice.jsonl"), "--key-file", first + ".key")
    agi(pg, "export", "-o", str(tmp_path / "pg.jsonl"))
    key = tmp_path / (pg.split("agent=")[1].split("&")[0] + ".key")
    agi(last, "import", str(tmp_path / "pg.jsonl"), "--key-file", str(key))
    agi(last, "export", "-o", str(tmp_path / "last.jsonl"))
    lines = {n: (tmp_path / f"{n}.jsonl").read_text(encoding="utf-8").splitlines() for n in ("alice", "pg", "last")}
    assert lines["alice"][1:] == lines["pg"][1:] == lines["last"][1:]
    headers = [line for line in lines["pg"] if line.startswith('{"table":"messages_')]
    assert headers == [
        '{"table":"messages_in","columns":["id","tick","sender","conversation"],"rows":1}',
        '{"table":"messages_out","columns":["id","tick","recipient","message","published"],"rows":2}',
    ]
    assert agi(pg, "replay").stdout.startswith("replay equal: 3 ticks")  # named, received (and replied), sent


def test_an_export_holding_a_nul_imports_into_postgres(agent_url, agi, tmp_path: Path):
    """SQLite keeps a NUL raw in a fact's text, an episode, a goal and a reminder; PostgreSQL TEXT holds none:
    the import failed ('PostgreSQL text fields cannot contain NUL'). The episode now becomes a blob (read back
    whole), a goal kept whole too, the other texts with U+FFFD, as this backend stores them itself."""
    db = str(tmp_path / "a.db")
    agi(db, "run", stdin="my name is A\x00da\nmy goal is to learn Sp\x00anish\nremind me to wa\x00ter in 5 minutes\n")
    agi(db, "export", "-o", str(tmp_path / "a.jsonl"))
    exported = (tmp_path / "a.jsonl").read_text(encoding="utf-8")
    assert '"the user\'s name is A\\u0000da"' in exported and '"learn Sp\\u0000anish"' in exported  # raw in rows
    pg = agent_url("nul")
    assert agi(pg, "import", str(tmp_path / "a.jsonl"), "--key-file", db + ".key").stdout.strip().endswith("(tick 3)")
    verified = agi(pg, "journal", "verify").stdout
    assert "journal OK: 3 records, chain intact" in verified
    assert "state OK: every row matches the seal at tick 3" in verified
    assert agi(pg, "replay").stdout.strip() == "replay equal: 3 ticks (1..3), 16 fields each"
    assert agi(pg, "run", stdin="what is my name?\n").stdout == "Your name is A\\x00da.\n"
    assert "learn Sp\x00anish" in agi(pg, "goals", "list").stdout


def _schemas(dsn: str) -> set[str]:
    import psycopg

    with psycopg.connect(dsn) as conn:
        return {row[0] for row in conn.execute("SELECT nspname FROM pg_namespace")}


def test_a_failed_import_into_postgres_leaves_nothing_and_an_existing_agent_untouched(
    agent_url, agi, postgres_dsn: str, tmp_path: Path
):
    """A failed import left the agent's (empty) schema and its home= folder: the agent then 'existed',
    holding nothing. As on SQLite, nothing is left now; an agent that existed before keeps every row."""
    db = str(tmp_path / "a.db")
    agi(db, "run", stdin="hello\n")
    agi(db, "export", "-o", str(tmp_path / "a.jsonl"))
    (tmp_path / "other.key").write_text("f" * 64 + "\n", encoding="ascii")
    url = agent_url("failed").replace(f"home={tmp_path}", f"home={tmp_path / 'new' / 'home'}")
    schema = "agent_" + url.split("agent=")[1].split("&")[0]
    before = _schemas(postgres_dsn)
    failed = agi(url, "import", str(tmp_path / "a.jsonl"), "--key-file", str(tmp_path / "other.key"), check=False)
    assert failed.returncode == 1 and "is not the key of the exported agent" in failed.stderr
    assert _schemas(postgres_dsn) == before and schema not in before
    assert not (tmp_path / "new").exists()
    assert agi(url, "status", check=False).returncode == 1  # no agent there: read-only commands refuse it

    kept = agent_url("kept")
    agi(kept, "import", str(tmp_path / "a.jsonl"), "--key-file", db + ".key")
    again = agi(kept, "import", str(tmp_path / "a.jsonl"), "--key-file", db + ".key", check=False)
    assert again.returncode == 1 and "already holds an agent" in again.stderr
    assert agi(kept, "replay").stdout.strip() == "replay equal: 1 ticks (1..1), 16 fields each"
