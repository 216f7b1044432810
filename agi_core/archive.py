"""``agi journal archive``: move the journal's old records into an archive file, keeping the chain provable.

The archive point is a checkpoint (``--through NAME``): the records up to its tick go to the
file, the live journal keeps the later ones, and replay of the live database starts from that
checkpoint's state (which is never pruned while it is the archive point). In this order:

1. the journal is verified and the checkpoint's file checked (sha256, MAC);
2. the file is written beside its target, fsynced and renamed into place (a kill leaves no file
   or a whole one): a header (:func:`agi_core.journal.archive_header`: the ticks it holds, the
   chain links it follows and ends with, MACed with the journal key), then the records as
   ``agi journal export`` writes them;
3. one transaction deletes the records and the blobs no row refers to any more (those only they referred
   to: :mod:`agi_core.memory.sqlite.blob_collect`) and stores the archive point (``journal_base`` in meta:
   tick, chain link, checkpoint, MAC), the state seal brought up to it.

A kill before 3 commits leaves the database as it was (a complete archive file of records the
journal still holds is harmless: run it again to a new file). With ``vacuum`` the file is then rebuilt
without the freed pages (SQLite's ``VACUUM``, its own transaction: a kill leaves the archive done and the
file as it was, or rebuilt). SQLite only.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from agi_core import journal
from agi_core.errors import ConfigError, ValidationError
from agi_core.faults import fault_point
from agi_core.serialization import dumps

if TYPE_CHECKING:
    from agi_core.kernel import Kernel


@attrs.frozen
class ArchiveReport:
    after: int  # the archive point before this archive (0: the journal's start)
    through: int
    records: int
    path: Path
    sizes: tuple[int, int] | None = None  # with vacuum: the database's bytes (with its log) before the archive, after
    freed: tuple[int, int] = (0, 0)  # the blobs only the archived records referred to, deleted, and their bytes

    def __str__(self) -> str:
        said = (
            f"archived {self.records} records (ticks {self.after + 1}..{self.through}) to {self.path}; "
            f"the journal now starts after tick {self.through}"
        )
        if self.freed[0]:
            said += f"\ndeleted {self.freed[0]} blobs ({self.freed[1]:,} bytes) only the archived records referred to"
        if self.sizes is not None:
            before, after = self.sizes
            said += f"\nvacuumed: the database went from {before:,} bytes before the archive to {after:,}"
        return said


def archive(kernel: Kernel, checkpoint: str, to: Path, write: Any, *, vacuum: bool = False) -> ArchiveReport:
    """Archive the records up to checkpoint ``checkpoint``'s tick into the new file ``to``; with ``vacuum``,
    then give the pages they held back to the file system (:meth:`SqliteStore.vacuum`).

    ``write(path, fill)`` writes the file atomically (``agi_core.cli.transfer.write_atomically``)."""
    from agi_core.memory.sqlite.checkpoints import check_file
    from agi_core.memory.sqlite_store import SqliteStore

    store, key = kernel.store, kernel.journal_key
    if not isinstance(store, SqliteStore):
        raise ConfigError(f"journal archive needs the sqlite backend, not {store.name!r}")
    if to.exists():
        raise ConfigError(f"{to} exists; archive to a new file (each archive holds the ticks since the one before)")
    if journal.unverified_import(store) is not None:
        raise ValidationError(
            "this agent was imported with --unverified: its first ticks cannot be proved; "
            "archive needs a journal that verifies whole"
        )
    check_file(store, key, checkpoint)  # an unknown name lists the known ones; a damaged copy is refused
    through = next(info.tick for info in store.checkpoint_list() if info.name == checkpoint)
    report = journal.verify(store, key)
    if not report.ok:
        raise ValidationError(f"the journal does not verify ({report}); run agi journal verify")
    base = journal.read_base(store, key)
    after = (base.tick, base.chain) if base is not None else (0, "")
    if through <= after[0]:
        raise ConfigError(
            f"checkpoint {checkpoint!r} is at tick {through}, at or before the archive point (tick {after[0]}): "
            "nothing to archive; create a newer one with agi checkpoint create NAME"
        )
    rows = [row for row in store.journal_rows(after[0]) if row[0] <= through]
    last_chain = rows[-1][3]
    header = journal.archive_header(key, after, (through, last_chain), checkpoint)

    def fill(out: Any) -> int:
        out.write(dumps(header) + "\n")
        out.flush()
        fault_point("archive.header")  # the file begun, beside its target under a temporary name
        return journal.export_jsonl(rows, out, store=store)

    written = write(to, fill)
    fault_point("archive.written")  # the file whole and in place, the database not yet changed
    before = store.file_bytes()
    point = journal.base_value(key, through, last_chain, checkpoint)
    _records, blobs, blob_bytes = store.journal_archive_through(through, last_chain, point, key)
    sizes = (before, store.vacuum()) if vacuum else None
    return ArchiveReport(after[0], through, written, to, sizes, (blobs, blob_bytes))
