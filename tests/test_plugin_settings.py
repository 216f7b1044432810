"""Per-plugin settings: declared schema, database and environment values, validation, replay."""

from __future__ import annotations

import types
from typing import ClassVar

import pytest
from click.testing import CliRunner

from agi_core import checkpoints
from agi_core.cli.main import make_cli
from agi_core.errors import ConfigError, ValidationError
from agi_core.hookspecs import hookimpl
from agi_core.kernel import Kernel
from agi_core.plugins import PluginFailure
from agi_core.replay import replay_records
from agi_core.testing import builtin_plugins, open_kernel


class Greeter:
    """A plugin whose router agent answers ``hello`` with its ``greeting`` setting."""

    agi_manifest: ClassVar[dict] = {
        "settings": {
            "type": "object",
            "properties": {
                "greeting": {"type": "string", "minLength": 1, "default": "Hello", "description": "What to say."},
                "times": {"type": "integer", "minimum": 1, "default": 1},
            },
        }
    }

    def __init__(self) -> None:
        self.kernel = None

    @hookimpl
    def agi_start_plugin(self, kernel):
        self.kernel = kernel

    @hookimpl
    def agi_register_router_agents(self, register):
        register(_GreetAgent(self))


class _GreetAgent:
    name, rule, priority = "greet_agent", "matched_greet", 1

    def __init__(self, plugin: Greeter) -> None:
        self.plugin = plugin

    def matches(self, text):
        return text == "hello"

    def handle(self, ctx):
        from agi_core.reasoning import AgentReply

        values = self.plugin.kernel.settings("Greeter")
        return AgentReply(" ".join([values["greeting"]] * values["times"]))


def test_defaults_then_database_then_environment(tmp_path, monkeypatch):
    with open_kernel(tmp_path / "a.db", Greeter()) as kernel:
        assert kernel.settings("Greeter") == {"greeting": "Hello", "times": 1}
        with pytest.raises(ConfigError, match="no plugin named 'no_such_plugin' is loaded"):
            kernel.settings("no_such_plugin")
        record = kernel.command("config_set", {"plugin": "Greeter", "key": "times", "value": 2})
        assert record.final_output == "Greeter.times = 2"
        assert kernel.tick("hello").final_output == "Hello Hello"
    monkeypatch.setenv("AGI_PLUGIN_GREETER_GREETING", "Howdy")
    with open_kernel(tmp_path / "a.db", Greeter()) as kernel:
        assert kernel.tick("hello").final_output == "Howdy Howdy"
        rows = {row["key"]: (row["value"], row["source"]) for row in kernel.plugin_settings.rows()}
        assert rows["greeting"] == ("Howdy", "environment") and rows["times"] == (2, "database")
        kernel.command("config_unset", {"plugin": "Greeter", "key": "times"})
        assert kernel.settings("Greeter") == {"greeting": "Howdy", "times": 1}


def test_an_invalid_value_is_refused_in_one_line_and_nothing_is_stored(tmp_path):
    with open_kernel(tmp_path / "a.db", Greeter()) as kernel:
        with pytest.raises(ValidationError) as raised:
            kernel.command("config_set", {"plugin": "Greeter", "key": "times", "value": 0})
        assert str(raised.value) == (
            "invalid value for Greeter.times: 0 is less than the minimum of 1; "
            'give a value matching {"type":"integer","minimum":1}'
        )
        with pytest.raises(ValidationError) as unknown:
            kernel.command("config_set", {"plugin": "Greeter", "key": "colour", "value": "red"})
        assert str(unknown.value) == "plugin 'Greeter' has no setting 'colour'; its settings: greeting, times"
        assert kernel.tick_count == 0
        assert kernel.settings("Greeter")["times"] == 1


def test_an_invalid_environment_value_is_reported_and_ignored(tmp_path, monkeypatch):
    monkeypatch.setenv("AGI_PLUGIN_GREETER_TIMES", "many")
    with open_kernel(tmp_path / "a.db", Greeter()) as kernel:
        assert kernel.settings("Greeter")["times"] == 1
        assert kernel.plugins.failures == [
            PluginFailure(
                "Greeter",
                "settings",
                "AGI_PLUGIN_GREETER_TIMES ignored: Greeter.times: 'many' is not a JSON value; "
                "give a value of type integer",
            )
        ]


