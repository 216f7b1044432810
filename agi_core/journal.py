"""The tamper-evident journal: HMAC chain, verification, JSONL export and import.

Each record's ``chain`` is ``HMAC_SHA256(key, previous_chain | record_json)`` over the
exact stored text, so editing, deleting or reordering a record breaks the chain at that
record, and only someone holding the journal key (``agi_core.journal_key``, not the seed)
can forge it. The head (last tick, its chain link and a MAC of both) is stored in meta in
each tick's transaction, so deleting the newest records is detected too.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any

import attrs

from agi_core.errors import ValidationError
from agi_core.journal_key import JournalKey
from agi_core.memory import blobs
from agi_core.memory.backend import MemoryBackend

HEAD = "journal_head"
UNVERIFIED = "import_unverified"  # meta: "tick=N key=yes|no", set by agi import --unverified


def chain_link(key: JournalKey, previous: str, record_json: str) -> str:
    return key.mac(previous + "|" + record_json)


def head_value(key: JournalKey, tick: int, chain: str) -> str:
    """The meta value naming the newest record: ``tick chain mac``."""
    return f"{tick} {chain} {key.mac(f'head|{tick}|{chain}')}"


@attrs.frozen
class VerifyReport:
    ticks: int
    tick: int | None = None
    problem: str | None = None
    unchecked: int = 0  # ticks 1..unchecked were imported without their key: their links cannot be checked

    @property
    def ok(self) -> bool:
        return self.problem is None

    def __str__(self) -> str:
        if self.ok and self.unchecked:
            return (
                f"journal OK: {self.ticks} records, chain intact after tick {self.unchecked}; "
                f"ticks 1..{self.unchecked} were imported without their key (agi import --unverified) "
                "and cannot be checked"
            )
        if self.ok:
            return f"journal OK: {self.ticks} records, chain intact"
        return f"JOURNAL_BROKEN tick={self.tick}: {self.problem}"


def verify_rows(rows: Iterable[tuple[int, str, str, str]], key: JournalKey, unchecked: int = 0) -> VerifyReport:
    """Check ``(tick, id, record_json, chain)`` rows: numbering, tick fields and the chain (its
    links from tick ``unchecked + 1`` on: earlier ones were made with a key nobody gave us)."""
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
        if tick > unchecked and chain_link(key, previous, text) != chain:
            return VerifyReport(count, tick, "chain mismatch: the record was edited, or one before it was")
        previous, expected, count = chain, expected + 1, count + 1
    return VerifyReport(count, unchecked=min(unchecked, count))


def unverified_import(store: MemoryBackend) -> dict[str, str] | None:
    """``{"tick": …, "key": "yes"|"no"}`` when the agent was imported with ``--unverified``, else None."""
    value = store.meta_get(UNVERIFIED)
    if value is None:
        return None
    return dict(part.partition("=")[::2] for part in value.split())


def verify(store: MemoryBackend, key: JournalKey) -> VerifyReport:
    """The chain of every record, then the stored head: the newest record must be the one it names."""
    mark = unverified_import(store) or {}
    unchecked = int(mark.get("tick", "0")) if mark.get("key") == "no" and mark.get("tick", "").isdigit() else 0
    report = verify_rows(store.journal_rows(), key, unchecked)
    if not report.ok:
        return report
    return check_head(store, key, report.ticks, store.last_chain()) or verify_blobs(store, report)


def check_head(store: MemoryBackend, key: JournalKey, ticks: int, chain: str) -> VerifyReport | None:
    stored = store.meta_get(HEAD)
    if stored is None:
        if ticks == 0 or store.meta_get("journal_key_source") == "seed":
            return None  # a new database, or one from before heads were stored
        return VerifyReport(ticks, ticks, "the journal head is missing from meta (deleted)")
    head_tick, head_chain, mac = [*stored.split(" "), "", "", ""][:3]
    if not hmac.compare_digest(mac, key.mac(f"head|{head_tick}|{head_chain}")):
        return VerifyReport(ticks, ticks, "the journal head in meta was edited (its MAC does not match)")
    if int(head_tick) != ticks or head_chain != chain:
        return VerifyReport(
            ticks, ticks, f"the journal ends at tick {ticks} but its head is tick {head_tick}: newest records deleted"
        )
    return None


def verify_blobs(store: MemoryBackend, report: VerifyReport) -> VerifyReport:
    """Every blob a record refers to exists, and every blob's bytes still hash to its name."""
    known = set()
    for hex_digest, data in store.blob_items():
        if hashlib.sha256(data).hexdigest() != hex_digest:
            return VerifyReport(report.ticks, None, f"blob sha256:{hex_digest} was edited (its bytes hash otherwise)")
        known.add(hex_digest)
    for tick, _id, text, _chain in store.journal_rows():
        missing = blobs.refs_in(text) - known
        if missing:
            return VerifyReport(report.ticks, tick, f"blob sha256:{min(missing)} the record refers to is missing")
    return report


def export_jsonl(
    rows: Iterable[tuple[Any, ...]], out: IO[str], *, archived: bool = False, store: MemoryBackend | None = None
) -> int:
    """Write one JSON object per record, blob references resolved through ``store``; returns how many."""
    count = 0
    for row in rows:
        text = row[-2]
        try:
            record = json.loads(text)
        except json.JSONDecodeError:
            raise ValidationError(
                f"the record of tick {row[-4]} is not valid JSON (it was edited); run agi journal verify"
            ) from None
        if store is not None and blobs.MARKER in text:
            record = blobs.resolve(record, store.get_blob)
        if archived:
            rollback, tick, record_id, _text, chain = row
            line = {"rollback": rollback, "tick": tick, "id": record_id, "record": record, "chain": chain}
        else:
            tick, record_id, _text, chain = row
            line = {"tick": tick, "id": record_id, "record": record, "chain": chain}
        out.write(json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n")
        count += 1
    return count


def read_jsonl(path: Path, blob_sink: dict[str, bytes] | None = None) -> Iterator[tuple[int, str, str, str]]:
    """Rows of an exported journal, as ``(tick, id, record_json, chain)`` with the text as stored.

    Exported records hold their large strings in full; the text yielded has them as blob
    references again (what the chain covers), their bytes going to ``blob_sink``.
    """

    def keep(hex_digest: str, data: bytes) -> None:
        if blob_sink is not None:
            blob_sink[hex_digest] = data

    with path.open(encoding="utf-8", errors="replace") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                item = json.loads(line)
                text = blobs.stored_record_text(item["record"], keep)
                yield int(item["tick"]), str(item["id"]), text, str(item["chain"])
            except (json.JSONDecodeError, KeyError, TypeError, ValueError, AttributeError) as exc:
                raise ValidationError(
                    f"{path}:{number} is not an exported journal line ({exc}); "
                    "export journals with agi journal export --jsonl"
                ) from None
