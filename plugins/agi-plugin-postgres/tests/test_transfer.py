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
    start = lines["first"].index('{"table":"journal","columns":["tick","id","record","chain"],"rows":5}')
    assert lines["last"][start + 1 : start + 6] == lines["first"][start + 1 : start + 6]  # the journal rows
    assert agi(last, "replay").stdout.strip() == "replay equal: 5 ticks (1..5), 16 fields each"
    verified = agi(last, "journal", "verify").stdout
    assert "journal OK: 5 records, chain intact" in verified
    assert "state OK: every row matches the seal at tick 5" in verified


def test_import_refuses_an_agent_that_already_exists(agent_url, agi, tmp_path: Path):
    db = str(tmp_path / "a.db")
    agi(db, "run", stdin="hello\n")
    agi(db, "export", "-o", str(tmp_path / "a.jsonl"))
    pg = agent_url("twice")
    agi(pg, "import", str(tmp_path / "a.jsonl"), "--key-file", db + ".key")
    again = agi(pg, "import", str(tmp_path / "a.jsonl"), "--key-file", db + ".key", check=False)
    assert again.returncode == 1
    assert again.stderr.strip().endswith("already holds an agent; import into a new database (or a new agent name)")
