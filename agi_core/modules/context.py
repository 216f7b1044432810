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

from agi_core.brain.context import ContextClosed, ReasonContext
from agi_core.model import JSON, EpisodicEntry, Input, SemanticRead, TickState, WorkingMemory
from agi_core.modules.state import ModuleState

if TYPE_CHECKING:
    from agi_core.contracts.caller import ContractOutcome
    from agi_core.modules.proposals import Proposals


class ContractCalls(Protocol):
    """``ctx.contracts``: LLM contract calls through the kernel (recorded externals)."""

    def call(self, name: str, variables: Mapping[str, Any]) -> ContractOutcome: ...


RECALL_FACTS_MAX = 50


@attrs.define
class MemoryView:
    """Read access to the agent's memories during one tick."""

    reason: ReasonContext
    working: WorkingMemory
    check_open: Callable[[], None]

    def fact(self, key: str) -> SemanticRead:
        """One fact, read through the tick (recorded in ``sem_reads``; a hit becomes an evidence item)."""
        self.check_open()
        return self.reason.sem_read(key)

    def facts(self, prefix: str, limit: int = 10) -> dict[str, Any]:
        """``{key: value}`` of up to ``limit`` facts under ``prefix``, each read through the tick."""
        self.check_open()
        entries = self.reason.store.facts(prefix, limit=min(limit, RECALL_FACTS_MAX))
        return {entry.key: self.reason.sem_read(entry.key).value for entry in entries}

    def episodes(self, limit: int = 4) -> list[EpisodicEntry]:
        """The newest ``limit`` episodes, newest first."""
        self.check_open()
        return self.reason.store.episodes(limit, newest_first=True)

    def long_term(self, query: str, k: int = 5) -> list[dict[str, Any]]:
        """Top-``k`` long-term memories for ``query`` (a recorded external: replay gets the same)."""
        self.check_open()
        return self.reason.recall_long_term(query, k)


@attrs.define
class ModuleContext:
    """The context of one phase call of one module.

    ``earlier`` holds what modules returned in earlier phases of this tick
    (``{module: {phase: output}}``); ``proposals`` the deliberations (for ``observe``);
    ``outcome`` what the tick did (``final_output``, ``action``, ``observation``; for ``observe``).
    """

    module: str
    phase: str
    tick: int
    state: TickState
    memory: MemoryView
    own: ModuleState
    contracts: ContractCalls
    earlier: Mapping[str, Mapping[str, JSON]]
    now_ms: int | None
    _reason: ReasonContext = attrs.field(repr=False, alias="reason")
    proposals: list[Proposals] = attrs.field(factory=list)
    outcome: Mapping[str, JSON] = attrs.field(factory=dict)
    closed: bool = False

    @property
    def text(self) -> str:
        """The tick's input, normalized."""
        return self.state.input.normalized

    @property
    def input(self) -> Input:
        """The tick's input: text, source, and who said it where (speaker, channel, conversation, metadata)."""
        return self.state.input

    def check_open(self) -> None:
        if self.closed:
            raise ContextClosed(f"module {self.module!r}: this tick has ended (the module timed out); refused")

    def new_id(self, payload: str = "") -> str:
        """A deterministic id, namespaced by the module (replay mints the same)."""
        self.check_open()
        return self._reason.determinism.new_id(f"module:{self.module}", payload)

    def now(self) -> str:
        """The next deterministic timestamp (ISO 8601 UTC)."""
        self.check_open()
        return self._reason.determinism.now()

    def evidence_for(self, key: str) -> str | None:
        """The content-derived id of the evidence item of a fact read this tick, if any."""
        return self._reason.evidence_for(key)
