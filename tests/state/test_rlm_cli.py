"""``agi state``: each command is one journaled tick of a real kernel."""

from __future__ import annotations

import json
import re
import sqlite3

import pytest
from click.testing import CliRunner

from agi_core import Kernel
from agi_core.cli.main import main, make_cli
from agi_core.plugins import reset_plugins
from agi_core.replay import replay
from agi_core.state import StateNotFound
from agi_core.state.cli import state_group
from agi_core.testing import builtin_plugins

SEED = "cli"


@pytest.fixture
def db(tmp_path):
    return tmp_path / "agent.db"


@pytest.fixture
def agi(db, monkeypatch):
    """``agi("set", ...)``: run ``agi --db DB --seed cli state ...`` through click's runner."""
    monkeypatch.delenv("AGI_RAISE_ERRORS", raising=False)
    runner = CliRunner()

    def invoke(*args):
        return runner.invoke(make_cli(), ["--db", str(db), "--seed", SEED, "state", *args])

    return invoke


@pytest.fixture
def agi_main(db, monkeypatch, capsys):
    """``agi_main(...)``: the console entry point; returns (exit code, stdout, stderr)."""
    monkeypatch.delenv("AGI_RAISE_ERRORS", raising=False)

    def invoke(*args):
        code = 0
        try:
            main(["--db", str(db), "--seed", SEED, "state", *args])
        except SystemExit as exc:
            code = exc.code
        out, err = capsys.readouterr()
        return code, out, err

    return invoke


def query(db, sql):
    conn = sqlite3.connect(db)
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


def journal_inputs(db):
    return [json.loads(r[0])["input"]["raw"] for r in query(db, "SELECT record FROM journal ORDER BY tick")]


def test_a_session_of_commands(agi, db, rlm_seed):
    created = agi("create", "Analyze the auth module", "--session", "sess-1")
    assert created.exit_code == 0
    sid = created.output.strip()
    assert re.fullmatch(r"state-[a-f0-9]{8}", sid)
    assert agi("set", "risk_count", "3", "--type", "number").output == f"{sid} risk_count number state\n"
    assert agi("set", "note", "plain text").output == f"{sid} note text state\n"
    assert agi("get", "risk_count").output == "3\n"
    assert agi("get", "prompt").output == '"Analyze the auth module"\n'
    assert agi("list").output == "Final null state\nnote text state\nprompt text state\nrisk_count number state\n"
    ckpt = agi("checkpoint", "before_change").output.strip()
    assert re.fullmatch(r"ckpt-[a-f0-9]{8}", ckpt)
    agi("set", "risk_count", "4", "--type", "number")
    rolled = agi("rollback", ckpt)
    assert (rolled.exit_code, rolled.output) == (0, "")
    assert agi("get", "risk_count").output == "3\n"
    listed = agi("checkpoints").output.splitlines()
    assert [line.split(" ")[:2] for line in listed] == [
        [listed[0].split(" ")[0], "initial_state"],
        [ckpt, "before_change"],
    ]
    history = [json.loads(line) for line in agi("history", "--limit", "2").output.splitlines()]
    assert [(h["operation"], h["variable_name"], h.get("source")) for h in history] == [
        ("update", "risk_count", "cli"),
        ("rollback", "*", "cli"),
    ]
    assert history[0]["old_value"] == 3 and history[0]["new_value"] == 4
    doc = json.loads(agi("export").output)
    assert rlm_seed.errors(rlm_seed.our_validator(), doc) == []
    assert doc["variables"]["risk_count"]["value"] == 3
    deleted = agi("delete", "note")
    assert (deleted.exit_code, deleted.output) == (0, "")
    assert agi("list", "--states").output == f"{sid} incomplete -\n"

    inputs = journal_inputs(db)
    assert len(inputs) == 15
    assert inputs[:2] == [
        'state {"args":{"prompt":"Analyze the auth module","session_id":"sess-1"},"op":"create_state"}',
        'state {"args":{"name":"risk_count","source":"cli","type":"number","value":3},"op":"set"}',
    ]
    assert inputs[-1] == 'state {"args":{},"op":"states"}'
    report = replay(db, seed=SEED, plugins=builtin_plugins())
    assert report.summary() == "replay equal: 15 ticks (1..15), 16 fields each"


