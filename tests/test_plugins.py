"""Plugin loading, isolation of failing plugins, registries, environment switches."""

from __future__ import annotations

import json
import sys
import types

import click
import pytest
from click.testing import CliRunner

from agi_core import plugins as plugins_module
from agi_core.cli.main import make_cli
from agi_core.hookspecs import HOOK_NAMES, hookimpl
from agi_core.model import ToolDefinition
from agi_core.testing import builtin_plugins, open_kernel
from agi_core.tools import Tool


def _make_raising_plugin():
    import inspect

    from agi_core import hookspecs

    module = types.ModuleType("raises_everywhere")
    for hook in HOOK_NAMES:
        params = list(inspect.signature(getattr(hookspecs, hook)).parameters)
        namespace: dict = {}
        exec(f"def {hook}({', '.join(params)}):\n    raise RuntimeError('{hook} exploded')", namespace)
        setattr(module, hook, hookimpl(namespace[hook]))
    return module


@pytest.fixture
def raising_plugin(monkeypatch):
    """The plugin set every command uses, with a plugin that raises in every hook."""
    module = _make_raising_plugin()
    loaded = builtin_plugins(module)
    monkeypatch.setattr(plugins_module, "_default", loaded)
    return loaded


RAISING_PLUGIN_SOURCE = """
from agi_core.hookspecs import hookimpl
import inspect
from agi_core import hookspecs

def _make(hook):
    def impl(**kwargs):
        raise RuntimeError(hook + " exploded")
    names = inspect.signature(getattr(hookspecs, hook)).parameters
    params = [inspect.Parameter(p, inspect.Parameter.KEYWORD_ONLY) for p in names]
    impl.__signature__ = inspect.Signature(params)
    return impl

for _hook in hookspecs.HOOK_NAMES:
    globals()[_hook] = hookimpl(_make(_hook))
"""


