"""``agi plugins`` runs every registration hook: a plugin whose hook raises is shown failing, with the error."""

from __future__ import annotations

import json

HALF_BROKEN = '''
from agi_core import Tool, ToolDefinition, hookimpl


@hookimpl
def agi_register_actuators(register):
    register(Tool(ToolDefinition("weather", "Weather in a city", {"city": "string"}), lambda ctx, args: {"sun": True}))


@hookimpl
def agi_register_sensors(register):
    raise RuntimeError("the sensor bus is unreachable")


@hookimpl
def agi_register_commands(cli):
    @cli.command()
    def forecast():
        """Print the forecast."""


@hookimpl
def agi_after_tick(kernel, record, replaying):
    pass
'''


def test_a_plugin_whose_registration_hook_raises_is_listed_as_failed(tmp_path, plugin_site, run_agi):
    site = plugin_site("weather", HALF_BROKEN)
    done = run_agi(tmp_path / "a.db", "plugins", site=site, plugins="weather")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    start = lines.index("weather 1.0 FAILED")
    assert lines[start + 1 : start + 5] == [
        "  commands: forecast",
        "  tools: weather",
        "  hooks: agi_after_tick",
        "  error in agi_register_sensors: RuntimeError: the sensor bus is unreachable",
    ]
    from agi_core.testing import builtin_plugins

    agents = sorted(builtin_plugins().registry("agi_register_router_agents"))
    stage0 = lines.index("stage0 0.1.0 (built-in)")
    shown = ", ".join(agents[:8]) + (f", … ({len(agents)} in all)" if len(agents) > 8 else "")
    assert lines[stage0 + 1 : stage0 + 4] == ["  brains: stage0", "  modules: sem_council", f"  router agents: {shown}"]
    assert {"math_agent", "tool_agent", "generic_agent"} <= set(agents)


def test_plugins_json_shows_registrations_and_errors_on_stdout_only(tmp_path, plugin_site, run_agi):
    site = plugin_site("weather", HALF_BROKEN)
    done = run_agi(tmp_path / "a.db", "plugins", "--json", site=site, plugins="weather")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    by_name = {row["name"]: row for row in data["plugins"]}
    assert by_name["weather"] == {
        "name": "weather",
        "version": "1.0",
        "builtin": False,
        "loaded": True,
        "hooks": ["agi_after_tick", "agi_register_actuators", "agi_register_commands", "agi_register_sensors"],
        "registered": {"commands": ["forecast"], "tools": ["weather"]},
        "errors": ["agi_register_sensors: RuntimeError: the sensor bus is unreachable"],
    }
    assert by_name["tools"]["registered"] == {"tools": ["clock", "file_list", "file_read", "file_write", "respond"]}
    assert (
        by_name["sqlite_backend"]["registered"] == {"memory_backends": ["sqlite"]}
        and by_name["sqlite_backend"]["errors"] == []
    )
    assert data["failures"] == [
        {"plugin": "weather", "stage": "agi_register_sensors", "cause": "RuntimeError: the sensor bus is unreachable"}
    ]


def test_an_invalid_tool_and_a_plugin_that_fails_to_import_are_listed_with_their_errors():
    from agi_core import hookimpl
    from agi_core.inventory import inventory
    from agi_core.testing import builtin_plugins

    class BadTool:
        @hookimpl
        def agi_register_actuators(self, register):
            register(object(), name="not_a_tool")

    plugins = builtin_plugins()
    plugins.add_module(BadTool(), name="bad_tool")
    plugins.add_module("agi_core.no_such_module", name="ghost")
    reports = {report.name: report for report in inventory(plugins)}
    assert reports["bad_tool"].errors == [
        "agi_register_actuators: ToolError: tool 'not_a_tool' is a object, not agi_core.Tool; "
        "wrap it with Tool(definition, run)"
    ]
    assert reports["bad_tool"].registered == {}
    assert (reports["ghost"].loaded, reports["ghost"].errors[0].split(":")[0]) == (False, "import")


LAZY = """
from agi_core import hookimpl


@hookimpl
def agi_register_commands(cli):
    cli.add_lazy_command("forecast", "weather_cli:forecast", "Print the forecast.")
"""


def test_a_plugin_that_adds_a_lazy_command_is_listed_with_it_not_failed(tmp_path, plugin_site, run_agi):
    """docs/hooks.md documents cli.add_lazy_command; the listing's group lacked it, so agi plugins showed mcp
    and self_improver FAILED (AttributeError) on a clean install."""
    site = plugin_site("weather", LAZY)
    done = run_agi(tmp_path / "a.db", "plugins", site=site, plugins="weather")
    assert done.returncode == 0 and "FAILED" not in done.stdout and "add_lazy_command" not in done.stderr
    lines = done.stdout.splitlines()
    assert lines[lines.index("weather 1.0") + 1] == "  commands: forecast"