def test_environment_values_are_recorded_so_replay_is_equal_without_them(tmp_path, monkeypatch):
    monkeypatch.setenv("AGI_PLUGIN_GREETER_GREETING", "Howdy")
    with open_kernel(tmp_path / "a.db", Greeter()) as kernel:
        record = kernel.tick("hello")
        plain = kernel.tick("1+1")
        texts = [text for *_rest, text, _chain in kernel.store.journal_rows()]
    assert record.final_output == "Howdy"
    assert record.externals["plugin_settings_env"] == [{"Greeter": {"greeting": "Howdy"}}]
    assert plain.externals["plugin_settings_env"] == [{"Greeter": {"greeting": "Howdy"}}]
    monkeypatch.setenv("AGI_PLUGIN_GREETER_GREETING", "Bonjour")  # the replaying process sees another value
    report = replay_records(texts, seed="test", plugins=builtin_plugins(Greeter()))
    assert (report.ok, report.ticks) == (True, 2)


def test_without_environment_values_no_external_is_recorded(tmp_path, monkeypatch):
    with open_kernel(tmp_path / "a.db", Greeter()) as kernel:
        record = kernel.tick("hello")
        texts = [text for *_rest, text, _chain in kernel.store.journal_rows()]
    assert "plugin_settings_env" not in record.externals
    monkeypatch.setenv("AGI_PLUGIN_GREETER_GREETING", "Bonjour")
    assert replay_records(texts, seed="test", plugins=builtin_plugins(Greeter())).ok


def test_a_stored_value_a_new_plugin_version_refuses_falls_back_to_the_default(tmp_path):
    class StricterGreeter(Greeter):
        agi_manifest: ClassVar[dict] = {
            "settings": {"type": "object", "properties": {"times": {"type": "integer", "maximum": 3, "default": 1}}}
        }

    with open_kernel(tmp_path / "a.db", Greeter()) as kernel:
        kernel.command("config_set", {"plugin": "Greeter", "key": "times", "value": 5})
    plugins = builtin_plugins()
    plugins.add_module(StricterGreeter(), name="Greeter")
    with Kernel.open(tmp_path / "a.db", plugins=plugins) as kernel:
        assert kernel.settings("Greeter") == kernel.settings("Greeter") == {"times": 1}
        assert kernel.plugins.failures == [
            PluginFailure(
                "Greeter",
                "settings",
                "stored value ignored: invalid value for Greeter.times: 5 is greater than the maximum of 3; "
                'give a value matching {"type":"integer","maximum":3}',
            )
        ]


def test_stored_settings_follow_checkpoints_and_rollback(tmp_path):
    with open_kernel(tmp_path / "a.db", Greeter()) as kernel:
        kernel.command("config_set", {"plugin": "Greeter", "key": "greeting", "value": "Hi"})
        checkpoints.create(kernel, "hi")
        kernel.command("config_set", {"plugin": "Greeter", "key": "greeting", "value": "Yo"})
        assert kernel.settings("Greeter")["greeting"] == "Yo"
        checkpoints.rollback(kernel, "hi")
        assert kernel.settings("Greeter")["greeting"] == "Hi"


@pytest.mark.parametrize(
    ("settings", "cause"),
    [
        (
            {"type": "object", "properties": {"size": {"type": "integer"}}},
            "RegistrationError: setting 'size' declares no default; add a \"default\" to its schema",
        ),
        (
            {"type": "object", "properties": {"Size": {"type": "integer", "default": 1}}},
            "RegistrationError: setting 'Size': use lower-case letters, digits and _ (it is also an env name)",
        ),
        (
            {"type": "object", "properties": {"size": {"type": "integer", "default": "big"}}},
            "ValidationError: invalid value for ?.size: 'big' is not of type 'integer'; "
            'give a value matching {"type":"integer"}',
        ),
    ],
    ids=["no-default", "bad-key", "bad-default"],
)
def test_a_bad_settings_declaration_refuses_the_plugin_at_load(settings, cause):
    module = types.ModuleType("badly_declared")
    module.agi_manifest = {"settings": settings}  # type: ignore[attr-defined]
    plugins = builtin_plugins()
    assert plugins.add_module(module) is False
    assert plugins.failures[-1] == PluginFailure("badly_declared", "manifest", cause)


