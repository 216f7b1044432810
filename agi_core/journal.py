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
import itertools
import json
from collections.abc import Generator, Iterable, Iterator
from pathlib import Path
from typing import IO, Any

import attrs

from agi_core.errors import ValidationError
from agi_core.journal_key import JournalKey
from agi_core.memory import blobs
from agi_core.memory.backend import MemoryBackend

HEAD = "journal_head"
BASE = "journal_base"  # meta: "tick chain checkpoint mac": ticks up to tick were archived (agi journal archive)
ARCHIVE = "agi_journal_archive"  # the first line of an archive file: {ARCHIVE: {after, after_chain, through, ...}}
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
    unchecked: int = 0  # ticks up to this one were imported without their key: their links cannot be checked
    after: int = 0  # the records start after this tick (archived up to it: agi journal archive)

    @property
    def ok(self) -> bool:
        return self.problem is None

    def __str__(self) -> str:
        if self.ok and self.after:
            last = self.after + self.ticks
            held = f"ticks {self.after + 1}..{last}" if self.ticks else "none since"
            if not self.unchecked:
                intact = f"chain intact from the archive point (tick {self.after})"
                return f"journal OK: {self.ticks} records ({held}), {intact}"
            unproven = f"the archive point (tick {self.after})"
            if self.unchecked > self.after:
                unproven = f"ticks {self.after + 1}..{self.unchecked} and {unproven}"
            intact = f"chain intact after tick {self.unchecked}" if self.unchecked < last else "no link checked"
            verb = "were" if self.unchecked > self.after else "was"
            return (
                f"journal OK: {self.ticks} records ({held}), {intact}; {unproven} {verb} imported without their key "
                "(agi import --unverified) and cannot be checked"
            )
        if self.ok and self.unchecked:
            return (
                f"journal OK: {self.ticks} records, chain intact after tick {self.unchecked}; "
                f"ticks 1..{self.unchecked} were imported without their key (agi import --unverified) "
                "and cannot be checked"
            )
        if self.ok:
            return f"journal OK: {self.ticks} records, chain intact"
        return f"JOURNAL_BROKEN tick={self.tick}: {self.problem}"


def verify_rows(
    rows: Iterable[tuple[int, str, str, str]], key: JournalKey, unchecked: int = 0, after: tuple[int, str] = (0, "")
) -> VerifyReport:
    """Check ``(tick, id, record_json, chain)`` rows: numbering, tick fields and the chain (its
    links from tick ``unchecked + 1`` on: earlier ones were made with a key nobody gave us).
    ``after``: the tick and chain link the rows follow (an archive point), else the start."""
    previous, expected, count = after[1], after[0] + 1, 0
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
    return VerifyReport(count, unchecked=min(unchecked, after[0] + count), after=after[0])


READ_BATCH, READ_BYTES = 500, 32_000
"""The most journal rows, and about the most characters of them, :func:`rows_in_batches` reads in one snapshot."""


def rows_in_batches(
    store: MemoryBackend, key: JournalKey, verified: VerifyReport, after_chain: str, *, batch: int | None = None
) -> Generator[tuple[int, str, str, str], None, None]:
    """The rows ``verified`` covered (the ticks after ``verified.after``, whose link is ``after_chain``, through
    its last), read ``batch`` at a time, each batch in a read snapshot of its own: a long reader (a replay)
    holds no transaction between them, so a live writer's WAL can be checkpointed meanwhile (SQLite).

    The journal only grows, but for a rollback or an archive by another process. Each batch first reads again
    the row the one before ended with, which must be unchanged, and its rows must follow on (the next tick, its
    chain link from the one before); else :class:`ValidationError`. A rollback to a tick not yet read
    is harmless: the rows written since follow on from the last one read (their chain says so), so the rows
    read are the first ticks of one journal all the same, the journal as it is now."""
    last_tick, last_chain, through = verified.after, after_chain, verified.after + verified.ticks
    while last_tick < through:
        again = last_tick > verified.after  # the row the last batch ended with (the first batch follows the base)
        with store.read_snapshot():
            cursor = store.journal_rows(last_tick - 1 if again else last_tick)
            try:
                rows = _batch(cursor, min(batch or READ_BATCH, through - last_tick) + again, least=1 + again)
            finally:
                getattr(cursor, "close", lambda: None)()
        if again and (not rows or rows[0][0] != last_tick or rows[0][3] != last_chain):
            raise _changed_under(last_tick, "the record of that tick is not the one read before")
        if len(rows) == again:
            raise _changed_under(last_tick, f"the journal now ends there, before tick {through}")
        previous = last_chain
        for tick, _id, text, chain in itertools.islice(rows, again, None):
            if tick != last_tick + 1 or (tick > verified.unchecked and chain_link(key, previous, text) != chain):
                raise _changed_under(last_tick, f"tick {tick} does not follow on from it")
            last_tick, previous = tick, chain
            yield tick, _id, text, chain
        last_chain = previous
        del rows  # not held while the next batch is read


def _batch(cursor: Iterable[tuple[int, str, str, str]], most: int, least: int) -> list[tuple[int, str, str, str]]:
    """Up to ``most`` rows of ``cursor``, fewer once they hold ``READ_BYTES`` characters of records, but ``least``
    where there are (the row read again and one new: a record longer than ``READ_BYTES`` alone is still read)."""
    rows, size = [], 0
    for row in cursor:
        rows.append(row)
        size += len(row[2])
        if len(rows) >= least and (len(rows) >= most or size >= READ_BYTES):
            break
    return rows


