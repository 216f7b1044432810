"""A module's own timeout (per module and per phase), apart from the tools' --timeout, journaled."""

from __future__ import annotations

import time
from typing import ClassVar

import pytest

from agi_core.hookspecs import hookimpl
from agi_core.modules import CognitiveModule
from agi_core.replay import replay
from agi_core.testing import builtin_plugins, open_kernel


class Patient(CognitiveModule):
    """Takes 0.4 s in perceive and 2 s in deliberate; allows itself 1 s, but only 0.1 s to deliberate."""

    name = "patient"
    timeout_s = 1.0
    phase_timeouts = {"deliberate": 0.1}  # noqa: RUF012 - read once at registration

    def perceive(self, ctx):
        time.sleep(0.4)
        return "perceived"

    def deliberate(self, ctx):
        time.sleep(2.0)


class Quick(CognitiveModule):
    """No limit of its own: the kernel's module_timeout_s applies (it takes 2 s)."""

    name = "quick"

    def perceive(self, ctx):
        time.sleep(2.0)
        return "perceived"


class Plugin:
    @hookimpl
    def agi_register_modules(self, register):
        register(Patient())
        register(Quick())


def test_a_modules_own_timeout_per_phase_overrides_the_kernels_and_is_journaled_and_replayed(tmp_path):
    db = tmp_path / "a.db"
    # the tools' timeout is generous; the modules' is 0.2 s: Quick overruns it, Patient has its own 1 s
    with open_kernel(db, Plugin(), timeout_s=5, module_timeout_s=0.2) as kernel:
        record = kernel.tick("2 + 3")
    assert record.final_output == "2 + 3 = 5"
    assert record.modules["calls"] == [
        {"module": "patient", "phase": "perceive", "timeout_s": 1.0, "output": "perceived"},
        {"module": "quick", "phase": "perceive", "skipped": "TimedOut: quick ran past 0.2 s and was abandoned"},
        {
            "module": "patient",
            "phase": "deliberate",
            "timeout_s": 0.1,
            "skipped": "TimedOut: patient ran past 0.1 s and was abandoned",
        },
    ]
    started = time.perf_counter()
    assert replay(db, plugins=builtin_plugins(Plugin())).ok  # the timeouts are served back
    assert time.perf_counter() - started < 2.0  # either abandoned call, run again, would take 2 s


SET_IT = "set it to a number above 0 (e.g. 5.0), or leave it out to use the kernel's --module-timeout"


@pytest.mark.parametrize(
    ("attributes", "problem"),
    [
        ({"timeout_s": -1}, "module 'bad': timeout_s is -1, not a positive number of seconds; " + SET_IT),
        (  # which entry is wrong (it said "timeout 0 is not a positive number of seconds", no fix)
            {"timeout_s": 2, "phase_timeouts": {"recall": 1, "deliberate": 0}},
            "module 'bad': phase_timeouts['deliberate'] is 0, not a positive number of seconds; " + SET_IT,
        ),
        ({"timeout_s": "5"}, "module 'bad': timeout_s is '5', not a positive number of seconds; " + SET_IT),
        ({"phase_timeouts": {"dream": 1}}, "module 'bad': phase_timeouts names 'dream'; use one of perceive"),
    ],
)
def test_a_bad_timeout_is_reported_and_the_module_skipped(tmp_path, attributes, problem):
    bad = type("Bad", (CognitiveModule,), {"name": "bad", "perceive": lambda self, ctx: 1, **attributes})()

    class BadPlugin:
        @hookimpl
        def agi_register_modules(self, register):
            register(bad)

    with open_kernel(tmp_path / "a.db", BadPlugin()) as kernel:
        assert [m.name for m in kernel.modules] == ["sem_council"]
        assert kernel.plugins.failures[-1].cause.startswith("RegistrationError: " + problem)


class Overrunning(CognitiveModule):
    """Overruns its 0.2 s twice: a read that starts in time and ends late, a contract call made late."""

    name = "overrunning"
    phase_timeouts = {"perceive": 0.2, "recall": 0.2}  # noqa: RUF012 - read once at registration
    asked: ClassVar[list[str]] = []

    def perceive(self, ctx):
        return ctx.external("slow", lambda: self.asked.append("read") or time.sleep(0.5) or "late")

    def recall(self, ctx):
        time.sleep(0.4)
        return ctx.contracts.call("dialogue_state", {"text": ctx.text}).source


class Slowpoke(CognitiveModule):
    """Keeps the tick open (0.8 s within its 3 s) while the abandoned calls above end."""

    name = "slowpoke"
    priority = 200
    timeout_s = 3.0

    def perceive(self, ctx):
        time.sleep(0.8)

    def recall(self, ctx):
        time.sleep(0.8)


class OverrunPlugin:
    @hookimpl
    def agi_register_modules(self, register):
        register(Overrunning())
        register(Slowpoke())


def test_what_an_abandoned_call_fetches_late_is_not_journaled_and_replay_is_equal(tmp_path):
    db = tmp_path / "a.db"
    with open_kernel(db, OverrunPlugin(), module_timeout_s=5) as kernel:
        record = kernel.tick("hello there")
    assert [c.get("skipped", "ran")[:8] for c in record.modules["calls"]] == ["TimedOut", "ran", "TimedOut", "ran"]
    assert Overrunning.asked == ["read"]  # the read ran (and ended after the timeout); the late call never asked
    assert "module_read" not in record.externals
    assert "contract_call" not in record.externals
    result = replay(db, plugins=builtin_plugins(OverrunPlugin()))
    assert result.ok, result.mismatch


class SlowerInReplay(CognitiveModule):
    """A fault injection: returns at once live and takes 0.5 s in replay (as on a machine loaded then), with
    its 0.2 s limit."""

    name = "slower_in_replay"
    timeout_s = 0.2
    replaying: ClassVar[bool] = False

    def perceive(self, ctx):
        if SlowerInReplay.replaying:
            time.sleep(0.5)
        return "perceived"


class SlowerPlugin:
    @hookimpl
    def agi_register_modules(self, register):
        register(SlowerInReplay())


def test_replay_waits_for_a_call_that_returned_in_time_live(tmp_path):
    """A call that returned live but runs past its limit in replay (a loaded machine) was timed out there
    alone, a false mismatch; replay now waits up to agi_core.externals.REPLAY_GRACE (10) times its limit."""
    db = tmp_path / "a.db"
    with open_kernel(db, SlowerPlugin()) as kernel:
        assert kernel.tick("hello").modules["calls"][0]["output"] == "perceived"
    SlowerInReplay.replaying = True
    try:
        report = replay(db, plugins=builtin_plugins(SlowerPlugin()))
    finally:
        SlowerInReplay.replaying = False
    assert (report.ok, report.mismatch) == (True, None)
