"""Which agi-core and plugin versions wrote the journal: a history in the ``meta`` row ``versions``.

The row holds a JSON list, oldest first, of ``{"tick": N, "agi-core": V, "plugins": {name: V}}``:
the ticks from ``N`` on (until the next entry's) were written by agi-core ``V`` with those
third-party plugins loaded (built-ins are agi-core's own). The kernel appends an entry in the
transaction of a run's first tick (a run: one kernel open), and again after another process
wrote, only when the last entry differs from its own versions; every other tick reads nothing.
A meta row written in a tick's transaction is sealed, checkpointed, rolled back, exported and
imported with the rest of the agent, and it is not part of any journal record: replay compares
nothing new, and journals written before the history existed replay as they did (their ticks
have no entry: written by versions nobody recorded).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import orjson

if TYPE_CHECKING:
    from agi_core.memory.backend import MetaStore

KEY = "versions"
CORE = "agi-core"

Versions = dict[str, Any]  # {"agi-core": V, "plugins": {name: V}}


def running(core: str, plugins: Mapping[str, str]) -> Versions:
    """The versions of this process: agi-core ``core`` and the third-party ``plugins`` ({name: version})."""
    return {CORE: core, "plugins": dict(sorted(plugins.items()))}


def history(store: MetaStore) -> list[dict[str, Any]]:
    """Every entry of the stored history, oldest first; ``[]`` for a database from before it."""
    text = store.meta_get(KEY)
    if not text:
        return []
    try:
        found = orjson.loads(text)
    except orjson.JSONDecodeError:
        return []  # an edited row: journal verify names it (the seal covers meta)
    return [entry for entry in found if isinstance(entry, dict)] if isinstance(found, list) else []


def same(entry: Mapping[str, Any] | None, versions: Versions) -> bool:
    return entry is not None and entry.get(CORE) == versions[CORE] and entry.get("plugins") == versions["plugins"]


def note(store: MetaStore, tick: int, versions: Versions) -> dict[str, str]:
    """The meta row to write with tick ``tick`` (``{}`` when the last entry already has these versions)."""
    entries = history(store)
    if same(entries[-1] if entries else None, versions):
        return {}
    return {KEY: orjson.dumps([*entries, {"tick": tick, **versions}]).decode()}


def writer_of(entries: list[dict[str, Any]], tick: int) -> dict[str, Any] | None:
    """The entry whose versions wrote ``tick``; None when no recorded entry covers it."""
    found = None
    for entry in entries:
        if int(entry.get("tick", 0)) <= tick:
            found = entry
    return found


def describe(entry: Mapping[str, Any]) -> str:
    """``agi-core 0.1.0 with plugins beliefs 0.2.0, social 1.0`` (or ``… with no other plugins``)."""
    plugins = entry.get("plugins") or {}
    listed = ", ".join(f"{name} {version}" for name, version in sorted(plugins.items()))
    return f"{CORE} {entry.get(CORE)} " + (f"with plugins {listed}" if listed else "with no other plugins")


def difference(entries: list[dict[str, Any]], tick: int, versions: Versions) -> str | None:
    """One sentence naming the versions that wrote ``tick`` when they are not ``versions``; else None."""
    entry = writer_of(entries, tick)
    if entry is None or same(entry, versions):
        return None
    return f"tick {tick} was written by {describe(entry)}; this is {describe(versions)}"


def spans(entries: list[dict[str, Any]], last_tick: int) -> list[str]:
    """``ticks 1..4: agi-core 0.1.0 with …`` for each stretch of the journal up to ``last_tick``, oldest first;
    ticks before the first entry are ``not recorded`` (written before agi-core recorded versions)."""
    lines = []
    starts = [int(entry.get("tick", 0)) for entry in entries]
    if last_tick and (not starts or starts[0] > 1):
        lines.append(f"ticks 1..{min(last_tick, starts[0] - 1) if starts else last_tick}: not recorded")
    for index, (start, entry) in enumerate(zip(starts, entries, strict=True)):
        if start > last_tick:
            break
        end = starts[index + 1] - 1 if index + 1 < len(starts) else last_tick
        lines.append(f"ticks {start}..{min(end, last_tick)}: {describe(entry)}")
    return lines
