"""Modules' phase calls run in turn on one worker: each under its own timeout, and a hang skips only itself."""

from __future__ import annotations

import threading
import time

import pytest

from agi_core.effects.turns import call_in_turn
from agi_core.hookspecs import hookimpl
from agi_core.replay import replay
from agi_core.testing import builtin_plugins, open_kernel


def calls(record):
    return [(c["module"], c["phase"], c.get("output", c.get("skipped"))) for c in record.modules["calls"]]


def _module(name, priority=100, inline=False, **phases):
    attrs = {"name": name, "priority": priority, "inline": inline}
    attrs.update({phase: _method(f) for phase, f in phases.items()})
    return type(name, (), attrs)()


def _method(function):
    return lambda self, ctx: function(ctx)


def _plugin(*modules):
    class Plugin:
        @hookimpl
        def agi_register_modules(self, register):
            for module in modules:
                register(module)

    return Plugin()


def _write(key):
    def phase(ctx):
        ctx.own.put(key, ctx.phase)
        return ctx.phase

    return phase


HANG_S = 10.0
_released = threading.Event()
_tried = threading.Event()


def _hang(ctx):
    """Hangs until the test releases it (at most :data:`HANG_S`), then tries a late write."""
    released = _released.wait(HANG_S)
    _released.clear()
    try:
        ctx.own.put("late", 1)  # refused: the call was abandoned
    finally:
        if released:
            _tried.set()


def test_a_hang_skips_only_its_own_call_and_the_modules_after_it_run_in_a_fresh_worker(tmp_path):
    db = tmp_path / "a.db"
    modules = (
        _module("a_first", perceive=_write("p"), recall=_write("r"), deliberate=lambda ctx: {}),
        _module("b_hangs", recall=_hang),
        _module("c_after", perceive=_write("p"), recall=_write("r"), observe=_write("o")),
    )
    with open_kernel(db, _plugin(*modules), module_timeout_s=0.3) as kernel:
        started = time.perf_counter()
        record = kernel.tick("2 + 3")
        assert time.perf_counter() - started < HANG_S  # the hang was abandoned at the timeout
        assert record.final_output == "2 + 3 = 5"
        assert calls(record) == [
            ("a_first", "perceive", "perceive"),
            ("c_after", "perceive", "perceive"),
            ("a_first", "recall", "recall"),
            ("b_hangs", "recall", "TimedOut: b_hangs ran past 0.3 s and was abandoned"),
            ("c_after", "recall", "recall"),
            ("a_first", "deliberate", {"beliefs": [], "goals": [], "candidates": [], "claims": []}),
            ("c_after", "observe", "observe"),
        ]
        assert record.externals["module_timeout"] == [
            {"call": "b_hangs/recall", "skipped": "TimedOut: b_hangs ran past 0.3 s and was abandoned"}
        ]
        _released.set()  # the abandoned call wakes up and tries to write: refused
        assert _tried.wait(HANG_S)
        rows = kernel.store.conn.execute("SELECT module, key, value FROM module_state ORDER BY module, key").fetchall()
        assert rows == [
            ("a_first", "p", '"perceive"'),
            ("a_first", "r", '"recall"'),
            ("c_after", "o", '"observe"'),
            ("c_after", "p", '"perceive"'),
            ("c_after", "r", '"recall"'),
        ]
    started = time.perf_counter()
    assert replay(db, plugins=builtin_plugins(_plugin(*modules))).ok
    assert time.perf_counter() - started < HANG_S  # the recorded timeout is served, not waited again


def test_each_call_has_its_own_timeout_not_a_share_of_the_turn(tmp_path):
    def slow(ctx):
        time.sleep(0.2)
        return ctx.module

    modules = [_module(f"slow_{i}", perceive=slow) for i in range(4)]  # 0.8 s in all, 0.2 s each
    with open_kernel(tmp_path / "a.db", _plugin(*modules), module_timeout_s=0.5) as kernel:
        record = kernel.tick("2 + 3")
        assert calls(record) == [(f"slow_{i}", "perceive", f"slow_{i}") for i in range(4)]


def test_inline_and_worker_modules_keep_priority_then_name_order_and_their_threads(tmp_path):
    def where(ctx):
        return [ctx.module, threading.current_thread() is threading.main_thread()]

    modules = (
        _module("w_late", priority=300, perceive=where),
        _module("i_mid", priority=200, inline=True, perceive=where),
        _module("w_b", priority=100, perceive=where),
        _module("w_a", priority=100, perceive=where),
        _module("i_first", priority=1, inline=True, perceive=where),
    )
    with open_kernel(tmp_path / "a.db", _plugin(*modules)) as kernel:
        record = kernel.tick("2 + 3")
        assert [c["output"] for c in record.modules["calls"]] == [
            ["i_first", True],
            ["w_a", False],
            ["w_b", False],
            ["i_mid", True],
            ["w_late", False],
        ]


