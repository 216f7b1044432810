"""Running the modules' phases in a tick: in order, isolated, under a timeout, journaled.

Consecutive phase calls of modules that are not ``inline`` run in turn on one worker thread
(:func:`agi_core.effects.turns.call_in_turn`, each call under its timeout from its own start:
the module's ``timeout_s`` / ``phase_timeouts``, else the kernel's ``module_timeout_s``): ``perceive``,
``recall`` and ``deliberate`` of all modules are one hand-off,
``observe`` another. When every module with a phase is isolated, the tick's steps between the
calls run on the worker too (the ``*_steps`` methods, :func:`agi_core.effects.turns.drive`):
one hand-off a tick. A call's state writes are held by its :class:`ModuleState` (its own reads
see them) and written into the tick's transaction when it succeeds, before the next call starts. A
module that raises, overruns or returns something unusable is skipped for that phase: its
writes never reach the store, the skip and its reason are recorded, and the tick goes on.
Nothing a call or the run builds refers back to itself, so it is all freed by reference
counting when the tick ends (no work for the garbage collector). A timeout is also recorded
as the external ``module_timeout``, so replay skips the same call without waiting again.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import cached_property, partial
from itertools import takewhile
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import orjson

from agi_core import tracing
from agi_core.effects.isolation import describe, must_propagate
from agi_core.effects.scope import TickScope
from agi_core.effects.timeouts import TimedOut, invoke
from agi_core.effects.turns import Steps, call_in_turn, drive
from agi_core.errors import ValidationError
from agi_core.externals import REPLAY_GRACE, Externals
from agi_core.memory.backend import ModuleStateStore
from agi_core.memory.state_cache import StateCache
from agi_core.model import SemanticEntry, TickState, WorkingMemory
from agi_core.modules.context import RAISED, RETURNED, STOPPED, CommonParts, ModuleContext, timed_out
from agi_core.modules.proposals import Proposals, checked_proposals, not_json_error
from agi_core.modules.protocol import LoadedModule
from agi_core.modules.revision import CASE_KEPT, Draft, apply_draft, as_revision, draft_of, revised
from agi_core.modules.state import ModuleState, StateWrites, takes_default
from agi_core.plugins import BUILTIN_PLUGINS
from agi_core.reasoning import Decision, ReasonContext
from agi_core.serialization import dumps, to_data

if TYPE_CHECKING:
    from agi_core.contracts.caller import ContractOutcome

TIMEOUT_EXTERNAL = "module_timeout"
_KEEPS_STATE: dict[type, bool] = {}  # backend class: whether it keeps module state (its methods are its class's)
AFTER_VETO = object()  # what a revise call gives when an earlier module vetoed the reply
Report = Callable[[str, str, BaseException | str], None]


class ModuleTick:
    """The modules of one tick (``scope.modules``); :attr:`log` is the journal record's ``modules`` field.

    ``scope`` gives the modules, their default timeout, the failure report, the clock reading and
    the plugins' settings; ``reason`` is the tick's context (reads, writes, evidence, externals).
    """

    def __init__(
        self, scope: TickScope, reason: ReasonContext, *, working: WorkingMemory, contracts: Callable[[], Any]
    ) -> None:
        modules: Sequence[LoadedModule] = scope.modules
        self.modules, self.reason, self.working = modules, reason, working
        self.contracts = LazyContracts(contracts)  # one caller per tick, built on the first call
        self.timeout_s, self.report, self.now_ms = scope.module_timeout_s, scope.report, scope.now_ms
        self.state_max_bytes = scope.module_state_max_bytes
        self._state_cache = scope.module_state_cache
        self.outputs: dict[str, dict[str, Any]] = {}
        self.earlier = MappingProxyType(self.outputs)  # what modules see of it (read only)
        self.listings: dict[tuple[str, int], list[SemanticEntry]] = {}  # fact listings shared by one run's calls
        self._made: dict[str, CommonParts] = {}  # per module: what its calls share (_common)
        self.tools = scope.tools
        self._settings = TickSettings(scope.settings)  # per plugin, read once per tick
        self.draft: Draft | None = None  # the decision under revision (the revise phase)
        self.log: dict[str, Any] = {"order": [module.name for module in modules], "calls": []} if modules else {}
        plugins = {module.name: module.plugin for module in modules if module.plugin not in BUILTIN_PLUGINS}
        if plugins:  # the plugin of each module that is not built in: replay names the one to install
            self.log["plugins"] = plugins

    @cached_property
    def keeps_state(self) -> bool:
        """Whether the backend keeps module state (a slow runtime Protocol check: made once per backend class)."""
        kind = type(self.reason.store)
        found = _KEEPS_STATE.get(kind)
        if found is None:
            found = _KEEPS_STATE[kind] = isinstance(self.reason.store, ModuleStateStore)
        return found

    @cached_property
    def state_cache(self) -> StateCache | None:
        """The kernel's copy of module state, for a backend that tells a stored null from no row (else None)."""
        cache = self._state_cache
        return cache if cache is not None and self.keeps_state and takes_default(self.reason.store) else None

    @cached_property
    def held_writes(self) -> StateWrites | None:
        """The module-state writes of a run of calls, held for one statement (with the kernel's copy only)."""
        return None if self.state_cache is None else StateWrites(self.reason.store)

    def _turn_ended(self) -> None:
        """A run of phase calls ended: what their calls kept goes into the store (one statement)."""
        held = self.held_writes
        if held is not None:
            held.flush()

    def settings(self, plugin: str) -> Mapping[str, Any]:
        """``plugin``'s settings, read once per tick (a read-only view)."""
        return self._settings.of(plugin)

    @property
    def externals(self) -> Externals:
        return self.reason.externals

    @cached_property
    def on_worker(self) -> bool:
        """Whether the tick's steps may run on the modules' worker between their calls (:func:`drive`):
        every module with a phase is isolated (not ``inline``, a timeout on each phase) and tracing is off."""
        return not tracing.enabled() and all(
            not module.inline and all(self._limit(module, phase) > 0 for phase in module.phases)
            for module in self.modules
            if module.phases
        )

    def _limit(self, module: LoadedModule, phase: str) -> float:
        own = module.timeout(phase)
        return self.timeout_s if own is None else own

    def run(
        self,
        phase: str,
        state: TickState,
        *,
        proposals: list[Proposals] | None = None,
        outcome: Mapping[str, Any] | None = None,
    ) -> list[tuple[LoadedModule, Any]]:
        """Call ``phase`` of every module that has it; ``[(module, output)]`` of those that succeeded."""
        return drive(self.run_steps(phase, state, proposals=proposals, outcome=outcome))

    def run_steps(
        self,
        phase: str,
        state: TickState,
        *,
        proposals: list[Proposals] | None = None,
        outcome: Mapping[str, Any] | None = None,
    ) -> Steps[list[tuple[LoadedModule, Any]]]:
        """:meth:`run` as steps (:func:`drive` runs them)."""
        done = yield PhaseTurn(self, (phase,), state, proposals or [], outcome or {})
        self._turn_ended()
        return done[phase]  # type: ignore[no-any-return]

    def revise_steps(self, state: TickState, decision: Decision, proposals: list[Proposals]) -> Steps[Decision]:
        """``revise`` of every module that has it, in order, each seeing the draft as the ones before left it
        (steps: :func:`drive` runs them)."""
        self.draft = draft_of(decision)
        yield PhaseTurn(self, ("revise",), state, proposals, {})
        self._turn_ended()
        return apply_draft(decision, self.draft)

    def _function(self, call: PhaseCall) -> Callable[[ModuleContext], Any]:
        """What the worker calls: the phase method; ``revise`` gets the draft as it is when it starts."""
        method = call.module.method(call.phase)
        if call.phase != "revise":
            return method  # type: ignore[no-any-return]

        def revise(ctx: ModuleContext) -> Any:
            draft = self.draft
            if draft is None or draft.vetoed_by is not None:
                return AFTER_VETO
            return method(ctx, draft)

        return revise

    def _owned(self, call: PhaseCall) -> Callable[[ModuleContext], Any]:
        """:meth:`_function`, its externals kept under the call, so a timeout can take them back."""
        return partial(self.externals.run_owned, call, self._function(call))

    def _traced(self, call: PhaseCall) -> Callable[[ModuleContext], Any]:
        """:meth:`_owned` in a ``module NAME.PHASE`` span, in the tick's trace (docs/tracing.md)."""
        if not tracing.enabled():
            if call.phase != "revise":  # the usual case, built at once: the method, owned by the call
                return partial(self.reason.externals.run_owned, call, call.module.method(call.phase))
            return self._owned(call)
        function = self._owned(call)
        call.traced = tracing.abandonable()  # _timed_out ends its span

        limit = 0 if call.module.inline else call.timeout_s  # as run_due awaits an async phase

        def traced(ctx: ModuleContext) -> Any:
            attributes: dict[str, tracing.Value] = {
                "agi.module.name": call.module.name,
                "agi.module.phase": call.phase,
                "agi.tick": ctx.tick,
            }
            with tracing.span(f"module {call.module.name}.{call.phase}", attributes):
                return invoke(function, (ctx,), limit)  # an async phase is awaited inside its span

        return tracing.carry(traced, call.traced)

    def before_reasoning_steps(self, state: TickState) -> Steps[list[Proposals]]:
        """``perceive``, ``recall`` then ``deliberate`` of every module; the deliberations' proposals (steps:
        :func:`drive` runs them)."""
        done = yield PhaseTurn(self, ("perceive", "recall", "deliberate"), state, [], {})
        self._turn_ended()
        return [value for _module, value in done["deliberate"]]

    def due(
        self, phases: tuple[str, ...], state: TickState, proposals: list[Proposals], outcome: Mapping[str, Any]
    ) -> list[PhaseCall]:
        """The calls of ``phases``, phase after phase, each prepared (its journal entry and context)."""
        self.listings = {}  # no fact is written between these calls: they share the listings they make
        return [
            call
            for phase in phases
            for module in self.modules
            if phase in module.phases
            if (call := self._prepare(module, phase, state, proposals, outcome))
        ]

    def run_due(self, due: list[PhaseCall], done: dict[str, list[tuple[LoadedModule, Any]]]) -> None:
        """Run the calls in this thread (inline ones) or in turn on a worker, each under its own timeout."""
        at = 0  # the next call to run
        run_owned, plain = self.externals.run_owned, not tracing.enabled()
        while at < len(due):
            call = due[at]
            if call.timeout_s <= 0 or call.module.inline:
                at += 1
                try:
                    if plain and call.phase != "revise":  # the usual case: the method, owned by the call (_traced)
                        value = run_owned(call, getattr(call.module.obj, call.phase), call.ctx)
                        if hasattr(value, "__await__"):  # an async phase: awaited as invoke() awaits it
                            value = invoke(_given, (value,), 0)
                    else:
                        value = invoke(self._traced(call), (call.ctx,), 0)
                    error = None
                except BaseException as exc:  # noqa: BLE001 - settled: isolated, or raised if it must
                    value, error = None, exc
                self._settle(call, value, error, done[call.phase])
                continue
            turn = list(takewhile(lambda c: not c.module.inline and c.timeout_s > 0, due[at:]))
            overran = self._in_turn(turn, done)
            if overran is not None:
                self._timed_out(turn[overran])
                at += overran + 1
            else:
                at += len(turn)

    def _in_turn(self, turn: list[PhaseCall], done: dict[str, list[tuple[LoadedModule, Any]]]) -> int | None:
        def settle(index: int, value: Any, error: BaseException | None) -> None:
            self._settle(turn[index], value, error, done[turn[index].phase])

        try:
            calls = [(self._traced(c), (c.ctx,)) for c in turn]
            return call_in_turn(calls, [c.timeout_s for c in turn], settle)
        except BaseException:  # Ctrl-C, or what a settle raised: no call of this turn may write any more
            for call in turn:
                call.ctx.end(STOPPED)
            raise

    def _prepare(
        self,
        module: LoadedModule,
        phase: str,
        state: TickState,
        proposals: list[Proposals],
        outcome: Mapping[str, Any],
    ) -> PhaseCall | None:
        """The call's journal entry and context (each call its own: its gate closes when it ends); None when replay
        skips a recorded timeout."""
        entry: dict[str, Any] = {"module": module.name, "phase": phase}
        own = module.timeout(phase) if module.timeouts else None
        if own is not None:
            entry["timeout_s"] = own  # the module's own limit, journaled (the kernel's is configuration)
        self.log["calls"].append(entry)
        externals = self.reason.externals
        if externals.recorded is not None:  # replaying
            mark = f"{module.name}/{phase}"
            served = [t for t in externals.recorded.get(TIMEOUT_EXTERNAL, []) if t["call"] == mark]
            if served:  # it timed out live: skip it again, without waiting
                externals.log.setdefault(TIMEOUT_EXTERNAL, []).append(served[0])
                entry["skipped"] = served[0]["skipped"]
                return None
        timeout_s = self.timeout_s if own is None else own
        if externals.recorded is not None:
            timeout_s *= REPLAY_GRACE
        common = self._made.get(module.name)
        if common is None:
            common = self._made[module.name] = self._common(module)
        reason, listings = self.reason, self.listings  # the reason context: the kernel replaces it after the brain
        ctx = ModuleContext(module.name, phase, state, reason, listings, list(proposals), dict(outcome), common)
        return PhaseCall(module, phase, entry, ctx, timeout_s)

    def _settle(self, call: PhaseCall, value: Any, error: BaseException | None, done: list[Any]) -> None:
        """After the call returned or raised (in the thread that ran it): keep or undo, journal."""
        module, phase, entry, ctx = call.module, call.phase, call.entry, call.ctx
        if isinstance(error, TimedOut):  # an async phase overran its own timeout
            self._timed_out(call)
            return
        ctx.end(RETURNED if error is None else RAISED)
        own = ctx.used_state
        if value is AFTER_VETO:  # an earlier module vetoed the reply: this one was not asked
            entry["after_veto"] = self.draft.vetoed_by if self.draft is not None else None
            return
        try:
            if error is not None:
                raise error
            value, output = self._checked(module, phase, value)
            if phase == "revise" and value is not None and self.draft is not None:
                draft = revised(self.draft, value, module.name, self._case_kept(module.name))  # before the next
        except BaseException as exc:
            if own is not None:
                own.undo()
            if must_propagate(exc):
                raise
            self._skip(entry, module, phase, describe(exc))
            return
        if own is not None:
            own.keep()
        if phase == "revise" and value is not None:
            self.draft = draft
        entry["output"] = output
        if own is not None and own.writes:
            entry["state"] = own.writes
        self.outputs.setdefault(module.name, {})[phase] = entry["output"]
        done.append((module, value))

    def _case_kept(self, module: str) -> Callable[[], bool]:
        """Whether ``module``'s rewrite that changed only the case of a claimed value is taken: yes, recorded
        (:data:`CASE_KEPT`), except in the replay of a journal from before it (none in the tick), which refused it."""
        externals = self.externals

        def kept() -> bool:
            if externals.recorded is not None and CASE_KEPT not in externals.recorded:
                return False
            externals.fetch(CASE_KEPT, lambda: {"module": module})
            return True

        return kept

    def _timed_out(self, call: PhaseCall) -> None:
        """The call overran and was abandoned: later writes refused, earlier ones undone, its
        externals taken back (replay skips the call), recorded."""
        call.ctx.end(timed_out(call.timeout_s))
        text = f"TimedOut: {call.module.name} ran past {call.timeout_s:g} s and was abandoned"
        if call.traced is not None:  # its span ends now, failed, inside the tick's trace
            call.traced.abandon("TimedOut", text)
        own = call.ctx.used_state
        if own is not None:
            own.undo()
        self.externals.withdraw(call)
        self.externals.log.setdefault(TIMEOUT_EXTERNAL, []).append(
            {"call": f"{call.module.name}/{call.phase}", "skipped": text}
        )
        self._skip(call.entry, call.module, call.phase, text)

    def _skip(self, entry: dict[str, Any], module: LoadedModule, phase: str, reason: str) -> None:
        entry["skipped"] = reason
        self.report(module.plugin, f"module {module.name}.{phase}", reason)

    def _checked(self, module: LoadedModule, phase: str, value: Any) -> tuple[Any, Any]:
        """The call's value, checked, and what the journal records of it (plain data, built once)."""
        if phase == "deliberate":
            proposals, data = checked_proposals(value, module.name)
            data.pop("module", None)  # the entry names the module
            return proposals, data
        if phase == "revise":
            revision = as_revision(value)
            return revision, None if revision is None else to_data(revision)
        if value is None:
            return None, None
        try:  # dumps() without its text: the usual value settled by orjson alone
            raw: bytes | None = orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
        except TypeError:
            raw = None
        if raw is None or b"null" in raw:  # refused by orjson (json may take it), or a null that may be NaN
            try:
                dumps(value)  # JSON or a one-line ValidationError naming the bad path (NaN)
            except TypeError:  # a set, bytes, an object
                raise not_json_error(module.name, f"{phase} returned", value) from None
            except ValidationError as exc:  # NaN or infinity: say whose, and where
                raise ValidationError(
                    f"module {module.name!r}: {phase} returned NaN or infinity at {exc.path}; return finite numbers "
                    "(or None)",
                    exc.path,
                ) from None
        return value, value

    def _common(self, module: LoadedModule) -> CommonParts:
        """What every call of ``module`` in this tick shares: its state maker and settings reader among them."""
        store, tick, keeps, max_bytes = self.reason.store, self.reason.tick, self.keeps_state, self.state_max_bytes
        externals, cache, held = self.reason.externals, self.state_cache, self.held_writes

        def new_state(check_open: Callable[[], None]) -> ModuleState:
            return ModuleState(
                store, module.name, tick, module.validator, check_open, keeps, max_bytes, externals, cache, held
            )

        settings = self._settings  # not self: what the tick keeps must not refer back to it (no cycle)
        parts = (self.contracts, self.earlier, self.now_ms, self.working)  # not the reason context: it is replaced
        return (tick, *parts, new_state, lambda: settings.of(module.plugin), self.tools)


