"""Bulk ingestion: plain text, JSONL and LoCoMo conversations.

Ids are derived from the file name and the position of each record, so ingesting a file
twice adds nothing the second time. Nothing here commits: the caller owns the
transaction (``agi ingest`` commits once at the end).

- **text** (``.txt``, ``.md``, anything else): one memory per paragraph (blocks separated
  by blank lines); a file without blank lines gives one memory per non-empty line.
- **jsonl** (``.jsonl``): one object per line with ``text`` and optional ``speaker``,
  ``timestamp``, ``importance``, ``kind``, ``session``, ``tick``, ``id``, ``metadata``.
- **locomo** (``.json`` with ``session_<n>`` lists, or a list of ``{"conversation": …}``
  samples): one memory per turn, speaker and session date kept, ``dia_id`` in metadata;
  a shared photo's caption is appended to the turn as ``[shares <caption>]``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from agi_core.errors import ValidationError
from agi_core.longterm.dates import parse_timestamp
from agi_core.longterm.importance import clamp_importance
from agi_core.longterm.model import IngestReport, item_id
from agi_core.longterm.store import LongTermMemory

FORMATS = ("text", "jsonl", "locomo")
_SESSION = re.compile(r"session_(\d+)$")


def detect_format(path: Path) -> str:
    """``jsonl`` for .jsonl, ``locomo`` for .json, ``text`` otherwise."""
    suffix = path.suffix.lower()
    if suffix == ".jsonl":
        return "jsonl"
    if suffix == ".json":
        return "locomo"
    return "text"


def text_records(path: Path, tick: int = 0) -> Iterator[dict[str, Any]]:
    raw = path.read_text(encoding="utf-8", errors="replace")
    blocks = [b.strip() for b in re.split(r"\n\s*\n", raw)]
    if len([b for b in blocks if b]) <= 1:
        blocks = [line.strip() for line in raw.splitlines()]
    for n, block in enumerate(b for b in blocks if b):
        yield {
            "text": block,
            "tick": tick,
            "session": path.name,
            "id": item_id("text", path.name, n, block),
            "metadata": {"source": path.name, "n": n},
        }


def jsonl_records(path: Path, tick: int = 0) -> Iterator[dict[str, Any]]:
    with path.open(encoding="utf-8", errors="replace") as handle:
        for line_no, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except ValueError as exc:
                raise ValidationError(f"{path}:{line_no}: not JSON ({exc}); fix or remove the line") from None
            if not isinstance(obj, dict) or not isinstance(obj.get("text"), str) or not obj["text"].strip():
                yield {}
                continue
            meta = dict(obj.get("metadata") or {})
            meta.setdefault("source", path.name)
            meta.setdefault("line", line_no)
            yield {
                "text": obj["text"].strip(),
                "tick": int(obj.get("tick", tick)),
                "kind": obj.get("kind") or "message",
                "speaker": obj.get("speaker"),
                "timestamp": parse_timestamp(obj.get("timestamp")) or obj.get("timestamp"),
                "session": obj.get("session") or path.name,
                "importance": clamp_importance(obj.get("importance")),
                "metadata": meta,
                "id": obj.get("id") or item_id("jsonl", path.name, line_no, obj["text"]),
            }


def locomo_turn_text(turn: dict[str, Any]) -> str:
    """The turn's text, with the shared photo's caption when there is one."""
    text = str(turn.get("text", "")).strip()
    caption = turn.get("blip_caption")
    if caption:
        text = f"{text} [shares {str(caption).strip()}]".strip()
    return text


def locomo_records(path: Path, tick: int = 0) -> Iterator[dict[str, Any]]:
    data = json.loads(path.read_text(encoding="utf-8", errors="replace"))
    samples = data if isinstance(data, list) else [data]
    for s_index, sample in enumerate(samples):
        conv = sample.get("conversation", sample) if isinstance(sample, dict) else None
        if not isinstance(conv, dict) or not any(_SESSION.match(key) for key in conv):
            raise ValidationError(
                f"{path}: no session_<n> lists found; is this a LoCoMo conversation?", path=f"$[{s_index}]"
            )
        name = str(sample.get("sample_id") or (path.stem if len(samples) == 1 else f"{path.stem}-{s_index}"))
        sessions = sorted((int(m.group(1)), key) for key in conv if (m := _SESSION.match(key)))
        for number, key in sessions:
            date = conv.get(f"{key}_date_time")
            stamp = parse_timestamp(date)
            for turn in conv[key] or []:
                text = locomo_turn_text(turn)
                if not text:
                    yield {}
                    continue
                dia_id = turn.get("dia_id")
                yield {
                    "text": text,
                    "tick": tick,
                    "kind": "message",
                    "speaker": turn.get("speaker"),
                    "timestamp": stamp,
                    "session": f"{name}/session_{number}",
                    "metadata": {"dia_id": dia_id, "conversation": name, "session_date": date},
                    "id": item_id("locomo", name, dia_id, text),
                }


_READERS = {"text": text_records, "jsonl": jsonl_records, "locomo": locomo_records}


def read_records(path: str | Path, format: str | None = None, tick: int = 0) -> tuple[str, list[dict[str, Any]], int]:
    """``(format, records, skipped)`` of a file, without storing anything.

    :param format: ``text``, ``jsonl`` or ``locomo``; detected from the suffix when None.
    """
    path = Path(path)
    fmt = format or detect_format(path)
    if fmt not in _READERS:
        raise ValidationError(f"unknown ingest format {fmt!r}; use one of {', '.join(FORMATS)}")
    if not path.is_file():
        raise ValidationError(f"{path}: no such file; pass the path of a .txt, .jsonl or LoCoMo .json file")
    records: list[dict[str, Any]] = []
    skipped = 0
    for record in _READERS[fmt](path, tick):
        if record:
            records.append(record)
        else:
            skipped += 1
    return fmt, records, skipped


def ingest_file(
    ltm: LongTermMemory,
    path: str | Path,
    *,
    format: str | None = None,
    tick: int = 0,
    embed: bool = True,
    progress: bool = True,
    batch: int = 1000,
) -> IngestReport:
    """Read ``path`` into ``ltm``; embed the new items unless ``embed`` is False.

    (The kernel's ``agi ingest`` stores the rows through a journaled tick instead; this is
    the library call for a memory used on its own, as the benchmarks do.)

    :param format: ``text``, ``jsonl`` or ``locomo``; detected from the suffix when None.
    :param tick: the tick stored with every item (for rollback).
    :param progress: show tqdm bars (embedding).
    :param batch: records inserted per ``executemany``.
    """
    from tqdm import tqdm

    fmt, records, skipped = read_records(path, format, tick)
    added = duplicates = 0
    for start in range(0, len(records), batch):
        a, d = ltm.add_many(records[start : start + batch])
        added, duplicates = added + a, duplicates + d
    embedded = 0
    if embed and added:
        with tqdm(desc="embedding", unit="text", total=added, disable=not progress) as bar:
            embedded = ltm.catch_up(progress=bar.update)
    return IngestReport(str(path), fmt, added, duplicates, skipped, embedded)
