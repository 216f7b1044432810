"""pytest plugin for plugin authors (entry point ``pytest11``): fixtures for a real kernel.

``agi_plugins`` is a fresh :class:`~agi_core.plugins.Plugins` with the built-ins only;
``agi_kernel`` opens a real kernel on a SQLite file in ``tmp_path``. Register the plugin
under test with ``agi_plugins.add_module(my_plugin)`` before asking for ``agi_kernel``,
or use :func:`open_kernel` with the plugin modules you want.

``pytest --agi-backend=NAME`` also runs the memory-backend conformance suite
(:mod:`agi_core.testing.conformance`) against the backend registered as ``NAME``; subclass
:class:`BackendConformance` to run it from a test file instead.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from agi_core.kernel import Kernel
from agi_core.plugins import Plugins
from agi_core.replay import ReplayReport
from agi_core.testing.conformance import BackendConformance
from agi_core.testing.conformance.harness import DECLARED_LACK

__all__ = [
    "BackendConformance",
    "ContractPluginSuite",
    "builtin_plugins",
    "installed_plugin",
    "open_kernel",
    "replay_journal_file",
    "tools_plugin",
]
CONFORMANCE_TESTS = Path(__file__).resolve().parent / "conformance" / "test_agi_backend.py"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("agi", "agi-core")
    group.addoption(
        "--agi-backend",
        dest="agi_backend",
        default=None,
        metavar="NAME",
        help="run the memory-backend conformance suite against the backend registered as NAME",
    )


def pytest_configure(config: pytest.Config) -> None:
    """With ``--agi-backend``, the conformance suite's test file joins the collection."""
    if config.getoption("agi_backend", default=None) and str(CONFORMANCE_TESTS) not in config.args:
        config.args.append(str(CONFORMANCE_TESTS))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """A check of the conformance suite that skips for any reason but a part the backend declares it
    lacks (``Harness.lacks``) is reported as failed: a conformance run never passes by skipping."""
    outcome = yield
    report = outcome.get_result()  # type: ignore[attr-defined]
    cls = getattr(item, "cls", None)
    check = getattr(item, "originalname", "")
    if not (report.when == "call" and report.skipped and not hasattr(report, "wasxfail")):
        return
    if cls is None or not issubclass(cls, BackendConformance) or not hasattr(BackendConformance, check):
        return
    reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
    if DECLARED_LACK not in reason:
        report.outcome = "failed"
        report.longrepr = f"{check} skipped ({reason}); a conformance check may skip only a part in lacks"


def builtin_plugins(*extra: Any) -> Plugins:
    """Built-in plugins plus ``extra`` plugin modules or objects; no entry points."""
    return Plugins.builtins(*extra)


def open_kernel(path: Path, *plugin_modules: Any, seed: str = "test", **options: Any) -> Kernel:
    """A kernel on ``path`` with the built-ins and ``plugin_modules`` registered."""
    return Kernel.open(path, seed=seed, plugins=builtin_plugins(*plugin_modules), **options)


def replay_journal_file(path: Path, *, seed: str = "0", **plugins: Any) -> ReplayReport:
    """Replay the exported JSONL journal ``path`` (``agi journal export``) with the built-ins and ``plugins``
    (each plugin module under the name it was loaded by when the journal was written: ``retrieval=module``),
    as ``agi replay --journal`` does: how a test shows that a journal an older version wrote still replays equal."""
    import json

    from agi_core import journal
    from agi_core.memory import blobs
    from agi_core.replay import replay_records

    found: dict[str, bytes] = {}
    records = (
        blobs.resolve(json.loads(text), lambda digest: found[digest].decode("utf-8"))
        for _tick, _id, text, _chain in journal.read_jsonl(path, found)
    )
    loaded = builtin_plugins()
    for name, module in plugins.items():
        loaded.add_module(module, name=name)
    return replay_records(records, seed=seed, plugins=loaded)