def test_agi_config_set_list_unset(tmp_path, monkeypatch):
    db = str(tmp_path / "a.db")

    def agi(*args: str):
        return CliRunner().invoke(make_cli(), ["--db", db, *args])

    assert agi("config", "set", "sensors.clock_every_s", "12").output == "sensors.clock_every_s = 12\n"
    listed = agi("config", "list").output
    assert listed.splitlines()[2] == (
        "sensors.clock_every_s = 12\t(database)\t"
        "Seconds between clock percepts under agi run --follow; 0 turns the clock off."
    )
    assert [line.split(" = ")[0] for line in listed.splitlines()] == [
        "longterm.rank",
        "messaging.allow_tools",
        "sensors.clock_every_s",
        "sensors.watch_dir",
        "stage0.council_weights",
        "stage0.council_reject_weight",
    ]
    bad = agi("config", "set", "sensors.clock_every_s", "-1")
    assert bad.exit_code == 1
    assert bad.output == (
        "Error: invalid value for sensors.clock_every_s: -1 is less than the minimum of 0; "
        'give a value matching {"type":"number","minimum":0}\n'
    )
    assert agi("config", "set", "clock_every_s", "3").output.startswith("Error: 'clock_every_s' is not PLUGIN.KEY;")
    assert agi("config", "unset", "sensors.clock_every_s").output == "sensors.clock_every_s = 30 (default)\n"
    assert agi("replay").output == "replay equal: 2 ticks (1..2), 16 fields each\n"


def test_the_clock_setting_reaches_the_clock_sensor(tmp_path, monkeypatch):
    with open_kernel(tmp_path / "a.db") as kernel:
        assert kernel.sensors["clock"].configured_ms == 30_000
        kernel.command("config_set", {"plugin": "sensors", "key": "clock_every_s", "value": 0.5})
    with open_kernel(tmp_path / "a.db") as kernel:
        clock = kernel.sensors["clock"]
        assert clock.configured_ms == 500
    assert clock.configured_ms is None  # stopped: disarmed
    monkeypatch.setenv("AGI_PLUGIN_SENSORS_CLOCK_EVERY_S", "0")
    with open_kernel(tmp_path / "a.db") as kernel:
        assert kernel.sensors["clock"].configured_ms is None  # 0 turns it off


def test_the_builtin_manifests_are_valid():
    """Built-ins skip the manifest check at load (agi --help stays light); this test is that check."""
    plugins = builtin_plugins()
    checked = [name for name, plugin in plugins.pm.list_name_plugin() if hasattr(plugin, "agi_manifest")]
    for name in checked:
        plugins._check_manifest(plugins.pm.get_plugin(name))
    assert sorted(checked) == ["longterm", "messaging", "sensors", "stage0"]


def test_a_choice_among_strings_takes_plain_text_like_a_string_setting():
    """The docs' own shape, {"enum": ["plain", "warm"]}: 'agi config set mood.style plain' was refused
    ("'plain' is not a JSON value; give a value of type any"), and so was the environment's plain text."""
    from agi_core.errors import ValidationError
    from agi_core.settings.schema import check_value, parse

    style = {"enum": ["plain", "warm"], "default": "plain"}
    assert parse("mood", "style", style, "warm") == "warm"
    assert parse("mood", "style", style, '"warm"') == "warm"  # the JSON an earlier agi asked for still works
    refused = r"invalid value for mood.style: 'cold' is not one of \['plain', 'warm'\]"
    with pytest.raises(ValidationError, match=refused):
        check_value("mood", "style", style, parse("mood", "style", style, "cold"))
    mixed = {"enum": ["auto", 3]}
    with pytest.raises(ValidationError, match=r"'x' is not a JSON value; give one of \[\"auto\",3\]"):
        parse("mood", "level", mixed, "x")