def _given(value: Any) -> Any:
    return value


class PhaseTurn:
    """The calls of some phases of a tick's modules, as :func:`drive` runs them (a :class:`Turn`)."""

    def __init__(
        self,
        tick: ModuleTick,
        phases: tuple[str, ...],
        state: TickState,
        proposals: list[Proposals],
        outcome: Mapping[str, Any],
    ) -> None:
        self.tick, self.on_worker = tick, tick.on_worker
        self.done: dict[str, list[tuple[LoadedModule, Any]]] = {phase: [] for phase in phases}
        self.due = tick.due(phases, state, proposals, outcome)
        self.timeouts: list[float] = [call.timeout_s for call in self.due]

    @cached_property
    def calls(self) -> list[tuple[Callable[..., Any], tuple[Any, ...]]]:
        return [(self.tick._traced(call), (call.ctx,)) for call in self.due]

    @property
    def result(self) -> dict[str, list[tuple[LoadedModule, Any]]]:
        return self.done

    def run(self) -> dict[str, list[tuple[LoadedModule, Any]]]:
        self.tick.run_due(self.due, self.done)
        return self.done

    def settle(self, index: int, value: Any, error: BaseException | None) -> None:
        call = self.due[index]
        self.tick._settle(call, value, error, self.done[call.phase])

    def timed_out(self, index: int) -> None:
        self.tick._timed_out(self.due[index])

    def close_from(self, index: int) -> None:
        for call in self.due[index:]:
            call.ctx.end(STOPPED)


