"""The modules' run order: ``priority`` then name, within the ``before`` / ``after`` constraints.

A topological order (Kahn's), always taking the ready module with the smallest
``(priority, name)``. A module naming a module that is not loaded (or left out), and the
modules of a cycle, are reported in one line naming them and left out; the others run.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Sequence
from typing import Protocol, TypeVar


class Ordered(Protocol):
    @property
    def name(self) -> str: ...
    @property
    def priority(self) -> int: ...
    @property
    def before(self) -> tuple[str, ...]: ...
    @property
    def after(self) -> tuple[str, ...]: ...


M = TypeVar("M", bound=Ordered)


def run_order(modules: Sequence[M], report: Callable[[M, str], None]) -> list[M]:
    """``modules`` in run order; ``report(module, problem)`` for each one left out."""
    kept = {module.name: module for module in modules}
    changed = True
    while changed:  # leaving one out may leave another naming it
        changed = False
        for module in list(kept.values()):
            unknown = [name for name in (*module.before, *module.after) if name not in kept]
            if unknown:
                del kept[module.name]
                changed = True
                report(
                    module,
                    f"module {module.name!r} is ordered against {unknown[0]!r}, which is not loaded or was left out; "
                    "install that module or drop the name from before/after",
                )
    order, stuck = _kahn(kept)
    if stuck:
        names = ", ".join(repr(name) for name in sorted(stuck))
        for name in sorted(stuck):
            report(
                kept[name],
                f"modules {names} order each other in a cycle (before/after); drop one of the constraints",
            )
        return run_order([module for name, module in kept.items() if name not in stuck], report)
    return order


def _kahn(modules: dict[str, M]) -> tuple[list[M], set[str]]:
    """The order, and the names on or between cycles (empty when there is none)."""
    after: dict[str, set[str]] = {name: set() for name in modules}  # name -> the names it waits for
    for module in modules.values():
        after[module.name].update(module.after)
        for name in module.before:
            after[name].add(module.name)
    waiting = {name: set(deps) for name, deps in after.items()}
    ready = [(m.priority, m.name) for m in modules.values() if not waiting[m.name]]
    heapq.heapify(ready)
    order: list[M] = []
    while ready:
        _, name = heapq.heappop(ready)
        order.append(modules[name])
        for other, deps in waiting.items():
            if name in deps:
                deps.discard(name)
                if not deps:
                    heapq.heappush(ready, (modules[other].priority, other))
    placed = {module.name for module in order}
    left = {name: deps for name, deps in waiting.items() if name not in placed}
    # keep only the modules on a cycle: drop those nothing left waits for, until none is dropped
    while True:
        needed = {dep for deps in left.values() for dep in deps}
        done = [name for name in left if name not in needed]
        if not done:
            return order, set(left)
        for name in done:
            del left[name]
