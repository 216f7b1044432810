"""A plugin that fails every tick, for months: the process neither grows nor floods stderr."""

from __future__ import annotations

import types

from agi_core import plugins as plugins_module
from agi_core.hookspecs import hookimpl
from agi_core.plugins import PluginFailure, Plugins
from agi_core.testing import open_kernel


def _warnings(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("agi: warning:")]


def test_a_hook_failing_every_tick_is_kept_once_counted_and_printed_at_1_10_100(tmp_path, capfd):
    module = types.ModuleType("flaky")
    module.agi_before_tick = hookimpl(lambda kernel, state: 1 / 0)
    with open_kernel(tmp_path / "a.db", module) as kernel:
        capfd.readouterr()
        for n in range(120):
            assert kernel.tick(f"{n}+1").final_output == f"{n}+1 = {n + 1}"  # the tick goes on
        failure = PluginFailure("flaky", "agi_before_tick", "ZeroDivisionError: division by zero")
        assert kernel.plugins.failures == [failure] and kernel.plugins.failure_count(failure) == 120
    assert _warnings(capfd.readouterr().err) == [
        f"agi: warning: {failure}",
        f"agi: warning: {failure} (10 times)",
        f"agi: warning: {failure} (100 times)",
    ]


def test_distinct_failures_are_bounded_the_newest_kept_and_the_last_reported_last(monkeypatch, capfd):
    monkeypatch.setattr(plugins_module, "FAILURES_KEPT", 3)
    plugins = Plugins()
    for n in range(5):
        plugins.report_failure("p", "tick", f"ValueError: bad {n}")  # a cause that differs each time
    plugins.report_failure("p", "tick", "ValueError: bad 2")  # met again: moved last, not kept twice
    assert [f.cause for f in plugins.failures] == ["ValueError: bad 3", "ValueError: bad 4", "ValueError: bad 2"]
    assert plugins.failure_count(PluginFailure("p", "tick", "ValueError: bad 0")) == 0  # dropped, the oldest
    assert len(_warnings(capfd.readouterr().err)) == 5  # each distinct one once; the repeat (2nd time) is silent
