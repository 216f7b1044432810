"""Bulk ingestion: plain text, JSONL and LoCoMo conversations.

Ids are derived from the file name and the position of each record, so ingesting a file
twice adds nothing the second time. Nothing here commits: the caller owns the
transaction (``agi ingest`` commits once at the end).

- **text** (``.txt``, ``.md``, anything else): one memory per paragraph (blocks separated
  by blank lines); a file without blank lines gives one memory per non-empty line.
- **jsonl** (``.jsonl``): one object per line with ``text`` and optional ``speaker``,
  ``timestamp``, ``importance``, ``kind``, ``session``, ``tick``, ``id``, ``metadata``.
  A line that is not UTF-8, not JSON, not an object or has no usable ``text`` is skipped
  and named (``line 7 not JSON``); the other lines are read.
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


Read = dict[str, Any] | str  # a record, or why the next record was skipped


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except UnicodeDecodeError as exc:
        raise ValidationError(
            f"{path} is not UTF-8 text (byte {exc.start} is invalid); convert it to UTF-8 and ingest it again"
        ) from None


def text_records(path: Path, tick: int = 0) -> Iterator[Read]:
    raw = _read_text(path)
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


def _jsonl_problem(obj: Any) -> str | None:
    if not isinstance(obj, dict):
        return f"a JSON {type(obj).__name__}, not an object"
    if "text" not in obj:
        return 'missing "text"'
    if not isinstance(obj["text"], str):
        return '"text" is not a string'
    if not obj["text"].strip():
        return 'empty "text"'
    return None


def jsonl_records(path: Path, tick: int = 0) -> Iterator[Read]:
    with path.open("rb") as handle:
        for line_no, raw in enumerate(handle, start=1):
            if not raw.strip():
                continue
            try:
                obj = json.loads(raw.decode("utf-8", errors="replace"))
            except (ValueError, RecursionError):
                yield f"line {line_no} not JSON"
                continue
            problem = _jsonl_problem(obj)
            if problem is None:
                try:
                    yield _jsonl_record(obj, path, line_no, tick)
                    continue
                except (TypeError, ValueError, AttributeError) as exc:
                    problem = f"bad field ({type(exc).__name__}: {exc})"
            yield f"line {line_no} {problem}"


_STRING_FIELDS = ("id", "speaker", "kind", "session", "timestamp")


def _jsonl_record(obj: dict[str, Any], path: Path, line_no: int, tick: int) -> dict[str, Any]:
    for field in _STRING_FIELDS:
        if obj.get(field) is not None and not isinstance(obj[field], str):
            raise ValueError(f'"{field}" is not a string')
    meta = dict(obj.get("metadata") or {})
    meta.setdefault("source", path.name)
    meta.setdefault("line", line_no)
    return {
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


def locomo_records(path: Path, tick: int = 0) -> Iterator[Read]:
    try:
        data = json.loads(_read_text(path))
    except (ValueError, RecursionError) as exc:
        raise ValidationError(f"{path} is not JSON ({exc}); pass a LoCoMo .json file or --format text") from None
    try:
        yield from _locomo_samples(path, data, tick)
    except (AttributeError, TypeError, KeyError) as exc:
        raise ValidationError(
            f"{path} is not a LoCoMo conversation ({type(exc).__name__}: {exc}); "
            "pass a file with session_<n> lists of turns, or --format text/jsonl"
        ) from None


def _locomo_samples(path: Path, data: Any, tick: int) -> Iterator[Read]:
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
            for n, turn in enumerate(conv[key] or []):
                text = locomo_turn_text(turn)
                if not text:
                    yield f"{name}/{key} turn {n + 1} has no text"
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


def read_records(
    path: str | Path, format: str | None = None, tick: int = 0
) -> tuple[str, list[dict[str, Any]], list[str]]:
    """``(format, records, problems)`` of a file, without storing anything.

    ``problems`` says why each skipped record was skipped (``line 7 not JSON``).

    :param format: ``text``, ``jsonl`` or ``locomo``; detected from the suffix when None.
    """
    path = Path(path)
    fmt = format or detect_format(path)
    if fmt not in _READERS:
        raise ValidationError(f"unknown ingest format {fmt!r}; use one of {', '.join(FORMATS)}")
    if not path.is_file():
        raise ValidationError(f"{path}: no such file; pass the path of a .txt, .jsonl or LoCoMo .json file")
    records: list[dict[str, Any]] = []
    problems: list[str] = []
    for record in _READERS[fmt](path, tick):
        if isinstance(record, str):
            problems.append(record)
        else:
            records.append(record)
    return fmt, records, problems


def skipped_summary(problems: list[str], shown: int = 5) -> str:
    """``3 lines skipped: line 7 not JSON, line 9 missing "text", …`` (the first ``shown`` named)."""
    what = "lines" if any(problem.startswith("line ") for problem in problems) else "records"
    what = what[:-1] if len(problems) == 1 else what
    more = ", …" if len(problems) > shown else ""
    return f"{len(problems)} {what} skipped: {', '.join(problems[:shown])}{more}"


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

    fmt, records, problems = read_records(path, format, tick)
    added = duplicates = 0
    for start in range(0, len(records), batch):
        a, d = ltm.add_many(records[start : start + batch])
        added, duplicates = added + a, duplicates + d
    embedded = 0
    if embed and added:
        with tqdm(desc="embedding", unit="text", total=added, disable=not progress) as bar:
            embedded = ltm.catch_up(progress=bar.update)
    return IngestReport(str(path), fmt, added, duplicates, len(problems), embedded, tuple(problems))
