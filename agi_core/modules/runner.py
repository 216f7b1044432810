"""Running the modules' phases in a tick: in order, isolated, under a timeout, journaled.

Each phase call runs on a worker thread (:func:`agi_core.effects.call_with_timeout`, the
tools' timeout); its state writes go to a savepoint of the tick's transaction, opened at
its first write. A module that raises,
overruns or returns something unusable is skipped for that phase: its writes are undone,
the skip and its reason are recorded, and the tick goes on. A timeout is also recorded
as the external ``module_timeout``, so replay skips the same call without waiting again.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any

from agi_core.brain.context import ReasonContext
from agi_core.effects.isolation import describe, must_propagate
from agi_core.effects.timeouts import TimedOut, call_with_timeout
from agi_core.externals import Externals
from agi_core.model import TickState, WorkingMemory
from agi_core.modules.context import MemoryView, ModuleContext
from agi_core.modules.proposals import Proposals, as_proposals
from agi_core.modules.protocol import LoadedModule
from agi_core.modules.state import ModuleState
from agi_core.serialization import dumps, to_data

TIMEOUT_EXTERNAL = "module_timeout"
Report = Callable[[str, str, BaseException | str], None]


class ModuleTick:
    """The modules of one tick; :attr:`log` is the journal record's ``modules`` field."""

    def __init__(
        self,
        modules: list[LoadedModule],
        reason: ReasonContext,
        *,
        working: WorkingMemory,
        contracts: Callable[[], Any],
        timeout_s: float,
        report: Report,
        now_ms: int | None = None,
    ) -> None:
        self.modules, self.reason, self.working = modules, reason, working
        self.contracts = LazyContracts(contracts)  # one caller per tick, built on the first call
        self.timeout_s, self.report, self.now_ms = timeout_s, report, now_ms
        self.outputs: dict[str, dict[str, Any]] = {}
        self.log: dict[str, Any] = {"order": [module.name for module in modules], "calls": []} if modules else {}

    @property
    def externals(self) -> Externals:
        return self.reason.externals

    def run(
        self,
        phase: str,
        state: TickState,
        *,
        proposals: list[Proposals] | None = None,
        outcome: Mapping[str, Any] | None = None,
    ) -> list[tuple[LoadedModule, Any]]:
        """Call ``phase`` of every module that has it; ``[(module, output)]`` of those that succeeded."""
        done = []
        for module in self.modules:
            if phase in module.phases:
                ok, value = self._call(module, phase, state, proposals or [], outcome or {})
                if ok:
                    done.append((module, value))
        return done

    def deliberate(self, state: TickState) -> list[Proposals]:
        return [value for _module, value in self.run("deliberate", state)]

    def _call(
        self,
        module: LoadedModule,
        phase: str,
        state: TickState,
        proposals: list[Proposals],
        outcome: Mapping[str, Any],
    ) -> tuple[bool, Any]:
        entry: dict[str, Any] = {"module": module.name, "phase": phase}
        self.log["calls"].append(entry)
        mark = f"{module.name}/{phase}"
        served = [t for t in (self.externals.recorded or {}).get(TIMEOUT_EXTERNAL, []) if t["call"] == mark]
        if self.externals.replaying and served:  # it timed out live: skip it again, without waiting
            self.externals.log.setdefault(TIMEOUT_EXTERNAL, []).append(served[0])
            entry["skipped"] = served[0]["skipped"]
            return False, None
        ctx = self._context(module, phase, state, proposals, outcome)
        try:
            try:
                value = call_with_timeout(module.method(phase), (ctx,), 0 if module.inline else self.timeout_s)
            except TimedOut:
                ctx.closed = True
                raise
            finally:
                ctx.closed = True
                ctx.own.close()
            value = self._checked(module, phase, value)
        except TimedOut:
            ctx.own.undo()
            text = f"TimedOut: {module.name} ran past {self.timeout_s:g} s and was abandoned"
            self.externals.log.setdefault(TIMEOUT_EXTERNAL, []).append({"call": mark, "skipped": text})
            return self._skip(entry, module, phase, text)
        except BaseException as exc:
            ctx.own.undo()
            if must_propagate(exc):
                raise
            return self._skip(entry, module, phase, describe(exc))
        ctx.own.keep()
        entry["output"] = to_data(value) if isinstance(value, Proposals) else value
        if isinstance(value, Proposals):
            entry["output"].pop("module", None)
        if ctx.own.writes:
            entry["state"] = ctx.own.writes
        self.outputs.setdefault(module.name, {})[phase] = entry["output"]
        return True, value

    def _skip(self, entry: dict[str, Any], module: LoadedModule, phase: str, reason: str) -> tuple[bool, Any]:
        entry["skipped"] = reason
        self.report(module.plugin, f"module {module.name}.{phase}", reason)
        return False, None

    def _checked(self, module: LoadedModule, phase: str, value: Any) -> Any:
        if phase == "deliberate":
            return as_proposals(value, module.name)
        dumps(value)  # JSON or a one-line ValidationError naming the bad path; TypeError for other objects
        return value

    def _context(
        self,
        module: LoadedModule,
        phase: str,
        state: TickState,
        proposals: list[Proposals],
        outcome: Mapping[str, Any],
    ) -> ModuleContext:
        holder: list[ModuleContext] = []

        def check_open() -> None:
            holder[0].check_open()

        own = ModuleState(self.reason.store, module.name, self.reason.tick, module.validator, check_open)
        ctx = ModuleContext(
            module=module.name,
            phase=phase,
            tick=self.reason.tick,
            state=state,
            memory=MemoryView(self.reason, self.working, check_open),
            own=own,
            contracts=self.contracts,
            earlier=MappingProxyType(self.outputs),
            now_ms=self.now_ms,
            reason=self.reason,
            proposals=list(proposals),
            outcome=dict(outcome),
        )
        holder.append(ctx)
        return ctx


class LazyContracts:
    """The tick's contract caller, built on a module's first ``call``."""

    def __init__(self, factory: Callable[[], Any]) -> None:
        self._factory: Callable[[], Any] = factory
        self._caller: Any = None

    def call(self, name: str, variables: Mapping[str, Any]) -> Any:
        if self._caller is None:
            self._caller = self._factory()
        return self._caller.call(name, variables)
