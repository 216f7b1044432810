"""A database keeps the seed it was created with: later commands need no --seed."""

from __future__ import annotations

import json
import sqlite3

from tests.cli.conftest import Agi


def test_every_command_uses_the_stored_seed(agi: Agi, tmp_path) -> None:
    db = str(tmp_path / "a.db")
    first = agi("--db", db, "--seed", "9", "run", input="my favorite color is red\n2+2\n")
    assert first.exit_code == 0, first.output
    assert sqlite3.connect(db).execute("SELECT value FROM meta WHERE key = 'seed'").fetchone() == ("9",)
    assert agi("--db", db, "replay").output == "replay equal: 2 ticks (1..2), 16 fields each\n"
    assert agi("--db", db, "journal", "verify").output.startswith("journal OK: 2 records")
    assert agi("--db", db, "memory", "search", "color", "--k", "1", "--json").exit_code == 0
    more = agi("--db", db, "run", "--jsonl", input="what is my favorite color?\n")
    assert json.loads(more.output)["final_output"] == "Your favorite color is red."
    assert agi("--db", db, "--seed", "9", "replay").exit_code == 0  # the same seed is only checked
    assert agi("--db", db, "replay").output == "replay equal: 3 ticks (1..3), 16 fields each\n"


def test_the_ids_come_from_the_stored_seed(agi: Agi, tmp_path) -> None:
    """A run without --seed on a seed-9 database writes what a run with --seed 9 writes."""
    one, two = str(tmp_path / "one.db"), str(tmp_path / "two.db")
    agi("--db", one, "--seed", "9", "run", input="1+1\n")
    agi("--db", two, "--seed", "9", "run", input="1+1\n")
    without = json.loads(agi("--db", one, "run", "--jsonl", input="the sky is blue\n").output)
    with_seed = json.loads(agi("--db", two, "--seed", "9", "run", "--jsonl", input="the sky is blue\n").output)
    for record in (without, with_seed):  # the one wall-clock reading of each run differs; all else is the seed's
        assert isinstance(record["externals"].pop("tick_clock")[0], int)
    assert without == with_seed and without["tick"] == 2


def test_another_seed_on_an_existing_database_is_one_line(agi: Agi, tmp_path) -> None:
    db = str(tmp_path / "a.db")
    agi("--db", db, "--seed", "9", "run", input="1+1\n")
    for args in (["run"], ["replay"], ["journal", "verify"], ["memory", "facts"]):
        result = agi("--db", db, "--seed", "8", *args, input="2+2\n")
        assert (result.exit_code, result.stdout) == (1, ""), args
        assert result.stderr == (
            f"Error: {db} was created with seed '9', not '8'; leave out --seed "
            "(a database keeps the seed it was created with)\n"
        )
    assert sqlite3.connect(db).execute("SELECT COUNT(*) FROM journal").fetchone() == (1,)


def test_a_new_database_without_seed_uses_0(agi: Agi, tmp_path) -> None:
    db = str(tmp_path / "a.db")
    agi("--db", db, "run", input="1+1\n")
    assert sqlite3.connect(db).execute("SELECT value FROM meta WHERE key = 'seed'").fetchone() == ("0",)
    assert agi("--db", db, "--seed", "0", "replay").exit_code == 0
