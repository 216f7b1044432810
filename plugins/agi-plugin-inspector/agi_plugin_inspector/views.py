"""What the pages show, read through agi-core's own functions (the backend protocol): no SQL here.

Each function takes the open kernel (or its store) and returns plain data for a template.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import attrs

from agi_core import replies
from agi_core.externals import wall_reading
from agi_core.memory.backend import TickTimingStore
from agi_core.model import REPLAY_FIELDS
from agi_core.modules.context import JournalView
from agi_core.serialization import dumps

F_SENTENCES = {
    "F1": replies.F1_SEM_MISS,
    "F3": replies.F3_NO_AGENT,
    "F4": replies.F4_AGENT_FAILURE,
    "F5": replies.F5_SEM_WRITE_FAILURE,
}
PAGE_TICKS = 50
SCAN_TICKS = 10_000  # a filtered timeline page reads at most this many ticks, newest first (timeline)
SCAN_WINDOW = 200  # journal records read at once while a filtered page searches
MENU_TICKS = 500  # the filter menus offer the sources and agents of this many newest ticks
COMPARED = REPLAY_FIELDS  # what replay compares (agi_core.model)


def f_codes(record: dict[str, Any]) -> list[str]:
    """The rulebook's failure codes of a tick: its reply holds the F-sentence, or (F4) an agent degraded."""
    text = str(record.get("final_output") or "")
    codes = [code for code, sentence in F_SENTENCES.items() if sentence in text]
    if record.get("degraded") and "F4" not in codes:
        codes.append("F4")
    return sorted(codes)


def tick_count(store: Any) -> int:
    return int(store.meta_get("tick", "0") or 0)


def journal(store: Any, since: int = 0, batch_size: int = 200) -> Iterator[dict[str, Any]]:
    """The journal records after tick ``since``, oldest first, blob references resolved; read ``batch_size``
    at a time."""
    view = JournalView(store, lambda: None)
    while True:
        batch = view.records(since=since, limit=batch_size)
        yield from batch
        if len(batch) < batch_size:
            return
        since = int(batch[-1]["tick"])


def record(store: Any, tick: int) -> dict[str, Any] | None:
    found = JournalView(store, lambda: None).records(since=tick - 1, limit=1)
    return found[0] if found and found[0].get("tick") == tick else None


@attrs.frozen
class Filters:
    """The timeline's filters (each empty: no filter)."""

    source: str = ""
    agent: str = ""
    code: str = ""
    text: str = ""

    def keeps(self, row: dict[str, Any]) -> bool:
        return (
            (not self.source or row["source"] == self.source)
            and (not self.agent or row["agent"] == self.agent)
            and (not self.code or self.code in row["codes"])
            and (not self.text or self.text.lower() in (row["input"] + " " + row["output"]).lower())
        )


def timeline_row(record: dict[str, Any]) -> dict[str, Any]:
    decision = record.get("router_decision") or {}
    inputs = record.get("input") or {}
    return {
        "tick": record["tick"],
        "timestamp": record.get("timestamp", ""),
        "clock": clock_text(wall_reading(record.get("externals") or {})),
        "source": str(inputs.get("source", "")),
        "input": str(inputs.get("raw", "")),
        "agent": str(decision.get("agent", "")),
        "why": str(decision.get("why", "")),
        "output": str(record.get("final_output", "")),
        "codes": f_codes(record),
        "action": (record.get("action") or {}).get("name", ""),
        "duration_us": None,  # filled in by timed(): not in the record
        "duration": None,
    }


