"""Auto signals: named metrics computed from the journal, read incrementally from a cursor.

Four metrics, each with a direction and a target (``auto_signal_derivation``'s shape):
``reply_latency_ms`` (median ms between the agent's reply and the user's next line, ticks with a
recorded clock), ``f3_rate`` (share of the user's lines answered "I don't have…"),
``unresolved_questions`` (user questions answered that way, plus the module's open question
goals) and ``contradiction_count`` (facts written with a value other than the one they held).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from agi_core.replies import F1_SEM_MISS, F3_NO_AGENT, F3_NOTED_NOT_STORED

DEFINITIONS: list[dict[str, Any]] = [
    {"name": "Reply latency", "metric": "reply_latency_ms", "direction": "below", "target": 60_000.0, "weight": 0.3},
    {"name": "F3 rate", "metric": "f3_rate", "direction": "below", "target": 0.2, "weight": 0.5},
    {
        "name": "Unresolved questions",
        "metric": "unresolved_questions",
        "direction": "below",
        "target": 0.0,
        "weight": 0.6,
    },
    {"name": "Contradictions", "metric": "contradiction_count", "direction": "below", "target": 0.0, "weight": 0.4},
]
METRICS = tuple(d["metric"] for d in DEFINITIONS)
SCAN_LIMIT = 200  # journal records read per maintenance tick
VALUES_KEPT = 200  # fact keys whose last value is remembered (for contradictions)
LATENCIES_KEPT = 20


def empty_scan() -> dict[str, Any]:
    return {
        "cursor": 0,
        "user_turns": 0,
        "unanswered": 0,
        "questions_unanswered": 0,
        "contradictions": 0,
        "latencies": [],
        "last_reply_ms": None,
        "values": {},
    }


def unanswered(reply: str) -> bool:
    return reply.startswith(F1_SEM_MISS) or F3_NO_AGENT in reply or F3_NOTED_NOT_STORED in reply


def _clock(record: dict[str, Any]) -> int | None:
    reading = (record.get("externals") or {}).get("tick_clock") or []
    return reading[0] if reading and type(reading[0]) is int else None


def _digest(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, default=str).encode()).hexdigest()[:16]


def scanned(scan: dict[str, Any], records: list[dict[str, Any]]) -> dict[str, Any]:
    """``scan`` after reading ``records`` (newer than its cursor): a new dict."""
    out = {**scan, "latencies": list(scan["latencies"]), "values": dict(scan["values"])}
    for record in records:
        out["cursor"] = max(out["cursor"], int(record.get("tick") or 0))
        source = (record.get("input") or {}).get("source")
        clock = _clock(record)
        for write in record.get("sem_writes") or []:
            if not isinstance(write, dict) or not write.get("ok") or not isinstance(write.get("key"), str):
                continue
            digest, key = _digest(write.get("value")), write["key"][:300]
            if out["values"].get(key, digest) != digest:
                out["contradictions"] += 1
            out["values"].pop(key, None)
            out["values"][key] = digest
            while len(out["values"]) > VALUES_KEPT:
                out["values"].pop(next(iter(out["values"])))
        if source != "user":
            continue
        out["user_turns"] += 1
        raw = str((record.get("input") or {}).get("raw") or "")
        if unanswered(str(record.get("final_output") or "")):
            out["unanswered"] += 1
            out["questions_unanswered"] += raw.rstrip().endswith("?")
        if clock is not None and out["last_reply_ms"] is not None:
            out["latencies"] = [*out["latencies"], max(0, clock - out["last_reply_ms"])][-LATENCIES_KEPT:]
        out["last_reply_ms"] = clock
    return out


def values(scan: dict[str, Any], open_questions: int) -> dict[str, float]:
    """The metrics' current values."""
    latencies = sorted(scan["latencies"])
    return {
        "reply_latency_ms": float(latencies[len(latencies) // 2]) if latencies else 0.0,
        "f3_rate": round(scan["unanswered"] / scan["user_turns"], 4) if scan["user_turns"] else 0.0,
        "unresolved_questions": float(scan["questions_unanswered"] + open_questions),
        "contradiction_count": float(scan["contradictions"]),
    }


def pressure(signal: dict[str, Any]) -> float:
    """How far a signal is on the wrong side of its target, weighted, in [0, 1]."""
    value, target = float(signal.get("value", 0.0)), float(signal.get("target", 0.0))
    miss = value - target if signal.get("direction", "below") == "below" else target - value
    if miss <= 0:
        return 0.0
    scale = abs(target) if target else 1.0
    return round(min(1.0, float(signal.get("weight", 0.5)) * min(1.0, miss / scale)), 4)
