"""``agi journal verify``: the chain and its head, the state seal, and every checkpoint.

See :mod:`agi_core.journal` (chain and head), :mod:`agi_core.seal` (the state digest) and
:mod:`agi_core.checkpoints` (sha256 and MAC of each copy). Every problem is one line naming
what differs: the tick, or the table and key, or the checkpoint.
"""

from __future__ import annotations

import attrs

from agi_core import journal
from agi_core.journal_key import JournalKey
from agi_core.memory.backend import MemoryBackend


@attrs.frozen
class IntegrityReport:
    chain: journal.VerifyReport
    sealed_tick: int | None
    head_tick: int
    state_problems: list[str]
    checkpoints: int
    checkpoint_problems: list[str]
    unverified: dict[str, str] | None = None  # the mark of agi import --unverified

    @property
    def ok(self) -> bool:
        return self.chain.ok and not self.state_problems and not self.checkpoint_problems

    def problems(self) -> list[str]:
        """One line per problem found; empty when everything verifies."""
        return [line for line in self.lines() if line.startswith(("JOURNAL_BROKEN", "STATE_CHANGED", "CHECKPOINT_"))]

    def lines(self) -> list[str]:
        out = [str(self.chain)]
        if self.unverified is not None:
            out.append(
                f"IMPORTED_UNVERIFIED at tick {self.unverified.get('tick')}: agi import --unverified took this "
                "agent from a file nothing proved; what it held then is not proven, only what happened after"
            )
        if self.state_problems:
            out += [f"STATE_CHANGED {problem}" for problem in self.state_problems]
        elif self.sealed_tick is not None:
            later = "" if self.sealed_tick == self.head_tick else "; later ticks are covered by the chain only"
            out.append(f"state OK: every row matches the seal at tick {self.sealed_tick}{later}")
        if self.checkpoint_problems:
            out += [f"CHECKPOINT_BROKEN {problem}" for problem in self.checkpoint_problems]
        else:
            out.append(f"checkpoints OK: {self.checkpoints} verified (sha256, MAC, state digest)")
        return out


def verify_agent(store: MemoryBackend, key: JournalKey) -> IntegrityReport:
    """Everything below reads one snapshot (a read transaction): a writer in another process
    cannot slip a tick between the journal, its head and the seal."""
    with store.read_snapshot():
        return _verify_agent(store, key)


def _verify_agent(store: MemoryBackend, key: JournalKey) -> IntegrityReport:
    chain = journal.verify(store, key)
    head_tick = int(store.meta_get("tick", "0") or 0)
    stored = store.read_seal()
    state_problems = store.seal_problems(key, head_tick)
    listed = store.checkpoint_list()
    problems: list[str] = []
    for info in listed:
        problems += [f"checkpoint {info.name!r}: {p}" for p in store.checkpoint_problems(info.name, key)]
    stored_tick = stored[0] if stored else None
    mark = journal.unverified_import(store)
    return IntegrityReport(chain, stored_tick, head_tick, state_problems, len(listed), problems, mark)