def test_an_installed_plugin_raising_in_every_hook_leaves_agi_run_working(tmp_path):
    """A real entry point (dist-info on the path), loaded by a real ``agi run`` process."""
    import os
    import subprocess

    site = tmp_path / "site"
    (site / "raises_everywhere-1.0.dist-info").mkdir(parents=True)
    (site / "raises_everywhere.py").write_text(RAISING_PLUGIN_SOURCE)
    (site / "raises_everywhere-1.0.dist-info" / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: raises-everywhere\nVersion: 1.0\n"
    )
    (site / "raises_everywhere-1.0.dist-info" / "entry_points.txt").write_text("[agi]\nraiser = raises_everywhere\n")
    env = {**os.environ, "PYTHONPATH": str(site)}
    env.pop("AGI_LOAD_PLUGINS", None)
    result = subprocess.run(
        [sys.executable, "-m", "agi_core", "--db", str(tmp_path / "a.db"), "run"],
        input="2+2\nwhat is my favorite color?\n",
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["2+2 = 4", "I don’t have this information stored yet."]
    for hook in ("agi_register_commands", "agi_register_actuators", "agi_start_plugin"):
        assert f"plugin 'raiser' failed in {hook}: RuntimeError: {hook} exploded" in result.stderr
    assert "agi_before_tick" not in result.stderr  # its start failed: it takes no part in the ticks


def test_a_plugin_raising_in_every_hook_leaves_agi_chat_working(raising_plugin, tmp_path):
    result = CliRunner().invoke(make_cli(), ["--db", str(tmp_path / "a.db"), "chat"], input="3*3\nexit\n", obj=None)
    assert result.exit_code == 0, result.output
    assert "agent> 3*3 = 9" in result.output


def test_import_failure_is_reported_and_skipped():
    plugins = builtin_plugins()
    assert plugins.add_module("agi_core.no_such_plugin_module", name="ghost") is False
    assert str(plugins.failures[-1]).startswith("plugin 'ghost' failed in import: ModuleNotFoundError")
    assert "ghost" not in [info.name for info in plugins.info()]


def test_unknown_hook_is_refused_with_the_known_names():
    module = types.ModuleType("typo_plugin")
    module.agi_register_sensor = hookimpl(lambda register: None)
    plugins = builtin_plugins()
    assert plugins.add_module(module) is False
    assert "implements unknown hook agi_register_sensor; rename it to one of: agi_register_sensors" in str(
        plugins.failures[-1]
    )


def test_duplicate_registration_names_both_plugins(tmp_path):
    def stock_plugin(label):
        module = types.ModuleType(label)
        module.agi_register_actuators = hookimpl(
            lambda register: register(Tool(ToolDefinition("stock", label), lambda c, a: {}))
        )
        return module

    kernel = open_kernel(tmp_path / "a.db", stock_plugin("shop_a"), stock_plugin("shop_b"))
    failure = kernel.plugins.failures[-1]
    assert failure.cause == (
        "RegistrationError: tool 'stock' is registered by both plugins 'shop_a' and 'shop_b'; "
        "rename one of the two, or disable one plugin (AGI_DISABLE_PLUGINS=shop_b)"
    )
    assert kernel.tools["stock"].definition.description == "shop_a"
    kernel.close()


def test_invalid_tool_declaration_is_refused_at_load(tmp_path):
    class BadTool:
        @hookimpl
        def agi_register_actuators(self, register):
            register(Tool(ToolDefinition("Bad Name", "x", {}, "delete"), lambda c, a: {}))  # type: ignore[arg-type]

    kernel = open_kernel(tmp_path / "a.db", BadTool())
    assert "Bad Name" not in kernel.tools
    assert "invalid tool definition 'Bad Name'" in kernel.plugins.failures[-1].cause
    kernel.close()


def test_block_and_allow_lists(monkeypatch):
    monkeypatch.setenv("AGI_DISABLE_PLUGINS", "synonyms")
    names = [info.name for info in plugins_module.Plugins.from_environment().info()]
    assert "synonyms" not in names and "stage0" in names


def test_trace_prints_each_hook_call(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("AGI_TRACE_PLUGINS", "1")
    kernel = open_kernel(tmp_path / "a.db")
    kernel.tick("1+1")
    kernel.close()
    err = capsys.readouterr().err
    assert "agi: tools.agi_register_actuators(register)" in err


def test_plugins_json_lists_name_version_hooks(tmp_path):
    result = CliRunner().invoke(make_cli(), ["--db", str(tmp_path / "a.db"), "plugins", "--json"])
    data = json.loads(result.output)
    by_name = {row["name"]: row for row in data["plugins"]}
    assert by_name["stage0"]["hooks"] == ["agi_register_brains", "agi_register_modules", "agi_register_router_agents"]
    assert by_name["tools"]["version"] == "0.1.0" and by_name["tools"]["builtin"] is True
    assert data["failures"] == []


def test_a_valid_manifest_loads_and_an_invalid_one_is_refused_with_its_path():
    good = types.ModuleType("good_manifest")
    good.agi_manifest = {"description": "adds nothing", "requires_agi_core": ">=0.1"}
    bad = types.ModuleType("bad_manifest")
    bad.agi_manifest = {"description": "x", "colour": "blue"}
    plugins = builtin_plugins()
    assert plugins.add_module(good) is True
    assert plugins.add_module(bad) is False
    assert str(plugins.failures[-1]) == (
        "plugin 'bad_manifest' failed in manifest: ValidationError: invalid "
        "agi_manifest: Additional properties are not allowed ('colour' was "
        "unexpected) @ $"
    )


BAD_MANIFEST_PLUGIN = """
import click
from agi_core.hookspecs import hookimpl

agi_manifest = {"description": "x", "colour": "blue"}


@hookimpl
def agi_register_commands(cli):
    @cli.command("badcmd")
    def badcmd():
        \"\"\"A command of a plugin refused for its manifest.\"\"\"
        click.echo("badcmd ran")
"""

BAD_MANIFEST_CAUSE = (
    "ValidationError: invalid agi_manifest: Additional properties are not allowed ('colour' was unexpected) @ $"
)
BAD_MANIFEST_WARNING = f"agi: warning: plugin 'bad' failed in manifest: {BAD_MANIFEST_CAUSE}"


def test_a_deferred_manifest_is_checked_before_any_hook_but_the_command_listing():
    """The default set lists commands before checking manifests (agi --help); any other hook checks them first."""
    bad = types.ModuleType("bad_manifest")
    bad.agi_manifest = {"description": "x", "colour": "blue"}  # type: ignore[attr-defined]
    plugins = plugins_module.Plugins.builtins(defer_manifests=True)
    assert plugins.add_module(bad) is True
    plugins.register_commands(cli=click.Group("agi"))
    assert plugins.failures == []
    assert "bad_manifest" not in [info.name for info in plugins.info()]
    assert [str(failure) for failure in plugins.failures] == [
        "plugin 'bad_manifest' failed in manifest: ValidationError: invalid "
        "agi_manifest: Additional properties are not allowed ('colour' was "
        "unexpected) @ $"
    ]
    assert plugins.check_manifests() == []


def test_an_installed_plugin_refused_for_its_manifest_has_no_command(tmp_path, plugin_site, run_agi):
    """A real entry-point plugin with an invalid manifest: its command is refused, the warning says why."""
    site = plugin_site("bad", BAD_MANIFEST_PLUGIN)
    db = tmp_path / "a.db"
    ran = run_agi(db, "badcmd", site=site, plugins="bad")
    assert ran.returncode == 2 and "badcmd ran" not in ran.stdout
    assert ran.stderr.splitlines() == [BAD_MANIFEST_WARNING, "Error: No such command 'badcmd'. (see 'agi --help')"]
    listed = run_agi(db, "plugins", "--json", site=site, plugins="bad")
    data = json.loads(listed.stdout)
    bad = [row for row in data["plugins"] if row["name"] == "bad"]
    assert [(row["loaded"], row["hooks"], row["errors"]) for row in bad] == [
        (False, [], [f"manifest: {BAD_MANIFEST_CAUSE}"])
    ]
    assert [failure["stage"] for failure in data["failures"]] == ["manifest"]
    assert listed.stderr.splitlines() == [BAD_MANIFEST_WARNING]


def test_a_plugin_for_another_agi_core_version_is_skipped():
    future = types.ModuleType("future_plugin")
    future.agi_manifest = {"requires_agi_core": ">=99"}
    plugins = builtin_plugins()
    assert plugins.add_module(future) is False
    assert "needs agi-core >=99 but 0.1.0 is installed" in plugins.failures[-1].cause
