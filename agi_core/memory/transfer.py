"""Whole-agent export and import in a backend-neutral, versioned JSON Lines format.

The file (format ``agi-agent``, version 2), one JSON value per line::

    {"format": "agi-agent", "version": 2, "backend": "sqlite", "tables": ["meta", ...], "key_check": "…"}
    {"table": "facts", "columns": ["key", "id", "value", ...], "rows": 2}
    ["user/person/self/name", "id-…", "\\"Ada\\"", ..., "<row MAC>"]     one JSON array per row, its MAC last
    ...
    {"end": true, "rows": 17, "mac": "…"}

Version 3 is version 2 with, before the end line, the journal's archive point's checkpoint (``agi journal
archive``: replay of the live journal starts from its state): a line ``{"checkpoint": NAME, "tick": N,
"tables": [...]}``, then that checkpoint's tables as above, under the same proof. It is written only for
an agent with an archive point (read and built through
:class:`~agi_core.memory.backend.CheckpointTransfer`); other exports stay version 2.

Rows are the stored text exactly (journal records, chain links, JSON values with their blob
references), so an agent moved SQLite → PostgreSQL → SQLite has byte-identical rows and its
journal replays equal. Bytes (blob data) are ``{"$bytes": "<base64>"}``.

The proof (:class:`Proof`): each row line ends with ``HMAC(journal key, table | the row's JSON)``,
and the end line holds a MAC over the table list, every table header and every row MAC, so a
row added, removed or moved is found too. The header's ``key_check`` names a wrong key at
once. Only the agent's key holder can write a proof, and ``agi export`` writes one only for
an agent that verifies (journal chain, head and state seal); import with the key checks
every line before committing and names the first edited table and key (the tick, for the
journal). The journal key is never in the file: import takes it (``--key-file`` or
``AGI_JOURNAL_KEY``). A version 1 file (older agi) has no proof: only ``--unverified`` imports it.
A line may hold at most :data:`MAX_LINE_BYTES`; import reads no more than that of any line.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from collections.abc import Iterable, Iterator
from typing import IO, TYPE_CHECKING, Any

import orjson

from agi_core.errors import AgiError, ConfigError, StorageError
from agi_core.memory.backend import RawRows

if TYPE_CHECKING:
    from agi_core.journal_key import JournalKey

FORMAT, VERSION, UNPROVEN_VERSION = "agi-agent", 2, 1
CARRYING_VERSION = 3  # version 2 and a checkpoint after the agent's tables (the journal's archive point's)
# the line that begins the carried checkpoint's tables: {"checkpoint": NAME, "tick": N, "tables": [...]}
CHECKPOINT = "checkpoint"
MAX_LINE_BYTES = 64 * 1024 * 1024  # the newline included; large strings are blobs, a blob row is one line
# every table that holds the agent, in import order; derived ones (seal rows, FTS, checkpoint files) are left out
TABLES = (
    "meta",
    "facts",
    "episodes",
    "working",
    "journal",
    "journal_archive",
    "tick_timings",
    "intents",
    "messages_in",
    "messages_out",
    "blobs",
    "jobs",
    "goals",
    "module_state",
    "rlm_states",
    "rlm_variables",
    "rlm_mutations",
    "rlm_checkpoints",
    "ltm_items",
    "ltm_vectors",
)
NOT_EXPORTED_META = ("state_seal",)  # derived from the rows: the target seals again
# the columns that name a row in messages (default: the first column)
ROW_KEYS = {"module_state": ("module", "key"), "rlm_variables": ("namespace", "name"), "journal_archive": ("tick",)}
_MAC_TAIL = 68  # ,"<64 hex>"]


class TransferError(AgiError):
    """An export file is malformed, edited, of another format or version, truncated, or does not fit the target."""


class Proof:
    """The MACs of an export: one per row, and one over the whole file's structure."""

    def __init__(self, key: JournalKey, tables: Any) -> None:
        self.key = key
        self.digest = hashlib.sha256(orjson.dumps(tables))

    def table(self, name: Any, columns: Any, count: Any) -> None:
        self.digest.update(orjson.dumps([name, columns, count]))

    def row(self, table: str, body: bytes) -> str:
        """The MAC of one row's JSON array (``body``, as written)."""
        mac = self.key.mac(f"export-row|{table}|{body.decode('utf-8')}")
        self.digest.update(mac.encode("ascii"))
        return mac

    def end(self, total: int) -> str:
        return self.key.mac(f"export-end|{total}|{self.digest.hexdigest()}")