def test_call_in_turn_settles_each_call_before_the_next_starts_and_reports_the_one_that_overran():
    events = []
    release = threading.Event()

    def step(name, wait=None):
        events.append(("start", name))
        if wait is not None:
            wait.wait(2)
        if name == "boom":
            raise ValueError("boom")
        return name

    def settle(index, value, error):
        events.append(("settled", index, value, repr(error) if error else None))

    calls = [(step, ("a",)), (step, ("boom",)), (step, ("hang", release)), (step, ("never",))]
    started = time.perf_counter()
    assert call_in_turn(calls, 0.3, settle) == 2
    assert 0.3 <= time.perf_counter() - started < 2.0  # "hang" waits 2 s: abandoned at 0.3 s
    release.set()
    time.sleep(0.1)  # the abandoned worker returns from "hang": it settles nothing and starts nothing
    assert events == [
        ("start", "a"),
        ("settled", 0, "a", None),
        ("start", "boom"),
        ("settled", 1, None, "ValueError('boom')"),
        ("start", "hang"),
    ]
    assert call_in_turn([(step, ("x",))], 0.3, settle) is None
    assert events[-2:] == [("start", "x"), ("settled", 0, "x", None)]


def test_ctrl_c_while_waiting_lets_the_call_under_way_end_but_settles_and_starts_nothing_more():
    import os
    import signal

    events = []

    def step(name):
        events.append(("start", name))
        time.sleep(0.4)
        events.append(("end", name))
        return name

    def settle(index, value, error):
        events.append(("settled", index))

    threading.Timer(0.1, os.kill, (os.getpid(), signal.SIGINT)).start()  # a real Ctrl-C
    with pytest.raises(KeyboardInterrupt):
        call_in_turn([(step, ("a",)), (step, ("b",))], 5.0, settle)
    time.sleep(0.6)  # the worker ends "a", then stops
    assert events == [("start", "a"), ("end", "a")]


class _Turn:
    """A turn of plain calls for drive(): settles into ``events``; its result is what was settled."""

    def __init__(self, events, *names, timeout_s=0.3, wait=None):
        self.events, self.names, self.wait = events, names, wait
        self.calls = [(self._call, (name,)) for name in names]
        self.timeouts = [timeout_s] * len(names)
        self.on_worker = True
        self.result = []

    def _call(self, name):
        self.events.append(("start", name, threading.current_thread() is threading.main_thread()))
        if name == "hang":
            self.wait.wait(2)
        return name

    def run(self):
        raise AssertionError("an on_worker turn is run by drive's worker")

    def settle(self, index, value, error):
        self.result.append(value)

    def timed_out(self, index):
        self.events.append(("timed out", self.names[index]))

    def close_from(self, index):
        self.events.append(("closed from", index))


def test_drive_runs_the_steps_after_an_isolated_turn_on_its_worker_and_a_hang_skips_only_its_call():
    from agi_core.effects.turns import drive

    events, release = [], threading.Event()

    def steps():
        first = yield _Turn(events, "a", "hang", "b", wait=release)  # this thread runs the code before it
        events.append(("step", first, threading.current_thread() is threading.main_thread()))
        second = yield _Turn(events, "c")
        return [first, second]

    assert drive(steps()) == [["a", "b"], ["c"]]
    release.set()
    time.sleep(0.1)  # the abandoned call returns: nothing is settled for it
    assert events == [
        ("start", "a", False),
        ("start", "hang", False),
        ("timed out", "hang"),
        ("start", "b", False),
        ("step", ["a", "b"], False),
        ("start", "c", False),
    ]


def test_drive_raises_what_a_step_raises_in_the_caller():
    from agi_core.effects.turns import drive

    def steps():
        yield _Turn([], "a")
        raise ValueError("the brain failed")

    with pytest.raises(ValueError, match="the brain failed"):
        drive(steps())


def test_ctrl_c_while_a_step_runs_on_the_worker_waits_for_the_step_then_starts_nothing_more():
    import os
    import signal

    from agi_core.effects.turns import drive

    events = []

    def steps():
        yield _Turn(events, "a")
        events.append(("step", "begins"))
        time.sleep(0.4)  # it works in the caller's transaction: the caller must not end it before this ends
        events.append(("step", "ends"))
        yield _Turn(events, "never")
        events.append(("step", "never"))

    threading.Timer(0.1, os.kill, (os.getpid(), signal.SIGINT)).start()  # a real Ctrl-C
    started = time.perf_counter()
    with pytest.raises(KeyboardInterrupt):
        drive(steps())
    assert time.perf_counter() - started >= 0.4
    assert events == [("start", "a", False), ("step", "begins"), ("step", "ends"), ("closed from", 0)]
    time.sleep(0.2)
    assert events[-1] == ("closed from", 0)


