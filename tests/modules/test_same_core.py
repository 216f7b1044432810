"""Hand-offs on one CPU (agi_core.same_core): an isolated module runs on its caller's CPU, and nothing
outlives the hand-off pinned: the caller's CPU set, a thread the module started, an abandoned worker."""

from __future__ import annotations

import os
import sys
import threading
import time
from typing import Any, ClassVar

import pytest

from agi_core import same_core
from agi_core.effects.timeouts import TimedOut, call_with_timeout
from agi_core.hookspecs import hookimpl
from agi_core.llm.lazy import TimedRequests
from agi_core.modules import CognitiveModule
from agi_core.testing import open_kernel

pytestmark = pytest.mark.skipif(
    not hasattr(os, "sched_setaffinity") or len(os.sched_getaffinity(0)) < 2,
    reason="pinning needs Linux and a thread allowed two CPUs or more",
)


@pytest.fixture(autouse=True)
def settled(monkeypatch):
    """Hand-offs enabled and settled (as after a first quiet tick); the test's thread on all its CPUs after."""
    monkeypatch.setattr(same_core, "ENABLED", True)
    same_core.reset_for_tests(settled=True)
    cpus = os.sched_getaffinity(0)
    yield
    os.sched_setaffinity(0, cpus)


class Watcher(CognitiveModule):
    """Notes, in perceive (on the worker), the CPUs it may run on and the CPU it runs on."""

    name = "watcher"
    seen: ClassVar[list[dict[str, Any]]] = []

    def perceive(self, ctx):
        Watcher.seen.append(
            {
                "cpus": os.sched_getaffinity(0),
                "pinned": same_core.pinned_cpu(),
                "unpinned": _unpinned_cpus(),
                "thread": threading.get_native_id(),
            }
        )
        return "seen"


def _unpinned_cpus() -> set[int]:
    with same_core.unpinned():
        return os.sched_getaffinity(0)


class Plugin:
    def __init__(self, *modules: CognitiveModule) -> None:
        self.modules = modules

    @hookimpl
    def agi_register_modules(self, register):
        for module in self.modules:
            register(module)


def test_an_isolated_module_runs_on_the_callers_cpu_and_the_caller_gets_its_cpus_back(tmp_path):
    Watcher.seen.clear()
    cpus = os.sched_getaffinity(0)
    with open_kernel(tmp_path / "a.db", Plugin(Watcher())) as kernel:
        kernel.tick("hello")
        assert os.sched_getaffinity(0) == cpus  # the tick's thread, after the tick
    [seen] = Watcher.seen
    assert seen["thread"] != threading.get_native_id()  # isolated: on the worker
    assert seen["cpus"] == {seen["pinned"]}  # one CPU, the caller's
    assert seen["unpinned"] == cpus  # unpinned(): the caller's CPUs, for loading a library


def test_with_agi_same_core_0_nothing_is_pinned(tmp_path, monkeypatch):
    monkeypatch.setattr(same_core, "ENABLED", False)
    Watcher.seen.clear()
    cpus = os.sched_getaffinity(0)
    with open_kernel(tmp_path / "a.db", Plugin(Watcher())) as kernel:
        kernel.tick("hello")
    assert Watcher.seen[0]["cpus"] == cpus
    assert Watcher.seen[0]["pinned"] is None


class Importer(CognitiveModule):
    """Imports a module no one imported before, in its first perceive only."""

    name = "importer"
    folder: ClassVar[str] = ""

    def perceive(self, ctx):
        if "agi_test_fresh_module" not in sys.modules:
            sys.path.insert(0, Importer.folder)
            try:
                import agi_test_fresh_module  # noqa: F401
            finally:
                sys.path.remove(Importer.folder)
        return len(os.sched_getaffinity(0))


def test_hand_offs_wait_for_one_that_imports_nothing_before_pinning(tmp_path):
    """A library that sizes a thread pool by its CPUs as it loads must not load pinned: a hand-off that
    imported something leaves the next one unpinned; pinning resumes after a quiet one."""
    (tmp_path / "agi_test_fresh_module.py").write_text("VALUE = 1\n")
    Importer.folder = str(tmp_path)
    lines = ("one", "two", "three", "four")
    with open_kernel(tmp_path / "warm.db", Plugin(Watcher())) as warm:  # what the kernel itself imports on first use
        for line in lines:
            warm.tick(line)
    same_core.reset_for_tests(settled=False)  # as in a fresh process
    cpus = len(os.sched_getaffinity(0))
    try:
        with open_kernel(tmp_path / "a.db", Plugin(Importer())) as kernel:
            allowed = [kernel.tick(line).modules["calls"][0]["output"] for line in lines]
    finally:
        sys.modules.pop("agi_test_fresh_module", None)
    # the first tick is not pinned (nothing quiet yet), and imports; the second is not (after an import)
    # but is quiet; the ones after it are pinned
    assert allowed == [cpus, cpus, 1, 1]