class PhaseCall:
    """One phase call of one module: its journal entry and its context (``timeout_s``: its limit, the module's
    own for the phase, else the kernel's module_timeout_s; ``traced``: its span's call, while tracing is on)."""

    __slots__ = ("ctx", "entry", "module", "phase", "timeout_s", "traced")

    def __init__(
        self, module: LoadedModule, phase: str, entry: dict[str, Any], ctx: ModuleContext, timeout_s: float
    ) -> None:
        self.module, self.phase, self.entry, self.ctx, self.timeout_s = module, phase, entry, ctx, timeout_s
        self.traced: tracing.Abandonable | None = None


class TickSettings:
    """The plugins' settings as one tick reads them: each plugin's once, as a read-only view."""

    def __init__(self, read: Callable[[str], Mapping[str, Any]]) -> None:
        self._read, self._read_once = read, dict[str, Mapping[str, Any]]()

    def of(self, plugin: str) -> Mapping[str, Any]:
        if plugin not in self._read_once:
            self._read_once[plugin] = MappingProxyType(dict(self._read(plugin)))
        return self._read_once[plugin]


class LazyContracts:
    """The tick's contract caller, built on a module's first ``call``."""

    def __init__(self, factory: Callable[[], Any]) -> None:
        self._factory: Callable[[], Any] = factory
        self._caller: Any = None

    def call(self, name: str, variables: Mapping[str, Any], *, model: bool = True) -> ContractOutcome:
        if self._caller is None:
            self._caller = self._factory()
        return self._caller.call(name, variables, model=model)
