"""Hooks go through pluggy: order marks and wrappers hold, failures stay isolated, the order is deterministic."""

from __future__ import annotations

import types

import pytest

from agi_core.hookspecs import hookimpl
from agi_core.plugins import PluginFailure
from agi_core.replay import replay_records
from agi_core.testing import builtin_plugins, open_kernel


def _ticker(label: str, seen: list[str], **marks: bool) -> types.ModuleType:
    """A plugin module named ``label`` whose before-tick hook notes its name."""
    module = types.ModuleType(label)
    module.agi_before_tick = hookimpl(**marks)(lambda: seen.append(label))  # type: ignore[attr-defined]
    return module


def _before_tick_order(*modules: types.ModuleType) -> list[str]:
    plugins = builtin_plugins(*modules)
    return plugins.call_order("agi_before_tick")


def test_tryfirst_runs_first_and_trylast_last(tmp_path):
    seen: list[str] = []
    plugins = (
        _ticker("aa_last", seen, trylast=True),
        _ticker("mm_plain", seen),
        _ticker("zz_first", seen, tryfirst=True),
    )
    with open_kernel(tmp_path / "a.db", *plugins) as kernel:
        kernel.tick("1+1")
    assert seen == ["zz_first", "mm_plain", "aa_last"]


def test_call_order_is_priority_then_name_whatever_the_load_order():
    def order(*labels: str) -> list[str]:
        return _before_tick_order(*(_ticker(label, []) for label in labels))

    assert order("beta", "alpha", "gamma") == order("gamma", "beta", "alpha") == ["alpha", "beta", "gamma"]


def test_a_new_style_wrapper_runs_around_the_others_and_sees_their_results(tmp_path):
    seen: list[str] = []

    class Wrapping:
        @hookimpl(wrapper=True)
        def agi_before_tick(self):
            seen.append("wrapper before")
            results = yield
            seen.append(f"wrapper after {results}")
            return results

    with open_kernel(tmp_path / "a.db", Wrapping(), _ticker("plain", seen)) as kernel:
        kernel.tick("1+1")
    assert seen == ["wrapper before", "plain", "wrapper after []"]


def test_an_old_style_hookwrapper_runs_around_the_others(tmp_path):
    seen: list[str] = []

    class Old:
        @hookimpl(hookwrapper=True)
        def agi_before_tick(self):
            seen.append("old before")
            outcome = yield
            seen.append(f"old after {outcome.get_result()}")

    with open_kernel(tmp_path / "a.db", Old(), _ticker("plain", seen)) as kernel:
        kernel.tick("1+1")
    assert seen == ["old before", "plain", "old after []"]


def test_a_raising_implementation_is_reported_and_the_others_still_run(tmp_path):
    seen: list[str] = []
    broken = types.ModuleType("broken")
    broken.agi_before_tick = hookimpl(tryfirst=True)(lambda: 1 / 0)  # type: ignore[attr-defined]
    with open_kernel(tmp_path / "a.db", broken, _ticker("after_it", seen)) as kernel:
        assert kernel.tick("2+2").final_output == "2+2 = 4"
        assert kernel.plugins.failures == [
            PluginFailure("broken", "agi_before_tick", "ZeroDivisionError: division by zero")
        ]
    assert seen == ["after_it"]


def test_a_wrapper_raising_in_setup_steps_aside(tmp_path):
    seen: list[str] = []

    class BadWrapper:
        @hookimpl(wrapper=True)
        def agi_before_tick(self):
            raise SystemExit(4)
            yield  # pragma: no cover - makes it a generator

    with open_kernel(tmp_path / "a.db", BadWrapper(), _ticker("plain", seen)) as kernel:
        assert kernel.tick("2+3").final_output == "2+3 = 5"
        assert kernel.plugins.failures == [PluginFailure("BadWrapper", "agi_before_tick", "SystemExit: 4")]
    assert seen == ["plain"]


def test_an_unmarked_hook_function_is_reported_with_the_fix():
    module = types.ModuleType("forgetful")
    module.agi_before_tick = lambda kernel, state: None  # type: ignore[attr-defined]
    plugins = builtin_plugins()
    assert plugins.add_module(module) is True
    assert plugins.failures == [
        PluginFailure(
            "forgetful",
            "register",
            "agi_before_tick is not marked as a hook implementation, so it would never be called; "
            "decorate it with @agi_core.hookimpl",
        )
    ]


def test_an_implementation_for_an_unknown_hook_under_another_name_is_refused():
    module = types.ModuleType("renamed")
    module.on_tick = hookimpl(specname="agi_on_tick")(lambda: None)  # type: ignore[attr-defined]
    plugins = builtin_plugins()
    assert plugins.add_module(module) is False
    assert plugins.failures[-1].plugin == "renamed"
    assert plugins.failures[-1].cause.startswith("implements unknown hook agi_on_tick; rename it to one of:")
    assert "renamed" not in [info.name for info in plugins.info()]


def test_check_pending_after_loading_reports_and_unregisters():
    plugins = builtin_plugins()
    stray = types.ModuleType("stray")
    stray.agi_nothing = hookimpl(lambda: None)  # type: ignore[attr-defined]
    plugins.pm.register(stray, name="stray")  # around add_module: only check_pending can catch it
    plugins.check_pending()
    assert plugins.failures[-1].plugin == "stray"
    assert "unknown hook 'agi_nothing'" in plugins.failures[-1].cause
    assert not plugins.pm.has_plugin("stray")


