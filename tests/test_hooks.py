"""One test per hook (``test_hook_<name>``), plus the meta-tests that enforce it and the docs."""

from __future__ import annotations

import re
from pathlib import Path

import click
from click.testing import CliRunner

from agi_core.hookspecs import HOOK_NAMES, hookimpl
from agi_core.model import Input, ToolDefinition
from agi_core.testing import builtin_plugins, open_kernel
from agi_core.tools import Tool

ROOT = Path(__file__).resolve().parent.parent


def test_every_hook_has_a_test():
    """A ``def test_hook_<name>`` for every hook, anywhere under tests/ (STYLE.md)."""
    sources = "\n".join(path.read_text(encoding="utf-8") for path in (ROOT / "tests").rglob("*.py"))
    missing = [hook for hook in HOOK_NAMES if f"def test_hook_{hook}(" not in sources]
    assert missing == [], f"add a test_hook_<name> test under tests/ for: {missing}"


def test_every_hook_has_a_documented_section():
    headings = re.findall(r"^## `?(agi_\w+)\(", (ROOT / "docs" / "hooks.md").read_text(), re.M)
    assert headings == list(HOOK_NAMES), "docs/hooks.md needs one '## name(args)' heading per hook"


def test_hooks_doc_is_generated_from_the_hookspecs():
    from agi_core.hooksdoc import REGENERATE, render

    assert (ROOT / "docs" / "hooks.md").read_text(encoding="utf-8") == render(), (
        f"docs/hooks.md is stale: regenerate it with `{REGENERATE}`"
    )


def test_hooks_doc_renders_params_firstresult_and_version():
    from agi_core.hooksdoc import section

    assert section("agi_restore_checkpoint").splitlines() == [
        "## `agi_restore_checkpoint(kernel, tick)`",
        "Called when the agent is rolled back to the state after `tick`. Derived state a plugin",
        "keeps outside SQLite (a vector index, a cache) must be brought back to that tick here.",
        "",
        "**Parameters**",
        "",
        "- `kernel`: the kernel, whose stores already hold the restored state.",
        "- `tick`: the tick whose end state was restored.",
        "",
        "**firstresult**: no: every implementation runs.",
        "",
        "*Added in 0.1.*",
    ]


class _Beacon:
    name = "beacon"

    def poll(self, kernel):
        return Input(raw="2*21", normalized="2*21", source="env") if kernel.tick_count == 0 else None


def test_hook_agi_register_sensors(tmp_path):
    class Plugin:
        @hookimpl
        def agi_register_sensors(self, register):
            register(_Beacon())

    with open_kernel(tmp_path / "a.db", Plugin()) as kernel:
        record = kernel.tick()
        assert (record.input.source, record.final_output) == ("env", "2*21 = 42")
        assert kernel.tick() is None


def test_hook_agi_register_actuators(tmp_path):
    class Plugin:
        @hookimpl
        def agi_register_actuators(self, register):
            register(
                Tool(
                    ToolDefinition("count_r", "Count letter r", {"word": "string"}),
                    lambda ctx, args: {"count": args["word"].lower().count("r")},
                )
            )

    with open_kernel(tmp_path / "a.db", Plugin()) as kernel:
        assert kernel.tick("/count_r Strawberry").final_output == 'count_r: {"count":3}'


def test_hook_agi_register_router_agents(tmp_path):
    from agi_core.reasoning import AgentReply

    class Echo:
        name, rule, priority = "echo_agent", "matched_echo", 1

        def matches(self, text):
            return text.startswith("echo ")

        def handle(self, ctx):
            return AgentReply(ctx.text[5:])

    class Plugin:
        @hookimpl
        def agi_register_router_agents(self, register):
            register(Echo())

    with open_kernel(tmp_path / "a.db", Plugin()) as kernel:
        record = kernel.tick("echo hi there")
    assert (record.final_output, record.router_decision.why) == ("hi there", "matched_echo")


