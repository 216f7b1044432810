"""What a module's phase method is given: :class:`ModuleContext`.

Everything a module reads or writes goes through it, so a tick (and its replay) sees the
same thing: facts through the tick's recorded reads, long-term memories as a recorded
external, contract calls as recorded externals, ids and time from the kernel's
determinism, and the module's own state in the tick's transaction.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

import attrs
import orjson

from agi_core import journal_form
from agi_core.effects.isolation import describe
from agi_core.errors import AgiError, ReplayMismatch
from agi_core.memory import blobs
from agi_core.model import JSON, EpisodicEntry, Input, SemanticEntry, SemanticRead, TickState, WorkingMemory
from agi_core.modules.state import ModuleState
from agi_core.reasoning import ContextClosed, ReasonContext
from agi_core.serialization import dumps

if TYPE_CHECKING:
    from agi_core.contracts.caller import ContractOutcome
    from agi_core.modules.proposals import Proposals


class ContractCalls(Protocol):
    """``ctx.contracts``: LLM contract calls through the kernel (recorded externals); ``model=False``
    gets the contract's heuristic even with a provider configured (a module bounding its model calls)."""

    def call(self, name: str, variables: Mapping[str, Any], *, model: bool = True) -> ContractOutcome: ...


RECALL_FACTS_MAX = 50
READ_EXTERNAL = "module_read"
OWN_READ_CITED = "module_read_cited"
"""The external that records a module citing its own newest ``ctx.external`` read of a kind the tick had read
before with another value (journals from before it cited the tick's first item of that kind)."""
CHANGED = "module_changed"
"""The external a module's call records when it takes a changed way of working (:meth:`ModuleContext.changed`)."""


class ExternalReadError(AgiError):
    """A module's ``ctx.external`` read failed (live, or as recorded)."""


@attrs.define
class MemoryView:
    """Read access to the agent's memories during one tick."""

    reason: ReasonContext
    working: WorkingMemory
    check_open: Callable[[], None]
    listings: dict[tuple[str, int], list[SemanticEntry]] = attrs.field(factory=dict)
    """``store.facts`` listings already made in this run of phase calls (no fact is written between them)."""

    def fact(self, key: str) -> SemanticRead:
        """One fact, read through the tick (recorded in ``sem_reads``; a hit becomes an evidence item)."""
        self.check_open()
        return self.reason.sem_read(key)

    def facts(self, prefix: str, limit: int = 10) -> dict[str, Any]:
        """``{key: value}`` of up to ``limit`` facts under ``prefix``, each read through the tick."""
        self.check_open()
        wanted = (prefix, min(limit, RECALL_FACTS_MAX))
        listed = self.listings.get(wanted)
        if listed is None:  # the first module to list it asks the store; the others share the listing
            listed = self.listings[wanted] = self.reason.store.facts(prefix, limit=wanted[1])
        return {entry.key: self.reason.listed_value(entry) for entry in listed}  # a list or object: a copy

    def episodes(self, limit: int = 4, *, user_inputs: bool = False) -> list[EpisodicEntry]:
        """The newest ``limit`` episodes, newest first; with ``user_inputs``, the newest ``limit`` of the
        user's inputs, past any number of clock, maintenance and command ticks."""
        self.check_open()
        return self.reason.store.episodes(limit, newest_first=True, user_inputs=user_inputs)

    def long_term(self, query: str, k: int = 5) -> list[dict[str, Any]]:
        """Top-``k`` long-term memories for ``query`` (a recorded external: replay gets the same)."""
        self.check_open()
        return self.reason.recall_long_term(query, k)


@attrs.define
class JournalView:
    """Read access to the agent's past journal records (the ticks before this one), as plain data (what
    the stored form left out and can restore put back: :func:`agi_core.journal_form.expand`)."""

    store: Any
    check_open: Callable[[], None]

    def records(self, since: int = 0, limit: int = 100) -> list[dict[str, JSON]]:
        """Up to ``limit`` records with ``tick > since``, oldest first."""
        self.check_open()
        found = []
        for _tick, _id, text, _chain in self.store.journal_rows(since):
            record = orjson.loads(text)
            if blobs.MARKER in text:
                record = blobs.resolve(record, self.store.get_blob)
            found.append(journal_form.expand(record))
            if len(found) >= limit:
                break
        return found

    def last(self, n: int = 1) -> list[dict[str, JSON]]:
        """The newest ``n`` records, oldest first."""
        self.check_open()
        newest = int(self.store.meta_get("tick", "0") or 0)
        return self.records(since=max(newest - n, 0), limit=n)


