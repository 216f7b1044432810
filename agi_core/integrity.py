"""``agi journal verify``: the chain and its head, the state seal, and every checkpoint.

See :mod:`agi_core.journal` (chain and head), :mod:`agi_core.seal` (the state digest) and
:mod:`agi_core.checkpoints` (sha256 and MAC of each copy). Every problem is one line naming
what differs: the tick, or the table and key, or the checkpoint.
"""

from __future__ import annotations

import sqlite3
from contextlib import closing

import attrs

from agi_core import checkpoints, journal, seal
from agi_core.journal_key import JournalKey
from agi_core.memory.sqlite_store import SqliteStore


@attrs.frozen
class IntegrityReport:
    chain: journal.VerifyReport
    sealed_tick: int | None
    head_tick: int
    state_problems: list[str]
    checkpoints: int
    checkpoint_problems: list[str]

    @property
    def ok(self) -> bool:
        return self.chain.ok and not self.state_problems and not self.checkpoint_problems

    def problems(self) -> list[str]:
        """One line per problem found; empty when everything verifies."""
        return [line for line in self.lines() if line.startswith(("JOURNAL_BROKEN", "STATE_CHANGED", "CHECKPOINT_"))]

    def lines(self) -> list[str]:
        out = [str(self.chain)]
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


def verify_agent(store: SqliteStore, key: JournalKey) -> IntegrityReport:
    """Everything below reads one snapshot (a read transaction): a writer in another process
    cannot slip a tick between the journal, its head and the seal."""
    conn = store.conn
    began = not conn.in_transaction
    if began:
        conn.execute("BEGIN")
    try:
        return _verify_agent(store, key)
    finally:
        if began:
            conn.execute("ROLLBACK")


def _verify_agent(store: SqliteStore, key: JournalKey) -> IntegrityReport:
    chain = journal.verify(store, key)
    head_tick = int(store.meta_get("tick", "0") or 0)
    stored = seal.read_seal(store.conn)
    state_problems = seal.check(store.conn, key, head_tick)
    rows = store.conn.execute("SELECT name, tick FROM checkpoints ORDER BY seq").fetchall()
    problems: list[str] = []
    for name, tick in rows:
        problems += [f"checkpoint {name!r}: {p}" for p in _check_checkpoint(store, key, name, tick)]
    return IntegrityReport(chain, stored[0] if stored else None, head_tick, state_problems, len(rows), problems)


def _check_checkpoint(store: SqliteStore, key: JournalKey, name: str, tick: int) -> list[str]:
    problems: list[str] = []
    if store.conn.execute("SELECT sha256 FROM checkpoints WHERE name = ?", (name,)).fetchone()[0] is None:
        return problems  # a checkpoint from before checksums and seals: nothing to compare with
    try:
        path = checkpoints.check_file(store, key, name)
    except checkpoints.CheckpointError as exc:
        problems.append(str(exc).removeprefix(f"checkpoint {name!r}").lstrip(": "))
        path = (
            checkpoints.folder_of(store)
            / store.conn.execute("SELECT file FROM checkpoints WHERE name = ?", (name,)).fetchone()[0]
        )
        if not path.is_file():
            return problems
    try:
        with closing(sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro&immutable=1", uri=True)) as snapshot:
            problems += seal.check(snapshot, key, tick)
    except sqlite3.DatabaseError as exc:
        problems.append(f"{path} does not open ({exc})")
    return problems