def clock_text(ms: int | None) -> str:
    """The tick's recorded wall-clock reading as ``2026-11-27 10:05:03 UTC``; "" when it took none."""
    if ms is None:
        return ""
    return datetime.fromtimestamp(ms / 1000, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def durations(store: Any, first: int, last: int) -> dict[int, int]:
    """``{tick: microseconds}`` the ticks from ``first`` to ``last`` took (the backend's tick timings, kept beside
    the journal: a measurement replay never compares); ``{}`` on a backend that keeps none."""
    if last < first or not isinstance(store, TickTimingStore):
        return {}
    return store.tick_timings(first, last)


def timed(store: Any, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``rows`` (timeline rows), each with ``duration_us`` and ``duration`` (shown, e.g. ``"1.4 ms"``) filled in
    from the stored tick timings, in one read; None for a tick without one (before timings were kept)."""
    ticks = [row["tick"] for row in rows]
    found = durations(store, min(ticks), max(ticks)) if ticks else {}
    for row in rows:
        row["duration_us"] = found.get(row["tick"])
        row["duration"] = shown_ms(row["duration_us"])
    return rows


def shown_ms(duration_us: int | None) -> str | None:
    """Microseconds shown as milliseconds: two decimals below 1 ms, one below 10 ms, then whole ones
    (``0.42 ms``, ``3.1 ms``, ``1,250 ms``)."""
    if duration_us is None:
        return None
    ms = duration_us / 1000
    return f"{ms:.2f} ms" if ms < 1 else f"{ms:.1f} ms" if ms < 10 else f"{ms:,.0f} ms"


@attrs.frozen
class TimelinePage:
    """A page of the timeline: its rows, newest first; ``older``, the ``before`` of the next page (None once
    tick 1 was read); ``searched`` the ticks read for it (``(oldest, newest)``), when a filtered page read
    :data:`SCAN_TICKS` of them before it filled (the page says which ticks it searched)."""

    rows: list[dict[str, Any]]
    older: int | None
    searched: tuple[int, int] | None = None


def timeline(
    store: Any, filters: Filters, before: int | None = None, limit: int = PAGE_TICKS, scan: int | None = None
) -> TimelinePage:
    """The newest ``limit`` ticks (before tick ``before``) that pass ``filters``, newest first.

    The journal is read backwards from ``before`` in windows, and only until the page is full: without
    filters that is ``limit`` records; with filters, at most ``scan`` (a rare match in a journal of
    months stops the page there, and its "older ticks" link searches on, instead of one request reading
    the whole journal under the inspector's lock); ``scan`` defaults to :data:`SCAN_TICKS`.
    """
    scan = SCAN_TICKS if scan is None else scan
    newest = tick_count(store)
    end = newest + 1 if before is None else min(before, newest + 1)
    window = limit if filters == Filters() else SCAN_WINDOW
    kept: list[dict[str, Any]] = []
    oldest = end  # the oldest tick read so far
    view = JournalView(store, lambda: None)
    while oldest > 1 and len(kept) < limit and end - oldest < scan:
        start = max(oldest - window, 1, end - scan)
        for found in reversed(view.records(since=start - 1, limit=oldest - start)):
            if found["tick"] >= oldest:
                continue
            oldest = found["tick"]
            row = timeline_row(found)
            if filters.keeps(row):
                kept.append(row)
                if len(kept) == limit:
                    break
        else:
            oldest = start
    cut = len(kept) < limit and oldest > 1  # the scan bound stopped it, not a full page or tick 1
    return TimelinePage(timed(store, kept), oldest if oldest > 1 else None, (oldest, end - 1) if cut else None)


def choices(store: Any, recent: int = MENU_TICKS) -> dict[str, list[str]]:
    """The sources and agents of the ``recent`` newest ticks (the timeline's filter menus)."""
    sources, agents = set(), set()
    for found in journal(store, max(tick_count(store) - recent, 0)):
        sources.add(str((found.get("input") or {}).get("source", "")))
        agents.add(str((found.get("router_decision") or {}).get("agent", "")))
    return {"sources": sorted(sources), "agents": sorted(agents), "codes": sorted(F_SENTENCES)}


def tick_detail(found: dict[str, Any], store: Any = None) -> dict[str, Any]:
    """One tick's record, grouped for its page; with ``store``, its row has the tick's duration (:func:`timed`)."""
    modules = found.get("modules") or {}
    externals = found.get("externals") or {}
    row = timeline_row(found)
    if store is not None:
        timed(store, [row])
    return {
        "row": row,
        "record": found,
        "input": found.get("input") or {},
        "decision": found.get("router_decision") or {},
        "selected": found.get("selected_agents") or [],
        "agent_outputs": found.get("agent_outputs") or {},
        "module_order": modules.get("order", []),
        "module_calls": modules.get("calls", []),
        "beliefs": found.get("beliefs") or {},
        "evidence": found.get("evidence_items") or [],
        "claims": found.get("claims") or [],
        "votes": found.get("council_votes") or [],
        "plan": found.get("plan") or {},
        "goal": found.get("goal"),
        "action": found.get("action") or {},
        "observation": found.get("observation") or {},
        "intents": tool_intents(found),
        "externals": sorted(externals),
        "compared": compared_fields(found),
        "sem_reads": found.get("sem_reads") or [],
        "sem_writes": found.get("sem_writes") or [],
    }


def compared_fields(found: dict[str, Any]) -> list[dict[str, str]]:
    """What replay compares for this tick, each field with its canonical JSON (``agi_core.replay``)."""
    from agi_core.replay import compared_fields as fields

    return [{"field": field, "json": dumps(found.get(field))} for field in fields(found)]


def tool_intents(found: dict[str, Any]) -> list[dict[str, Any]]:
    """The tick's tool call: an intent (write/external, run after commit) or a receipt of an earlier one."""
    action = found.get("action") or {}
    out: list[dict[str, Any]] = []
    if action.get("type") == "tool":
        out.append({"kind": "call", "tool": action.get("name"), "args": dumps(action.get("args") or {})})
    receipt = (found.get("agent_outputs") or {}).get("receipt")
    if receipt is not None:
        out.append({"kind": "receipt", "tool": "", "args": dumps(receipt)})
    observation = (found.get("externals") or {}).get("tool_observation")
    if observation is not None:
        out.append({"kind": "observation", "tool": action.get("name", ""), "args": dumps(observation)})
    return out


def intents(store: Any) -> list[dict[str, Any]]:
    """Every write/external intent and the tick of its receipt (None: never receipted)."""
    return [
        {"tick": tick, "tool": tool, "args": dumps(args), "receipt": receipt}
        for tick, tool, args, receipt in store.intents()
    ]


def goals(store: Any) -> list[dict[str, Any]]:
    from agi_core.scheduling import goals as goal_store
    from agi_core.serialization import to_data

    return [to_data(goal) for goal in goal_store.all_goals(store)]


def modules(kernel: Any) -> list[dict[str, Any]]:
    """The modules in run order with their stored state (``agi modules`` and ``agi modules show``)."""
    from agi_core.modules.cli import module_rows
    from agi_core.modules.state import dump_state

    return [
        {**row, "state": {key: dumps(value) for key, value in dump_state(kernel.store, row["name"]).items()}}
        for row in module_rows(kernel)
    ]


def absent_modules(kernel: Any) -> list[dict[str, Any]]:
    """The modules this agent ran (its newest tick's run order) or keeps state for whose plugin is not loaded in
    this process (another ``AGI_LOAD_PLUGINS``, or not installed here), each with its stored state."""
    from agi_core.memory.backend import ModuleStateStore
    from agi_core.modules.state import dump_state

    loaded = {module.name for module in kernel.modules}
    newest = record(kernel.store, tick_count(kernel.store))
    ran = [str(name) for name in ((newest or {}).get("modules") or {}).get("order", [])]
    sizes = kernel.store.module_state_sizes() if isinstance(kernel.store, ModuleStateStore) else {}
    names = [name for name in dict.fromkeys([*ran, *sorted(sizes)]) if name not in loaded]
    return [
        {
            "name": name,
            "ran": name in ran,
            "state_keys": sizes.get(name, (0, 0))[0],
            "state_bytes": sizes.get(name, (0, 0))[1],
            "state": {key: dumps(value) for key, value in dump_state(kernel.store, name).items()},
        }
        for name in names
    ]


def search(kernel: Any, query: str, k: int = 10) -> list[dict[str, Any]]:
    """``agi memory search``: long-term memory hits with their score breakdown."""
    memory = kernel.long_term
    return [hit.to_dict() for hit in memory.search(query, k)]


def facts(store: Any, prefix: str = "", limit: int = 200) -> list[dict[str, Any]]:
    return [
        {"key": fact.key, "value": dumps(fact.value), "updated": fact.updated_at}
        for fact in store.facts(prefix, limit=limit)
    ]


def checkpoints(store: Any) -> list[dict[str, Any]]:
    from agi_core.checkpoints import list_checkpoints

    return [{"name": info.name, "tick": info.tick} for info in list_checkpoints(store)]
