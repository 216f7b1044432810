"""Replaying a database whose ticks used a tool from a plugin that is not installed names the tool."""

from __future__ import annotations

WEATHER = """
from agi_core import Tool, ToolDefinition, hookimpl


@hookimpl
def agi_register_actuators(register):
    register(Tool(ToolDefinition("weather", "Weather in a city", {"city": "string"}), lambda ctx, args: {"sun": True}))
"""


def test_replay_without_the_tools_plugin_names_the_tick_and_the_tool(tmp_path, plugin_site, run_agi):
    site = plugin_site("weather", WEATHER)
    db = tmp_path / "a.db"
    done = run_agi(db, "run", site=site, plugins="weather", stdin="2+2\n/weather Paris\n/no_such_tool x\n")
    assert done.stdout.splitlines()[1] == 'weather: {"sun":true}', done.stderr
    replayed = run_agi(db, "replay", site=site, plugins="weather")
    assert replayed.stdout == "replay equal: 3 ticks (1..3), 16 fields each\n"
    without = run_agi(db, "replay")
    assert (without.returncode, without.stdout) == (1, "")
    assert without.stderr == (
        "Error: tick 2 used tool 'weather' which no installed plugin provides; "
        "install the plugin that provides it (agi plugins lists the installed ones)\n"
    )


def test_journal_import_without_the_tools_plugin_names_the_tool(tmp_path, plugin_site, run_agi):
    site = plugin_site("weather", WEATHER)
    db = tmp_path / "a.db"
    run_agi(db, "run", site=site, plugins="weather", stdin="/weather Oslo\n")
    exported = tmp_path / "journal.jsonl"
    assert run_agi(db, "journal", "export", "-o", str(exported)).returncode == 0
    done = run_agi(tmp_path / "b.db", "journal", "import", str(exported), "--key-file", str(tmp_path / "a.db.key"))
    assert (done.returncode, done.stderr.splitlines()) == (
        1,
        [
            "Error: tick 1 used tool 'weather' which no installed plugin provides; "
            "install the plugin that provides it (agi plugins lists the installed ones)"
        ],
    )