# -- the journal's hook_order ----------------------------------------------------------
def _pair(seen: list[str]) -> tuple[types.ModuleType, types.ModuleType]:
    alpha, beta = _ticker("alpha", seen), _ticker("beta", seen, tryfirst=True)
    beta.agi_after_tick = hookimpl(lambda record: None)  # type: ignore[attr-defined]
    return alpha, beta


def test_hook_order_is_journaled_and_replay_is_equal_with_another_load_order(tmp_path):
    seen: list[str] = []
    alpha, beta = _pair(seen)
    with open_kernel(tmp_path / "a.db", alpha, beta) as kernel:
        record = kernel.tick("1+1")
        texts = [text for *_rest, text, _chain in kernel.store.journal_rows()]
    assert record.hook_order == {"agi_after_tick": ["beta"], "agi_before_tick": ["beta", "alpha"]}
    assert seen == ["beta", "alpha"]
    report = replay_records(texts, seed="test", plugins=builtin_plugins(*reversed(_pair([]))))
    assert (report.ok, report.ticks) == (True, 1)


def test_replay_with_another_hook_order_is_a_mismatch(tmp_path):
    alpha, beta = _pair([])
    with open_kernel(tmp_path / "a.db", alpha, beta) as kernel:
        kernel.tick("1+1")
        texts = [text for *_rest, text, _chain in kernel.store.journal_rows()]
    report = replay_records(texts, seed="test", plugins=builtin_plugins(_ticker("alpha", [])))
    assert report.mismatch is not None
    assert (report.mismatch.field, report.mismatch.actual) == ("hook_order", {"agi_before_tick": ["alpha"]})


def test_registration_hooks_run_inside_a_tick_are_not_in_its_hook_order(tmp_path):
    """An embedder or contract registry built lazily in a live tick is not built in its replay."""
    seen: list[str] = []
    lazy = _ticker("lazy", seen)
    lazy.agi_after_tick = hookimpl(lambda kernel: kernel.plugins.registry("agi_register_sensors"))  # type: ignore[attr-defined]
    lazy.agi_before_tick = hookimpl(lambda kernel: kernel.plugins.registry("agi_register_brains"))  # type: ignore[attr-defined]
    with open_kernel(tmp_path / "a.db", lazy) as kernel:
        assert kernel.tick("1+1").hook_order == {"agi_after_tick": ["lazy"], "agi_before_tick": ["lazy"]}


def test_a_tick_without_tick_hooks_records_an_empty_hook_order(tmp_path):
    with open_kernel(tmp_path / "a.db") as kernel:
        assert kernel.tick("1+1").hook_order == {}


# -- lifecycle -------------------------------------------------------------------------
def _interrupt(text: str) -> None:
    if text == "stop":
        raise KeyboardInterrupt


class _Lifecycle:
    def __init__(self, events: list[str], fail_start: bool = False) -> None:
        self.events, self.fail_start = events, fail_start

    @hookimpl
    def agi_start_plugin(self, kernel):
        self.events.append(f"start {kernel.tick_count}")
        if self.fail_start:
            raise RuntimeError("no licence")

    @hookimpl
    def agi_stop_plugin(self, kernel):
        self.events.append(f"stop {kernel.tick_count}")

    @hookimpl
    def agi_before_tick(self):
        self.events.append("tick")


def test_a_plugin_whose_start_raises_takes_no_further_part(tmp_path):
    from agi_core.model import ToolDefinition
    from agi_core.testing import tools_plugin
    from agi_core.tools import Tool

    events: list[str] = []
    starter = _Lifecycle(events, fail_start=True)
    starter.agi_register_actuators = hookimpl(  # type: ignore[attr-defined]
        lambda register: register(Tool(ToolDefinition("licensed", "Needs a licence."), lambda c, a: {}))
    )
    other: list[str] = []
    with open_kernel(tmp_path / "a.db", starter, _ticker("other", other), tools_plugin("spare")) as kernel:
        assert kernel.disabled_plugins == {"_Lifecycle"}
        assert "licensed" not in kernel.tools
        assert kernel.plugins.failures == [PluginFailure("_Lifecycle", "agi_start_plugin", "RuntimeError: no licence")]
        assert kernel.tick("1+1").hook_order == {"agi_before_tick": ["other"]}
    assert (events, other) == (["start 0"], ["other"])


def test_stop_runs_after_a_failed_tick_and_close_never_raises_for_a_plugin(tmp_path):
    events: list[str] = []

    class FailingStop:
        @hookimpl(tryfirst=True)
        def agi_stop_plugin(self):
            raise SystemExit(9)

    interrupting = types.ModuleType("interrupting")
    interrupting.agi_before_tick = hookimpl(lambda state: _interrupt(state.input.raw))  # type: ignore[attr-defined]
    kernel = open_kernel(tmp_path / "a.db", _Lifecycle(events), FailingStop(), interrupting)
    kernel.tick("1+1")
    with pytest.raises(KeyboardInterrupt):  # the one exception a plugin may raise through a tick
        kernel.tick("stop")
    kernel.close()
    assert events == ["start 0", "tick", "tick", "stop 1"]
    assert kernel.plugins.failures[-1] == PluginFailure("FailingStop", "agi_stop_plugin", "SystemExit: 9")