CommonParts = tuple[
    int,  # tick
    ContractCalls,  # contracts
    Mapping[str, Mapping[str, JSON]],  # earlier: {module: {phase: output}}
    int | None,  # now_ms
    WorkingMemory,  # working
    Callable[[Callable[[], None]], ModuleState],  # new_state(check_open)
    Callable[[], Mapping[str, JSON]],  # settings()
    Mapping[str, Any],  # tools, the agent's by name
]
"""What a :class:`ModuleContext` of one module shares with its other calls in the tick, in this order."""


class CallGate:
    """Whether one phase call is still open. The context, its state and its memory view share it,
    so none of them refers back to the context (no reference cycle: each call's objects are freed
    when it ends, not by the garbage collector)."""

    __slots__ = ("closed", "module", "phase", "why")

    def __init__(self, module: str, phase: str) -> None:
        self.module, self.phase, self.closed = module, phase, False
        self.why = ENDED

    def check_open(self) -> None:
        if self.closed:
            raise ContextClosed(f"module {self.module!r}: its {self.phase} call {self.why}")


ENDED = "has ended; this is refused; do the work before the phase returns"
RETURNED = (
    "had already returned, so this is refused (a thread it left running?); "
    "do the work before the phase returns (join the thread)"
)
STOPPED = "was stopped with the tick (interrupted), so this is refused"
RAISED = "had already raised, so this is refused (a thread it left running?); join such a thread before returning"


def timed_out(limit_s: float) -> str:
    """Why a call's context is closed: it overran ``limit_s`` (its fix: a higher limit, or less work)."""
    return (
        f"ran past its {limit_s:g} s timeout and was abandoned, so this is refused; "
        "raise the module's timeout_s / phase_timeouts or --module-timeout"
    )


