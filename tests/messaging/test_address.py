"""An agent's name (its address): set by agi init, stored in meta, journaled, printed by agi whoami."""

from __future__ import annotations

from click.testing import CliRunner

from agi_core import Kernel
from agi_core.cli.main import make_cli


def _agi(db, *args):
    return CliRunner().invoke(make_cli(), ["--db", str(db), *args])


def test_init_names_the_agent_and_whoami_prints_its_address(tmp_path):
    db = tmp_path / "a.db"
    assert _agi(db, "init", "--name", "alice").output == "alice agent.alice\n"
    assert _agi(db, "whoami").output == "alice agent.alice\n"
    with Kernel.open(db) as kernel:
        assert kernel.store.meta_get("agent_name") == "alice"
        record = next(iter(kernel.store.journal_rows(0)))
        assert '"set_name"' in record[2]  # the naming is a journaled tick: replay names the copy the same


def test_an_agent_keeps_its_name_and_a_bad_name_is_one_line(tmp_path):
    db = tmp_path / "a.db"
    _agi(db, "init", "--name", "alice")
    again = _agi(db, "init", "--name", "alice")
    assert again.exit_code == 0 and again.output == "alice agent.alice\n"
    other = _agi(db, "init", "--name", "bob")
    assert other.exit_code == 1
    assert other.output == "Error: this agent is named 'alice' already; an agent keeps its name (its address)\n"
    bad = _agi(tmp_path / "b.db", "init", "--name", "Bob.x")
    assert bad.exit_code == 1 and bad.output.startswith("Error: agent name 'Bob.x' is not valid;")
    assert not (tmp_path / "b.db").exists()


def test_an_unnamed_agent_is_named_after_its_file(tmp_path):
    db = tmp_path / "My-Agent.db"
    _agi(db, "run")
    assert _agi(db, "whoami").output == "my_agent agent.my_agent\n"
    missing = _agi(tmp_path / "none.db", "whoami")
    assert missing.exit_code == 1 and "no agent database" in missing.output