def test_a_second_ctrl_c_while_a_step_runs_still_waits_for_the_step_and_says_why(capfd):
    """The step works in the caller's transaction: a caller leaving before it ends would roll the
    transaction back while the step goes on writing (its later statements committed on their own)."""
    import os
    import signal

    from agi_core.effects.turns import drive

    events = []

    def steps():
        yield _Turn(events, "a")
        events.append(("step", "begins"))
        time.sleep(0.6)
        events.append(("step", "ends"))
        yield _Turn(events, "never")

    for delay in (0.1, 0.3):  # two real Ctrl-Cs while the step runs
        threading.Timer(delay, os.kill, (os.getpid(), signal.SIGINT)).start()
    started = time.perf_counter()
    with pytest.raises(KeyboardInterrupt):
        drive(steps())
    assert time.perf_counter() - started >= 0.6
    assert events == [("start", "a", False), ("step", "begins"), ("step", "ends"), ("closed from", 0)]
    assert "stopping once the step under way ends" in capfd.readouterr().err


def test_the_modules_call_contexts_are_freed_before_the_brain_runs(tmp_path):
    # fewer objects alive through the tick: the collector does not run in it (about once a tick when they were kept)
    import weakref

    from agi_core.reasoning import AgentReply

    contexts, seen = [], []

    class Probe:
        name, rule, priority = "probe_agent", "matched_probe", 1

        def matches(self, text):
            return text == "probe"

        def handle(self, ctx):  # the brain's step, between the modules' turns
            seen.append([ref() is not None for ref in contexts])
            return AgentReply("probed")

    def keep_ref(ctx):
        contexts.append(weakref.ref(ctx))
        return ctx.phase

    for inline in (False, True):
        contexts.clear()
        seen.clear()
        plugin = _plugin(_module("watcher", inline=inline, perceive=keep_ref, recall=keep_ref))
        plugin.agi_register_router_agents = hookimpl(lambda register: register(Probe()))
        with open_kernel(tmp_path / f"probe_{inline}.db", plugin) as kernel:
            assert kernel.tick("probe").final_output == "probed"
        assert seen == [[False, False]]


def test_a_hang_in_the_last_call_of_a_tick_leaves_the_rest_of_the_tick_to_a_fresh_worker(tmp_path):
    # With every module isolated, the journal record is written by the worker the hang took: after the
    # overrun, a fresh worker finishes the tick (its store step) and it commits like any other.
    db = tmp_path / "a.db"
    modules = (_module("a_first", perceive=_write("p"), observe=_write("o")), _module("z_hangs", observe=_hang))
    with open_kernel(db, _plugin(*modules), module_timeout_s=0.3) as kernel:
        started = time.perf_counter()
        record = kernel.tick("2 + 3")
        assert time.perf_counter() - started < 1.2
        assert record.final_output == "2 + 3 = 5"
        assert calls(record)[-2:] == [
            ("a_first", "observe", "observe"),
            ("z_hangs", "observe", "TimedOut: z_hangs ran past 0.3 s and was abandoned"),
        ]
        assert kernel.tick("3 + 4").final_output == "3 + 4 = 7"  # the next tick runs as usual
        assert [tick for tick, _id, _text, _chain in kernel.store.journal_rows()] == [1, 2]
    assert replay(db, plugins=builtin_plugins(_plugin(*modules))).ok


@pytest.mark.parametrize("inline", [False, True])
def test_an_async_phase_is_awaited_and_its_output_checked_inline_or_not(tmp_path, inline):
    async def perceive(ctx):
        ctx.own.put("seen", 1)  # its context is open while it runs
        return {"seen": ctx.own.get("seen")}

    async def recall(ctx):
        return {"x": float("nan")}

    with open_kernel(
        tmp_path / "a.db", _plugin(_module("waiter", inline=inline, perceive=perceive, recall=recall))
    ) as k:
        record = k.tick("2 + 3")
        assert calls(record) == [
            ("waiter", "perceive", {"seen": 1}),
            (
                "waiter",
                "recall",
                "ValidationError: module 'waiter': recall returned NaN or infinity at $.x; return finite numbers "
                "(or None)",
            ),
        ]
        assert dict(k.store.module_state_items("waiter")) == {"seen": 1}


def test_observe_reads_facts_through_the_tick_after_the_brain_closed_its_context(tmp_path):
    # the kernel gives observe (and revise) a reason context of its own after the brain's closed: each call reads it
    def recall(ctx):
        return {"name": ctx.memory.fact("user/person/self/name").exists}

    def observe(ctx):
        return {"name": ctx.memory.fact("user/person/self/name").value, "facts": len(ctx.memory.facts("user/"))}

    with open_kernel(tmp_path / "a.db", _plugin(_module("reader", inline=True, recall=recall, observe=observe))) as k:
        k.tick("my name is Ada")
        record = k.tick("what is my name?")
        assert calls(record) == [
            ("reader", "recall", {"name": True}),
            ("reader", "observe", {"name": "Ada", "facts": 1}),
        ]
        assert k.replay().ok