def test_errors_are_one_line_exit_1_and_store_nothing(agi_main, db):
    assert agi_main("get", "x") == (1, "", f"Error: no agent database at {db} (create one with agi run)\n")
    assert list(db.parent.iterdir()) == []
    Kernel.open(db, seed=SEED, plugins=builtin_plugins()).close()
    assert agi_main("get", "x") == (1, "", "Error: no RLM state yet; create one with: agi state create PROMPT\n")
    code, sid, _ = agi_main("create", "p")
    sid = sid.strip()
    assert code == 0
    ticks = query(db, "SELECT COUNT(*) FROM journal")
    assert agi_main("get", "nope") == (
        1,
        "",
        (
            f"Error: variable 'nope' of {sid} does not exist; set it first (agi state set NAME VALUE) "
            "or list names (agi state list)\n"
        ),
    )
    assert agi_main("set", "prompt", "new") == (
        1,
        "",
        (f"Error: prompt of {sid} is read-only after initialization; store new text under another name\n"),
    )
    assert agi_main("set", "t", "1", "--scope", "temporary") == (
        1,
        "",
        ("Error: a temporary variable needs 1 <= ttl_seconds <= 2147483647, got None; pass ttl_seconds=<seconds>\n"),
    )
    assert agi_main("get", "x", "--state", "state-00000000") == (
        1,
        "",
        (
            "Error: no RLM state 'state-00000000'; create one with create_state() (agi state create) "
            "or list them (agi state list --states)\n"
        ),
    )
    assert query(db, "SELECT COUNT(*) FROM journal") == ticks == [(1,)]
    assert query(db, "SELECT COUNT(*) FROM rlm_mutations") == [(1,)]


def test_a_bad_value_is_a_usage_error(agi, db):
    agi("create", "p")
    bad = agi("set", "n", "three", "--type", "number")
    assert bad.exit_code == 2
    assert "'three' is not JSON; a number value is written as JSON" in bad.output
    assert query(db, "SELECT COUNT(*) FROM journal") == [(1,)]


def test_child_states_from_the_cli(agi):
    parent = agi("create", "root task", "--new-tree").output.strip()
    agi("set", "lines", "[42, 15]", "--type", "array", "--state", parent)
    child = agi("create", "sub task", "--parent", parent, "--input", "todo=lines", "--result", "answer")
    child_id = child.output.strip()
    assert agi("get", "todo", "--state", child_id).output == "[42, 15]\n"
    agi("set", "Final", "done", "--state", child_id)
    assert agi("get", "answer", "--state", parent).output == '"done"\n'
    assert agi("list", "--states").output == f"{parent} incomplete -\n{child_id} complete {parent}\n"


def test_raise_errors_re_raises(db, monkeypatch):
    Kernel.open(db, seed=SEED, plugins=builtin_plugins()).close()
    monkeypatch.setenv("AGI_RAISE_ERRORS", "1")
    with pytest.raises(StateNotFound, match=r"^no RLM state 'state-00000000'"):
        main(["--db", str(db), "--seed", SEED, "state", "get", "x", "--state", "state-00000000"])


def test_the_group_comes_from_the_builtin_state_plugin(monkeypatch):
    assert make_cli().get_command(None, "state") is state_group
    monkeypatch.setenv("AGI_DISABLE_PLUGINS", "state")
    reset_plugins()
    assert "state" not in make_cli().list_commands(None)


def test_set_with_ttl_counts_seconds_of_the_ticks_recorded_wall_clock(agi, db):
    """``agi state`` opens its kernel without a clock: the tick that sets (or looks at) a TTL reads
    the wall clock once, recorded as ``wall_clock``; ``expires_at`` is that reading plus the TTL."""
    from agi_core.state import clock

    assert agi("create", "p").exit_code == 0
    result = agi("set", "tmp", "1", "--scope", "temporary", "--ttl", "3600")
    assert result.exit_code == 0, result.output
    assert agi("list").output.splitlines()[-1].split()[:3] == ["tmp", "text", "temporary"]
    (record,) = [json.loads(r) for (r,) in query(db, "SELECT record FROM journal WHERE tick = 2")]
    (read,) = record["externals"]["wall_clock"]
    assert record["agent_outputs"]["state"]["variable"]["expires_at"] == clock.from_ms(read + 3_600_000)
    assert replay(db, seed=SEED, plugins=builtin_plugins()).ok
