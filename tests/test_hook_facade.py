"""Core code calls hooks through one typed method per hook, a kernel runs each hook once, and pluggy's objects
are never changed: isolation is a proxy registered in the plugin's place."""

from __future__ import annotations

import ast
import inspect
import types
from collections import Counter
from pathlib import Path

import agi_core
from agi_core import hookspecs
from agi_core.hookspecs import HOOK_NAMES, hookimpl
from agi_core.kernel import Kernel
from agi_core.memory.sqlite_store import SqliteStore
from agi_core.plugins import Plugins
from agi_core.testing import builtin_plugins

CORE = Path(agi_core.__file__).parent
# Plugins' generic ways to call a hook by name: for tests and tools, never for core code.
BY_NAME = {"collect", "registry", "call_each", "caller"}


def test_every_hook_has_a_typed_facade_method_taking_keyword_arguments_only():
    for hook in HOOK_NAMES:
        method = getattr(Plugins, hook.removeprefix("agi_"), None)
        assert method is not None, f"Plugins has no facade method for {hook}"
        parameters = list(inspect.signature(method).parameters.values())[1:]
        assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in parameters), hook
        spec = set(inspect.signature(getattr(hookspecs, hook)).parameters) - {"register"}
        assert spec <= {p.name for p in parameters}, hook


def test_core_code_calls_hooks_only_through_the_facade():
    offending = []
    for path in sorted(CORE.rglob("*.py")):
        if path.name == "plugins.py" and path.parent == CORE:
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            by_name = isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in BY_NAME
            pm_hook = isinstance(node, ast.Attribute) and node.attr == "hook" and _names_pm(node.value)
            if by_name or pm_hook:
                offending.append(f"{path.relative_to(CORE)}:{node.lineno}")
    assert offending == []


def _names_pm(node: ast.expr) -> bool:
    return (isinstance(node, ast.Attribute) and node.attr == "pm") or (isinstance(node, ast.Name) and node.id == "pm")


def _counting(counts: Counter[str]) -> types.ModuleType:
    """A plugin implementing every hook, each counting its calls (an implementation may take no argument)."""
    module = types.ModuleType("counting")
    for hook in HOOK_NAMES:

        def count(hook: str = hook) -> None:
            counts[hook] += 1

        setattr(module, hook, hookimpl(specname=hook)(lambda count=count: count()))
    return module


class CountedBackend:
    """The ``counted`` memory backend: ``counted://agent`` is SQLite in ``folder``."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    @hookimpl
    def agi_register_memory_backends(self, register):
        register(lambda url, **options: SqliteStore(self.folder / "agent.db", **options), name="counted")


def test_a_kernel_runs_each_hook_once(tmp_path):
    """Opening by URL, the LLM brain, a contract provider, a tick and close: each hook once."""
    counts: Counter[str] = Counter()
    plugins = builtin_plugins(_counting(counts), CountedBackend(tmp_path))
    kernel = Kernel.open("counted://agent", plugins=plugins, contract_provider="llama-cpp")
    kernel.get_brain("llm")  # the LLM brain reads the contracts and the providers
    assert kernel.tick("2+2").final_output == "2+2 = 4"  # the planning contracts, with the contract provider
    kernel.close()
    # the CLI's; a rollback's; long-term memory's first search; the message box's (only with a messaging URL)
    ran_elsewhere = {
        "agi_register_commands",
        "agi_restore_checkpoint",
        "agi_register_embedders",
        "agi_register_transports",
        "agi_state_completed",  # an RLM state's completion
    }
    assert counts == {hook: 1 for hook in HOOK_NAMES if hook not in ran_elsewhere}


def test_pluggy_registers_a_proxy_and_never_has_its_implementations_replaced():
    from agi_core.hookcalls import HookProxy

    seen: list[str] = []
    plain = types.ModuleType("plain")
    plain.agi_before_tick = hookimpl(lambda: seen.append("plain"))  # type: ignore[attr-defined]
    plugins = builtin_plugins(plain)
    for hook in HOOK_NAMES:
        for impl in getattr(plugins.pm.hook, hook).get_hookimpls():
            assert isinstance(impl.plugin, HookProxy)
            assert any(impl.function is value for value in vars(impl.plugin).values()), (hook, impl.plugin_name)
    assert plugins.pm.get_plugin("plain").agi_wrapped_plugin is plain


def _ticker(label: str) -> types.ModuleType:
    module = types.ModuleType(label)
    module.agi_before_tick = hookimpl(lambda: None)  # type: ignore[attr-defined]
    return module


def test_a_plugin_loaded_after_a_hook_ran_takes_its_place_by_name():
    plugins = builtin_plugins(_ticker("beta"), _ticker("delta"))
    assert plugins.call_order("agi_before_tick") == ["beta", "delta"]
    assert plugins.add_module(_ticker("gamma")) and plugins.add_module(_ticker("alpha"))
    assert plugins.call_order("agi_before_tick") == ["alpha", "beta", "delta", "gamma"]


def test_an_implementation_asking_for_an_argument_its_hook_lacks_is_reported_and_left_out():
    greedy = types.ModuleType("greedy")
    greedy.agi_before_tick = hookimpl(lambda kernel, weather: None)  # type: ignore[attr-defined]
    plugins = builtin_plugins(greedy, _ticker("modest"))
    assert plugins.call_order("agi_before_tick") == ["modest"]
    assert plugins.failures[-1].plugin == "greedy"
    assert "weather" in plugins.failures[-1].cause
    assert "greedy" not in [info.name for info in plugins.info()]