def tools_plugin(label: str, *tools: Any, **order: bool) -> ModuleType:
    """A plugin module named ``label`` that registers ``tools``; ``tryfirst``/``trylast`` as asked."""
    from agi_core.hookspecs import hookimpl

    module = ModuleType(label)

    def agi_register_actuators(register: Any) -> None:
        for tool in tools:
            register(tool)

    mark = hookimpl(tryfirst=order.get("tryfirst", False), trylast=order.get("trylast", False))
    module.agi_register_actuators = mark(agi_register_actuators)  # type: ignore[attr-defined]
    return module


def installed_plugin(folder: Path, name: str, source: str) -> dict[str, str]:
    """Install ``source`` as plugin ``name`` (module + dist-info with an ``agi`` entry point) in ``folder``.

    Returns the environment under which a real ``agi`` subprocess loads it.
    """
    info = folder / f"{name}-1.0.dist-info"
    info.mkdir(parents=True)
    (folder / f"{name}.py").write_text(source, encoding="utf-8")
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(f"[agi]\n{name} = {name}\n", encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(folder), os.environ.get("PYTHONPATH", "")])}
    env.pop("AGI_LOAD_PLUGINS", None)
    return env


@pytest.fixture
def agi_plugins() -> Plugins:
    """A fresh plugin set with the built-in plugins only."""
    return builtin_plugins()


@pytest.fixture
def agi_kernel(tmp_path: Path, agi_plugins: Plugins) -> Iterator[Kernel]:
    """A kernel on ``tmp_path/agent.db`` with seed ``test``, closed after the test."""
    kernel = Kernel.open(tmp_path / "agent.db", seed="test", plugins=agi_plugins, workspace=tmp_path / "workspace")
    yield kernel
    kernel.close()


class ContractPluginSuite:
    """Ready-made tests for a plugin that ships LLM output contracts.

    Subclass it as a ``Test…`` class and name the plugin and what it must register::

        class TestSocialPlugin(ContractPluginSuite):
            plugin_module = "agi_plugin_social.plugin"
            plugin_name = "social"
            contracts = ["social_interaction_context", ...]
            fallbacks = ["social_interaction_context"]

    It checks that the plugin loads without failures and registers exactly ``contracts``,
    that each contract's example validates, and that each fallback in ``fallbacks`` (in
    the plugin's own package) returns a valid object, also from hostile variables.
    """

    plugin_module: str = ""
    plugin_name: str = ""
    contracts: Sequence[str] = ()
    fallbacks: Sequence[str] = ()

    @pytest.fixture(scope="class")
    @classmethod
    def contract_registry(cls) -> Any:
        from agi_core.contracts import registry_from_plugins

        plugins = Plugins()
        assert plugins.add_module(cls.plugin_module, name=cls.plugin_name), plugins.failures
        found = registry_from_plugins(plugins)
        assert plugins.failures == []
        return found

    def test_registers_exactly_its_contracts(self, contract_registry: Any) -> None:
        assert sorted(contract_registry) == sorted(self.contracts)
        assert {contract_registry.plugin_of(name) for name in contract_registry} == {self.plugin_name}

    def test_example_validates(self, contract_registry: Any, contract_name: str) -> None:
        from agi_core.contracts import validate_and_normalize

        contract = contract_registry[contract_name]
        result = validate_and_normalize(contract, dict(contract.prompt.example))
        assert result.ok, result.errors

    def test_fallback_is_valid(self, contract_registry: Any, fallback_name: str) -> None:
        from agi_core.contracts import run_fallback

        contract = contract_registry[fallback_name]
        package = self.plugin_module.split(".", 1)[0]
        assert contract.fallback.startswith(f"{package}.fallbacks:")
        assert run_fallback(contract, {}).ok
        assert run_fallback(contract, {"text": 3, "goal": None, "actions": "x", "modules": [1]}).ok


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Parametrize :class:`ContractPluginSuite` tests over the subclass's contracts and fallbacks."""
    cls = metafunc.cls
    if cls is None or not issubclass(cls, ContractPluginSuite):
        return
    if "contract_name" in metafunc.fixturenames:
        metafunc.parametrize("contract_name", list(cls.contracts))
    if "fallback_name" in metafunc.fixturenames:
        none = pytest.param("", marks=pytest.mark.skip(reason=f"{cls.__name__} declares no fallbacks"))
        metafunc.parametrize("fallback_name", list(cls.fallbacks) or [none])