def write_export(store: Any, out: IO[str], key: JournalKey, *, checkpoint: tuple[str, int] | None = None) -> int:
    """Write the whole agent in ``store`` to ``out`` with its proof; returns the number of rows. ``checkpoint``
    (name, tick): the journal's archive point's, carried after the agent's tables (version 3), read through
    :class:`~agi_core.memory.backend.CheckpointTransfer`."""
    from agi_core.journal_key import check_value

    raw = _raw(store)
    tables = [t for t in TABLES if t in raw.table_names()]
    version = CARRYING_VERSION if checkpoint is not None else VERSION
    header = {"format": FORMAT, "version": version, "backend": store.name, "tables": tables}
    _write(out, orjson.dumps({**header, "key_check": check_value(key)}), "the header")
    proof = Proof(key, tables)
    total = _write_tables(raw, tables, out, proof)
    if checkpoint is not None:
        name, tick = checkpoint
        with store.checkpoint_rows(name, key) as copy:
            held = [t for t in TABLES if t in copy.table_names()]
            marker = {CHECKPOINT: name, "tick": tick, "tables": held}
            proof.table(CHECKPOINT, marker, 0)
            _write(out, orjson.dumps(marker), f"checkpoint {name!r}")
            total += _write_tables(copy, held, out, proof)
    _write(out, orjson.dumps({"end": True, "rows": total, "mac": proof.end(total)}), "the end line")
    return total


def _write_tables(raw: RawRows, tables: list[str], out: IO[str], proof: Proof) -> int:
    total = 0
    for table in tables:
        columns, rows = raw.dump_table(table)
        if table == "meta":
            rows = [row for row in rows if row[0] not in NOT_EXPORTED_META]
        proof.table(table, columns, len(rows))
        _write(out, orjson.dumps({"table": table, "columns": columns, "rows": len(rows)}), f"the {table} header")
        for row in rows:
            body = orjson.dumps([_encode(value) for value in row])
            line = body[:-1] + b',"' + proof.row(table, body).encode("ascii") + b'"]'
            _write(out, line, f"{table} {_row_name(table, columns, list(row))}")
        total += len(rows)
    return total


class ExportFile:
    """An export being read: the header is checked at once; :meth:`tables` yields ``(table, columns,
    rows)`` checked line by line against the proof when ``key`` is given. A bad or edited file raises
    TransferError naming the line, or the table and key. Without ``key`` (or for a version 1 file)
    nothing is proven: only ``unverified`` allows that, and :attr:`proven` is False."""

    def __init__(self, handle: IO[bytes], key: JournalKey | None, *, unverified: bool = False) -> None:
        from agi_core.journal_key import check_value

        self.lines = _lines(handle)
        number, text = next(self.lines, (1, b""))
        header = _parse(text, number)
        if not isinstance(header, dict) or header.get("format") != FORMAT:
            raise TransferError(
                f"not an agi agent export (line 1 is not a {FORMAT!r} header); pass a file from agi export"
            )
        self.version = header.get("version")
        if type(self.version) is not int or self.version not in (CARRYING_VERSION, VERSION, UNPROVEN_VERSION):
            raise TransferError(
                f"export format version {self.version!r} is not supported (this agi reads {VERSION} and "
                f"{CARRYING_VERSION}, and {UNPROVEN_VERSION} with --unverified)"
            )
        self.carried: tuple[str, int] | None = None  # the checkpoint whose tables tables() yields next, if any
        self._total = 0
        if self.version == UNPROVEN_VERSION and not unverified:
            raise TransferError(
                "this export (format version 1, from an older agi) carries no proof of its rows; export the agent "
                "again with this agi, or import it with --unverified"
            )
        self.proof = None
        if key is not None and self.version != UNPROVEN_VERSION:
            check = header.get("key_check")
            if not isinstance(check, str) or not hmac.compare_digest(check, check_value(key)):
                raise TransferError(
                    f"the journal key from {key.source} is not the key of the exported agent; pass its <db>.key"
                )
            self.proof = Proof(key, header.get("tables"))

    @property
    def proven(self) -> bool:
        return self.proof is not None

    def tables(self) -> Iterator[tuple[str, list[str], list[list[Any]]]]:
        """The agent's tables, checked line by line; it stops at the end line, or before a carried checkpoint's
        tables (:attr:`carried` then names it, and a second call yields its tables)."""
        proof = self.proof
        for number, text in self.lines:
            item = _parse(text, number)
            if isinstance(item, dict) and CHECKPOINT in item and self.version == CARRYING_VERSION:
                name, tick = item.get(CHECKPOINT), item.get("tick")
                if self.carried is not None or not isinstance(name, str) or type(tick) is not int:
                    raise TransferError(
                        f"line {number}: a second or malformed checkpoint line; import the file agi export wrote"
                    )
                if proof is not None:
                    proof.table(CHECKPOINT, item, 0)
                self.carried = (name, tick)
                return
            total = self._total
            if isinstance(item, dict) and item.get("end") is True:
                if item.get("rows") != total:
                    raise TransferError(
                        f"the export ends at line {number} with {item.get('rows')} rows, but holds {total}"
                    )
                mac = item.get("mac")
                if proof is not None and not (isinstance(mac, str) and hmac.compare_digest(mac, proof.end(total))):
                    raise TransferError(
                        "the export was edited: a row or a table was added, removed or moved (its end MAC does "
                        "not match); import the file agi export wrote"
                    )
                after = next((found for found in self.lines if found[1].strip()), None)
                if after is not None:  # two exports joined, or something appended: not the file agi export wrote
                    raise TransferError(
                        f"the export goes on after its end line (line {after[0]}); import the file agi export wrote"
                    )
                return
            if not isinstance(item, dict) or not isinstance(item.get("table"), str) or item["table"] not in TABLES:
                raise TransferError(f"line {number}: expected a table header naming one of {', '.join(TABLES)}")
            table, columns, count = item["table"], item.get("columns"), item.get("rows")
            if not isinstance(columns, list) or type(count) is not int:
                raise TransferError(f"line {number}: a table header needs 'columns' (a list) and 'rows' (a number)")
            if proof is not None:
                proof.table(table, columns, count)
            number, rows = self._rows(table, columns, count, number)
            self._total += len(rows)
            yield table, columns, rows
        raise TransferError("the export is truncated (no end line); export the agent again")

    def _rows(self, table: str, columns: list[str], count: int, number: int) -> tuple[int, list[list[Any]]]:
        proven = self.version != UNPROVEN_VERSION
        width = len(columns) + proven
        rows = []
        for _ in range(count):
            number, text = next(self.lines, (number + 1, b""))
            row = _parse(text, number)
            if not isinstance(row, list) or len(row) != width:
                raise TransferError(f"line {number}: expected a row of {width} values for {table}")
            if proven:
                mac = row.pop()
                if self.proof is not None and not _proven(self.proof, table, text, mac):
                    raise TransferError(
                        f"the export was edited: {table} {_row_name(table, columns, row)} (line {number}) does "
                        "not match its MAC; import the file agi export wrote"
                    )
            rows.append([_decode(value) for value in row])
        return number, rows