class Spawner(CognitiveModule):
    """Starts a thread in perceive (a pool, a prefetcher) that lives on after the tick."""

    name = "spawner"
    started: ClassVar[list[threading.Thread]] = []
    stop = threading.Event()

    def perceive(self, ctx):
        thread = threading.Thread(target=Spawner.stop.wait, daemon=True)
        thread.start()
        Spawner.started.append(thread)
        return len(os.sched_getaffinity(thread.native_id))


def test_a_thread_started_during_a_hand_off_gets_the_callers_cpus_back(tmp_path):
    cpus = os.sched_getaffinity(0)
    Spawner.started.clear()
    try:
        with open_kernel(tmp_path / "a.db", Plugin(Spawner())) as kernel:
            record = kernel.tick("hello")
        assert record.modules["calls"][0]["output"] == 1  # it inherited the pin
        [thread] = Spawner.started
        assert os.sched_getaffinity(thread.native_id) == cpus  # freed when the hand-off ended
    finally:
        Spawner.stop.set()


class Hung(CognitiveModule):
    """Overruns its 0.3 s limit in perceive, noting its worker's thread."""

    name = "hung"
    timeout_s = 0.3
    threads: ClassVar[list[int]] = []
    release = threading.Event()

    def perceive(self, ctx):
        Hung.threads.append(threading.get_native_id())
        Hung.release.wait(10)


def test_a_worker_abandoned_with_a_call_that_overran_gets_the_callers_cpus_back(tmp_path):
    cpus = os.sched_getaffinity(0)
    Hung.threads.clear()
    try:
        with open_kernel(tmp_path / "a.db", Plugin(Hung())) as kernel:
            record = kernel.tick("hello")
        assert "TimedOut" in record.modules["calls"][0]["skipped"]
        [abandoned] = Hung.threads
        assert os.sched_getaffinity(abandoned) == cpus
    finally:
        Hung.release.set()


def test_a_plugin_call_under_a_timeout_is_not_pinned_even_on_a_worker_a_module_pinned(tmp_path):
    """A tool's or a model's call may run threads of its own (llama.cpp starts some for each request): they
    would inherit a pin and share one CPU. Its worker gets the caller's CPUs, even one a module turn pinned."""
    cpus = os.sched_getaffinity(0)
    Watcher.seen.clear()
    with open_kernel(tmp_path / "a.db", Plugin(Watcher())) as kernel:
        kernel.tick("hello")  # pins the pool's worker
    assert len(Watcher.seen[0]["cpus"]) == 1
    assert call_with_timeout(lambda: os.sched_getaffinity(0), (), 5.0) == cpus
    assert os.sched_getaffinity(0) == cpus


class CpusModel:
    """A fake in-process model (a stand-in for llama.cpp, whose threads inherit the CPUs of the thread that asks):
    its answer is the CPUs it ran on."""

    name = "cpus"

    def complete(self, messages, **options):
        return os.sched_getaffinity(0)


class AsksAModel(CognitiveModule):
    """Makes calls under a timeout from its phase, as a contract call asking a model does: on a worker, in its
    own thread (no limit), and through an in-process model with no time limit."""

    name = "asks"
    seen: ClassVar[list[set[int]]] = []

    def perceive(self, ctx):
        AsksAModel.seen.append(call_with_timeout(lambda: os.sched_getaffinity(0), (), 5.0))
        AsksAModel.seen.append(call_with_timeout(lambda: os.sched_getaffinity(0), (), 0))
        AsksAModel.seen.append(TimedRequests(CpusModel(), None).complete([]))
        AsksAModel.seen.append(os.sched_getaffinity(0))  # the phase itself: pinned


def test_a_call_under_a_timeout_from_a_pinned_module_call_is_not_pinned(tmp_path):
    cpus = os.sched_getaffinity(0)
    AsksAModel.seen.clear()
    with open_kernel(tmp_path / "a.db", Plugin(AsksAModel())) as kernel:
        kernel.tick("hello")
    [on_worker, in_its_thread, in_process_model, phase] = AsksAModel.seen
    assert (on_worker, in_its_thread, in_process_model) == (cpus, cpus, cpus)
    assert len(phase) == 1


def test_an_abandoned_plugin_call_leaves_its_worker_on_the_callers_cpus():
    cpus = os.sched_getaffinity(0)
    worker: list[int] = []

    def hang() -> None:
        worker.append(threading.get_native_id())
        time.sleep(1.0)

    with pytest.raises(TimedOut):
        call_with_timeout(hang, (), 0.2)
    assert os.sched_getaffinity(worker[0]) == cpus
    assert os.sched_getaffinity(0) == cpus