class ModuleContext:
    """The context of one phase call of one module.

    ``earlier`` holds what modules returned in earlier phases of this tick
    (``{module: {phase: output}}``); ``proposals`` the deliberations (for ``observe``);
    ``outcome`` what the tick did (``final_output``, ``action``, ``observation``; for ``observe``).

    A plain slotted class (built for every phase call: a fraction of what an attrs class with defaults costs).
    """

    __slots__ = (
        "__weakref__",
        "_gate",
        "_listings",
        "_memory",
        "_new_state",
        "_own",
        "_reads",
        "_reason",
        "_settings",
        "_tools",
        "_working",
        "contracts",
        "earlier",
        "module",
        "now_ms",
        "outcome",
        "phase",
        "proposals",
        "state",
        "tick",
    )

    def __init__(
        self,
        module: str,
        phase: str,
        state: TickState,
        reason: ReasonContext,
        listings: dict[tuple[str, int], list[SemanticEntry]],
        proposals: list[Proposals],
        outcome: Mapping[str, JSON],
        common: CommonParts,
    ) -> None:
        """``reason``: the tick's context as this call sees it (observe's and revise's are not the brain's, which
        is closed by then); ``common``: what every call of the module in the tick shares (:class:`CommonParts`)."""
        self.module, self.phase, self.state, self._reason, self._listings = module, phase, state, reason, listings
        self.proposals, self.outcome = proposals, outcome
        (
            self.tick,
            self.contracts,
            self.earlier,
            self.now_ms,
            self._working,
            self._new_state,
            self._settings,
            self._tools,
        ) = common
        self._gate = CallGate(module, phase)  # this call's own: closed when it ends
        self._own: ModuleState | None = None
        self._memory: MemoryView | None = None
        self._reads: dict[str, str] | None = None  # kind: its newest read's id

    def __repr__(self) -> str:
        return f"ModuleContext(module={self.module!r}, phase={self.phase!r}, tick={self.tick!r})"

    @property
    def own(self) -> ModuleState:
        """The module's own persistent state (built on first use: a call that never touches it pays nothing)."""
        if self._own is None:
            self._own = self._new_state(self._gate.check_open)
        return self._own

    @property
    def used_state(self) -> ModuleState | None:
        """:attr:`own` if the call used it, else None (for the runner)."""
        return self._own

    @property
    def memory(self) -> MemoryView:
        """Read access to the agent's memories during this tick."""
        if self._memory is None:
            self._memory = MemoryView(self._reason, self._working, self._gate.check_open, self._listings)
        return self._memory

    @property
    def text(self) -> str:
        """The tick's input, normalized."""
        return self.state.input.normalized

    @property
    def input(self) -> Input:
        """The tick's input: text, source, and who said it where (speaker, channel, conversation, metadata)."""
        return self.state.input

    @property
    def user_entity(self) -> str:
        """Whose "my …" the tick's line speaks of: ``self`` for the user who names no speaker, else the
        speaker's entity id (their facts are ``user/person/<this>/…``, as Stage-0 keeps them)."""
        return self._reason.user_entity

    @property
    def fact_reads(self) -> list[dict[str, JSON]]:
        """The tick's fact reads so far (its ``sem_reads``: ``key``, ``exists``, ``value``, ...), by the brain and
        the modules alike, oldest first; copies (changing them changes nothing recorded)."""
        self.check_open()
        return [orjson.loads(dumps(read)) for read in self._reason.sem_reads]

    @property
    def fact_writes(self) -> list[dict[str, JSON]]:
        """The tick's fact writes so far (its ``sem_writes``: ``key``, ``value``, ``ok``, ...), oldest first; copies.
        In ``revise`` they hold what the brain stored for the reply being revised."""
        self.check_open()
        return [orjson.loads(dumps(write)) for write in self._reason.sem_writes]

    @property
    def closed(self) -> bool:
        """Whether the call has ended: every read and write through this context is refused."""
        return self._gate.closed

    @closed.setter
    def closed(self, value: bool) -> None:
        self._gate.closed = value

    def end(self, why: str) -> None:
        """Close the call, saying why (what a later read or write is told): :data:`RETURNED`, :data:`RAISED`,
        :func:`timed_out`; the module's state refuses writes too."""
        if not self._gate.closed:
            self._gate.why, self._gate.closed = why, True
        if self._own is not None:
            self._own.close()

    def check_open(self) -> None:
        self._gate.check_open()

    def new_id(self, payload: str = "") -> str:
        """A deterministic id, namespaced by the module (replay mints the same)."""
        self.check_open()
        return self._reason.determinism.new_id(f"module:{self.module}", payload)

    def now(self) -> str:
        """The next deterministic timestamp (ISO 8601 UTC)."""
        self.check_open()
        return self._reason.determinism.now()

    def evidence_for(self, key: str) -> str | None:
        """The id of this tick's evidence item for ``key`` (a fact's key, an external read's kind), if any:
        for a kind this call read with :meth:`external`, its newest read (what the module was given), even
        when the tick read that kind before with another value (another city, another module's read)."""
        first = self._reason.evidence_for(key)
        own = None if self._reads is None else self._reads.get(key)
        if own is None or own == first:
            return first
        recorded = self._reason.externals.recorded
        if recorded is not None and OWN_READ_CITED not in recorded:
            return first  # a journal from before: its claim cited the tick's first item, and replays so
        self._reason.externals.fetch(OWN_READ_CITED, lambda: {"module": self.module, "kind": key})
        return own

    def changed(self, change: str) -> bool:
        """Whether to take the module's changed way of working named ``change`` here: live always (recorded
        as the external ``module_changed``); in replay only where the journal recorded it, so a journal
        written before the change replays as it was written. Ask only where the old way would differ."""
        self.check_open()
        return self._reason.externals.changed(CHANGED, {"module": self.module, "change": change})

    @property
    def journal(self) -> JournalView:
        """The agent's past journal records (read only)."""
        return JournalView(self._reason.store, self.check_open)

    @property
    def settings(self) -> Mapping[str, JSON]:
        """The settings of the plugin that registered this module, validated (``agi config``)."""
        return self._settings()

    def tool_effect(self, name: str) -> str | None:
        """The declared effect (``read``, ``write``, ``external``) of the agent's tool ``name``; None if unknown."""
        tool = self._tools.get(name)
        return None if tool is None else str(tool.effect)

    def external(self, kind: str, fetch: Callable[[], JSON]) -> JSON:
        """Read the outside world replay-safely: ``fetch()`` runs live and what it returns (JSON) is
        recorded (the external ``module_read``); replay serves the recorded value without calling it.
        The value is an evidence item (source ``module:NAME``, key ``kind``) a claim can cite
        (:meth:`evidence_for` ``(kind)`` gives this call's newest read of ``kind``). A
        ``fetch`` that raises is recorded too: :class:`ExternalReadError` live and in replay."""
        self.check_open()

        def read() -> dict[str, JSON]:
            try:
                value = fetch()
                dumps(value)
            except Exception as exc:  # noqa: BLE001 - recorded, raised as one error live and in replay
                return {"module": self.module, "kind": kind, "error": describe(exc)}
            return {"module": self.module, "kind": kind, "value": value}

        served = self._reason.externals.fetch(READ_EXTERNAL, read)
        if (served["module"], served["kind"]) != (self.module, kind):
            raise ReplayMismatch(
                f"replay: module {self.module!r} read {kind!r} where the journal recorded "
                f"{served['module']!r} reading {served['kind']!r}"
            )
        if "error" in served:
            raise ExternalReadError(f"module {self.module!r}: reading {kind!r} failed: {served['error']}")
        cited = self._reason.add_evidence(f"module:{self.module}", kind, served["value"])
        if self._reads is None:
            self._reads = {}
        self._reads[kind] = cited
        return served["value"]