def test_hook_agi_register_brains(tmp_path):
    class Shouting:
        name = "shouting"

        def __init__(self, kernel):
            self.inner = kernel.plugins.collect("agi_register_brains")["stage0"].obj(kernel)

        def reason(self, ctx):
            import attrs

            decision = self.inner.reason(ctx)
            return attrs.evolve(decision, final_output=decision.final_output.upper())

    class Plugin:
        @hookimpl
        def agi_register_brains(self, register):
            register(Shouting, name="shouting")

    with open_kernel(tmp_path / "a.db", Plugin(), brain="shouting") as kernel:
        assert kernel.tick("1+1").final_output == "1+1 = 2"
        assert kernel.tick("hello again").final_output == "I CURRENTLY DON’T HAVE A MODULE FOR THIS TYPE OF REQUEST."


def test_hook_agi_register_contracts():
    class DemoContracts:
        @hookimpl
        def agi_register_contracts(self, register):
            register({"name": "demo"}, name="demo")

    found = builtin_plugins(DemoContracts()).collect("agi_register_contracts")
    assert (found["demo"].obj, found["demo"].plugin) == ({"name": "demo"}, "DemoContracts")


def test_hook_agi_register_memory_backends():
    found = builtin_plugins().collect("agi_register_memory_backends")
    from agi_core.memory.sqlite_store import SqliteStore

    assert found["sqlite"].obj is SqliteStore and found["sqlite"].plugin == "sqlite_backend"


def test_hook_agi_register_llm_providers():
    class Plugin:
        @hookimpl
        def agi_register_llm_providers(self, register):
            register(dict, name="dict_provider")

    found = builtin_plugins(Plugin()).collect("agi_register_llm_providers")
    assert found["dict_provider"].obj is dict


def test_hook_agi_register_embedders():
    class Plugin:
        @hookimpl
        def agi_register_embedders(self, register):
            register(list, name="list_embedder")

    assert builtin_plugins(Plugin()).collect("agi_register_embedders")["list_embedder"].obj is list


def test_hook_agi_register_transports():
    from agi_core.messaging.transport import open_transport

    opened = []

    class Plugin:
        @hookimpl
        def agi_register_transports(self, register):
            register(lambda url, agent: opened.append((url, agent)) or "a transport", name="echo")

    plugins = builtin_plugins(Plugin())
    assert open_transport("echo://here", "alice", plugins) == "a transport"
    assert opened == [("echo://here", "alice")]
    assert "memory" in plugins.registry("agi_register_transports")


def test_hook_agi_register_synonyms(tmp_path):
    class Plugin:
        @hookimpl
        def agi_register_synonyms(self, register):
            register({"nickname": "alias"}, name="nicknames")

    with open_kernel(tmp_path / "a.db", Plugin()) as kernel:
        kernel.tick("my nickname is Ace")
        assert kernel.get_fact("user/person/self/alias").value == "Ace"


def test_hook_agi_register_synonyms_conflict_names_both_plugins(tmp_path):
    import pytest

    from agi_core.errors import MemoryKeyError

    class Plugin:
        @hookimpl
        def agi_register_synonyms(self, register):
            register({"colour": "hue"}, name="hues")

    with pytest.raises(MemoryKeyError, match="synonym 'colour' maps to 'color' in plugin 'synonyms:builtin'"):
        open_kernel(tmp_path / "a.db", Plugin())


def test_hook_agi_register_commands(tmp_path, monkeypatch):
    from agi_core import plugins as plugins_module
    from agi_core.cli.main import make_cli

    class Plugin:
        @hookimpl
        def agi_register_commands(self, cli):
            @cli.command()
            def hello():
                """Say hello."""
                click.echo("hello from a plugin")

    monkeypatch.setattr(plugins_module, "_default", builtin_plugins(Plugin()))
    assert CliRunner().invoke(make_cli(), ["hello"]).output == "hello from a plugin\n"


def test_hook_agi_before_tick(tmp_path):
    seen = []

    class Plugin:
        @hookimpl
        def agi_before_tick(self, kernel, state):
            seen.append((kernel.tick_count, state.input.raw))

    with open_kernel(tmp_path / "a.db", Plugin()) as kernel:
        kernel.tick("1+2")
        kernel.tick("3+4")
    assert seen == [(0, "1+2"), (1, "3+4")]


