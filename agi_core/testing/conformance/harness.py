"""What every conformance check needs: the backend under test, fresh agents on it, sample rows."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from agi_core.kernel import Kernel
from agi_core.memory.backend import CheckpointTransfer, GoalStore, MemoryBackend, ModuleStateStore, TickTimingStore
from agi_core.model import EpisodicEntry, SemanticEntry
from agi_core.plugins import Plugins

SEED = "conformance"
STAMP = "2026-01-01T00:00:0{}Z"  # updated_at of the n-th write (n < 10): ordered as text too
# the parts of the protocol a partial backend may declare it lacks (Harness.lacks), and their protocols
OPTIONAL_PARTS: dict[str, type] = {
    "module state": ModuleStateStore,
    "goals": GoalStore,
    "tick timings": TickTimingStore,
    "checkpoint transfer": CheckpointTransfer,  # agi export/import of the archive point's (journal archive)
}
DECLARED_LACK = "the backend declares it lacks"  # the only reason a check of the suite may skip for


def fact(key: str, value: Any, n: int = 1) -> SemanticEntry:
    return SemanticEntry(id=f"f{n}", key=key, value=value, fact=f"{key} = {value!r}", updated_at=STAMP.format(n))


def episode(n: int, event: str = "") -> EpisodicEntry:
    return EpisodicEntry(id=f"e{n}", event=event or f"event {n}", context={"n": n}, timestamp=STAMP.format(n % 10))


def job(name: str, due: int | None) -> dict[str, Any]:
    return {
        "name": name,
        "kind": "every",
        "spec": "60000",
        "say": f"say {name}",
        "next_due_ms": due,
        "last_run_ms": None,
        "runs": 0,
        "missed": 0,
        "created_tick": 1,
    }


def goal(goal_id: str, status: str) -> dict[str, Any]:
    """A goal row (``agi_core.memory.goals_table.COLUMNS``) with a one-step plan."""
    return {
        "id": goal_id,
        "parent": None,
        "description": f"reach {goal_id}",
        "status": status,
        "priority": 0.5,
        "progress": 0.0,
        "plan": [{"do": "list files", "assumes": "the step's action succeeds", "expect": {}, "status": "todo"}],
        "assumptions": ["the step's action succeeds"],
        "created_tick": 1,
        "updated_tick": 2,
        "replans": 0,
    }


class Harness:
    """Base of the conformance suite: names the backend and opens stores and kernels on it.

    ``backend_name`` is the name the backend is registered under; ``--agi-backend=NAME`` sets
    it for the suite the pytest plugin runs. ``plugin_modules`` are importable module names of
    plugins to register besides the built-ins (a backend not installed through an entry point);
    when empty, the installed entry-point plugins are loaded.
    """

    backend_name: str = ""
    plugin_modules: tuple[str, ...] = ()
    lacks: frozenset[str] = frozenset()  # parts of OPTIONAL_PARTS the backend does not implement: their checks skip

    @pytest.fixture
    def backend(self, request: pytest.FixtureRequest) -> str:
        name = self.backend_name or request.config.getoption("agi_backend", default=None)
        if not name:
            pytest.skip("no backend named: set backend_name, or run pytest --agi-backend=NAME")
        unknown = sorted(set(self.lacks) - set(OPTIONAL_PARTS))
        if unknown:
            pytest.fail(f"lacks names {unknown[0]!r}, not an optional part; known: {', '.join(OPTIONAL_PARTS)}")
        return str(name)

    def has(self, store: object, part: str) -> bool:
        """Whether ``store`` implements the optional ``part`` (a key of ``OPTIONAL_PARTS``)."""
        return isinstance(store, OPTIONAL_PARTS[part])

    def require(self, store: object, part: str) -> None:
        """A check of ``part``: skips when the backend lacks it and says so in ``lacks``, fails when it lacks
        it without saying so (a backend that claims the whole protocol), and runs otherwise."""
        if self.has(store, part):
            return
        if part in self.lacks:
            pytest.skip(f"{DECLARED_LACK} {part} (lacks = {sorted(self.lacks)})")
        protocol = OPTIONAL_PARTS[part].__name__
        pytest.fail(
            f"the {type(store).__name__} backend lacks {part} (the {protocol} methods) yet claims the whole "
            f"protocol; implement them, or declare lacks = frozenset({{{part!r}}}) in its conformance class",
            pytrace=False,
        )

    def plugins(self) -> Plugins:
        if self.plugin_modules:
            return Plugins.builtins(*self.plugin_modules)
        return Plugins.from_environment()

    @pytest.fixture
    def open_store(self, backend: str, tmp_path: Path) -> Iterator[Callable[..., MemoryBackend]]:
        """``open_store(name="agent")``: the backend on a fresh agent (the same agent for the same name)."""
        factories = {name: reg.obj for name, reg in self.plugins().register_memory_backends().items()}
        if backend not in factories:
            pytest.fail(f"no memory backend named {backend!r}; installed: {', '.join(sorted(factories))}")
        opened: list[MemoryBackend] = []

        def open_one(name: str = "agent", **options: Any) -> MemoryBackend:
            store: MemoryBackend = factories[backend](tmp_path / f"{name}.db", **options)
            opened.append(store)
            return store

        yield open_one
        for store in opened:
            store.close()

    @pytest.fixture
    def open_agent(self, backend: str, tmp_path: Path) -> Iterator[Callable[..., Kernel]]:
        """``open_agent(name="agent", *extra_plugins, **options)``: a kernel on the backend.

        Kernels still open at the end are closed; close one earlier with :func:`close_agent`.
        """
        opened: list[Kernel] = []
        self._opened_kernels = opened

        def open_one(name: str = "agent", *extra: Any, **options: Any) -> Kernel:
            plugins = self.plugins()
            for plugin in extra:
                plugins.add_module(plugin)
            options.setdefault("workspace", tmp_path / "workspace")
            kernel = Kernel.open(tmp_path / f"{name}.db", seed=SEED, plugins=plugins, backend=backend, **options)
            opened.append(kernel)
            return kernel

        yield open_one
        for kernel in opened:
            kernel.close()

    def close_agent(self, kernel: Kernel) -> None:
        self._opened_kernels.remove(kernel)
        kernel.close()

    def child_environment(self) -> dict[str, str]:
        """The environment of a child process that must find the same backend."""
        return {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