def _changed_under(tick: int, why: str) -> ValidationError:
    return ValidationError(
        f"the journal changed while it was read, after tick {tick} ({why}): another process rolled the agent back "
        "or archived its journal; read it again"
    )


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
    try:
        base = read_base(store, key)
    except ValidationError as exc:
        return VerifyReport(0, None, str(exc))
    after = (base.tick, base.chain) if base is not None else (0, "")
    report = verify_rows(store.journal_rows(), key, unchecked, after)
    if not report.ok:
        return report
    return check_head(store, key, after[0] + report.ticks, store.last_chain()) or verify_blobs(store, report)


@attrs.frozen
class Base:
    """Where the live journal starts: ticks up to ``tick`` were archived; ``checkpoint`` holds the state then."""

    tick: int
    chain: str
    checkpoint: str


def base_value(key: JournalKey, tick: int, chain: str, checkpoint: str) -> str:
    """The meta value of an archive point: ``tick chain checkpoint mac``."""
    return f"{tick} {chain} {checkpoint} {key.mac(f'base|{tick}|{chain}|{checkpoint}')}"


def read_base(store: MemoryBackend, key: JournalKey) -> Base | None:
    """The archive point (None when nothing was archived); an edited one raises :class:`ValidationError`."""
    stored = store.meta_get(BASE)
    if stored is None:
        return None
    tick, chain, checkpoint, mac = [*stored.split(" "), "", "", "", ""][:4]
    if not tick.isdigit() or not hmac.compare_digest(mac, key.mac(f"base|{tick}|{chain}|{checkpoint}")):
        raise ValidationError("the journal's archive point in meta was edited (its MAC does not match)")
    return Base(int(tick), chain, checkpoint)


def start_checkpoint(store: MemoryBackend, key: JournalKey, checkpoint: str | None) -> str | None:
    """The checkpoint a replay of ``store``'s journal starts from: ``checkpoint``, else the archive point's.

    A checkpoint older than the archive point is refused: the ticks between are in an archive file."""
    base = read_base(store, key)
    if base is None:
        return checkpoint
    ticks = {info.name: info.tick for info in store.checkpoint_list()}
    if checkpoint is None:
        if base.checkpoint not in ticks:
            raise ValidationError(
                f"the journal starts after tick {base.tick} (archived) and the checkpoint holding the state then, "
                f"{base.checkpoint!r}, is not here (an export written before agi export carried it, or an import "
                "into a backend without checkpoint transfer): replay on the agent that archived it, or export it "
                "again and import it into SQLite or PostgreSQL"
            )
        return base.checkpoint
    tick = ticks.get(checkpoint)
    if tick is not None and tick < base.tick:
        raise ValidationError(
            f"checkpoint {checkpoint!r} is at tick {tick}, before the journal's archive point (tick {base.tick}): "
            f"the ticks between are in an archive file; replay from {base.checkpoint!r} or a later checkpoint, "
            "or replay the archive with agi replay --journal"
        )
    return checkpoint


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
                if isinstance(item, dict) and ARCHIVE in item:
                    continue  # an archive file's header (:func:`archive_header`)
                text = blobs.stored_record_text(item["record"], keep)
                yield int(item["tick"]), str(item["id"]), text, str(item["chain"])
            except (json.JSONDecodeError, KeyError, TypeError, ValueError, AttributeError) as exc:
                raise ValidationError(
                    f"{path}:{number} is not an exported journal line ({exc}); "
                    "export journals with agi journal export --jsonl"
                ) from None


def archive_header(
    key: JournalKey, after: tuple[int, str], through: tuple[int, str], checkpoint: str
) -> dict[str, Any]:
    """The first line of an archive file: the ticks it holds, the links it starts after and ends with, and
    the checkpoint holding the state at its end; MACed with the journal key."""
    mac = key.mac(f"archive|{after[0]}|{after[1]}|{through[0]}|{through[1]}|{checkpoint}")
    return {
        ARCHIVE: {
            "after": after[0],
            "after_chain": after[1],
            "through": through[0],
            "through_chain": through[1],
            "checkpoint": checkpoint,
            "mac": mac,
        }
    }


def verify_archive(path: Path, key: JournalKey) -> VerifyReport:
    """An archive file (agi journal archive): its header's MAC, then its rows' chain from the link the header
    says they follow to the one it says they end with."""
    try:
        with path.open(encoding="utf-8", errors="replace") as handle:
            header = json.loads(handle.readline() or "{}").get(ARCHIVE)
        after, after_chain = int(header["after"]), str(header["after_chain"])
        through, through_chain, checkpoint = int(header["through"]), str(header["through_chain"]), header["checkpoint"]
    except (OSError, json.JSONDecodeError, AttributeError, KeyError, TypeError, ValueError):
        return VerifyReport(0, None, f"{path} is not a journal archive (its first line is no archive header)")
    expected = archive_header(key, (after, after_chain), (through, through_chain), str(checkpoint))[ARCHIVE]["mac"]
    if not hmac.compare_digest(str(header.get("mac")), expected):
        return VerifyReport(0, None, "the archive's header was edited, or it was made with another key")
    rows = list(read_jsonl(path))
    report = verify_rows(rows, key, 0, (after, after_chain))
    if not report.ok:
        return report
    last = rows[-1][3] if rows else after_chain
    if after + report.ticks != through or last != through_chain:
        ended = f"the archive ends at tick {after + report.ticks}, its header says {through}"
        return VerifyReport(report.ticks, through, ended)
    return report