def _proven(proof: Proof, table: str, text: bytes, mac: Any) -> bool:
    body = text.rstrip(b"\r\n")
    if not isinstance(mac, str) or not body.endswith(f',"{mac}"]'.encode()) or len(mac) != _MAC_TAIL - 4:
        return False
    return hmac.compare_digest(mac, proof.row(table, body[:-_MAC_TAIL] + b"]"))


def import_rows(store: Any, tables: Iterable[tuple[str, list[str], list[list[Any]]]]) -> int:
    """Write every table's rows into ``store`` (a new agent), inside the caller's transaction; returns the rows."""
    raw = _raw(store)
    present = raw.table_names()
    if store.last_chain() or store.meta_get("tick") not in (None, "0"):
        raise ConfigError(f"{store.path} already holds an agent; import into a new database (or a new agent name)")
    total = 0
    for table, columns, rows in tables:
        if not rows:
            continue
        if table not in present:
            raise TransferError(
                f"the export has {len(rows)} {table} rows but the {store.name} backend has no {table} table "
                f"({_feature(table)} is not supported there yet); import it into SQLite instead"
            )
        raw.load_table(table, columns, rows)
        total += len(rows)
    return total


def _raw(store: Any) -> RawRows:
    if not isinstance(store, RawRows):
        raise StorageError(f"the {store.name} backend cannot list its raw rows; agi export and agi import need that")
    return store


def _feature(table: str) -> str:
    if table.startswith("rlm_"):
        return "RLM state"
    if table.startswith("ltm_"):
        return "long-term memory"
    names = {
        "jobs": "scheduled jobs",
        "module_state": "module state",
        "messages_in": "messages",
        "messages_out": "messages",
        "tick_timings": "tick timings",
    }
    return names.get(table, table)


def _row_name(table: str, columns: list[str], row: list[Any]) -> str:
    if table == "journal" and row:
        return f"tick {row[0]}"
    names = ROW_KEYS.get(table, columns[:1])
    parts = [str(row[columns.index(name)]) for name in names if name in columns and columns.index(name) < len(row)]
    return f"key {'/'.join(parts)!r}"


# -- lines ----------------------------------------------------------------------------------
def _write(out: IO[str], line: bytes, what: str) -> None:
    if len(line) + 1 > MAX_LINE_BYTES:
        raise TransferError(
            f"{what} is {len(line) + 1} bytes as a line, over the {MAX_LINE_BYTES} an export line may hold; "
            "nothing was exported"
        )
    out.write(line.decode("utf-8") + "\n")


def _lines(handle: IO[bytes]) -> Iterator[tuple[int, bytes]]:
    """``(number, line)``, reading at most :data:`MAX_LINE_BYTES` of any line."""
    number = 0
    while True:
        line = handle.readline(MAX_LINE_BYTES + 1)
        if not line:
            return
        number += 1
        if len(line) > MAX_LINE_BYTES:
            raise TransferError(
                f"line {number} of the export is longer than {MAX_LINE_BYTES} bytes, the most a line may hold; "
                "pass a file from agi export"
            )
        yield number, line


def _parse(text: bytes, number: int) -> Any:
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError as exc:
        raise TransferError(f"line {number} of the export is not JSON ({exc}); export the agent again") from None


def _encode(value: Any) -> Any:
    return {"$bytes": base64.b64encode(value).decode("ascii")} if isinstance(value, bytes) else value


def _decode(value: Any) -> Any:
    if isinstance(value, dict) and set(value) == {"$bytes"}:
        return base64.b64decode(value["$bytes"])
    return value
