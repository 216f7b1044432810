"""Replaying a database whose ticks used a tool or a module from a plugin that is not installed names
the tool, or the module and the plugin to install."""

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


TALLY = """
from agi_core.hookspecs import hookimpl
from agi_core.modules import CognitiveModule


class Tally(CognitiveModule):
    name = "tally"

    def observe(self, ctx):
        return {"seen": ctx.tick}


@hookimpl
def agi_register_modules(register):
    register(Tally())
"""


def test_replay_without_a_modules_plugin_names_the_tick_the_module_and_the_plugin(tmp_path, plugin_site, run_agi):
    site = plugin_site("tallying", TALLY)
    db = tmp_path / "a.db"
    done = run_agi(db, "run", site=site, plugins="tallying", stdin="2+2\n3+3\n")
    assert done.stdout == "2+2 = 4\n3+3 = 6\n", done.stderr
    replayed = run_agi(db, "replay", site=site, plugins="tallying")
    assert replayed.stdout == "replay equal: 2 ticks (1..2), 16 fields each\n", replayed.stderr
    without = run_agi(db, "replay")
    assert (without.returncode, without.stdout) == (1, "")
    assert without.stderr == (
        "Error: tick 1 ran module 'tally' of plugin 'tallying', which is not installed; "
        "install plugin 'tallying' (agi plugins lists the installed ones)\n"
    )


def test_journal_import_without_a_modules_plugin_names_the_module_and_the_plugin(tmp_path, plugin_site, run_agi):
    site = plugin_site("tallying", TALLY)
    db = tmp_path / "a.db"
    run_agi(db, "run", site=site, plugins="tallying", stdin="2+2\n")
    exported = tmp_path / "journal.jsonl"
    assert run_agi(db, "journal", "export", "-o", str(exported)).returncode == 0
    done = run_agi(tmp_path / "b.db", "journal", "import", str(exported), "--key-file", str(tmp_path / "a.db.key"))
    assert (done.returncode, done.stderr.splitlines()) == (
        1,
        [
            "Error: tick 1 ran module 'tally' of plugin 'tallying', which is not installed; "
            "install plugin 'tallying' (agi plugins lists the installed ones)"
        ],
    )


def test_a_journal_recorded_before_modules_named_their_plugin_still_replays_equal(tmp_path):
    """Records whose ``modules`` field has no module → plugin map (older journals) compare without it."""
    import orjson

    from agi_core.hookspecs import hookimpl
    from agi_core.kernel import Kernel
    from agi_core.modules import CognitiveModule
    from agi_core.plugins import Plugins
    from agi_core.replay import replay_records

    class Tally(CognitiveModule):
        name = "tally"

        def observe(self, ctx):
            return {"seen": ctx.tick}

    class Tallying:
        @hookimpl
        def agi_register_modules(self, register):
            register(Tally())

    plugins = Plugins.builtins(Tallying())
    with Kernel.open(tmp_path / "a.db", plugins=plugins) as kernel:
        kernel.tick("2+2")
        records = [orjson.loads(text) for _t, _i, text, _c in kernel.store.journal_rows()]
    assert records[0]["modules"]["plugins"] == {"tally": "Tallying"}
    for record in records:
        del record["modules"]["plugins"]
    assert replay_records(records, seed="0", plugins=plugins).ok
