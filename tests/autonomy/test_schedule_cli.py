"""``agi schedule add|list|remove``: output, one-line errors, journaled command ticks."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from agi_core.cli.main import main, make_cli


def _agi(tmp_path, *args):
    return CliRunner().invoke(make_cli(), ["--db", str(tmp_path / "a.db"), *args])


def _main(tmp_path, capsys, *args):
    with pytest.raises(SystemExit) as exit_info:
        main(["--db", str(tmp_path / "a.db"), *args])
    return exit_info.value.code, capsys.readouterr()


def test_add_list_remove(tmp_path):
    assert _agi(tmp_path, "schedule", "add", "ping", "--every", "1m30s", "--say", "hi").output == (
        "scheduled ping: every 90s\n"
    )
    assert _agi(tmp_path, "schedule", "add", "standup", "--cron", "0 9 * * 1-5", "--say", "standup").exit_code == 0
    assert _agi(tmp_path, "schedule", "add", "once", "--at", "2999-01-01T00:00:00Z", "--say", "y3k").exit_code == 0
    listed = _agi(tmp_path, "schedule", "list").output.splitlines()
    assert [line.split(":")[0] for line in listed] == ["once", "ping", "standup"]
    assert listed[0].startswith("once: at 2999-01-01T00:00:00.000Z, next 2999-01-01T00:00:00.000Z, runs 0")
    assert listed[2].startswith("standup: cron '0 9 * * 1-5', next ")
    rows = json.loads(_agi(tmp_path, "schedule", "list", "--json").output)
    assert rows[1] | {"next_due_ms": 0} == {
        "name": "ping",
        "kind": "every",
        "spec": "90000",
        "say": "hi",
        "next_due_ms": 0,
        "last_run_ms": None,
        "runs": 0,
        "missed": 0,
        "created_tick": 1,
    }
    assert _agi(tmp_path, "schedule", "remove", "ping").output == "removed job ping\n"
    assert [row["name"] for row in json.loads(_agi(tmp_path, "schedule", "list", "--json").output)] == [
        "once",
        "standup",
    ]
    exported = [line for line in _agi(tmp_path, "journal", "export").output.splitlines() if line.startswith("{")]
    commands = [json.loads(line)["record"]["router_decision"]["agent"] for line in exported]
    assert commands == ["command:schedule_add"] * 3 + ["command:schedule_remove"]
    assert _agi(tmp_path, "replay").output.startswith("replay equal: 4 ticks")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--say", "x"], "needs exactly one of --every, --at, --cron (got 0)"),
        (["--every", "1s", "--cron", "* * * * *", "--say", "x"], "needs exactly one of --every, --at, --cron (got 2)"),
        (["--every", "soon", "--say", "x"], "'soon' is not a duration; write a number and a unit"),
        (["--every", "500ms", "--say", "x"], "--every 500ms is shorter than 1s; give 1s or more"),
        (["--cron", "61 * * * *", "--say", "x"], "--cron '61 * * * *' is not a cron expression"),
        (["--at", "2001-01-01T00:00:00Z", "--say", "x"], "is in the past"),
        (["--at", "noon", "--say", "x"], "--at 'noon' is not an ISO 8601 time"),
        # issue 18 item 6: internal errors (OverflowError, CroniterBadDateError) and accepted nonsense before
        (["--every", "999999999999d", "--say", "x"], "'999999999999d' is longer than 100 years (36500d)"),
        (["--every", "36501d", "--say", "x"], "is longer than 100 years"),
        (["--every", "\u0661s", "--say", "x"], "is not a duration: write its digits as 0-9 and a unit"),
        (["--every", "\uff11s", "--say", "x"], "is not a duration: write its digits as 0-9 and a unit"),
        (["--cron", "0 0 31 4 *", "--say", "x"], "--cron '0 0 31 4 *' never fires (no date matches its day and month)"),
        (["--cron", "0 0 30 2 *", "--say", "x"], "--cron '0 0 30 2 *' never fires"),
        (["--cron", "0 0 1 1 * 0 2030", "--say", "x"], "is not a cron expression; write 5 fields (or 6, seconds last)"),
        # an --at time past year 1-9999 once in UTC was 'internal error (ValueError: year 0 is out of range)'
        (["--at", "0001-01-01T00:00:00+01:00", "--say", "x"], "is outside years 1-9999 in UTC; give a time such as"),
        (["--at", "9999-12-31T23:30:00-01:00", "--say", "x"], "is outside years 1-9999 in UTC; give a time such as"),
    ],
)
def test_bad_requests_get_one_line_and_store_nothing(tmp_path, capsys, args, message):
    assert _agi(tmp_path, "init", "--name", "a").exit_code == 0  # an agent: its jobs stay none
    code, captured = _main(tmp_path, capsys, "schedule", "add", "job", *args)
    assert code == 1
    assert captured.err.startswith("Error: ") and message in captured.err
    assert captured.err.count("\n") == 1
    assert _agi(tmp_path, "schedule", "list").output == ""


def test_removing_an_unknown_job_names_the_list_command(tmp_path, capsys):
    code, captured = _main(tmp_path, capsys, "schedule", "remove", "nope")
    assert (code, captured.err) == (1, "Error: no job named 'nope'; list the jobs with: agi schedule list\n")


@pytest.mark.parametrize("priority", ["nan", "inf", "-inf", "1e400", "-1e400", "2", "-0.1", "high"])
def test_a_goal_priority_that_is_not_from_0_to_1_is_one_line_naming_the_fix(tmp_path, capsys, priority):
    """--priority nan (inf, 1e400) said '$.priority is not a finite number (NaN or infinity); store a finite
    number or null', the journal's wording; 'high' said click's 'is not a valid float'."""
    assert _agi(tmp_path, "goals", "add", "first").exit_code == 0
    code, captured = _main(tmp_path, capsys, "goals", "add", "learn French", "--priority", priority)
    assert (code, captured.err) == (
        1,
        f"Error: --priority {priority} is not a number from 0 to 1; give e.g. --priority 0.8\n",
    )
    assert [goal["description"] for goal in json.loads(_agi(tmp_path, "goals", "list", "--json").output)] == ["first"]
    assert _agi(tmp_path, "goals", "add", "learn French", "--priority", "1").exit_code == 0