def test_hook_agi_after_tick(tmp_path):
    seen = []

    class Plugin:
        @hookimpl
        def agi_after_tick(self, kernel, record):
            committed = kernel.store.conn.execute("SELECT count(*) FROM journal").fetchone()[0]
            seen.append((record.tick, record.final_output, committed))

    with open_kernel(tmp_path / "a.db", Plugin()) as kernel:
        kernel.tick("1+2")
    assert seen == [(1, "1+2 = 3", 1)]


def test_hook_agi_after_tick_says_whether_the_tick_is_replayed(tmp_path):
    from agi_core.replay import replay

    seen = []

    class Plugin:
        @hookimpl
        def agi_after_tick(self, record, replaying):
            seen.append((record.tick, replaying))

    with open_kernel(tmp_path / "a.db", Plugin()) as kernel:
        kernel.tick("1+2")
        kernel.tick("my name is Ada")
    assert replay(tmp_path / "a.db", seed="test", plugins=builtin_plugins(Plugin())).ok
    assert seen == [(1, False), (2, False), (1, True), (2, True)]


def test_hook_agi_restore_checkpoint(tmp_path):
    from agi_core import checkpoints

    calls = []

    class Plugin:
        @hookimpl
        def agi_restore_checkpoint(self, kernel, tick):
            calls.append((tick, kernel.tick_count))

    with open_kernel(tmp_path / "a.db", Plugin()) as kernel:
        kernel.tick("1+1")
        checkpoints.create(kernel, "one")
        kernel.tick("2+2")
        checkpoints.rollback(kernel, "one")
    assert calls == [(1, 1)]


def test_hook_agi_start_plugin(tmp_path):
    seen = []

    class Plugin:
        @hookimpl
        def agi_start_plugin(self, kernel):
            seen.append((kernel.tick_count, kernel.store.meta_get("seed")))

    with open_kernel(tmp_path / "a.db", Plugin()) as kernel:
        kernel.tick("1+1")
    with open_kernel(tmp_path / "a.db", Plugin()):
        pass
    assert seen == [(0, "test"), (1, "test")]


def test_hook_agi_stop_plugin(tmp_path):
    seen = []

    class Plugin:
        @hookimpl
        def agi_stop_plugin(self, kernel):
            seen.append((kernel.tick_count, kernel.store.conn.execute("SELECT count(*) FROM journal").fetchone()[0]))

    with open_kernel(tmp_path / "a.db", Plugin()) as kernel:
        kernel.tick("1+1")
        kernel.tick("2+2")
        assert seen == []
    assert seen == [(2, 2)]


def test_hook_agi_tick_parts(tmp_path, monkeypatch):
    """The kernel conducts the parts a plugin hands in (here: agi-core's, with a kernel command added);
    with the built-in provider disabled, opening says which plugin to keep."""
    import pytest

    from agi_core.default_plugins.tick_parts import CoreTickParts
    from agi_core.errors import ConfigError

    class Echoing(CoreTickParts):
        @property
        def commands(self):
            return {**super().commands, "echo": lambda kernel, ctx, args: (args["text"], args)}

    class Plugin:
        @hookimpl
        def agi_tick_parts(self):
            return Echoing()

    with open_kernel(tmp_path / "a.db", Plugin()) as kernel:
        assert kernel.command("echo", {"text": "hi"}).final_output == "hi"
        assert kernel.tick("2 + 3").final_output == "2 + 3 = 5"
    monkeypatch.setenv("AGI_DISABLE_PLUGINS", "tick_parts")
    with pytest.raises(ConfigError, match="do not disable the built-in plugin tick_parts"):
        open_kernel(tmp_path / "b.db")


def test_hook_agi_register_modules(tmp_path):
    class Counter:
        name = "counter"

        def observe(self, ctx):
            ctx.own.put("ticks", ctx.own.get("ticks", 0) + 1)

    class Plugin:
        @hookimpl
        def agi_register_modules(self, register):
            register(Counter())

    with open_kernel(tmp_path / "a.db", Plugin()) as kernel:
        kernel.tick("2 + 3")
        record = kernel.tick("2 + 4")
        assert record.modules == {
            "order": ["sem_council", "counter"],
            "plugins": {"counter": "Plugin"},  # the plugin of each module that is not built in
            "calls": [
                {"module": "counter", "phase": "observe", "output": None, "state": [{"key": "ticks", "value": 2}]}
            ],
        }
