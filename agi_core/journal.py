"""The tamper-evident journal: HMAC chain, verification, JSONL export and import.

Each record's ``chain`` is ``HMAC_SHA256(seed, previous_chain | record_json)`` over the
exact stored text, so editing, deleting or reordering a record breaks the chain at that
record, and only someone holding the seed can forge it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any

import attrs

from agi_core.determinism import Determinism
from agi_core.errors import ValidationError
from agi_core.memory.sqlite_store import SqliteStore


def chain_link(determinism: Determinism, previous: str, record_json: str) -> str:
    return determinism.sign(previous + "|" + record_json)


@attrs.frozen
class VerifyReport:
    ticks: int
    tick: int | None = None
    problem: str | None = None

    @property
    def ok(self) -> bool:
        return self.problem is None

    def __str__(self) -> str:
        if self.ok:
            return f"journal OK: {self.ticks} records, chain intact"
        return f"JOURNAL_BROKEN tick={self.tick}: {self.problem}"


def verify_rows(rows: Iterable[tuple[int, str, str, str]], determinism: Determinism) -> VerifyReport:
    """Check ``(tick, id, record_json, chain)`` rows: numbering, tick fields and the chain."""
    previous, expected, count = "", 1, 0
    for tick, record_id, text, chain in rows:
        if tick != expected:
            return VerifyReport(count, expected, f"record of tick {expected} is missing (next stored is {tick})")
        try:
            record = json.loads(text)
        except json.JSONDecodeError:
            return VerifyReport(count, tick, "record is not valid JSON (edited)")
        if record.get("tick") != tick or record.get("id") != record_id:
            return VerifyReport(count, tick, f"record says tick {record.get('tick')} (moved or reordered)")
        if chain_link(determinism, previous, text) != chain:
            return VerifyReport(count, tick, "chain mismatch: the record was edited, or one before it was")
        previous, expected, count = chain, expected + 1, count + 1
    return VerifyReport(count)


def verify(store: SqliteStore, determinism: Determinism) -> VerifyReport:
    return verify_rows(store.journal_rows(), determinism)


def export_jsonl(rows: Iterable[tuple[Any, ...]], out: IO[str], *, archived: bool = False) -> int:
    """Write one JSON object per record; returns how many were written."""
    count = 0
    for row in rows:
        if archived:
            rollback, tick, record_id, text, chain = row
            line = {"rollback": rollback, "tick": tick, "id": record_id, "record": json.loads(text), "chain": chain}
        else:
            tick, record_id, text, chain = row
            line = {"tick": tick, "id": record_id, "record": json.loads(text), "chain": chain}
        out.write(json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n")
        count += 1
    return count


def read_jsonl(path: Path) -> Iterator[tuple[int, str, str, str]]:
    """Rows of an exported journal, as ``(tick, id, record_json, chain)`` with canonical text."""
    from agi_core.serialization import dumps

    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                item = json.loads(line)
                yield int(item["tick"]), str(item["id"]), dumps(item["record"]), str(item["chain"])
            except (json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
                raise ValidationError(
                    f"{path}:{number} is not an exported journal line ({exc}); "
                    "export journals with agi journal export --jsonl"
                ) from None
